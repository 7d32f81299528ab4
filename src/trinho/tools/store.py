"""What the agent tools read and write of one owner's memory, as a narrow Protocol, and the
file workspace behind it.

`ToolRecords` is the seam the tools' handlers and the MCP server's resources and prompts work
through, so the same handlers serve a file workspace (`FileTools`: the file stores as they
are) and one owner of the PostgreSQL store (`trinho.pg.tooling.PgToolRecords`).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Protocol

from trinho.context.assembly import Context
from trinho.context.run import build_context
from trinho.durable import read_regular
from trinho.errors import TrinhoError
from trinho.facts import store as facts
from trinho.notes.store import decode
from trinho.records.protocol import FileRecords, Records
from trinho.search import Found, Query, Snippet


class ToolRecords(Records, Protocol):
    """One owner's memory as a model's tool call, an MCP resource or an MCP prompt uses it:
    the owner's `Records`, and what the tools read of them besides."""

    @property
    def root(self) -> Path | None:
        """The folder an error sent to a client must not name (None: there is none)."""
        ...

    def find(self, query: Query) -> Found:
        """memory_search: the hits, and the people the query named."""
        ...

    def shown_path(self, path: str) -> str:
        """`path` as a hit shows it, when it names memory a model may read; a keyed error
        when it does not (outside the memory, or internal state)."""
        ...

    def memory_get(self, path: str, from_line: int = 1, lines: int | None = None) -> Snippet:
        """memory_get: lines of the memory file `path` names."""
        ...

    def file_text(self, path: str) -> str | None:
        """The whole text of the memory file `path` names; None when there is none."""
        ...

    def day_text(self, day: date) -> str:
        """The day's note file as it is written ("" when there is none)."""
        ...

    def facts_index_text(self, user: str) -> str:
        """The facts index as `trinho facts` shows it."""
        ...

    def prompt_context(self, user: str | None) -> Context:
        """The system block and preamble of the next turn."""
        ...


class FileTools(FileRecords):
    """A file workspace behind `ToolRecords`: each call is the file store's own (the calls
    `Records` has too are `FileRecords`')."""

    @property
    def root(self) -> Path:
        return self.ws.root

    def find(self, query: Query) -> Found:
        from trinho import search  # the index and its stemmer load only when searching

        return search.find(self.ws, query.text, query.limit, query.since, query.until, query.kinds)

    def shown_path(self, path: str) -> str:
        from trinho import search

        return search.readable_path(self.ws, path)

    def memory_get(self, path: str, from_line: int = 1, lines: int | None = None) -> Snippet:
        from trinho import search

        return search.memory_get(self.ws, path, from_line, lines)

    def file_text(self, path: str) -> str | None:
        target = self.ws.path(path)
        if not target.exists():
            return None
        if target.is_dir():
            raise TrinhoError.keyed("error.get.folder", path=path.rstrip("/") or path)
        return decode(read_regular(target), path)

    def day_text(self, day: date) -> str:
        path = self.ws.note_path(day)
        return decode(read_regular(path), self.ws.relative(path)) if path.exists() else ""

    def facts_index_text(self, user: str) -> str:
        return facts.facts_index(self.ws, user).text

    def prompt_context(self, user: str | None) -> Context:
        return build_context(self.ws, user)
