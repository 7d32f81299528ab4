"""A file job on a working copy of an owner's records: the condensation on the database gives
the files a file run gives; a check-in is all or nothing and never overwrites what the
database holds now; the pure rules of what checks in."""

from __future__ import annotations

import io
import shutil
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import FixedClock
from support.condense_weeks import VI_ADDED, two_roles, vi_good_rewrite, vi_week
from trinho.channels import ConsoleChannel
from trinho.condense import RunReport, run_condensation
from trinho.errors import TrinhoError
from trinho.models import ChatRequest, ScriptedModel
from trinho.pg.connect import Database
from trinho.pg.owners import add_owner
from trinho.pg.store import PgRecords
from trinho.pg.transfer import export_owner, import_workspace
from trinho.pg.workcopy import (
    Moved,
    appended,
    changed_files,
    checkin,
    journal_day,
    journal_since,
    read_files,
    run_on_copy,
    tracked,
    working_copy,
)
from trinho.search import Query
from trinho.workspace import Workspace, open_workspace

OWNER_LINE = "- 2026-11-29: Viết tay lúc công việc đang chạy"


def _condense(model: ScriptedModel) -> Callable[[Workspace], RunReport]:
    def job(ws: Workspace) -> RunReport:
        return run_condensation(ws, model=model, channel=ConsoleChannel(ws.locale, io.StringIO()))

    return job


def _config_text(ws: Workspace) -> str:
    return (ws.internal / "config.toml").read_text(encoding="utf-8")


def _pg_owner(db: Database, ws: Workspace, tmp_path: Path) -> str:
    """The workspace as it is now, imported as a new owner."""
    import uuid

    owner = f"o-{uuid.uuid4().hex[:12]}"
    add_owner(db, owner, ws.config.timezone)
    copy = tmp_path / f"copy-{owner}"
    shutil.copytree(ws.root, copy)
    import_workspace(db, open_workspace(copy, ws._clock), owner)
    return owner


def _exported(db: Database, owner: str, folder: Path) -> dict[str, str]:
    export_owner(db, owner, folder)
    return read_files(folder)


def test_a_condensation_on_the_database_writes_what_a_file_run_writes(
    workspace: Workspace, clock: FixedClock, pg_admin: Database, tmp_path: Path
) -> None:
    vi_week(workspace, clock)
    owner = _pg_owner(pg_admin, workspace, tmp_path)
    on_files = _condense(two_roles(vi_good_rewrite()))(workspace)
    on_pg = run_on_copy(
        pg_admin,
        owner,
        workspace.config,
        _config_text(workspace),
        _condense(two_roles(vi_good_rewrite())),
        clock=clock,
    )
    assert (on_pg.outcome, on_pg.run_id) == (on_files.outcome, on_files.run_id)
    assert on_pg.written and on_pg.run_id == "2026-W48"
    files = {k: v for k, v in read_files(workspace.root).items() if journal_day(k) is None}
    exported = _exported(pg_admin, owner, tmp_path / "out")
    differ = sorted(k for k in set(files) | set(exported) if files.get(k) != exported.get(k))
    assert differ == []
    assert {".trinho/runs/2026-W48/journal.json", ".trinho/notes-journal/read-floor"} <= set(files)
    assert all(line in exported["MEMORY.md"] for line in VI_ADDED)
    records = PgRecords(pg_admin, owner, clock=clock, timezone=workspace.config.timezone)
    version = records.memory_version()
    assert version is not None and version.run == "2026-W48"


def test_a_second_run_the_same_week_finds_it_done_and_writes_nothing(
    workspace: Workspace, clock: FixedClock, pg_admin: Database, tmp_path: Path
) -> None:
    vi_week(workspace, clock)
    owner = _pg_owner(pg_admin, workspace, tmp_path)
    args = (pg_admin, owner, workspace.config, _config_text(workspace))
    run_on_copy(*args, _condense(two_roles(vi_good_rewrite())), clock=clock)
    before = _exported(pg_admin, owner, tmp_path / "one")
    again = run_on_copy(*args, _condense(two_roles(vi_good_rewrite())), clock=clock)
    assert again.outcome == "already_done"
    assert _exported(pg_admin, owner, tmp_path / "two") == before


