"""The jobs of every owner of a database, on a queue kept in the same database.

The queue is procrastinate's: its tables in a schema of their own (`procrastinate`, installed
by `trinho store migrate`), any number of workers on any number of machines (`trinho worker`).
Two tasks do an owner's work, each on a working copy of the owner's records
(`trinho.pg.workcopy`), so the file code runs unchanged:

- `trinho.pass`: the file scheduler's pass (`trinho.schedule.run.run_due`): the weekly
  condensation, the nightly facts and the digest, each run once per slot, in the owner's zone;
- `trinho.condense`: the condensation alone (`trinho condense` for that owner).

Each is deferred with the owner as its lock, so no two of an owner's jobs run at once (at most
one condensation per owner), and with a queueing lock, so at most one of each waits. `plan`,
each minute on some worker, defers a pass for each owner who owes a run. A worker killed in a
job leaves it `doing` with no heartbeat; `retry_stalled`, each minute, puts it back and another
worker runs it again from a new checkout. The killed run's copy never reached the database,
and a run that was checked in before the kill finds its week done: each job finishes once.

The planner may have queued a new pass for that owner meanwhile (the killed one's runs are
still owed): the job put back then gives up its queueing lock, so both wait, and run one
after the other under the owner's lock; the second finds its runs done. A job that cannot
be put back is logged and the sweep goes on to the next.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from trinho.channels.held import HeldChannel
from trinho.config import Config
from trinho.errors import TrinhoError
from trinho.models import ChatModel, load_model
from trinho.pg.connect import Database
from trinho.pg.owners import owner_since, owner_zone, owner_zones
from trinho.pg.workcopy import run_on_copy, sweep_copies
from trinho.schedule.jobs import ScheduledCondensation, WorkspaceJobRunner
from trinho.schedule.plan import plan
from trinho.schedule.run import STATE_FILE, parse_state, run_due
from trinho.workspace import INTERNAL_DIR, Clock, Workspace, system_clock

if TYPE_CHECKING:
    import procrastinate
    import psycopg

log = logging.getLogger("trinho.worker")

QUEUE = "trinho"
SCHEMA = "procrastinate"
"""The queue's name, and the schema that holds procrastinate's tables."""
STALLED_AFTER = 30.0
"""Seconds without a worker's heartbeat after which its jobs are run again elsewhere."""
HEARTBEAT = 10.0
STATE_NAME = f"{INTERNAL_DIR}/{STATE_FILE}"


@dataclass(frozen=True)
class Deployment:
    """What every worker of one deployment shares: the database, the config every owner's
    jobs read (in each owner's zone), the clock, and a model that replaces the configured one
    (tests, the bench)."""

    url: str
    config: Config
    config_text: str | None
    clock: Clock = system_clock
    model: ChatModel | None = None


def queue_installed(url: str) -> bool:
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT to_regclass(%s)", (f"{SCHEMA}.procrastinate_jobs",)).fetchone()
    return bool(row and row[0])


def install_queue(url: str) -> bool:
    """Create the queue's schema and tables when absent; whether they were created now.
    Under an advisory lock, so two operators migrating at once install it once."""
    import psycopg
    from procrastinate.schema import SchemaManager

    with psycopg.connect(url) as conn:
        conn.execute("SELECT pg_advisory_xact_lock(hashtextextended('trinho.queue', 0))")
        row = conn.execute("SELECT to_regclass(%s)", (f"{SCHEMA}.procrastinate_jobs",)).fetchone()
        if row and row[0]:
            return False
        conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
        conn.execute(f"SET LOCAL search_path TO {SCHEMA}")
        conn.execute(SchemaManager.get_schema().encode())
        conn.execute(PIN_SEARCH_PATH)
    return True


def grant_queue(conn: psycopg.Connection, role: str) -> None:
    """Let `role` (the application's) run the workers and plan: the queue's tables, sequences
    and functions. The queue is installed after the migrations, so this is granted here
    rather than in one; nothing when it is not installed yet."""
    from psycopg import sql

    row = conn.execute("SELECT to_regnamespace(%s)", (SCHEMA,)).fetchone()
    if not row or row[0] is None:
        return
    schema, grantee = sql.Identifier(SCHEMA), sql.Identifier(role)
    for statement in (
        "GRANT USAGE ON SCHEMA {} TO {}",
        "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {} TO {}",
        "GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA {} TO {}",
        "GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA {} TO {}",
    ):
        conn.execute(sql.SQL(statement).format(schema, grantee))


