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
        lines = str(change.get("old") or "").split("\n")
        head = t(locale, "condense.loss.archived", count=len(lines))
        return _listing(head, lines, locale), None
    old, new = change.get("old"), change.get("new")
    return None if old is None else str(old), None if new is None else str(new)
