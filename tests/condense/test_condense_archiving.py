"""MEMORY.md kept within its budget across runs: one archive proposal, approved, rejected, or
applied by itself; nothing deleted, everything archived stays searchable."""

from __future__ import annotations

import io

import pytest

from conftest import FixedClock
from support.condense_weeks import two_roles
from trinho.channels import ConsoleChannel
from trinho.condense import RunReport, run_condensation
from trinho.context.budget import estimate_tokens
from trinho.errors import TrinhoError
from trinho.memory import store as memory_store
from trinho.notes.store import save_note
from trinho.proposals import store as proposals
from trinho.proposals.format import Proposal
from trinho.review.appliers import APPLIERS
from trinho.search import search
from trinho.workspace import ARCHIVE_FILE, Workspace, open_workspace

OLD = "".join(
    f"- 2025-{1 + i % 12:02d}-{1 + i % 28:02d}: Kỷ niệm số {i} của chủ nhân\n" for i in range(60)
)


def setup(ws: Workspace, clock: FixedClock, mode: str = "ask") -> Workspace:
    config = ws.internal / "config.toml"
    config.write_text(
        config.read_text() + f'\n[context]\nmemory_tokens = 400\n[condense]\narchive = "{mode}"\n'
    )
    ws = open_workspace(ws.root, clock)
    ws.memory_file.write_text("# Trí nhớ\n" + OLD, encoding="utf-8")
    return ws


def week(ws: Workspace, clock: FixedClock, text: str) -> RunReport:
    clock.advance(hours=-2)
    save_note(ws, text)
    clock.advance(hours=2)
    channel = ConsoleChannel(ws.locale, io.StringIO())
    return run_condensation(ws, model=two_roles("NONE"), channel=channel)


def archive_proposals(ws: Workspace, status: str = "pending") -> list[Proposal]:
    return [
        p
        for p in proposals.list_proposals(ws).proposals
        if p.change.get("class") == "archive" and p.status == status
    ]


def test_one_archive_proposal_then_approved_then_searched(
    workspace: Workspace, clock: FixedClock
) -> None:
    ws = setup(workspace, clock)
    before = memory_store.read_text(ws)
    report = week(ws, clock, "Tuần yên ả")
    assert [rc.change.cls for rc in report.held] == ["archive"]
    assert memory_store.read_text(ws) == before  # held: nothing moved yet
    [proposal] = archive_proposals(ws)
    lines = str(proposal.change["old"]).split("\n")
    assert all(line in before for line in lines) and len(lines) > 1
    decided, applied = proposals.approve(ws, proposal.id, "owner", appliers=APPLIERS)
    assert decided.status == "approved" and applied.ok
    after, archived = memory_store.read_text(ws), memory_store.read_archive(ws)
    assert estimate_tokens(after) <= 400 * 9 // 10
    assert "## Archived by run 2026-W48" in archived
    for line in before.splitlines():  # nothing deleted: each line in one place or the other
        assert (line in after) != (line in archived) or line == "# Trí nhớ"
    hit = search(ws, lines[0].split(": ", 1)[1])[0]
    assert hit.path == ARCHIVE_FILE and hit.kind == "memory"


def test_a_rejected_archive_is_not_asked_again_until_the_file_grows(
    workspace: Workspace, clock: FixedClock
) -> None:
    ws = setup(workspace, clock)
    week(ws, clock, "Tuần một")
    [proposal] = archive_proposals(ws)
    proposals.reject(ws, proposal.id, "owner", reason="giữ lại")
    clock.advance(days=7)
    again = week(ws, clock, "Tuần hai")
    assert not [rc for rc in again.held if rc.change.cls == "archive"]
    assert archive_proposals(ws) == []
    with ws.memory_file.open("a", encoding="utf-8") as handle:  # grows by over a tenth
        grown = [f"- 2026-12-0{d}: Dòng mới số {d} khá dài" for d in range(1, 9)]
        handle.write("".join(line + "\n" for line in grown))
    clock.advance(days=7)
    third = week(ws, clock, "Tuần ba")
    assert [rc.change.cls for rc in third.held] == ["archive"]


def test_a_waiting_archive_is_not_proposed_twice(workspace: Workspace, clock: FixedClock) -> None:
    ws = setup(workspace, clock)
    week(ws, clock, "Tuần một")
    clock.advance(days=7)
    second = week(ws, clock, "Tuần hai")
    assert not [rc for rc in second.held if rc.change.cls == "archive"]
    assert len(archive_proposals(ws)) == 1


def test_auto_archives_by_itself_and_loses_nothing(workspace: Workspace, clock: FixedClock) -> None:
    ws = setup(workspace, clock, "auto")
    report = week(ws, clock, "Tuần yên ả")
    [auto] = [rc for rc in report.changes if rc.change.cls == "archive"]
    assert not auto.change.held and archive_proposals(ws) == []
    after, archived = memory_store.read_text(ws), memory_store.read_archive(ws)
    assert estimate_tokens(after) <= 360
    assert sorted(after.splitlines()[1:] + archived.splitlines()[2:]) == sorted(OLD.splitlines())


def test_off_never_archives(workspace: Workspace, clock: FixedClock) -> None:
    ws = setup(workspace, clock, "off")
    report = week(ws, clock, "Tuần yên ả")
    assert not [rc for rc in report.changes if rc.change.cls == "archive"]
    assert memory_store.read_archive(ws) == ""


def test_a_waiting_archive_is_asked_again_while_memory_md_is_over_budget(
    workspace: Workspace, clock: FixedClock
) -> None:
    """The owner never decides: every later run's announcement asks again, and when MEMORY.md
    leaves no room for the week, the error names the archive that would make room."""
    ws = setup(workspace, clock)
    week(ws, clock, "Tuần một")
    [proposal] = archive_proposals(ws)
    clock.advance(days=7)
    stream = io.StringIO()
    clock.advance(hours=-2)
    save_note(ws, "Tuần hai")
    clock.advance(hours=2)
    run_condensation(ws, model=two_roles("NONE"), channel=ConsoleChannel(ws.locale, stream))
    assert "moving old lines to the archive still waits: asked again" in stream.getvalue()
    assert f"trinho approve {proposal.id[:6]}" in stream.getvalue()  # how to decide it
    config = ws.internal / "config.toml"
    config.write_text(config.read_text() + "context_tokens = 1000\n")
    ws = open_workspace(ws.root, clock)
    clock.advance(days=7)
    save_note(ws, "Tuần ba")
    clock.advance(minutes=5)
    with pytest.raises(TrinhoError) as full:
        run_condensation(ws, model=two_roles("NONE"), channel=ConsoleChannel(ws.locale, stream))
    assert full.value.key == "condense.no_room_archive"
    assert f"trinho approve {proposal.id[:6]}" in str(full.value)
