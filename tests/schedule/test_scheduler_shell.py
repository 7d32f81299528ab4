"""The scheduler's shell: persisted state across restarts, one pass at a time, failures kept."""

from __future__ import annotations

from datetime import time

import pytest

from conftest import FixedClock
from trinho.durable import try_file_lock
from trinho.errors import TrinhoError
from trinho.schedule.plan import DueRun, JobSpec, Schedule
from trinho.schedule.run import LOCK_FILE, RunStore, run_due
from trinho.workspace import Workspace, open_workspace

WEEKLY = JobSpec("condense", "condense", Schedule(frozenset({6}), time(21, 0)))
NIGHTLY = JobSpec("facts", "facts", Schedule(frozenset(range(7)), time(2, 0)))


class Recorder:
    def __init__(self, fail: bool = False) -> None:
        self.runs: list[str] = []
        self.fail = fail

    def __call__(self, run: DueRun) -> str:
        self.runs.append(run.run_id)
        if self.fail:
            raise RuntimeError("model unreachable")
        return f"did {run.job.name}"


def restart(ws: Workspace, clock: FixedClock) -> Workspace:
    """The same workspace opened anew, as a restarted service would."""
    return open_workspace(ws.root, clock)


def test_weekly_run_fires_once_across_restarts(workspace: Workspace, clock: FixedClock) -> None:
    runner = Recorder()
    assert run_due(workspace, (WEEKLY,), runner).records == ()  # first sight: 14:05 Sunday
    clock.set("2026-11-29T21:00:00+07:00")
    records = run_due(restart(workspace, clock), (WEEKLY,), runner).records
    assert [r.run_id for r in records] == ["condense:2026-11-29T21:00"]
    assert records[0].summary == "did condense"
    for minutes in (1, 30, 60 * 24):
        clock.advance(minutes=minutes)
        assert run_due(restart(workspace, clock), (WEEKLY,), runner).records == ()
    assert runner.runs == ["condense:2026-11-29T21:00"]
    state = RunStore(workspace).load()["condense"]
    assert state.runs == 1
    assert state.last_status == "ok"


def test_missed_runs_are_caught_up_once(workspace: Workspace, clock: FixedClock) -> None:
    runner = Recorder()
    run_due(workspace, (WEEKLY, NIGHTLY), runner)
    clock.set("2026-12-16T10:00:00+07:00")  # down for two weeks and more
    run_due(restart(workspace, clock), (WEEKLY, NIGHTLY), runner)
    run_due(restart(workspace, clock), (WEEKLY, NIGHTLY), runner)
    assert runner.runs == ["condense:2026-12-13T21:00", "facts:2026-12-16T02:00"]


def test_a_failed_run_is_recorded_and_not_retried_before_its_next_slot(
    workspace: Workspace, clock: FixedClock
) -> None:
    failing = Recorder(fail=True)
    run_due(workspace, (NIGHTLY,), failing)
    clock.set("2026-11-30T02:00:00+07:00")
    (record,) = run_due(workspace, (NIGHTLY,), failing).records
    assert record.status == "failed"
    assert record.error == "RuntimeError: model unreachable"
    clock.advance(hours=5)
    assert run_due(workspace, (NIGHTLY,), failing).records == ()
    state = RunStore(workspace).load()["facts"]
    assert (state.last_status, state.last_error) == ("failed", "RuntimeError: model unreachable")
    clock.set("2026-12-01T02:00:00+07:00")
    assert [r.status for r in run_due(workspace, (NIGHTLY,), Recorder()).records] == ["ok"]


def test_a_run_cut_off_by_a_crash_is_run_again_once(
    workspace: Workspace, clock: FixedClock
) -> None:
    run_due(workspace, (NIGHTLY,), Recorder())
    clock.set("2026-11-30T02:00:00+07:00")

    def crash(run: DueRun) -> str:
        raise KeyboardInterrupt  # not an Exception: stands for the process dying mid-run

    with pytest.raises(KeyboardInterrupt):
        run_due(workspace, (NIGHTLY,), crash)
    again = Recorder()
    clock.advance(minutes=5)
    run_due(restart(workspace, clock), (NIGHTLY,), again)
    run_due(restart(workspace, clock), (NIGHTLY,), again)
    assert again.runs == ["facts:2026-11-30T02:00"]


def test_one_pass_at_a_time(workspace: Workspace, clock: FixedClock) -> None:
    runner = Recorder()
    run_due(workspace, (NIGHTLY,), runner)
    clock.set("2026-11-30T02:00:00+07:00")
    with try_file_lock(workspace.internal / LOCK_FILE) as taken:
        assert taken
        assert run_due(workspace, (NIGHTLY,), runner).busy
    assert runner.runs == []
    assert len(run_due(workspace, (NIGHTLY,), runner).records) == 1


def test_should_stop_ends_the_pass_between_runs(workspace: Workspace, clock: FixedClock) -> None:
    runner = Recorder()
    run_due(workspace, (WEEKLY, NIGHTLY), runner)
    clock.set("2026-12-01T03:00:00+07:00")
    assert run_due(workspace, (WEEKLY, NIGHTLY), runner, should_stop=lambda: True).records == ()
    assert runner.runs == []


def test_a_broken_state_file_is_a_clear_error(workspace: Workspace) -> None:
    store = RunStore(workspace)
    store.path.parent.mkdir(parents=True, exist_ok=True)
    store.path.write_text('{"jobs": {"facts": {"covered_until": "yesterday"}}}', "utf-8")
    with pytest.raises(TrinhoError, match=r"scheduler.json: jobs.facts: field 'covered_until'"):
        run_due(workspace, (NIGHTLY,), Recorder())
    store.path.write_text('{"jobs": [', "utf-8")
    with pytest.raises(TrinhoError, match=r"scheduler.json: not a valid scheduler state"):
        run_due(workspace, (NIGHTLY,), Recorder())


STATE = """\
{
 "jobs": {
  "digest": {
   "covered_until": "2026-11-28T20:00:00+07:00",
   "last_slot": "2026-11-28T20:00:00+07:00",
   "last_status": "failed",
   "last_finished_at": "2026-11-28T20:00:01+07:00",
   "last_error": "ChannelError: Telegram: 502 Bad Gateway — thử lại sau",
   "runs": 1
  },
  "facts": {
   "covered_until": "2026-11-29T02:00:00+07:00",
   "last_slot": "2026-11-29T02:00:00+07:00",
   "last_status": "ok",
   "last_finished_at": "2026-11-29T02:03:10.250000+07:00",
   "last_error": null,
   "runs": 3
  },
  "weekly": {
   "covered_until": "2026-11-29T03:00:00+07:00",
   "last_slot": null,
   "last_status": null,
   "last_finished_at": null,
   "last_error": null,
   "runs": 0
  }
 }
}
"""
"""The scheduler state as trinho writes it: a job that ran, one that failed, one never run."""


def test_the_state_as_written_loads_and_is_saved_byte_for_byte(workspace: Workspace) -> None:
    store = RunStore(workspace)
    store.path.parent.mkdir(parents=True, exist_ok=True)
    store.path.write_text(STATE, encoding="utf-8")
    state = store.load()
    assert (state["facts"].runs, state["digest"].last_status) == (3, "failed")
    store.path.unlink()
    store.save(state)
    assert store.path.read_text(encoding="utf-8") == STATE
