"""Writing MEMORY.md: a condensation run's text, an approved held change, an undo.

Every write replaces the file atomically under its lock, and a run keeps the text it replaced
so `trinho condense --undo RUN_ID` can put it back (keeping the text it undoes, too). An undo
withdraws the run's pending proposals: its journal records the undo before MEMORY.md is put
back, and a proposal from an undone run is refused even when a crash left it pending.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from trinho.clock import utc
from trinho.condense.rules.archive import apply_archive, archive_section
from trinho.condense.rules.gate import Change
from trinho.condense.rules.held import (
    KIND,
    TAKEN_BACK_CLASSES,
    check_approvable,
    held_change,
    plan_edit,
    plan_held,
    restore_removed,
    take_back_held,
)
from trinho.condense.rules.undo import Decision, UndoPlan, archive_after, plan_undo
from trinho.condense.store.runs import (
    BEFORE,
    ORIGIN,
    RUN_ID_RE,
    Journal,
    UndoEntry,
    advance,
    has_before,
    later_runs,
    origin_of,
    read_before,
    read_journal,
    require_run,
    run_dir,
    undone_origin,
    write_journal,
)
from trinho.durable import atomic_write_text
from trinho.errors import TrinhoError
from trinho.i18n import N_, t
from trinho.i18n.keys import APPROVED
from trinho.memory import store as memory_store
from trinho.notes.journal import read_floor
from trinho.proposals import store as proposals
from trinho.proposals.format import ApplyResult, Proposal
from trinho.proposals.plan import Apply, StaleChange, result_of
from trinho.workspace import Workspace


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def apply_memory_proposal(ws: Workspace, proposal: Proposal) -> ApplyResult:
    """Approving a held change applies it to MEMORY.md as it is now, or says why it cannot."""
    where = proposals.proposal_path(ws, proposal.id)
    change = held_change(proposal.change, where)
    check_approvable(change, where, proposal.id, undone_origin(ws, proposal.origin))
    if change.cls == "archive":
        return _apply_archive(ws, proposal, change)
    if change.cls == "suspicious" and _read_again(ws, proposal.origin):
        return ApplyResult(False, t(ws.locale, "condense.superseded_later"))
    intended = proposals.read_intent(ws, proposal.id)

    def plan(text: str) -> StaleChange | Apply[str]:
        if intended is not None and sha(text) == intended:  # this approval, cut off, run again
            return Apply(None, t(ws.locale, APPROVED[change.cls]))
        return plan_held(text, change, ws.locale)

    return _edit_memory(ws, plan, lambda new: proposals.write_intent(ws, proposal.id, sha(new)))


def take_back_memory_proposal(ws: Workspace, proposal: Proposal) -> ApplyResult:
    """Taking back an approved line: the line it wrote back to what it replaced (or gone), if
    it is still as the approval wrote it; a removed line back where its run found it
    (`restore_removed`). An archive or a rewrite held whole is taken back with its run's undo,
    which restores the whole span."""
    change = held_change(proposal.change, proposals.proposal_path(ws, proposal.id))
    done = t(ws.locale, "condense.take_back.done")
    stale = N_("condense.take_back.changed")
    run = proposal.origin.removeprefix(ORIGIN)
    if change.cls == "removed" and run != proposal.origin and has_before(ws, run):
        before = read_before(ws, run)
        if before is not None:
            return _edit_memory(
                ws,
                lambda text: plan_edit(
                    text, restore_removed(text, change, before), stale, done, ws.locale
                ),
            )
    if change.cls not in TAKEN_BACK_CLASSES or change.new is None:
        return ApplyResult(False, t(ws.locale, "condense.take_back.with_run"))
    return _edit_memory(
        ws, lambda text: plan_edit(text, take_back_held(text, change), stale, done, ws.locale)
    )


def _edit_memory(
    ws: Workspace,
    plan: Callable[[str], StaleChange | Apply[str]],
    before_write: Callable[[str], None] | None = None,
) -> ApplyResult:
    """MEMORY.md as `plan` says, under its lock: replaced when the plan writes a text (told to
    `before_write` first), left as it is when the plan finds the edit stale (and says why)."""
    with memory_store.editing(ws) as memory:
        planned = plan(memory.text())
        if isinstance(planned, Apply) and planned.write is not None:
            if before_write is not None:
                before_write(planned.write)
            memory.replace(planned.write)
    return result_of(planned)


def _read_again(ws: Workspace, origin: str) -> bool:
    """Whether a run started after the one that held this whole rewrite: its span reached
    back over that run's (which did not stand while its rewrite waited) and read the week
    again, so approving the rewrite now would fold the week in a second time. Told by the read
    floor, which every run raises to the end of its span before it reads; a later run that
    failed counts too, and the next run reads the week again all the same."""
    run_id = origin.removeprefix(ORIGIN)
    if run_id == origin or not RUN_ID_RE.fullmatch(run_id):
        return False
    journal = read_journal(ws, run_id)
    floor = read_floor(ws)
    return journal is not None and floor is not None and floor > utc(journal.started_at)


def _apply_archive(ws: Workspace, proposal: Proposal, change: Change) -> ApplyResult:
    """Move the archive's lines, as they are now in MEMORY.md, to `memory/archive.md`; stale
    when any of them is no longer there (edited or removed since)."""
    lines = (change.old or "").split("\n")
    run = proposal.origin.removeprefix("condense:")
    section = archive_section(run, lines)
    with memory_store.editing(ws) as memory:
        after = apply_archive(memory.text(), lines)
        if after is None:
            heading = section.split("\n", 1)[0]
            if heading in memory_store.archived_text(ws).split("\n"):
                # approved before, cut off before the decision was saved: it applied
                count = len(lines)
                return ApplyResult(True, t(ws.locale, "condense.approved.archive", count=count))
            return ApplyResult(False, t(ws.locale, "condense.archive_stale"))
        memory_store.archive(ws, section)  # a second approval finds it there: not again
        memory.replace(after)
    return ApplyResult(True, t(ws.locale, "condense.approved.archive", count=len(lines)))


@dataclass(frozen=True)
class UndoResult:
    run_id: str
    restored_from: str | None
    """Workspace-relative path of the version put back; None when the run wrote the first
    MEMORY.md, which the undo removes."""
    kept_current: str | None
    """Workspace-relative path where the text it replaced was kept; None when there was no
    MEMORY.md to keep (removed since a run that created it), or it was already the one the
    undo writes (an undo run again)."""
    changed_since: bool
    """MEMORY.md had changed since the run wrote it (approvals, hand edits): kept all the same."""
    withdrawn: tuple[str, ...] = ()
    """The ids of the run's pending proposals the undo withdrew (made stale)."""
    plan: UndoPlan | None = None
    """Everything the undo reverted, withdrew and kept (`trinho.condense.rules.undo`)."""

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "run_id": self.run_id,
            "restored_from": self.restored_from,
            "kept_current": self.kept_current,
            "changed_since": self.changed_since,
            "withdrawn": list(self.withdrawn),
        }
        if self.plan is not None:
            data |= plan_dict(self.plan)
        return data


