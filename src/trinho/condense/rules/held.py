"""Approving a held change: apply it to MEMORY.md as it is *then*, or say why it is stale.

The file may have moved on since the run (a hand edit, another approval), so every held change
names the line it acts on and is applied only if that line is still there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from trinho.condense.rules.gate import Change
from trinho.condense.rules.reasons import StaleReason
from trinho.errors import TrinhoError
from trinho.i18n import N_, t
from trinho.i18n.keys import APPROVED
from trinho.openclaw.markers import promotion_markers_of
from trinho.proposals.plan import Apply, StaleChange
from trinho.textnorm import shown_id

KIND = "memory"
"""The kind of a held MEMORY.md change's proposal: the key of its applier."""


@dataclass(frozen=True)
class HeldApplied:
    """The whole MEMORY.md text once the held change is approved."""

    text: str


@dataclass(frozen=True)
class Stale:
    why: StaleReason


def apply_held(current_text: str, change: Change) -> HeldApplied | Stale:
    """The text after approving `change` on `current_text`, or Stale with the reason."""
    lines = current_text.split("\n")
    if change.cls == "suspicious":
        if change.snapshot is None or change.rewrite is None:
            raise ValueError("a suspicious change carries the old file and the rewrite")
        if current_text != change.snapshot:
            return Stale(StaleReason("memory_changed"))
        return HeldApplied(change.rewrite)
    if change.cls == "moved":
        raise ValueError("moved lines apply with the rewrite; there is nothing to approve")
    if change.old is None:
        if change.new is None:
            raise ValueError(f"a {change.cls} change without a line: {change!r}")
        return HeldApplied(_insert(lines, change.new, change.after))
    at = find_line(lines, change.old)
    if at is None:
        return Stale(StaleReason.of("line_gone", line=change.old.strip()))
    if change.new is None:
        for gone in sorted((at, *promotion_markers_of(lines, at)), reverse=True):
            del lines[gone]  # a promoted line takes its OpenClaw marker with it
    else:
        lines[at] = change.new
    return HeldApplied("\n".join(lines))


TAKEN_BACK_CLASSES = frozenset({"added", "edited", "date_changed", "malformed", "strange_date"})
"""The held changes an approval can take back line for line: each wrote one line (`new`) in
place of one line or of nothing (`old`). A removal is put back by `restore_removed`; an archive
or a rewrite held whole is undone with its run (`trinho.condense.rules.undo`)."""


def held_change(change: dict[str, Any], where: object) -> Change:
    """The held change a memory proposal carries, or one keyed line naming `where` it is."""
    try:
        return Change.from_dict(change)
    except (ValueError, KeyError, TypeError) as exc:
        raise TrinhoError.keyed(
            "error.condense.not_memory_change", where=where, error=str(exc)
        ) from None


def check_approvable(change: Change, where: object, proposal_id: str, undone: str | None) -> None:
    """Refuse, in one line, approving what no person approves: a moved line or a change that
    was never held (they apply with their run), or a change of the run `undone` (a run undone
    since; an undo cut off before withdrawing it leaves it pending, still never applied)."""
    if change.cls == "moved" or not change.held:
        raise TrinhoError.keyed("error.condense.applies_itself", where=where, cls=change.cls)
    if undone is not None:
        raise TrinhoError.keyed("error.condense.run_undone", id=shown_id(proposal_id), run=undone)


def plan_edit(
    before: str, outcome: HeldApplied | Stale, stale_key: str, done: str, locale: str
) -> StaleChange | Apply[str]:
    """What an edit of MEMORY.md (`outcome` of a pure edit of `before`) writes: the new text
    (None when it is the same), or nothing and why (`stale_key`, with the reason)."""
    if not isinstance(outcome, HeldApplied):
        return StaleChange(t(locale, stale_key, reason=outcome.why.text(locale)))
    return Apply(outcome.text if outcome.text != before else None, done)


def plan_held(before: str, change: Change, locale: str) -> StaleChange | Apply[str]:
    """What approving a held line change writes to MEMORY.md as it is now (`before`): every
    store applies an approval through this."""
    done = t(locale, APPROVED[change.cls])
    return plan_edit(before, apply_held(before, change), N_("condense.stale"), done, locale)