def test_memory_written_while_the_job_ran_is_kept_and_the_job_runs_again(
    workspace: Workspace, clock: FixedClock, pg_admin: Database, tmp_path: Path
) -> None:
    vi_week(workspace, clock)
    owner = _pg_owner(pg_admin, workspace, tmp_path)
    records = PgRecords(pg_admin, owner, clock=clock, timezone=workspace.config.timezone)
    attempts: list[str] = []
    condense = _condense(two_roles(vi_good_rewrite()))

    def job(ws: Workspace) -> RunReport:
        attempts.append(ws.memory_file.read_text(encoding="utf-8"))
        if len(attempts) == 1:  # the owner writes MEMORY.md while the first attempt runs
            records.write_memory(records.memory_text() + OWNER_LINE + "\n")
        return condense(ws)

    run_on_copy(pg_admin, owner, workspace.config, _config_text(workspace), job, clock=clock)
    assert len(attempts) == 2 and OWNER_LINE in attempts[1]
    assert OWNER_LINE in records.memory_text()


def test_a_note_saved_while_the_job_ran_is_kept_beside_what_it_checked_in(
    workspace: Workspace, clock: FixedClock, pg_admin: Database, tmp_path: Path
) -> None:
    vi_week(workspace, clock)
    owner = _pg_owner(pg_admin, workspace, tmp_path)
    records = PgRecords(pg_admin, owner, clock=clock, timezone=workspace.config.timezone)
    condense = _condense(two_roles(vi_good_rewrite()))

    def job(ws: Workspace) -> RunReport:
        report = condense(ws)
        records.save_note("Ghi lúc công việc đang chạy")
        return report

    run_on_copy(pg_admin, owner, workspace.config, _config_text(workspace), job, clock=clock)
    assert "Ghi lúc công việc đang chạy" in records.note_text(clock().date())
    assert all(line in records.memory_text() for line in VI_ADDED)


def test_a_note_a_job_saves_is_checked_in_acknowledged_with_its_instant(
    workspace: Workspace, clock: FixedClock, pg_admin: Database, tmp_path: Path
) -> None:
    from trinho.notes.store import save_note

    vi_week(workspace, clock)
    owner = _pg_owner(pg_admin, workspace, tmp_path)
    records = PgRecords(pg_admin, owner, clock=clock, timezone=workspace.config.timezone)
    records.save_note("Ghi trước khi công việc chạy")
    before = records.acknowledged(clock().date())

    def job(ws: Workspace) -> None:
        clock.advance(minutes=3)
        save_note(ws, "Ghi bởi công việc")

    run_on_copy(pg_admin, owner, workspace.config, _config_text(workspace), job, clock=clock)
    day = clock().date()
    assert records.acknowledged(day) == [*before, ("14:08", "Ghi bởi công việc", clock())]
    assert records.note_text(day).endswith("- 14:08 Ghi bởi công việc\n")
    assert any("Ghi bởi công việc" in hit.text for hit in records.search(Query("công việc")))


def test_model_calls_recorded_meanwhile_and_by_the_job_are_both_kept_in_the_ledger(
    workspace: Workspace, clock: FixedClock, pg_admin: Database, tmp_path: Path
) -> None:
    from trinho.pg.ledger import PgLedger

    vi_week(workspace, clock)
    owner = _pg_owner(pg_admin, workspace, tmp_path)
    ledger = PgLedger(pg_admin, owner)
    condense = _condense(two_roles(vi_good_rewrite()))

    def job(ws: Workspace) -> RunReport:
        report = condense(ws)  # its two calls go to the copy's ledger
        ledger.append_lines(['{"note": "a call made meanwhile"}'])
        return report

    run_on_copy(pg_admin, owner, workspace.config, _config_text(workspace), job, clock=clock)
    lines = ledger.file_text().splitlines()
    assert lines[0] == '{"note": "a call made meanwhile"}' and len(lines) == 3
    assert len(ledger.read().records) == 2


def test_an_openclaw_day_file_a_job_edits_is_checked_in_and_searched(
    workspace: Workspace, clock: FixedClock, pg_admin: Database, tmp_path: Path
) -> None:
    slugged = workspace.notes_dir / "2026-11-29-chuyen-di.md"
    slugged.parent.mkdir(parents=True, exist_ok=True)
    slugged.write_text("- 09:00 Đặt vé đi Huế\n", encoding="utf-8")
    owner = _pg_owner(pg_admin, workspace, tmp_path)
    records = PgRecords(pg_admin, owner, clock=clock, timezone=workspace.config.timezone)

    def job(ws: Workspace) -> None:
        path = ws.notes_dir / "2026-11-29-chuyen-di.md"
        path.write_text(path.read_text(encoding="utf-8") + "- 10:00 Đặt phòng khách sạn\n")

    run_on_copy(pg_admin, owner, workspace.config, _config_text(workspace), job, clock=clock)
    assert "khách sạn" in records.note_files()["memory/2026-11-29-chuyen-di.md"]
    assert any("khách sạn" in hit.text for hit in records.search(Query("khach san")))


