"""Jobs for every owner on the queue in the database: a worker condenses each owner once;
a pass runs what an owner owes, once; a worker killed in a condensation is resumed by another
and the condensation finishes once; the pure rule of who owes a run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

import psycopg
import pytest

from conftest import TZ, FixedClock
from support.condense_weeks import NOW, VI_ADDED, vi_week
from support.pg_fixtures import new_owner, owners_from, worker_deployment
from support.pgserver import Urls
from support.worker_main import SCRIPT, worker_path
from trinho.config import Config
from trinho.pg.connect import Database
from trinho.pg.jobs import opened, owes_a_run, owners_due, run_worker
from trinho.pg.store import PgRecords
from trinho.pg.workcopy import copy_pid
from trinho.workspace import Workspace


def _runs(db: Database, owner: str, clock: FixedClock) -> list[str | None]:
    with db.owner_tx(owner) as conn:
        rows = conn.execute(
            "SELECT run FROM memory_versions WHERE owner_id = %s ORDER BY version", (owner,)
        ).fetchall()
    return [row[0] for row in rows]


def _jobs(urls: Urls, owner: str) -> list[tuple[str, str]]:
    with psycopg.connect(urls.admin) as conn:
        rows = conn.execute(
            "SELECT task_name, status::text FROM procrastinate.procrastinate_jobs"
            " WHERE args->>'owner' = %s ORDER BY id",
            (owner,),
        ).fetchall()
    return [(name, status) for name, status in rows]


def test_a_worker_condenses_each_owner_once_and_a_second_time_finds_the_week_done(
    workspace: Workspace, clock: FixedClock, pg_urls: Urls, pg_admin: Database, tmp_path: Path
) -> None:
    vi_week(workspace, clock)
    owners = owners_from(pg_admin, workspace, tmp_path, 3)
    deployment = worker_deployment(pg_urls.app, workspace, clock)
    with opened(deployment) as queue:
        assert [queue.defer_condense(o) for o in owners] == [True, True, True]
        assert queue.defer_condense(owners[0]) is False  # one waits already
    run_worker(deployment, wait=False)
    for owner in owners:
        records = PgRecords(pg_admin, owner, clock=clock, timezone=workspace.config.timezone)
        assert all(line in records.memory_text() for line in VI_ADDED)
        assert _runs(pg_admin, owner, clock) == ["import", "2026-W48"]
        assert _jobs(pg_urls, owner) == [("trinho.condense", "succeeded")]
    with opened(deployment) as queue:
        assert queue.defer_condense(owners[0]) is True
    run_worker(deployment, wait=False)
    assert _runs(pg_admin, owners[0], clock) == ["import", "2026-W48"]
    with psycopg.connect(pg_urls.admin) as conn:  # its triggers work from any session's path
        conn.execute(
            "DELETE FROM procrastinate.procrastinate_jobs WHERE args->>'owner' = %s", (owners[0],)
        )
    assert _jobs(pg_urls, owners[0]) == []


def test_a_job_queued_for_an_owner_removed_since_succeeds_doing_nothing(
    workspace: Workspace, clock: FixedClock, pg_urls: Urls, pg_admin: Database, tmp_path: Path
) -> None:
    """The operator removed the owner while their jobs waited: each ends `succeeded`, once,
    with nothing written and nothing to retry; the other owner's job runs as before."""
    from trinho.pg.owners import remove_owner

    vi_week(workspace, clock)
    gone, kept = owners_from(pg_admin, workspace, tmp_path, 2)
    deployment = worker_deployment(pg_urls.app, workspace, clock)
    with opened(deployment) as queue:
        assert queue.defer_condense(gone) and queue.defer_pass(gone)
        assert queue.defer_condense(kept)
    remove_owner(pg_admin, gone)
    run_worker(deployment, wait=False)
    assert sorted(_jobs(pg_urls, gone)) == [
        ("trinho.condense", "succeeded"),
        ("trinho.pass", "succeeded"),
    ]
    assert _jobs(pg_urls, kept) == [("trinho.condense", "succeeded")]
    assert _runs(pg_admin, kept, clock) == ["import", "2026-W48"]
    assert _runs(pg_admin, gone, clock) == []


def test_a_pass_runs_what_an_owner_owes_once_and_then_owes_nothing(
    workspace: Workspace, clock: FixedClock, pg_urls: Urls, pg_admin: Database, tmp_path: Path
) -> None:
    vi_week(workspace, clock)
    [owner] = owners_from(pg_admin, workspace, tmp_path, 1)
    clock.set("2026-11-29T20:59:00+07:00")  # before Sunday's 21:00 slot: seen for the first time
    deployment = worker_deployment(pg_urls.app, workspace, clock)
    assert owner in owners_due(pg_admin, deployment)
    with opened(deployment) as queue:
        assert queue.defer_pass(owner)
    run_worker(deployment, wait=False)
    assert owner not in owners_due(pg_admin, deployment)
    assert _runs(pg_admin, owner, clock) == ["import"]  # no slot had passed yet
    clock.set("2026-11-29T21:01:00+07:00")
    assert owner in owners_due(pg_admin, deployment)
    with opened(deployment) as queue:
        assert queue.defer_pass(owner)
    run_worker(deployment, wait=False)
    assert _runs(pg_admin, owner, clock) == ["import", "2026-W48"]
    assert owner not in owners_due(pg_admin, deployment)


