"""Approving held MEMORY.md changes, and undoing a condensation run."""

from __future__ import annotations

import io
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest

from conftest import FixedClock
from support.condense_weeks import EN_MEMORY, RUN, VI_MEMORY, en_week, two_roles, vi_week
from trinho.channels import ConsoleChannel
from trinho.condense import RunReport, run_condensation, undo_run
from trinho.condense.rules.gate import Change
from trinho.condense.store.runs import UndoEntry, read_journal, write_journal
from trinho.durable import inject
from trinho.errors import NotFound, TrinhoError
from trinho.notes.store import save_note
from trinho.proposals import store as proposals
from trinho.review.appliers import APPLIERS
from trinho.workspace import Workspace

ANNA = "- 2026-02-11: Sister Anna lives in Lisbon"
PORTO = "- 2026-11-23: Sister Anna lives in Porto"
PENICILLIN = "- 2026-10-05: Allergic to penicillin"
DENTIST = "- 2026-12-04: Dentist appointment on Thursday at 9"


def memory(ws: Workspace) -> str:
    return ws.memory_file.read_text(encoding="utf-8")


def condense(ws: Workspace, rewrite: str, **kw: bool) -> RunReport:
    channel = ConsoleChannel(ws.locale, io.StringIO())
    return run_condensation(ws, model=two_roles(rewrite), channel=channel, **kw)


def proposal_for(report: RunReport, cls: str) -> str:
    [pid] = [rc.proposal_id for rc in report.held if rc.change.cls == cls]
    assert pid is not None
    return pid


@pytest.fixture
def held(workspace: Workspace, clock: FixedClock) -> RunReport:
    """An English week whose rewrite removes one line, edits one, and adds a future date."""
    en_week(workspace, clock)
    rewrite = EN_MEMORY.replace(ANNA, PORTO).replace(PENICILLIN + "\n", "") + DENTIST + "\n"
    report = condense(workspace, rewrite)
    assert sorted(rc.change.cls for rc in report.held) == ["edited", "removed", "strange_date"]
    assert memory(workspace) == EN_MEMORY
    return report


def test_approving_a_held_removal_removes_the_line(workspace: Workspace, held: RunReport) -> None:
    decided, applied = proposals.approve(
        workspace, proposal_for(held, "removed"), "owner", appliers=APPLIERS
    )
    assert decided.status == "approved" and applied.ok
    assert applied.message == "The line was removed from your long-term memory."
    assert memory(workspace) == EN_MEMORY.replace(PENICILLIN + "\n", "")


def test_approving_a_held_edit_replaces_the_line(workspace: Workspace, held: RunReport) -> None:
    proposals.approve(workspace, proposal_for(held, "edited"), "owner", appliers=APPLIERS)
    assert memory(workspace) == EN_MEMORY.replace(ANNA, PORTO)


def test_approving_a_strange_date_inserts_it(workspace: Workspace, held: RunReport) -> None:
    proposals.approve(workspace, proposal_for(held, "strange_date"), "owner", appliers=APPLIERS)
    assert DENTIST in memory(workspace).splitlines()


def test_approving_every_held_change_gives_the_rewrite(
    workspace: Workspace, held: RunReport
) -> None:
    for rc in held.held:
        assert rc.proposal_id is not None
        proposals.approve(workspace, rc.proposal_id, "owner", appliers=APPLIERS)
    expected = EN_MEMORY.replace(ANNA, PORTO).replace(PENICILLIN + "\n", "") + DENTIST + "\n"
    assert sorted(memory(workspace).splitlines()) == sorted(expected.splitlines())


