"""Approving held MEMORY.md changes, and undoing a condensation run."""

from __future__ import annotations

import io

import pytest

from condense_weeks import EN_MEMORY, RUN, VI_MEMORY, en_week, two_roles, vi_week
from conftest import FixedClock
from trinho import proposals
from trinho.appliers import APPLIERS
from trinho.channels import ConsoleChannel
from trinho.condense import RunReport, run_condensation, undo_run
from trinho.condense.gate import Change
from trinho.condense.runs import read_journal
from trinho.errors import NotFound, TrinhoError
from trinho.notes import save_note
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
    assert applied.message == "The line was removed from MEMORY.md."
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
    assert "no longer in MEMORY.md" in applied.message and "penicillin" in applied.message
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
    again = undo_run(workspace, RUN)
    assert again.kept_current is not None and again.kept_current.endswith("MEMORY.undone.2.md")
    assert again.changed_since is True
    journal = read_journal(workspace, RUN)
    assert journal is not None and len(journal.undone) == 2


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