def plan_dict(plan: UndoPlan) -> dict[str, object]:
    """The plan's parts for `--json`: what reverts, what is kept, what leaves the archive."""
    return {
        "reverted_auto": [change.to_dict() for change in plan.auto],
        "reverted_approved": [d.id for d in plan.approved],
        "kept_promoted": list(plan.kept),
        "removed_since": list(plan.removed),
        "unarchived": list(plan.unarchived),
    }


def undo_run(ws: Workspace, run_id: str) -> UndoResult:
    """Put back the MEMORY.md that run `run_id` replaced, keeping the current one as a version,
    with what OpenClaw promoted since; take the run's archived lines (and those of archives
    approved since) out of `memory/archive.md` again; mark the approvals it takes back
    `reverted` and withdraw every proposal of the run still pending. Its span is read again
    by the next run. Only the latest run that stands can be undone: a later run's MEMORY.md
    holds its changes too and read on from its cutoff, so undoing an older one is refused,
    naming the command that works (undo the later runs first, newest first).

    When there was no MEMORY.md before the run, putting it back means removing the file. The
    writes go in an order that a rerun finishes: the journal records the undo first (and ends
    the run: it is never resumed, nothing of it is approvable), then MEMORY.md gets its lines
    back, then the archive loses them (a crash between leaves them in both, never in
    neither), then the proposals are marked. The plan is a fixpoint, so running the undo again
    at any point writes what one clean undo writes, and nothing when it is complete.
    """
    folder = require_run(ws, run_id)
    journal = _undoable(ws, run_id)
    kept: Path | None = None
    with memory_store.editing(ws) as memory:
        current = memory.text() if memory.exists() else None
        plan = _plan(ws, journal, current)
        if current is not None and current != plan.memory:
            kept = _kept_copy(folder, current)
        if not journal.undone or (kept and all(e.kept != kept.name for e in journal.undone)):
            undone = UndoEntry(ws.now(), kept.name if kept else None)
            advance(ws, journal, "done", undone=(*journal.undone, undone))
        try:
            if plan.memory is None:
                memory.remove()
            elif plan.memory != current:
                memory.replace(plan.memory)
        except Exception:
            write_journal(ws, journal)  # not undone after all: the run's proposals stand
            raise
        memory_store.rewrite_archive(ws, lambda text: archive_after(plan, text))
    by = undo_by(run_id)
    for decision in plan.approved:
        proposals.revert(ws, decision.id, by)
    withdraw_run(ws, run_id)
    restored = journal.had_memory
    return UndoResult(
        run_id,
        ws.relative(folder / BEFORE) if restored else None,
        ws.relative(kept) if kept else None,
        changed_since=journal.applied_sha is not None
        and current is not None
        and sha(current) != journal.applied_sha,
        withdrawn=plan.withdrawn,
        plan=plan,
    )