PIN_SEARCH_PATH = f"""
DO $$
DECLARE
    f regprocedure;
BEGIN
    FOR f IN SELECT p.oid::regprocedure FROM pg_proc p
             JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = '{SCHEMA}'
    LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = {SCHEMA}, pg_temp', f);
    END LOOP;
END
$$
"""
"""procrastinate's functions and triggers name its tables unqualified: pinned to its schema,
they work from any session (an operator's `DELETE` of a job, a removed owner's cascade)."""


def _connector(url: str) -> Any:
    from procrastinate import PsycopgConnector

    return PsycopgConnector(conninfo=url, kwargs={"options": f"-c search_path={SCHEMA}"})


def condense_owner(db: Database, deployment: Deployment, owner: str) -> str:
    """The owner's condensation this week, once, as `trinho condense` runs it."""
    from trinho.condense.run import run_condensation

    def job(ws: Workspace) -> str:
        report = run_condensation(ws, model=deployment.model, channel=HeldChannel())
        return f"{report.run_id}: {report.outcome}"

    return run_on_copy(
        db, owner, deployment.config, deployment.config_text, job, clock=deployment.clock
    )


def owner_pass(db: Database, deployment: Deployment, owner: str) -> str:
    """The owner's scheduled runs that are due, each once, as `trinho jobs run` makes them."""

    def job(ws: Workspace) -> str:
        model = deployment.model
        runner = WorkspaceJobRunner(
            ws,
            lambda run: load_model(ws, "job", run=run.run_id, model=model),
            ScheduledCondensation(model, HeldChannel()),
        )
        result = run_due(ws, ws.config.jobs, runner, since=owner_since(db, owner))
        return ", ".join(f"{r.run_id}: {r.status}" for r in result.records)

    return run_on_copy(
        db, owner, deployment.config, deployment.config_text, job, clock=deployment.clock
    )


REMOVED = "owner removed: nothing to do"
"""What a job queued for an owner removed since says it did: it succeeds, as there is no
work left, rather than fail and be retried for nobody."""


def removed(db: Database, owner: str) -> bool:
    """Whether the owner a job was queued for is gone from the registry (logged)."""
    if owner_zone(db, owner) is not None:
        return False
    log.info("owner removed", extra={"fields": {"owner": owner}})
    return True


def owes_a_run(config: Config, state_text: str | None, zone: str, now: datetime) -> bool:
    """Whether a pass would do something for this owner: a run is due, or the scheduler's
    state would change (an owner seen for the first time) (pure)."""
    state = parse_state(state_text, STATE_NAME) if state_text else {}
    planned = plan(config.jobs, state, now.astimezone(ZoneInfo(zone)))
    return bool(planned.due) or planned.state != state


def owners_due(db: Database, deployment: Deployment) -> list[str]:
    """The owners who owe a run now, in id order."""
    due = []
    now = deployment.clock()
    for owner, zone in owner_zones(db).items():
        with db.owner_tx(owner) as conn:
            row = conn.execute(
                "SELECT body FROM owner_files WHERE owner_id = %s AND name = %s",
                (owner, STATE_NAME),
            ).fetchone()
        try:
            if owes_a_run(deployment.config, row[0] if row else None, zone, now):
                due.append(owner)
        except TrinhoError as exc:  # one owner's broken state stops no other's jobs
            log.error("state unreadable", extra={"fields": {"owner": owner, "error": str(exc)}})
    return due


@dataclass
class Queue:
    """The deployment's queue: its procrastinate app, with trinho's tasks on it."""

    app: procrastinate.App
    defer_pass: Callable[[str], bool]
    defer_condense: Callable[[str], bool]


def make_queue(db: Database, deployment: Deployment, *, periodic: bool = False) -> Queue:
    """The app and its tasks. A defer says whether it queued a job (False: one of the same
    kind for that owner already waits). With `periodic`, a worker also plans each minute
    and puts back stalled jobs (`trinho worker`; not `--once`, which empties the queue)."""
    import procrastinate
    from procrastinate.exceptions import AlreadyEnqueued

    app = procrastinate.App(connector=_connector(deployment.url))

    @app.task(name="trinho.pass", queue=QUEUE)
    def pass_task(owner: str) -> str:
        return REMOVED if removed(db, owner) else owner_pass(db, deployment, owner)

    @app.task(name="trinho.condense", queue=QUEUE)
    def condense_task(owner: str) -> str:
        return REMOVED if removed(db, owner) else condense_owner(db, deployment, owner)

    def defer(task: Any, kind: str) -> Callable[[str], bool]:
        def go(owner: str) -> bool:
            try:
                task.configure(lock=f"owner:{owner}", queueing_lock=f"{kind}:{owner}").defer(
                    owner=owner
                )
            except AlreadyEnqueued:
                return False
            return True

        return go

    defer_pass = defer(pass_task, "pass")

    @app.task(name="trinho.plan", queue=QUEUE, queueing_lock="trinho.plan")
    def plan_task(timestamp: int) -> int:
        return sum(defer_pass(owner) for owner in owners_due(db, deployment))

    @app.task(name="trinho.retry_stalled", queue=QUEUE, queueing_lock="trinho.retry_stalled")
    async def retry_stalled_task(timestamp: int) -> int:
        return await retry_stalled(app)

    if periodic:  # every worker knows the tasks: one that empties the queue runs those left
        app.periodic(cron="* * * * *", periodic_id="trinho.plan")(plan_task)
        app.periodic(cron="* * * * *", periodic_id="trinho.retry_stalled")(retry_stalled_task)

    return Queue(app, defer_pass, defer(condense_task, "condense"))