def test_a_held_change_whose_line_is_gone_is_stale(workspace: Workspace, held: RunReport) -> None:
    workspace.memory_file.write_text(EN_MEMORY.replace(PENICILLIN + "\n", ""), encoding="utf-8")
    before = memory(workspace)
    decided, applied = proposals.approve(
        workspace, proposal_for(held, "removed"), "owner", appliers=APPLIERS
    )
    assert decided.status == "stale" and not applied.ok
    assert "no longer in your long-term memory" in applied.message
    assert "penicillin" in applied.message
    assert memory(workspace) == before
    workspace.memory_file.write_text(EN_MEMORY.replace(ANNA, "- 2026-02-11: Anna moved"), "utf-8")
    decided, applied = proposals.approve(
        workspace, proposal_for(held, "edited"), "owner", appliers=APPLIERS
    )
    assert decided.status == "stale"


def test_a_suspicious_rewrite_applies_only_on_the_file_it_was_made_for(
    workspace: Workspace, clock: FixedClock
) -> None:
    vi_week(workspace, clock)
    report = condense(workspace, "- 2026-11-29: Chỉ còn một dòng\n")
    pid = proposal_for(report, "suspicious")
    proposals.approve(workspace, pid, "owner", appliers=APPLIERS)
    assert memory(workspace) == "- 2026-11-29: Chỉ còn một dòng\n"
    save_note(workspace, "Một ghi chú mới")
    clock.advance(minutes=1)
    second = condense(workspace, "- 2026-11-29: Một dòng khác\n", force=True)
    assert [rc.change.cls for rc in second.held] == ["suspicious"]
    workspace.memory_file.write_text("- 2026-11-29: sửa tay\n", encoding="utf-8")
    decided, applied = proposals.approve(
        workspace, proposal_for(second, "suspicious"), "owner", appliers=APPLIERS
    )
    assert decided.status == "stale" and "changed since" in applied.message


def test_a_memory_proposal_that_is_not_a_change_is_refused(workspace: Workspace) -> None:
    moved = Change("moved", "auto", "- 2026-01-01: a", "- 2026-01-01: a", "order changed")
    pid = proposals.submit(
        workspace, "memory", moved.to_dict(), reason="x", origin="test"
    ).proposal.id
    with pytest.raises(TrinhoError, match="applies by itself"):
        proposals.approve(workspace, pid, "owner", appliers=APPLIERS)
    pid = proposals.submit(workspace, "memory", {"junk": 1}, reason="x", origin="test").proposal.id
    with pytest.raises(TrinhoError, match=r"not a MEMORY\.md change"):
        proposals.approve(workspace, pid, "owner", appliers=APPLIERS)
    assert proposals.get_proposal(workspace, pid).status == "pending"


def test_undo_restores_the_previous_version_and_keeps_the_current(
    workspace: Workspace, clock: FixedClock
) -> None:
    vi_week(workspace, clock)
    rewrite = VI_MEMORY + "- 2026-11-24: Mai được chọn vào đội bơi của trường\n"
    condense(workspace, rewrite)
    assert memory(workspace) == rewrite
    result = undo_run(workspace, RUN)
    assert memory(workspace) == VI_MEMORY
    assert result.restored_from == f".trinho/runs/{RUN}/MEMORY.before.md"
    assert result.kept_current == f".trinho/runs/{RUN}/MEMORY.undone.md"
    assert (workspace.root / result.kept_current).read_text(encoding="utf-8") == rewrite
    assert result.changed_since is False
    again = undo_run(workspace, RUN)  # twice is once: nothing left to write
    assert again.kept_current is None and memory(workspace) == VI_MEMORY
    assert not (workspace.root / f".trinho/runs/{RUN}/MEMORY.undone.2.md").exists()
    journal = read_journal(workspace, RUN)
    assert journal is not None and len(journal.undone) == 1
    workspace.memory_file.write_text(VI_MEMORY + "- 2026-11-30: sửa tay\n", encoding="utf-8")
    third = undo_run(workspace, RUN)  # edited since: put back again, the edit kept aside
    assert third.kept_current is not None and third.kept_current.endswith("MEMORY.undone.2.md")
    assert third.changed_since is True and memory(workspace) == VI_MEMORY
    assert third.plan is not None and third.plan.removed == ("- 2026-11-30: sửa tay",)


