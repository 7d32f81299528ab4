"""MEMORY.md: the document (`format`, pure) and its one reader and writer (`store`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trinho.exports import lazy_exports

if TYPE_CHECKING:
    from trinho.memory.format import Entry as Entry
    from trinho.memory.format import Heading as Heading
    from trinho.memory.format import Loose as Loose
    from trinho.memory.format import MemoryDoc as MemoryDoc
    from trinho.memory.format import format_entry as format_entry
    from trinho.memory.format import parse as parse
    from trinho.memory.format import render as render


__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "trinho.memory.format": (
            "Entry",
            "Heading",
            "Loose",
            "MemoryDoc",
            "format_entry",
            "parse",
            "render",
        ),
    },
)