def take_back_held(current_text: str, change: Change) -> HeldApplied | Stale:
    """The text with an approved change taken back: the line it wrote (`new`, exactly as
    written) back to what it replaced, or gone when it replaced nothing. Stale when that line
    was changed since; the text unchanged when it was taken back already (`old` is there and
    `new` is not), so a take-back that is run twice changes the file once."""
    if change.cls not in TAKEN_BACK_CLASSES or change.new is None:
        raise ValueError(f"a {change.cls} change is taken back with its run, not on its own")
    lines = current_text.split("\n")
    if change.new in lines:
        at = lines.index(change.new)
        if change.old is None:
            del lines[at]
        else:
            lines[at] = change.old
        return HeldApplied("\n".join(lines))
    if change.old is None or change.old in lines:
        return HeldApplied(current_text)
    return Stale(StaleReason.of("line_gone", line=change.new.strip()))


def restore_removed(current_text: str, change: Change, before_text: str) -> HeldApplied | Stale:
    """The text with an approved removal taken back: its line put back where it stood in
    `before_text` (MEMORY.md as its run found it): after the nearest line above it that is
    still there once, the same lines between them (blank ones) kept between; else before the
    nearest line below it so placed; else at the top, when what was above it still is.
    Unchanged when the line is there already (taken back once); stale when no neighbour is
    where it was (the text around it changed since)."""
    if change.cls != "removed" or change.old is None:
        raise ValueError(f"a {change.cls} change is not a removed line")
    lines = current_text.split("\n")
    if change.old in lines:
        return HeldApplied(current_text)
    old = before_text.split("\n")
    if change.old not in old:
        return Stale(StaleReason.of("line_gone", line=change.old.strip()))
    at = old.index(change.old)
    if "\n".join([*old[:at], *old[at + 1 :]]) == current_text:  # nothing changed since
        return HeldApplied(before_text)
    for place in (_after_above(lines, old, at), _before_below(lines, old, at)):
        if place is not None:
            return HeldApplied("\n".join([*lines[:place], change.old, *lines[place:]]))
    return Stale(StaleReason.of("line_gone", line=change.old.strip()))


def _after_above(lines: list[str], old: list[str], at: int) -> int | None:
    """Where the line goes below its nearest neighbour above (or at the top), or None."""
    for k in range(at - 1, -1, -1):
        if old[k].strip() and lines.count(old[k]) == 1:
            gap = old[k + 1 : at]
            found = lines.index(old[k]) + 1
            return found + len(gap) if lines[found : found + len(gap)] == gap else None
    return at if lines[:at] == old[:at] else None


def _before_below(lines: list[str], old: list[str], at: int) -> int | None:
    """Where the line goes above its nearest neighbour below, or None."""
    for m in range(at + 1, len(old)):
        if old[m].strip() and lines.count(old[m]) == 1:
            gap = old[at + 1 : m]
            found = lines.index(old[m])
            return (
                found - len(gap)
                if found >= len(gap) and lines[found - len(gap) : found] == gap
                else None
            )
    return None


def find_line(lines: list[str], raw: str) -> int | None:
    """Where `raw` is: the same line exactly, else the same line up to surrounding white space
    (a CR a CRLF file kept). Never a line that is only alike: "Đi đón Mai" is not "đi đón
    mai", so a change whose line the owner rewrote in the meantime is stale, not applied."""
    try:
        return lines.index(raw)
    except ValueError:
        pass
    wanted = raw.strip()
    return next((i for i, line in enumerate(lines) if line.strip() == wanted), None)


def _insert(lines: list[str], new: str, after: str | None) -> str:
    """Insert after the hinted line if it is there, else after the last non-blank line."""
    at = find_line(lines, after) if after is not None else None
    if at is None:
        at = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
        if at == -1 and lines == [""]:
            return new + "\n"
    lines.insert(at + 1, new)
    return "\n".join(lines)


def can_still_apply(change: Mapping[str, Any], text: str) -> bool:
    """Whether a stored held change may still apply to MEMORY.md's `text`: its old lines are
    all still there (a rewrite held whole: the file is still the one it was made for). One
    that cannot becomes stale at the next run, not only when someone tries to approve it."""
    if change.get("class") == "suspicious":
        return change.get("snapshot") == text
    old = change.get("old")
    present = set(text.split("\n"))
    return not isinstance(old, str) or all(line in present for line in old.split("\n"))
