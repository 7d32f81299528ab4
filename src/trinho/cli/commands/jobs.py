"""`trinho jobs`: the schedule, and one pass of due runs (for cron instead of `trinho serve`)."""

from __future__ import annotations

from trinho.cli.app import cli, emit, json_option, owner_option, state
from trinho.errors import TrinhoError
from trinho.i18n import t


@cli.group()
def jobs() -> None:
    """The weekly condensation, the nightly jobs and the digest: when they run, what they did."""


@jobs.command("list")
@owner_option
@json_option
def list_jobs(owner: str | None, as_json: bool) -> None:
    """Each job, its schedule, its next slot and how its last run went."""
    from trinho.schedule.plan import next_slot
    from trinho.schedule.run import RunStore

    ws = state().working(owner)
    found = ws.config.jobs
    states = RunStore(ws).load()
    now = ws.now()
    rows = []
    for job in found:
        current = states.get(job.name)
        upcoming = next_slot((job,), now)
        rows.append(
            {
                "name": job.name,
                "kind": job.kind,
                "schedule": job.schedule.describe(),
                "next": upcoming.astimezone(ws.tz).isoformat() if upcoming else None,
                "last_slot": current.last_slot.astimezone(ws.tz).isoformat()
                if current and current.last_slot
                else None,
                "last_status": current.last_status if current else None,
                "last_error": current.last_error if current else None,
            }
        )

    def human() -> str:
        return "\n".join(
            t(
                ws.locale,
                "jobs.line",
                name=row["name"],
                schedule=row["schedule"],
                next=row["next"] or "-",
                last=row["last_status"] or t(ws.locale, "jobs.never"),
            )
            + (f" ({row['last_error']})" if row["last_error"] else "")
            for row in rows
        )

    emit(as_json, {"jobs": rows}, human)


@jobs.command("run")
@owner_option
@json_option
def run_jobs(owner: str | None, as_json: bool) -> None:
    """Run what is due now (once each, missed runs caught up once), then send announcements.

    For cron: `*/15 * * * * trinho jobs run`. Exits 1 when a run failed.
    """
    from trinho.channels import DeliveryReport, HeldChannel, Outbox, channel_from_config
    from trinho.models import load_model
    from trinho.review.service import QueueDecider
    from trinho.schedule.jobs import ScheduledCondensation, WorkspaceJobRunner
    from trinho.schedule.run import run_due

    ws = state().working(owner)
    held = HeldChannel() if state().copied else None
    runner = WorkspaceJobRunner(
        ws,
        lambda run: load_model(ws, "job", run=run.run_id),
        ScheduledCondensation(channel=held),
    )
    result = run_due(ws, ws.config.jobs, runner)
    report = DeliveryReport()
    if held is None:  # on a database, announcements wait in the owner's outbox
        channel = channel_from_config(ws, decider=QueueDecider(ws))
        try:
            report = Outbox(ws).deliver(channel)
        finally:
            channel.close()
    data = {
        "busy": result.busy,
        "runs": [record.to_dict() for record in result.records],
        "delivery": report.to_dict(),
        "clock_back": [
            {
                "job": r.job,
                "covered_until": r.covered_until.astimezone(ws.tz).isoformat(),
                "now": r.now.isoformat(),
            }
            for r in result.rewound
        ],
    }

    def human() -> str:
        if result.busy:
            return t(ws.locale, "jobs.busy")
        lines = [
            t(
                ws.locale,
                "jobs.clock_back",
                job=r.job,
                until=r.covered_until.astimezone(ws.tz).isoformat(),
            )
            for r in result.rewound
        ]
        lines += [
            t(
                ws.locale,
                "jobs.ran",
                run=r.run_id,
                status=r.status,
                detail=r.summary or r.error or "",
            )
            for r in result.records
        ]
        return "\n".join(lines) or t(ws.locale, "jobs.nothing_due")

    emit(as_json, data, human)
    failed = [record.run_id for record in result.records if record.status == "failed"]
    if failed:
        raise TrinhoError.keyed("error.jobs.failed", runs=", ".join(failed))


@jobs.command("plan")
@json_option
def plan_jobs(as_json: bool) -> None:
    """On a PostgreSQL store: queue a pass for each owner who owes a run now, for the workers
    (`trinho worker` does this each minute; this is for cron and for a look)."""
    from trinho.cli.commands.worker import deployment
    from trinho.pg.connect import Database
    from trinho.pg.jobs import opened, owners_due

    found = deployment()
    with Database(found.url, max_size=2) as db:
        due = owners_due(db, found)
    with opened(found) as queue:
        deferred = [owner for owner in due if queue.defer_pass(owner)]
    locale = state().locale()
    emit(
        as_json,
        {"due": due, "deferred": deferred},
        t(
            locale,
            "jobs.planned",
            count=len(due),
            queued=t(locale, "jobs.queued", count=len(deferred)),
        ),
    )
