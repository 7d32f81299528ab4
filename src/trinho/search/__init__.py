"""memory_search and memory_get: ranked hits over notes, MEMORY.md, facts and conversations.

The index is derived from the workspace files (`.trinho/index.sqlite`) and kept fresh on
its own: see `trinho.search.index`; `trinho.search.service` is the small public face.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trinho.search.documents import KINDS, Kind
    from trinho.search.index import Found, Hit, Query, SearchIndex, open_index
    from trinho.search.service import (
        Snippet,
        configured_embedder,
        find,
        memory_get,
        notify_written,
        readable_path,
        search,
    )
    from trinho.search.vectors import Embedder, OpenAIEmbedder

_EXPORTS = {
    "KINDS": "trinho.search.documents",
    "Embedder": "trinho.search.vectors",
    "Found": "trinho.search.index",
    "Hit": "trinho.search.index",
    "Kind": "trinho.search.documents",
    "OpenAIEmbedder": "trinho.search.vectors",
    "Query": "trinho.search.index",
    "SearchIndex": "trinho.search.index",
    "Snippet": "trinho.search.service",
    "configured_embedder": "trinho.search.service",
    "find": "trinho.search.service",
    "memory_get": "trinho.search.service",
    "readable_path": "trinho.search.service",
    "notify_written": "trinho.search.service",
    "open_index": "trinho.search.index",
    "search": "trinho.search.service",
}
"""Public name -> the module that defines it, imported on first use so that importing
one module of the package loads nothing else."""

__all__ = [
    "KINDS",
    "Embedder",
    "Found",
    "Hit",
    "Kind",
    "OpenAIEmbedder",
    "Query",
    "SearchIndex",
    "Snippet",
    "configured_embedder",
    "find",
    "memory_get",
    "notify_written",
    "open_index",
    "readable_path",
    "search",
]


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
