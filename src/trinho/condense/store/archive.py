"""Keeping MEMORY.md within its prompt budget: when a run leaves it over `[context]
memory_tokens`, the least recently dated entries move, verbatim, to `memory/archive.md`
(searchable, out of the prompt). The plan is pure (`trinho.condense.rules.archive`); this module
decides, from the config and the queue, whether a run asks for it, applies it, or does not.
"""

from __future__ import annotations

from collections.abc import Sequence

from trinho.condense.rules.archive import (
    ArchivePlan,
    archive_stands,
    archive_waits_or_was_refused,
    pinned_lines,
    plan_archive,
)
from trinho.condense.rules.gate import Change, GateVerdict
from trinho.condense.rules.reasons import Reason
from trinho.config import ArchiveMode
from trinho.context.budget import estimate_tokens
from trinho.proposals import store as proposals
from trinho.proposals.format import Proposal
from trinho.workspace import Workspace

KIND = "memory"


def archive_mode(ws: Workspace) -> ArchiveMode:
    """`[condense] archive`: "ask" (the default: one proposal), "auto" (applies by itself:
    nothing is lost, it stays searchable) or "off"."""
    return ws.config.condense.archive


def archive_change(
    ws: Workspace, text: str, budget: int, held: Sequence[Change] = ()
) -> tuple[Change, ArchivePlan] | None:
    """The run's archive change for MEMORY.md as it will be written (`text`), or None: within
    budget, archiving off, an archive already waiting that still stands, or one rejected since
    which the file has not grown by another tenth of the budget.

    No line another change acts on moves (`pinned_lines`): not one of the run's `held`
    changes, nor one of a proposal still pending from an earlier run. A waiting archive that
    holds such a line (or a line no longer there) does not stand: this run's archive replaces
    it (`expire_conflicting_archives` makes it stale once this one is proposed)."""
    mode = archive_mode(ws)
    if mode == "off":
        return None
    queue = [p for p in proposals.list_proposals(ws).proposals if p.kind == KIND]
    pending = [p.change for p in queue if p.status == "pending"]
    pinned = pinned_lines(text, [*pending, *(c.to_dict() for c in held)])
    plan = plan_archive(text, budget, pinned)
    if plan is None or (mode == "ask" and _answered(queue, text, pinned, budget)):
        return None
    why = Reason.of(
        "over_budget", tokens=plan.tokens_before, budget=plan.budget_tokens, count=len(plan.lines)
    )
    verdict = GateVerdict("archive", "auto" if mode == "auto" else "held", why)
    return Change.judged(verdict, "\n".join(plan.raw_lines), None), plan


def archive_answered(ws: Workspace, text: str, budget: int) -> bool:
    """Whether the queue already answers an over-budget MEMORY.md `text` (`_answered`)."""
    queue = [p for p in proposals.list_proposals(ws).proposals if p.kind == KIND]
    pinned = pinned_lines(text, [p.change for p in queue if p.status == "pending"])
    return _answered(queue, text, pinned, budget)


def _answered(queue: Sequence[Proposal], text: str, pinned: frozenset[str], budget: int) -> bool:
    """Whether the queue already answers an over-budget MEMORY.md `text`: an archive proposal
    waits that still stands beside the other pending changes (`pinned`), or the owner's
    rejection of one still stands (`archive.py` decides)."""
    archives = [p for p in queue if p.change.get("class") == "archive"]
    rejected_at = [
        asked
        for p in archives
        if p.status == "rejected"
        and isinstance(asked := dict(p.change.get("reason_params", {})).get("tokens"), int)
    ]
    waiting = any(
        p.status == "pending" and archive_stands(_lines(p), text, pinned) for p in archives
    )
    tokens = estimate_tokens(text)
    return archive_waits_or_was_refused(tokens, budget, waiting=waiting, rejected_at=rejected_at)


def conflicting_archives(ws: Workspace, text: str) -> list[Proposal]:
    """The pending archive proposals that no longer stand on MEMORY.md's `text` beside the
    other pending changes: one of their lines is gone, or another change acts on it."""
    waiting = [
        p for p in proposals.list_proposals(ws, include_decided=False).proposals if p.kind == KIND
    ]
    pinned = pinned_lines(text, [p.change for p in waiting])
    return [
        p
        for p in waiting
        if p.change.get("class") == "archive" and not archive_stands(_lines(p), text, pinned)
    ]


def _lines(p: Proposal) -> tuple[str, ...]:
    return tuple(str(p.change.get("old") or "").split("\n"))


def archived_before(lines: tuple[str, ...], tokens: int, budget: int) -> Change:
    """The archive change of a run whose earlier attempt moved `lines` to the archive and was
    cut off before MEMORY.md lost them: they leave MEMORY.md now, and are not written again."""
    why = Reason.of("over_budget", tokens=tokens, budget=budget, count=len(lines))
    return Change.judged(GateVerdict("archive", "auto", why), "\n".join(lines), None)


def waiting_archive(ws: Workspace) -> Proposal | None:
    """The archive proposal that waits for the owner (the oldest, if ever more than one)."""
    waiting = [
        p
        for p in proposals.list_proposals(ws, include_decided=False).proposals
        if p.kind == KIND and p.change.get("class") == "archive"
    ]
    return min(waiting, key=lambda p: p.created_at) if waiting else None