def test_undo_refuses_unknown_and_malformed_runs(workspace: Workspace) -> None:
    with pytest.raises(NotFound, match="no condensation run '2026-W01'"):
        undo_run(workspace, "2026-W01")
    for bad in ("../x", "2026-48", "2026-W48.1", "2026-W48.x"):
        with pytest.raises(TrinhoError, match="invalid run id"):
            undo_run(workspace, bad)


def test_search_sees_memory_md_after_a_run_an_approval_and_an_undo(
    workspace: Workspace, clock: FixedClock
) -> None:
    from trinho.search import search

    en_week(workspace, clock)

    def memory_hits(query: str) -> list[str]:
        return [h.text for h in search(workspace, query, kinds=["memory"])]

    assert memory_hits("penicillin") == ["Allergic to penicillin"]  # the index exists now
    rewrite = EN_MEMORY.replace(PENICILLIN + "\n", "") + "- 2026-11-25: Learning Vietnamese\n"
    report = condense(workspace, rewrite)
    assert memory_hits("Vietnamese") == ["Learning Vietnamese"]
    proposals.approve(workspace, proposal_for(report, "removed"), "owner", appliers=APPLIERS)
    assert memory_hits("penicillin") == []
    undo_run(workspace, RUN)
    assert memory_hits("Vietnamese") == [] and memory_hits("penicillin") != []


# --- an undo withdraws the run's proposals ---------------------------------------------------

LEARNING = "- 2026-11-25: Learning Vietnamese"


@pytest.fixture
def undone_week(workspace: Workspace, clock: FixedClock) -> tuple[RunReport, bytes]:
    """A run that writes MEMORY.md (an addition) and holds a removal and an edit; returns its
    report and MEMORY.md's bytes before it."""
    en_week(workspace, clock)
    before = workspace.memory_file.read_bytes()
    rewrite = EN_MEMORY.replace(ANNA, PORTO).replace(PENICILLIN + "\n", "") + LEARNING + "\n"
    report = condense(workspace, rewrite)
    assert LEARNING in memory(workspace)
    assert sorted(rc.change.cls for rc in report.held) == ["edited", "removed"]
    return report, before


def test_undo_withdraws_the_runs_pending_proposals_and_approving_one_is_refused(
    workspace: Workspace, undone_week: tuple[RunReport, bytes]
) -> None:
    report, before = undone_week
    rejected = proposal_for(report, "edited")
    proposals.reject(workspace, rejected, "owner")  # decided before the undo: left as it is
    result = undo_run(workspace, RUN)
    assert workspace.memory_file.read_bytes() == before
    removal = proposal_for(report, "removed")
    assert result.withdrawn == (removal,) and result.to_dict()["withdrawn"] == [removal]
    withdrawn = proposals.get_proposal(workspace, removal)
    assert withdrawn.status == "stale"
    assert withdrawn.decided_by == f"trinho condense --undo {RUN}"
    assert withdrawn.decision_note == "withdrawn: the weekly update that proposed it was undone"
    assert proposals.get_proposal(workspace, rejected).status == "rejected"
    with pytest.raises(TrinhoError, match=f"already stale \\(by trinho condense --undo {RUN}\\)"):
        proposals.approve(workspace, removal, "owner", appliers=APPLIERS)
    assert workspace.memory_file.read_bytes() == before
    journal = read_journal(workspace, RUN)
    assert journal is not None and journal.state == "done" and len(journal.undone) == 1
    again = undo_run(workspace, RUN)  # says what the undo did; writes nothing again
    assert again.withdrawn == (removal,)
    assert proposals.get_proposal(workspace, removal) == withdrawn


