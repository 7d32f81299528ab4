"""What a rewrite held whole as suspicious would lose and add, as the owner reads it.

The gate holds such a rewrite as one change; the owner decides on it from a short listing: the
old lines it would remove (a few, with a count of the rest) and the lines it would add. Both
come from the gate's own pairing (`match`), so the listing agrees with the count in the reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from trinho.channels.render import clip
from trinho.condense.rules.match import match
from trinho.i18n import t
from trinho.textnorm import one_line

SHOWN_LINES = 5
"""Lines listed on each side; the rest are counted. Keeps a review screen well inside
Telegram's limit however large MEMORY.md is."""
SHOWN_LINE_CHARS = 200


@dataclass(frozen=True)
class RewriteLoss:
    """The old lines a rewrite drops and the lines it brings, each in file order."""

    removed: tuple[str, ...]
    added: tuple[str, ...]
    total: int
    """The old file's lines worth keeping (entries and non-blank hand-written lines)."""


def rewrite_loss(old_text: str, new_text: str) -> RewriteLoss:
    m = match(old_text, new_text)
    return RewriteLoss(
        removed=tuple(m.old[o].raw for o in m.lost),
        added=tuple(m.new[n].raw for n in m.gained),
        total=m.old_lines,
    )


def removed_text(loss: RewriteLoss, locale: str) -> str:
    head = t(locale, "condense.loss.removed", count=len(loss.removed), total=loss.total)
    return _listing(head, loss.removed, locale)


def added_text(loss: RewriteLoss, locale: str) -> str:
    return _listing(t(locale, "condense.loss.added", count=len(loss.added)), loss.added, locale)


def _listing(head: str, lines: Sequence[str], locale: str) -> str:
    shown = [f"  {clip(one_line(line), SHOWN_LINE_CHARS, locale)}" for line in lines]
    rest = len(lines) - SHOWN_LINES
    if rest > 0:
        shown = [*shown[:SHOWN_LINES], "  " + t(locale, "condense.loss.more", count=rest)]
    return "\n".join([head, *shown])


def suspicious_sides(change: Mapping[str, Any], locale: str) -> tuple[str, str]:
    """The old and new sides of a stored suspicious change (`Change.to_dict()`, a proposal's
    change): what it would remove, and what it would add."""
    loss = rewrite_loss(str(change.get("snapshot") or ""), str(change.get("rewrite") or ""))
    return removed_text(loss, locale), added_text(loss, locale)


def memory_sides(change: Mapping[str, Any], locale: str) -> tuple[str | None, str | None]:
    """The old and new sides of a stored MEMORY.md change as the owner sees them; for a rewrite
    held whole, the lines it would remove and add (a refusal reads as an added line)."""
    if change.get("class") == "suspicious":
        return suspicious_sides(change, locale)
    if change.get("class") == "archive":
        return archive_gist(str(change.get("old") or "").split("\n"), locale), t(
            locale, "channel.item.archived"
        )
    old, new = change.get("old"), change.get("new")
    return None if old is None else str(old), None if new is None else str(new)


ARCHIVE_NAMED = 3
"""The archived entries an announcement names; the rest are counted."""
ARCHIVE_NAMED_CHARS = 80


def archive_gist(lines: Sequence[str], locale: str) -> str:
    """An archive in one line: how many of the oldest entries move, the first few named
    ("Move 12 oldest entries to the archive: «…», «…», «…», and 9 more"). The card on the
    review page lists every one."""
    entries = [line for line in lines if line.strip()]
    named = ", ".join(
        f"«{clip(_entry_words(line), ARCHIVE_NAMED_CHARS, locale)}»"
        for line in entries[:ARCHIVE_NAMED]
    )
    rest = len(entries) - ARCHIVE_NAMED
    if rest > 0:
        named = t(locale, "condense.loss.archived_more", entries=named, count=rest)
    return t(locale, "condense.loss.archived", count=len(entries), entries=named)


def _entry_words(line: str) -> str:
    """An entry without its list marker: `2025-01-05: Em gái tên là Lan`."""
    text = one_line(line)
    return text[2:] if text.startswith(("- ", "* ", "+ ")) else text