def test_a_refused_check_in_writes_nothing_at_all(
    workspace: Workspace, clock: FixedClock, pg_admin: Database, tmp_path: Path
) -> None:
    vi_week(workspace, clock)
    owner = _pg_owner(pg_admin, workspace, tmp_path)
    records = PgRecords(pg_admin, owner, clock=clock, timezone=workspace.config.timezone)
    with working_copy(pg_admin, owner, _config_text(workspace)) as done:
        ws = open_workspace(done.root, clock)
        _condense(two_roles(vi_good_rewrite()))(ws)
        records.write_memory("# Viết lại bởi chủ\n")
        between = _exported(pg_admin, owner, tmp_path / "between")
        with pytest.raises(Moved, match=r"MEMORY\.md"):
            checkin(pg_admin, done)
    assert _exported(pg_admin, owner, tmp_path / "after") == between


def test_memory_md_a_job_removes_is_checked_in_as_a_version_with_no_text(
    workspace: Workspace, clock: FixedClock, pg_admin: Database, tmp_path: Path
) -> None:
    """The undo of the run that wrote the first MEMORY.md removes it: the database keeps the
    versions before, the file is gone from checkouts, exports and search, and the next write
    is the version after the removal."""
    workspace.memory_file.write_text("# Trí nhớ\n- 2026-11-29: Học bơi\n", encoding="utf-8")
    owner = _pg_owner(pg_admin, workspace, tmp_path)
    records = PgRecords(pg_admin, owner, clock=clock, timezone=workspace.config.timezone)

    def job(ws: Workspace) -> None:
        ws.memory_file.unlink()

    run_on_copy(pg_admin, owner, workspace.config, _config_text(workspace), job, clock=clock)
    latest = records.memory_version()
    assert latest is not None and (latest.version, latest.text) == (2, None)
    assert records.memory_text() == ""
    assert "MEMORY.md" not in _exported(pg_admin, owner, tmp_path / "out")
    assert not any(hit.path == "MEMORY.md" for hit in records.search(Query("hoc boi")))
    assert records.write_memory("# Mới\n", expected=2) == 3


def test_a_path_with_no_place_in_the_database_refuses_the_check_in(
    workspace: Workspace, clock: FixedClock, pg_admin: Database, tmp_path: Path
) -> None:
    owner = _pg_owner(pg_admin, workspace, tmp_path)
    with working_copy(pg_admin, owner, _config_text(workspace)) as done:
        (done.root / "stray.txt").write_text("x", encoding="utf-8")
        with pytest.raises(TrinhoError, match=r"stray\.txt"):
            checkin(pg_admin, done)


def test_a_file_a_job_left_not_in_utf8_is_named_in_one_line_and_nothing_written(
    workspace: Workspace, clock: FixedClock, pg_admin: Database, tmp_path: Path
) -> None:
    """As a workspace's file that is not UTF-8 is named with its line and byte, so is a
    working copy's at check-in, by its path in the owner's records."""
    owner = _pg_owner(pg_admin, workspace, tmp_path)
    records = PgRecords(pg_admin, owner, clock=clock, timezone=workspace.config.timezone)
    before = records.memory_text()
    with working_copy(pg_admin, owner, _config_text(workspace)) as done:
        (done.root / "MEMORY.md").write_bytes(b"# Memory\n- caf\xe9\n")
        with pytest.raises(TrinhoError, match=r"^MEMORY\.md:2: invalid UTF-8"):
            checkin(pg_admin, done)
    assert records.memory_text() == before


paths = st.sampled_from(
    [
        "MEMORY.md",
        "memory/2026-11-29.md",
        ".trinho/usage.jsonl",
        ".trinho/locks/a.lock",
        ".trinho/index.sqlite",
        ".trinho/notes-journal/2026-11-29.jsonl",
        ".trinho/notes-journal/read-floor",
        ".trinho/config.toml",
        "users/owner/facts/.locks/coffee.md.lock",
        "memory_proposals/abc.json",
    ]
)
texts = st.text(st.sampled_from("ab\nđ"), max_size=6)


@given(st.dictionaries(paths, texts), st.dictionaries(paths, texts))
def test_changed_files_are_exactly_the_tracked_paths_that_differ(
    base: dict[str, str], after: dict[str, str]
) -> None:
    changed = changed_files(base, after)
    for rel in set(base) | set(after):
        differs = base.get(rel) != after.get(rel)
        assert (rel in changed) == (differs and tracked(rel))
        if rel in changed:
            assert changed[rel] == (base.get(rel), after.get(rel))