def test_a_suspicious_rewrite_of_an_undone_run_never_reaches_memory_md(
    workspace: Workspace, clock: FixedClock
) -> None:
    vi_week(workspace, clock)
    before = workspace.memory_file.read_bytes()
    report = condense(workspace, "- 2026-11-29: Chỉ còn một dòng\n")
    pid = proposal_for(report, "suspicious")
    assert undo_run(workspace, RUN).withdrawn == (pid,)
    with pytest.raises(TrinhoError, match="already stale"):
        proposals.approve(workspace, pid, "owner", appliers=APPLIERS)
    assert workspace.memory_file.read_bytes() == before


@pytest.mark.durability
@pytest.mark.parametrize("crash_at", ["proposal", "memory"])
def test_an_undo_cut_off_leaves_nothing_approvable_and_running_it_again_finishes_it(
    workspace: Workspace, undone_week: tuple[RunReport, bytes], crash_at: str
) -> None:
    """Cut off while withdrawing (MEMORY.md already put back), or even before MEMORY.md was put
    back (the undo is recorded first): no proposal of the run can be approved."""
    report, before = undone_week
    target = workspace.proposals_root if crash_at == "proposal" else workspace.root

    def dies(path: Path) -> None:
        if path.parent == target and path.suffix in (".json", ".md"):
            raise KeyboardInterrupt

    with inject("before_replace", dies), pytest.raises(KeyboardInterrupt):
        undo_run(workspace, RUN)
    journal = read_journal(workspace, RUN)
    assert journal is not None and journal.undone  # recorded before anything else
    pending = [rc.proposal_id for rc in report.held]
    assert all(proposals.get_proposal(workspace, p).status == "pending" for p in pending if p)
    written = workspace.memory_file.read_bytes()
    assert (written == before) == (crash_at == "proposal")
    for pid in pending:
        assert pid is not None
        with pytest.raises(TrinhoError, match=f"made by run {RUN}, which was undone"):
            proposals.approve(workspace, pid, "owner", appliers=APPLIERS)
        assert proposals.get_proposal(workspace, pid).status == "pending"
    assert workspace.memory_file.read_bytes() == written  # nothing applied
    again = undo_run(workspace, RUN)
    assert sorted(again.withdrawn) == sorted(p for p in pending if p)
    assert workspace.memory_file.read_bytes() == before


@pytest.mark.durability
def test_the_next_run_withdraws_what_a_cut_off_undo_left_pending(
    workspace: Workspace, clock: FixedClock, undone_week: tuple[RunReport, bytes]
) -> None:
    report, _ = undone_week

    def dies(path: Path) -> None:
        if path.parent == workspace.proposals_root:
            raise KeyboardInterrupt

    with inject("before_replace", dies), pytest.raises(KeyboardInterrupt):
        undo_run(workspace, RUN)
    clock.advance(days=7)
    save_note(workspace, "Quiet week")
    clock.advance(minutes=1)
    condense(workspace, "NONE")
    for rc in report.held:
        assert rc.proposal_id is not None
        left = proposals.get_proposal(workspace, rc.proposal_id)
        assert (left.status, left.decided_by) == ("stale", f"trinho condense --undo {RUN}")


@pytest.mark.durability
def test_an_undo_that_cannot_put_memory_md_back_is_not_recorded(
    workspace: Workspace, undone_week: tuple[RunReport, bytes]
) -> None:
    """A write that fails (not a crash) undoes the record: the run and its proposals stand."""
    report, _ = undone_week

    def disk_full(path: Path) -> None:
        if path == workspace.memory_file:
            raise OSError(28, "No space left on device")

    with inject("before_replace", disk_full), pytest.raises(OSError):
        undo_run(workspace, RUN)
    journal = read_journal(workspace, RUN)
    assert journal is not None and journal.undone == () and journal.state == "done"
    decided, applied = proposals.approve(
        workspace, proposal_for(report, "removed"), "owner", appliers=APPLIERS
    )
    assert decided.status == "approved" and applied.ok


