"""Undoing a condensation run: what it reverts, what it withdraws, what it keeps (pure).

An undo puts MEMORY.md back as it was before the run, so it takes back every change of the
run: those that applied by themselves, and those the owner approved since (the run's, and
any other approval made after the run that the old text does not hold). It withdraws the
run's changes still waiting, and keeps what OpenClaw promoted into MEMORY.md after the run
(a promotion marker, the line it tags, the heading of the section it opened): those lines go
back where they were, among the old text. Lines added since the run by anything else (a hand
edit) go, and the plan names them. `memory/archive.md` loses the sections the undo brings
back into MEMORY.md (the run's, and those of archives approved since), so no line is in both.

`plan_undo` is a fixpoint: planned again on the files it wrote, it writes them again the same,
so an undo run twice, or cut off between its writes and run again, ends as one clean undo.
`render_plan` says it all in the owner's locale, before (the confirmation) and after.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from trinho.condense.rules.archive import SECTION_PREFIX, section_heading
from trinho.condense.rules.gate import Change
from trinho.condense.rules.held import find_line
from trinho.i18n import t
from trinho.i18n.keys import GATE_CLASS
from trinho.openclaw.markers import promotion_lines
from trinho.textnorm import one_line, short_ids

SHOWN = 20
"""Lines listed per part of the plan; the rest are counted."""


@dataclass(frozen=True)
class Decision:
    """One MEMORY.md proposal as the undo sees it: its id, the run that made it (None when a
    run did not), its status, its change, and whether this run's undo already decided it (a
    rerun after a crash reports it as the first undo did)."""

    id: str
    run: str | None
    status: str
    change: Mapping[str, Any]
    by_this_undo: bool = False


@dataclass(frozen=True)
class UndoPlan:
    """What the undo of run `run_id` writes and says.

    `memory` is MEMORY.md's text after it (None: no file, the run wrote the first one) and
    `archive` the archive's; `auto` the run's changes that applied by themselves, `approved`
    the approvals taken back, `withdrawn` the ids of the run's waiting changes, `kept` the
    lines OpenClaw promoted since the run (kept), `removed` the lines added since the run by
    anything else (removed; the text is kept in the run's folder), `unarchived` the lines that
    leave the archive for MEMORY.md again.
    """

    run_id: str
    memory: str | None
    archive: str
    auto: tuple[Change, ...] = ()
    approved: tuple[Decision, ...] = ()
    withdrawn: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    unarchived: tuple[str, ...] = ()


def plan_undo(
    run_id: str,
    before: str | None,
    current: str | None,
    archive: str,
    auto: Sequence[Change],
    decisions: Iterable[Decision],
) -> UndoPlan:
    """The undo of run `run_id`, from MEMORY.md before the run (`before`, None when there was
    none) and now (`current`), the archive now, the run's self-applied changes and the
    MEMORY.md proposals decided or waiting (`decisions`: the run's, and approvals since)."""
    memory, kept, dropped = restore(before, current)
    back = memory.split("\n") if memory is not None else []
    approved: list[Decision] = []
    withdrawn: list[str] = []
    for d in decisions:
        mine = d.run == run_id
        if mine and (d.status == "pending" or (d.status == "stale" and d.by_this_undo)):
            withdrawn.append(d.id)
        elif (d.status == "approved" or (d.status == "reverted" and d.by_this_undo)) and (
            mine or takes_back(d.change, back)
        ):
            approved.append(d)
    archive_after, unarchived = without_sections(archive, run_id, _sections(approved))
    made = {line for c in auto for line in _added(c.to_dict())}
    made |= {line for d in approved for line in _added(d.change)}
    still = set(back)  # a line only moved since the run is not removed: the old text has it
    removed = tuple(line for line in dropped if line not in made and line not in still)
    shown_auto = tuple(c for c in auto if c.cls != "folded")
    return UndoPlan(
        run_id,
        memory,
        archive_after,
        shown_auto,
        tuple(approved),
        tuple(withdrawn),
        kept,
        removed,
        unarchived,
    )


def archive_after(plan: UndoPlan, archive: str) -> str:
    """`archive` as the plan leaves it: for the shell, which reads it again under its lock."""
    return without_sections(archive, plan.run_id, _sections(plan.approved))[0]


def _sections(approved: Iterable[Decision]) -> frozenset[str]:
    """The archive headings of the archives among `approved` (made by a run)."""
    return frozenset(
        section_heading(d.run, str(d.change.get("old") or "").split("\n"))
        for d in approved
        if d.change.get("class") == "archive" and d.run is not None
    )


def restore(
    before: str | None, current: str | None
) -> tuple[str | None, tuple[str, ...], tuple[str, ...]]:
    """MEMORY.md put back: `before`, with what OpenClaw promoted since (in `current`, not in
    `before`) where it was among the old lines. Returns the text (None: no file), the
    promoted lines kept and the other lines of `current` that go."""
    if current is None:
        return before, (), ()
    old = before.split("\n") if before is not None else []
    now = current.split("\n")
    promoted = promotion_lines(now)
    out: list[str] = []
    kept: list[str] = []
    dropped: list[str] = []
    matcher = difflib.SequenceMatcher(None, old, now, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        out.extend(old[i1:i2])
        if tag in ("insert", "replace"):
            picked = _picked(now, j1, j2, promoted)
            out.extend(now[j] for j in picked)
            kept.extend(now[j] for j in picked if now[j].strip())
            dropped.extend(now[j] for j in range(j1, j2) if j not in picked and now[j].strip())
    if before is None and not kept:
        return None, (), tuple(dropped)
    return "\n".join(out), tuple(kept), tuple(dropped)


def _picked(now: Sequence[str], start: int, end: int, promoted: Collection[int]) -> list[int]:
    """The lines of `now[start:end]` (a stretch the old text lacks) that stay: the promoted
    ones, the blank lines among them and right before them, and, at the end of the file, the
    blank lines after them (the file's last line break)."""
    ours = [j for j in range(start, end) if j in promoted]
    if not ours:
        return []
    first, last = ours[0], ours[-1]
    while first > start and not now[first - 1].strip():
        first -= 1
    if end == len(now):
        tail = last
        while tail + 1 < end and not now[tail + 1].strip():
            tail += 1
        last = tail
    return [j for j in range(first, last + 1) if j in promoted or not now[j].strip()]


def takes_back(change: Mapping[str, Any], lines: Sequence[str]) -> bool:
    """Whether MEMORY.md as `lines` no longer holds what approving `change` did: putting the
    old text back took the approval back too."""
    cls = change.get("class")
    old, new = change.get("old"), change.get("new")
    if cls == "suspicious":
        return "\n".join(lines) != change.get("rewrite")
    if cls == "archive":
        wanted = Counter(str(old or "").split("\n"))
        return not wanted - Counter(lines)
    if isinstance(old, str):
        return find_line(list(lines), old) is not None
    return isinstance(new, str) and new not in lines


def _added(change: Mapping[str, Any]) -> tuple[str, ...]:
    """The lines a change put into MEMORY.md."""
    if change.get("class") == "suspicious":
        return tuple(str(change.get("rewrite") or "").split("\n"))
    new = change.get("new")
    return (new,) if isinstance(new, str) else ()


def without_sections(
    archive: str, run_id: str, headings: Collection[str] = ()
) -> tuple[str, tuple[str, ...]]:
    """`memory/archive.md` without the sections of run `run_id` and those headed one of
    `headings`, and the lines they held. A section runs from its heading to the next `## `
    heading, the blank line that parts it from the next one included; an archive left with
    nothing but blank lines is empty."""
    lines = archive.split("\n")
    prefix = f"{SECTION_PREFIX}{one_line(run_id)}"
    kept: list[str] = []
    taken: list[str] = []
    inside = False
    for raw in lines:
        if raw.startswith("## "):
            inside = raw in headings or raw == prefix or raw.startswith(prefix + " (sha256 ")
            if inside:
                continue
        if inside:
            if raw.strip():
                taken.append(raw)
            continue
        kept.append(raw)
    if not taken and len(kept) == len(lines):
        return archive, ()
    text = "\n".join(kept)
    return ("" if not text.strip() else text), tuple(taken)


def render_plan(plan: UndoPlan, locale: str, kept_at: str | None = None) -> list[str]:
    """The plan in the owner's words, one part a line followed by its lines: the run's own
    changes, the approvals, the waiting changes, the promotions kept, the lines removed (and
    where their text is kept: `kept_at`, once the undo wrote it), the archive's lines."""
    out: list[str] = []
    if plan.auto:
        out.append(t(locale, "condense.undo.auto", count=len(plan.auto)))
        out.extend(_listed([_change_line(c.to_dict(), locale) for c in plan.auto], locale))
    short = short_ids([*(d.id for d in plan.approved), *plan.withdrawn])
    if plan.approved:
        out.append(t(locale, "condense.undo.approved", count=len(plan.approved)))
        out.extend(
            _listed(
                [f"{short[d.id]}: {_change_line(d.change, locale)}" for d in plan.approved],
                locale,
            )
        )
    if plan.withdrawn:
        out.append(
            t(
                locale,
                "condense.undo.withdrawn",
                count=len(plan.withdrawn),
                ids=", ".join(short[pid] for pid in plan.withdrawn),
            )
        )
    if plan.unarchived:
        out.append(t(locale, "condense.undo.unarchived", count=len(plan.unarchived)))
        out.extend(_listed(plan.unarchived, locale))
    if plan.kept:
        out.append(t(locale, "condense.undo.kept", count=len(plan.kept)))
        out.extend(_listed(plan.kept, locale))
    if plan.removed:
        where = kept_at if kept_at is not None else t(locale, "condense.undo.run_folder")
        out.append(t(locale, "condense.undo.removed", count=len(plan.removed), kept=where))
        out.extend(_listed(plan.removed, locale))
    if not (plan.auto or plan.approved or plan.removed):
        out.append(t(locale, "condense.undo.nothing"))
    return out


def _listed(lines: Sequence[str], locale: str) -> list[str]:
    shown = [f"  - {one_line(line)}" for line in lines[:SHOWN]]
    if len(lines) > SHOWN:
        shown.append("  " + t(locale, "condense.undo.more", count=len(lines) - SHOWN))
    return shown


def _change_line(change: Mapping[str, Any], locale: str) -> str:
    """`label: old → new` (one side when the other is missing; an archive counts its lines)."""
    cls = str(change.get("class"))
    label = t(locale, GATE_CLASS[cls]) if cls in GATE_CLASS else cls
    old, new = change.get("old"), change.get("new")
    if cls == "archive":
        count = len(str(old or "").split("\n"))
        return f"{label}: " + t(locale, "condense.undo.archive_lines", count=count)
    if cls == "suspicious":
        return label
    if isinstance(old, str) and isinstance(new, str):
        return f"{label}: {one_line(old)} → {one_line(new)}"
    side = new if isinstance(new, str) else old
    return f"{label}: {one_line(str(side))}" if side is not None else label