def preview_undo(ws: Workspace, run_id: str) -> UndoPlan:
    """What `undo_run` would do now, writing nothing (the page's confirmation, `--dry-run`)."""
    require_run(ws, run_id)
    journal = _undoable(ws, run_id)
    return _plan(ws, journal, memory_store.read_text(ws) if memory_store.exists(ws) else None)


def undo_by(run_id: str) -> str:
    """Who an undo's decisions name: the command that made them."""
    return f"trinho condense --undo {run_id}"


def _undoable(ws: Workspace, run_id: str) -> Journal:
    """The run's journal when it can be undone now; else the one-line refusal."""
    journal = read_journal(ws, run_id)
    if journal is None or journal.state not in ("applied", "proposed", "done"):
        raise TrinhoError.keyed("error.run.nothing_to_undo", id=run_id)
    later = later_runs(ws, run_id) if not journal.undone else []
    if later:  # its MEMORY.md holds theirs too, and they read on from its cutoff
        raise TrinhoError.keyed(
            "error.run.not_latest", id=run_id, later=", ".join(later), latest=later[-1]
        )
    if journal.had_memory and not has_before(ws, run_id):
        path = run_dir(ws, run_id) / BEFORE
        raise TrinhoError.keyed("error.run.before_missing", path=path, id=run_id)
    return journal


def _plan(ws: Workspace, journal: Journal, current: str | None) -> UndoPlan:
    before = read_before(ws, journal.run_id) if journal.had_memory else None
    return plan_undo(
        journal.run_id,
        before,
        current,
        memory_store.archived_text(ws),
        journal.auto,
        _decisions(ws, journal),
    )


def _decisions(ws: Workspace, journal: Journal) -> list[Decision]:
    """The MEMORY.md proposals an undo of the run looks at: the run's own, whatever their
    status, and the approvals of others decided since the run started."""
    origin = origin_of(journal.run_id)
    by = undo_by(journal.run_id)
    since = utc(journal.started_at)
    found = []
    for p in proposals.list_proposals(ws).proposals:
        if p.kind != KIND:
            continue
        mine = p.origin == origin
        later = p.decided_at is not None and utc(p.decided_at) >= since
        if not mine and not (later and p.status in ("approved", "reverted")):
            continue
        run = p.origin.removeprefix(ORIGIN) if p.origin.startswith(ORIGIN) else None
        ours = p.decided_by == by or p.reverted_by == by
        found.append(Decision(p.id, run, p.status, p.change, by_this_undo=ours))
    return found


def withdraw_run(ws: Workspace, run_id: str) -> tuple[str, ...]:
    """Withdraw every pending proposal run `run_id` made; the ids of those withdrawn."""
    origin = origin_of(run_id)
    waiting = proposals.list_proposals(ws, include_decided=False).proposals
    return tuple(p.id for p in waiting if p.origin == origin and withdraw(ws, p.id, run_id))


def withdraw(ws: Workspace, proposal_id: str, run_id: str) -> bool:
    """Make one pending proposal of the undone run `run_id` stale, saying so; False when it was
    decided meanwhile."""
    note = t(ws.locale, "condense.withdrawn")
    return proposals.expire(ws, proposal_id, undo_by(run_id), note) is not None


def _kept_copy(folder: Path, text: str) -> Path:
    """Where the text an undo replaces is kept: a copy an undo cut off already wrote of the
    same text, else a new `MEMORY.undone[.N].md`."""
    for path in sorted(folder.glob("MEMORY.undone*.md")):
        if path.read_text(encoding="utf-8") == text:
            return path
    path = _free_name(folder, "MEMORY.undone", ".md")
    atomic_write_text(path, text)
    return path


def _free_name(folder: Path, stem: str, suffix: str) -> Path:
    path = folder / f"{stem}{suffix}"
    number = 1
    while path.exists():
        number += 1
        path = folder / f"{stem}.{number}{suffix}"
    return path
