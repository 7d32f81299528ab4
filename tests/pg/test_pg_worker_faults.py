"""Workers under faults, on a database of the test's own: a worker SIGKILLed in the middle
of a condensation while the planner queues a new pass for the same owner; the retry sweep
meeting several such conflicts at once. Every owner's job ends `succeeded`, once, and each
owner's MEMORY.md gets one version for the run, never two.

The owners were added on Sunday at 19:00 and the passes run at 21:05, after the week's
21:00 slot: an owner first seen after the slot still has that week condensed."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from conftest import FixedClock
from support.condense_weeks import VI_ADDED, vi_week
from support.pg_fixtures import owners_from, worker_deployment
from support.worker_main import SCRIPT, worker_path
from trinho.pg.connect import Database
from trinho.pg.jobs import Deployment, make_queue, opened, owners_due, retry_stalled, run_worker
from trinho.pg.store import PgRecords
from trinho.pg.workcopy import copy_pid
from trinho.workspace import Workspace

pytestmark = pytest.mark.slow  # each test kills a worker process mid-condensation

ADDED = "2026-11-29T19:00:00+07:00"
PASS_AT = "2026-11-29T21:05:00+07:00"


def _app_url() -> str:
    """The application role's URL of the test's own database (`own_database` names it)."""
    return os.environ["TRINHO_DATABASE_URL"]


def _owners(db: Database, ws: Workspace, tmp_path: Path, count: int) -> list[str]:
    """`count` new owners, each a copy of the workspace, added on Sunday at 19:00."""
    made = owners_from(db, ws, tmp_path, count)
    with db.tx() as conn:
        conn.execute("UPDATE owners SET created_at = %s", (ADDED,))
    return made


def _jobs(db: Database) -> list[tuple[str, str, str, int]]:
    """Every owner's job: (owner, task, status, times put back), in queueing order."""
    with psycopg.connect(db.url) as conn:
        rows = conn.execute(
            "SELECT args->>'owner', task_name, status::text, attempts"
            " FROM procrastinate.procrastinate_jobs WHERE args ? 'owner' ORDER BY id"
        ).fetchall()
    return [(owner, name, status, attempts) for owner, name, status, attempts in rows]


def _runs(db: Database, owner: str) -> list[str | None]:
    with db.owner_tx(owner) as conn:
        rows = conn.execute(
            "SELECT run FROM memory_versions WHERE owner_id = %s ORDER BY version", (owner,)
        ).fetchall()
    return [row[0] for row in rows]


def _plan(db: Database, deployment: Deployment) -> list[str]:
    """What the planner of a worker does each minute: a pass for each owner who owes a run."""
    with opened(deployment) as queue:
        return [owner for owner in owners_due(db, deployment) if queue.defer_pass(owner)]


def test_a_worker_killed_mid_condensation_while_another_plans_leaves_every_job_done_once(
    workspace: Workspace,
    clock: FixedClock,
    own_database: Database,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    copies = tmp_path / "copies"
    copies.mkdir()
    monkeypatch.setenv("TRINHO_COPIES", str(copies))
    vi_week(workspace, clock)
    owners = _owners(own_database, workspace, tmp_path, 3)
    clock.set(PASS_AT)
    deployment = worker_deployment(_app_url(), workspace, clock)
    assert sorted(_plan(own_database, deployment)) == sorted(owners)
    gate = tmp_path / "gate"
    worker = subprocess.Popen(
        [sys.executable, str(SCRIPT), _app_url(),
         str(workspace.root), str(gate), PASS_AT],
        env={**os.environ, "PYTHONPATH": worker_path()},
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not Path(f"{gate}.reached").exists():  # the model is asked: the run is under way
            assert worker.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        [killed] = [owner for owner, _, status, _ in _jobs(own_database) if status == "doing"]
        assert _plan(own_database, deployment) == [killed]  # it still owes its week
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=30)
    finally:
        if worker.poll() is None:
            worker.kill()
    assert [(o, s) for o, _, s, _ in _jobs(own_database) if o == killed] == [
        (killed, "doing"),
        (killed, "todo"),
    ]
    assert _runs(own_database, killed) == ["import"]  # nothing of the killed run was written
    time.sleep(2.5)  # the killed worker's last heartbeat is now older than its stall time
    run_worker(deployment, wait=False, stalled_after=2)
    jobs = _jobs(own_database)
    assert {status for _, _, status, _ in jobs} == {"succeeded"}
    assert sorted(owner for owner, *_ in jobs) == sorted([*owners, killed])
    put_back, twin = [attempts for owner, *_, attempts in jobs if owner == killed]
    assert put_back == twin + 1  # the killed job was put back once, and run once more
    for owner in owners:
        assert _runs(own_database, owner) == ["import", "2026-W48"]
        records = PgRecords(own_database, owner, clock=clock, timezone=workspace.config.timezone)
        assert all(line in records.memory_text() for line in VI_ADDED)
    assert [copy_pid(p.name) for p in copies.iterdir()] == []
    assert _plan(own_database, deployment) == []


def test_the_retry_sweep_puts_back_every_stalled_job_whatever_was_queued_since(
    workspace: Workspace, clock: FixedClock, own_database: Database, tmp_path: Path
) -> None:
    """Three jobs left `doing` by workers that are gone; the planner queued a new pass for each
    of their owners since. One sweep puts back all three, and every job then runs once."""
    vi_week(workspace, clock)
    owners = _owners(own_database, workspace, tmp_path, 3)
    clock.set(PASS_AT)
    deployment = worker_deployment(_app_url(), workspace, clock)
    assert len(_plan(own_database, deployment)) == 3
    with psycopg.connect(own_database.url) as conn:
        conn.execute("UPDATE procrastinate.procrastinate_jobs SET status = 'doing'")
    assert sorted(_plan(own_database, deployment)) == sorted(owners)  # a twin for each

    async def sweep() -> int:
        app = make_queue(own_database, deployment).app
        async with app.open_async():
            return await retry_stalled(app, after=0)

    assert asyncio.run(sweep()) == 3
    assert asyncio.run(sweep()) == 0  # put back once: nothing is stalled now
    assert sorted((owner, status) for owner, _, status, _ in _jobs(own_database)) == sorted(
        [(owner, "todo") for owner in owners * 2]
    )
    run_worker(deployment, wait=False)
    assert {status for _, _, status, _ in _jobs(own_database)} == {"succeeded"}
    for owner in owners:
        assert _runs(own_database, owner) == ["import", "2026-W48"]