@given(texts, texts, texts)
def test_appended_takes_both_sides_appends_and_nothing_else(
    base: str, ours: str, theirs: str
) -> None:
    line_base = base if not base or base.endswith("\n") else base + "\n"
    assert appended(line_base, line_base + theirs, line_base + ours) == ours
    if not ours.startswith(line_base):  # the job rewrote what it checked out
        assert appended(line_base, line_base + theirs, ours) is None
    if not theirs.startswith(line_base):  # the database rewrote it meanwhile
        assert appended(line_base, theirs, line_base + ours) is None
    if base and not base.endswith("\n"):  # a last line without its newline is no place to add
        assert appended(base, base + theirs, base + ours) is None


def test_derived_files_are_never_checked_in() -> None:
    assert tracked(".trinho/notes-journal/read-floor")
    assert tracked(".trinho/notes-journal/2026-11-29.jsonl")
    assert not tracked(".trinho/notes-journal/2026-11-29.state")
    assert not tracked(".trinho/notes-journal/2026-11-29.instants.jsonl")
    assert not tracked(".trinho/config.toml")
    assert not tracked("memory_proposals/.locks/queue.lock")
    assert tracked("memory_proposals/abc.json")


@given(st.datetimes(timezones=st.just(UTC)))
def test_a_checkout_writes_the_journals_of_the_days_from_the_day_before_the_read_floor(
    floor: datetime,
) -> None:
    since = journal_since(floor.isoformat() + "\n")
    assert since == (floor - timedelta(days=1)).date()
    assert journal_since(None) is None and journal_since("broken") is None


def test_an_owners_transactions_in_a_joined_block_are_one_and_fall_together(
    pg_app: Database, pg_admin: Database, owner: str, clock: FixedClock
) -> None:
    """Inside `joined(owner)` every transaction of that owner's, in the thread, is the joined
    one (a checkout's dozen reads, one transaction); another owner's is its own; a failure
    rolls back what the block wrote; after the block each is its own again."""
    from support.pg_fixtures import new_owner

    other = new_owner(pg_admin, "UTC")
    records = PgRecords(pg_app, owner, clock=clock, timezone="UTC")
    with pytest.raises(RuntimeError), pg_app.joined(owner) as joined:
        with pg_app.owner_tx(owner) as inner:
            assert inner is joined
        with pg_app.owner_tx(other) as elsewhere:
            assert elsewhere is not joined
        records.save_note("written in the joined transaction")
        assert "written in the joined" in records.note_files().popitem()[1]
        raise RuntimeError("the block fails")
    assert records.note_files() == {}
    with pg_app.owner_tx(owner) as first, pg_app.owner_tx(owner) as second:
        assert first is not second


def test_a_clock_put_back_on_the_database_reads_each_note_once_and_tells_the_owner_once(
    workspace: Workspace, clock: FixedClock, pg_admin: Database, tmp_path: Path
) -> None:
    """A run made while the clock read 40 days ahead, the clock put right, a note saved on the
    database then: the next run checks in (the clock's files are the owner's rows), reads that
    note, tells the owner once; the run after reads nothing twice and tells nothing again."""
    vi_week(workspace, clock)
    owner = _pg_owner(pg_admin, workspace, tmp_path)
    args = (pg_admin, owner, workspace.config, _config_text(workspace))
    assert run_on_copy(*args, _condense(two_roles(vi_good_rewrite())), clock=clock).written
    right = clock.now
    records = PgRecords(pg_admin, owner, clock=clock, timezone=workspace.config.timezone)
    shown: list[str] = []

    def reader(request: ChatRequest) -> str:
        shown.append("\n".join(m.text for m in request.messages))
        return "NONE"

    clock.now = right + timedelta(days=40)
    records.save_note("ghi chú lúc đồng hồ chạy nhanh tok6x")
    clock.now += timedelta(minutes=1)
    ahead = run_on_copy(*args, _condense(ScriptedModel(reader)), clock=clock)
    assert ahead.notice == "" and "tok6x" in "".join(shown)
    shown.clear()
    clock.now = right + timedelta(hours=1)
    records.save_note("ghi chú sau khi chỉnh đồng hồ tok7x")
    back = run_on_copy(*args, _condense(ScriptedModel(reader)), clock=clock)
    assert back.outcome == "done" and back.notice
    assert "tok7x" in "".join(shown) and "tok6x" not in "".join(shown)
    exported = _exported(pg_admin, owner, tmp_path / "back")
    assert exported[".trinho/clock-back"].strip()
    shown.clear()
    clock.now += timedelta(minutes=30)
    again = run_on_copy(*args, _condense(ScriptedModel(reader)), clock=clock)
    assert again.notice == "" and "tok" not in "".join(shown)