@pytest.mark.slow
def test_a_worker_killed_in_a_condensation_is_resumed_by_another_and_it_finishes_once(
    workspace: Workspace,
    clock: FixedClock,
    pg_urls: Urls,
    pg_admin: Database,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    copies = tmp_path / "copies"
    copies.mkdir()
    monkeypatch.setenv("TRINHO_COPIES", str(copies))
    vi_week(workspace, clock)
    [owner] = owners_from(pg_admin, workspace, tmp_path, 1)
    deployment = worker_deployment(pg_urls.app, workspace, clock)
    with opened(deployment) as queue:
        assert queue.defer_condense(owner)
    gate = tmp_path / "gate"
    worker = subprocess.Popen(
        [sys.executable, str(SCRIPT), pg_urls.admin,
         str(workspace.root), str(gate)],
        env={**os.environ, "PYTHONPATH": worker_path()},
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not Path(f"{gate}.reached").exists():  # the model is asked: the run is under way
            assert worker.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        assert _jobs(pg_urls, owner) == [("trinho.condense", "doing")]
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=30)
    finally:
        if worker.poll() is None:
            worker.kill()
    assert _runs(pg_admin, owner, clock) == ["import"]  # nothing of the killed run was written
    assert [copy_pid(p.name) for p in copies.iterdir()] == [worker.pid]  # its copy is left
    time.sleep(2.5)  # the killed worker's last heartbeat is now older than its stall time
    run_worker(deployment, wait=False, stalled_after=2)
    condensations = [job for job in _jobs(pg_urls, owner) if job[0] == "trinho.condense"]
    assert condensations == [("trinho.condense", "succeeded")]  # (its planner may add a pass)
    assert _runs(pg_admin, owner, clock) == ["import", "2026-W48"]
    assert list(copies.iterdir()) == []  # the next worker removed the killed one's copy
    records = PgRecords(pg_admin, owner, clock=clock, timezone=workspace.config.timezone)
    assert all(line in records.memory_text() for line in VI_ADDED)


def test_an_owner_seen_first_owes_a_pass_and_after_it_owes_none_until_the_next_slot() -> None:
    config = Config(timezone="Asia/Ho_Chi_Minh")
    now = datetime.fromisoformat(NOW)
    assert owes_a_run(config, None, "Asia/Ho_Chi_Minh", now)
    covered = {name: {"covered_until": now.isoformat()} for name in ("condense", "facts", "digest")}
    text = json.dumps({"jobs": covered})
    assert not owes_a_run(config, text, "Asia/Ho_Chi_Minh", now)
    later = now + timedelta(days=1)
    assert owes_a_run(config, text, "Asia/Ho_Chi_Minh", later)
    with pytest.raises(Exception, match="scheduler"):
        owes_a_run(config, "{", "Asia/Ho_Chi_Minh", now)


def test_jobs_plan_and_worker_once_run_each_owners_pass_from_the_cli(
    cli_env: dict[str, str],
    own_database: Database,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from trinho.cli import main

    with monkeypatch.context() as files:
        files.delenv("TRINHO_DATABASE_URL")
        assert main(["init", "--tz", TZ]) == 0
        assert main(["worker", "--once"]) == 1
        assert "no database is configured" in capsys.readouterr().err
    owner = new_owner(own_database, TZ)
    monkeypatch.setenv("TRINHO_OWNER", owner)
    monkeypatch.setenv("TRINHO_NOW", "2026-11-29T20:59:00+07:00")
    assert main(["note", "Mai được chọn vào đội bơi của trường"]) == 0
    capsys.readouterr()
    assert main(["jobs", "plan", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"due": [owner], "deferred": [owner]}
    assert main(["jobs", "plan", "--json"]) == 0  # the pass waits already: not queued twice
    assert json.loads(capsys.readouterr().out) == {"due": [owner], "deferred": []}
    assert main(["worker", "--once"]) == 0
    assert "running the jobs waiting now" in capsys.readouterr().err
    assert main(["jobs", "plan", "--json"]) == 0  # the pass recorded the schedule: owes nothing
    assert json.loads(capsys.readouterr().out) == {"due": [], "deferred": []}
    assert main(["jobs", "list", "--json"]) == 0
    listed = {job["name"]: job for job in json.loads(capsys.readouterr().out)["jobs"]}
    assert listed["condense"]["next"] == "2026-11-29T21:00:00+07:00"


def test_a_copys_folder_names_the_process_that_made_it() -> None:
    assert copy_pid("trinho-copy-4242-o-1a2b-x9") == 4242
    assert copy_pid("trinho-copy-x-o") is None
    assert copy_pid("trinho-pg-4242") is None


def test_a_waiting_worker_plans_and_puts_back_each_minute_and_one_that_empties_the_queue_does_not(
    workspace: Workspace, clock: FixedClock, pg_urls: Urls, pg_admin: Database
) -> None:
    from trinho.pg.jobs import make_queue

    deployment = worker_deployment(pg_urls.app, workspace, clock)
    waiting = make_queue(pg_admin, deployment, periodic=True).app
    periodic = {p.task.name: p.cron for p in waiting.periodic_registry.periodic_tasks.values()}
    assert periodic == {"trinho.plan": "* * * * *", "trinho.retry_stalled": "* * * * *"}
    emptying = make_queue(pg_admin, deployment).app
    assert emptying.periodic_registry.periodic_tasks == {}
    assert {"trinho.pass", "trinho.condense", "trinho.plan", "trinho.retry_stalled"} <= set(
        emptying.tasks
    )  # it runs the planner's jobs a waiting worker left
