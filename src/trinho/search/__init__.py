"""memory_search and memory_get: ranked hits over notes, MEMORY.md, facts and conversations.

The index is derived from the workspace files (`.trinho/index.sqlite`) and kept fresh on
its own: see `trinho.search.index`; `trinho.search.service` is the small public face.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trinho.exports import lazy_exports

if TYPE_CHECKING:
    from trinho.search.base import Found as Found
    from trinho.search.base import Hit as Hit
    from trinho.search.base import Query as Query
    from trinho.search.documents import KINDS as KINDS
    from trinho.search.documents import Kind as Kind
    from trinho.search.index import SearchIndex as SearchIndex
    from trinho.search.index import open_index as open_index
    from trinho.search.service import Snippet as Snippet
    from trinho.search.service import close_kept as close_kept
    from trinho.search.service import configured_embedder as configured_embedder
    from trinho.search.service import find as find
    from trinho.search.service import kept_index as kept_index
    from trinho.search.service import memory_get as memory_get
    from trinho.search.service import notify_written as notify_written
    from trinho.search.service import readable_path as readable_path
    from trinho.search.service import search as search
    from trinho.search.vectors import Embedder as Embedder
    from trinho.search.vectors import OpenAIEmbedder as OpenAIEmbedder


__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "trinho.search.documents": ("KINDS", "Kind"),
        "trinho.search.base": ("Found", "Hit", "Query"),
        "trinho.search.index": ("SearchIndex", "open_index"),
        "trinho.search.service": (
            "Snippet",
            "close_kept",
            "configured_embedder",
            "find",
            "kept_index",
            "memory_get",
            "notify_written",
            "readable_path",
            "search",
        ),
        "trinho.search.vectors": ("Embedder", "OpenAIEmbedder"),
    },
)