@pytest.mark.durability
def test_an_undone_run_cut_off_before_proposing_is_never_resumed(
    workspace: Workspace, clock: FixedClock
) -> None:
    en_week(workspace, clock)
    rewrite = EN_MEMORY.replace(PENICILLIN + "\n", "") + LEARNING + "\n"

    def dies(path: Path) -> None:
        if path.parent == workspace.proposals_root:
            raise KeyboardInterrupt  # killed while proposing, after MEMORY.md was written

    with inject("before_replace", dies), pytest.raises(KeyboardInterrupt):
        condense(workspace, rewrite)
    journal = read_journal(workspace, RUN)
    assert journal is not None and journal.state == "applied"
    undo_run(workspace, RUN)
    again = condense(workspace, rewrite)
    assert again.outcome == "already_done"
    assert proposals.list_proposals(workspace, include_decided=False).proposals == []
    assert memory(workspace) == EN_MEMORY


@pytest.mark.durability
def test_a_run_left_unfinished_by_an_earlier_undo_is_ended_not_resumed(
    workspace: Workspace, clock: FixedClock
) -> None:
    """A journal undone while cut off before proposing, and left in `applied` (as an undo
    that did not end the run left it), proposes and announces nothing when the week runs."""
    en_week(workspace, clock)
    rewrite = EN_MEMORY.replace(PENICILLIN + "\n", "") + LEARNING + "\n"

    def dies(path: Path) -> None:
        if path.parent == workspace.proposals_root:
            raise KeyboardInterrupt

    with inject("before_replace", dies), pytest.raises(KeyboardInterrupt):
        condense(workspace, rewrite)
    journal = read_journal(workspace, RUN)
    assert journal is not None and journal.state == "applied"
    write_journal(workspace, replace(journal, undone=(UndoEntry(clock.now, None),)))
    assert condense(workspace, rewrite).outcome == "already_done"
    journal = read_journal(workspace, RUN)
    assert journal is not None and journal.state == "done" and journal.proposals == ()
    assert proposals.list_proposals(workspace).proposals == []


def test_undo_of_a_run_that_is_not_the_latest_is_refused_naming_the_command_that_works(
    workspace: Workspace, clock: FixedClock
) -> None:
    """docs/rules.md "Undo": the older run's MEMORY.md holds the later run's additions and the
    later one read on from its cutoff, so only the latest standing run is undone; undoing
    both, newest first, gives both spans back to the next run."""
    vi_week(workspace, clock)
    first = VI_MEMORY + "- 2026-11-24: Mai được chọn vào đội bơi của trường\n"
    condense(workspace, first)
    clock.advance(days=7)
    save_note(workspace, "Tuần sau: học bơi")
    clock.advance(minutes=5)
    second = first + "- 2026-12-06: Học bơi\n"
    assert condense(workspace, second).run_id == "2026-W49"
    with pytest.raises(TrinhoError) as refused:
        undo_run(workspace, RUN)
    assert refused.value.key == "error.run.not_latest"
    assert "trinho condense --undo 2026-W49" in str(refused.value)
    assert memory(workspace) == second  # nothing changed
    first_run = workspace.internal / "runs" / RUN  # compacted: the edits against W49's copy
    assert not (first_run / "MEMORY.before.md").exists()
    assert (first_run / "MEMORY.before.diff.json").stat().st_size < len(VI_MEMORY.encode())
    undo_run(workspace, "2026-W49")
    undo_run(workspace, RUN)
    assert memory(workspace) == VI_MEMORY
    clock.advance(minutes=5)
    seen: list[str] = []

    def rewrite(request: object) -> str:
        seen.append(str(request))
        return "NONE"

    report = run_condensation(
        workspace, model=two_roles(rewrite), channel=ConsoleChannel("vi", io.StringIO()), force=True
    )
    assert report.since == date(2026, 11, 23)  # the first run's span, given back
    assert any("Mai được chọn" in text for text in seen)
    assert any("học bơi" in text for text in seen)
