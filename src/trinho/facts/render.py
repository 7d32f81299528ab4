"""The facts index: the facts that hold on a day, one line each, as the prompt, `trinho facts`,
the MCP resource and OpenClaw's digest file show them (pure).

`build_index` caps it in characters and says how many were left out; the prompt takes it
uncapped (`trinho.context.assembly.fact_lines`) and keeps the newest within its token budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from trinho.errors import BrokenFile
from trinho.facts.rules import Basis, Fact
from trinho.i18n import t
from trinho.textnorm import one_line


@dataclass(frozen=True)
class IndexLine:
    """A fact that holds today, with the version that holds."""

    key: str
    value: str
    basis: Basis
    valid_from: date
    valid_to: date | None


@dataclass(frozen=True)
class FactsIndex:
    """The compact facts index; `omitted` facts did not fit in its character cap."""

    entries: tuple[IndexLine, ...]
    lines: tuple[str, ...]
    omitted: int
    broken: tuple[BrokenFile, ...]
    locale: str

    @property
    def text(self) -> str:
        tail = [t(self.locale, "facts.omitted", count=self.omitted)] if self.omitted else []
        return "\n".join([*self.lines, *tail])


DEFAULT_INDEX_CHARS = 4000
"""The character cap of the index as `trinho facts` and the MCP resource show it."""


def index_line(entry: IndexLine, locale: str) -> str:
    """`key: value (basis, since D)` on one line, or `... from D to E` when it ends."""
    value = one_line(entry.value)
    if entry.valid_to:
        return t(
            locale,
            "facts.line_until",
            fact=entry.key,
            value=value,
            basis=entry.basis,
            since=entry.valid_from,
            until=entry.valid_to,
        )
    return t(
        locale,
        "facts.line",
        fact=entry.key,
        value=value,
        basis=entry.basis,
        since=entry.valid_from,
    )


def current_facts(facts: Sequence[Fact], today: date) -> list[IndexLine]:
    """The facts that hold today, by key."""
    current = []
    for fact in sorted(facts, key=lambda f: f.key):
        v = fact.value_on(today)
        if v is not None:
            current.append(IndexLine(fact.key, v.value, v.basis, v.valid_from, v.valid_to))
    return current


def build_index(
    facts: Sequence[Fact], today: date, locale: str, max_chars: int = DEFAULT_INDEX_CHARS
) -> tuple[list[IndexLine], list[str], int]:
    """The current facts by key, as many whole lines as fit in `max_chars` with the notice."""
    current = current_facts(facts, today)
    kept: list[IndexLine] = []
    lines: list[str] = []
    used = 0
    for position, entry in enumerate(current):
        line = index_line(entry, locale)
        left = len(current) - position - 1
        tail = len(t(locale, "facts.omitted", count=left)) + 1 if left else 0
        if used + len(line) + 1 + tail > max_chars:
            break
        kept.append(entry)
        lines.append(line)
        used += len(line) + 1
    return kept, lines, len(current) - len(kept)


def render_facts_digest(entries: Sequence[IndexLine], mark: str, locale: str) -> str:
    """The digest of current facts kept in `memory/` for OpenClaw's own search: `mark` first
    (so trinho knows its own file), a line saying it is generated, then one fact a line."""
    lines = [mark, t(locale, "facts.digest_heading"), "", t(locale, "facts.digest_note"), ""]
    lines.extend(f"- {index_line(entry, locale)}" for entry in entries)
    if not entries:
        lines.append(t(locale, "context.empty"))
    return "\n".join(lines) + "\n"