STILL_STALLED = (
    "SELECT queueing_lock FROM procrastinate_jobs WHERE id = %s AND status = 'doing' FOR UPDATE"
)
RELEASE_QUEUEING_LOCK = """
UPDATE procrastinate_jobs SET queueing_lock = NULL
 WHERE id = %(id)s AND EXISTS (
       SELECT 1 FROM procrastinate_jobs AS twin
        WHERE twin.queueing_lock = %(lock)s AND twin.status = 'todo')
"""
PUT_BACK_ATTEMPTS = 3
"""A twin queued between a put-back's look and its update fails that attempt once (one
waiting job per queueing lock), and the next sees it: three leave a margin."""


async def put_back(app: procrastinate.App, job_id: int) -> bool:
    """Put back one stalled job in one transaction; False when it is no longer stalled
    (another worker's sweep put it back first). A waiting job holding its queueing lock (a
    pass the planner queued since) keeps it: this one gives it up, and both run."""
    import psycopg
    from procrastinate import sql

    put_back_now = {  # procrastinate's own query: its function, whatever its version names it
        "job_id": job_id,
        "retry_at": datetime.now(UTC),
        "new_priority": None,
        "new_queue_name": None,
        "new_lock": None,
    }
    async with app.connector.pool.connection() as conn:  # type: ignore[attr-defined]
        attempt = 1
        while True:
            try:
                async with conn.transaction():
                    cur = await conn.execute(STILL_STALLED, (job_id,))
                    row = await cur.fetchone()
                    if row is None:
                        return False
                    if row[0] is not None:
                        await conn.execute(RELEASE_QUEUEING_LOCK, {"id": job_id, "lock": row[0]})
                    await conn.execute(sql.queries["retry_job"], put_back_now)
                return True
            except psycopg.errors.UniqueViolation:  # a twin was queued as it looked
                if attempt == PUT_BACK_ATTEMPTS:
                    raise
                attempt += 1


async def retry_stalled(app: procrastinate.App, after: float = STALLED_AFTER) -> int:
    """Put back every job of a worker silent for `after` seconds; how many. One job that
    cannot be put back is logged and stops no other."""
    stalled = list(await app.job_manager.get_stalled_jobs(seconds_since_heartbeat=after))
    done = 0
    for job in stalled:
        try:
            done += await put_back(app, job.id or 0)
        except Exception as exc:
            log.error(
                "stalled job not put back",
                extra={"fields": {"job": job.id, "error": f"{type(exc).__name__}: {exc}"}},
            )
    if done:
        log.warning("stalled jobs put back", extra={"fields": {"jobs": done}})
    return done


@contextmanager
def opened(deployment: Deployment) -> Iterator[Queue]:
    """The queue, opened for deferring (synchronously)."""
    with Database(deployment.url, max_size=2) as db:
        queue = make_queue(db, deployment)
        with queue.app.open():
            yield queue


def run_worker(
    deployment: Deployment,
    *,
    wait: bool = True,
    heartbeat: float = HEARTBEAT,
    stalled_after: float = STALLED_AFTER,
    name: str = "worker",
) -> None:
    """One worker: takes the queue's jobs one at a time until stopped (SIGINT, SIGTERM), or
    with `wait` False until the queue is empty, after putting back stalled jobs and removing
    the working copies of processes that are gone."""
    import asyncio

    async def work() -> None:
        with Database(deployment.url, max_size=2) as db:
            queue = make_queue(db, deployment, periodic=wait)
            async with queue.app.open_async():
                sweep_copies()
                await retry_stalled(queue.app, stalled_after)
                await queue.app.run_worker_async(
                    queues=[QUEUE],
                    wait=wait,
                    concurrency=1,
                    name=name,
                    update_heartbeat_interval=heartbeat,
                    stalled_worker_timeout=stalled_after,
                    install_signal_handlers=wait,
                )

    asyncio.run(work())
