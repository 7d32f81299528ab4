"""What a search is asked and what it answers: the query, its check, the hits (pure).

The file index (`trinho.search.index`) and PostgreSQL's search answer the same `Query` with
the same `Hit`s, and refuse the same queries (`validate_query`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from trinho.errors import TrinhoError
from trinho.search.documents import KINDS, Kind
from trinho.search.tokenize import query_terms


@dataclass(frozen=True)
class Hit:
    """One search result; `refs` are the source ids it covers (a turn's `ref`, else path:line)."""

    kind: Kind
    path: str
    line: int
    date: date | None
    text: str
    score: float
    refs: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "path": self.path,
            "line": self.line,
            "date": None if self.date is None else self.date.isoformat(),
            "text": self.text,
            "score": float(f"{self.score:.6g}"),
            "refs": list(self.refs),
        }


@dataclass(frozen=True)
class Found:
    """A search's answer: the hits, the people the query named (so a caller can search for
    the next hop), and for each hit the reasons it ranks where it does."""

    hits: list[Hit]
    entities: tuple[str, ...]
    why: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Query:
    """A search request; `kinds` empty means every kind. Dates are inclusive."""

    text: str
    limit: int = 10
    since: date | None = None
    until: date | None = None
    kinds: tuple[Kind, ...] = ()
    today: date | None = None
    """The day against which `December 4`, `last Friday`, `hôm 20/11` are resolved
    (`dates.asked_span`); None: the owner's today in their zone (`Workspace.today`)."""


MAX_LIMIT = 1000
"""The most hits one search returns: a bigger number is refused, never handed to SQLite."""


def validate_query(query: Query) -> list[str]:
    """The query's terms, or a clear error when there is nothing to search for."""
    if not 1 <= query.limit <= MAX_LIMIT:
        shown = query.limit if query.limit < 10**12 else f"{str(query.limit)[:12]}..."
        raise TrinhoError.keyed("error.search.bad_limit", limit=shown, most=MAX_LIMIT)
    for kind in query.kinds:
        if kind not in KINDS:
            raise TrinhoError.keyed("error.search.bad_kind", kind=kind, kinds=", ".join(KINDS))
    if query.since and query.until and query.since > query.until:
        raise TrinhoError.keyed(
            "error.search.since_after_until", since=query.since, until=query.until
        )
    found = query_terms(query.text)
    if not found:
        raise TrinhoError.keyed("error.search.no_terms")
    return found
