"""The scheduler's shell: run state in `.trinho/scheduler.json`, and one pass over due runs.

A pass holds `.trinho/locks/scheduler.lock` without waiting for it: when another process (a
second `trinho serve`, a manual `trinho jobs run`) holds it, this pass does nothing, so two
runs never overlap. A run's slot is marked covered only when the run has finished, so a run
cut off by a crash is run again once at the next start, never lost. A clock found to have
moved backwards is logged (`scheduler.clock_back`, one line per job) and the rewound state saved.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from trinho import fields
from trinho.channels import Notification, Outbox
from trinho.durable import atomic_write_text, try_file_lock
from trinho.errors import TrinhoError
from trinho.i18n import t
from trinho.schedule.plan import DueRun, JobSpec, JobState, Rewind, RunStatus, plan, record_run
from trinho.workspace import Workspace

log = logging.getLogger("trinho.scheduler")

STATE_FILE = "scheduler.json"
"""Under `.trinho/`: each job's state."""
LOCK_FILE = "locks/scheduler.lock"


class RunStore:
    """Persists each job's `JobState` atomically; a broken file is a clear error, not a reset."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.path: Path = ws.internal / STATE_FILE

    def load(self) -> dict[str, JobState]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as exc:
            raise TrinhoError.keyed(
                "error.schedule.state_unreadable", path=self.path, error=str(exc)
            ) from None
        return parse_state(text, str(self.path))

    def save(self, state: Mapping[str, JobState]) -> None:
        data = {"jobs": {name: state[name].to_json() for name in sorted(state)}}
        atomic_write_text(self.path, json.dumps(data, ensure_ascii=False, indent=1) + "\n")


def parse_state(text: str, where: str) -> dict[str, JobState]:
    """Each job's state as `scheduler.json` says it; a broken one is a clear error (pure)."""
    try:
        data = json.loads(text)
        jobs = data["jobs"]
        if not isinstance(jobs, dict):
            raise TypeError("jobs must be an object")
    except (ValueError, KeyError, TypeError) as exc:
        raise TrinhoError.keyed(
            "error.schedule.state_invalid", path=where, error=str(exc)
        ) from None
    return {
        str(name): JobState.from_json(
            fields.as_object(value, f"{where}: jobs.{name}"), f"{where}: jobs.{name}"
        )
        for name, value in jobs.items()
    }


class JobRunner(Protocol):
    """Runs one due run; returns a one-line summary, raises when the run failed."""

    def __call__(self, run: DueRun) -> str: ...


@dataclass(frozen=True)
class RunRecord:
    """What one run did."""

    run_id: str
    job: str
    slot: datetime
    status: RunStatus
    summary: str = ""
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "job": self.job,
            "slot": self.slot.isoformat(),
            "status": self.status,
            "summary": self.summary,
            "error": self.error,
        }


@dataclass(frozen=True)
class RunPass:
    """One pass: the runs made, or `busy` when another process held the scheduler lock, and
    the jobs rewound because the clock moved back."""

    records: tuple[RunRecord, ...] = ()
    busy: bool = False
    rewound: tuple[Rewind, ...] = ()


def run_due(
    ws: Workspace,
    jobs: tuple[JobSpec, ...],
    runner: JobRunner,
    *,
    should_stop: Callable[[], bool] = lambda: False,
    since: datetime | None = None,
) -> RunPass:
    """Run every due run once, oldest slot first; stops between runs when `should_stop()`.
    `since`: when the owner was added, the baseline of the jobs seen for the first time."""
    store = RunStore(ws)
    with try_file_lock(ws.internal / LOCK_FILE) as taken:
        if not taken:
            log.info("scheduler busy", extra={"fields": {"event": "scheduler.busy"}})
            return RunPass(busy=True)
        state = store.load()
        planned = plan(jobs, state, ws.now(), since)
        for back in planned.rewound:
            log.warning(
                "clock moved back",
                extra={
                    "fields": {
                        "event": "scheduler.clock_back",
                        "job": back.job,
                        "covered_until": back.covered_until.isoformat(),
                        "now": back.now.isoformat(),
                    }
                },
            )
        state = planned.state
        store.save(state)
        records: list[RunRecord] = []
        for run in planned.due:
            if should_stop():
                break
            record = _run_one(run, runner)
            state = record_run(state, run, record.status, ws.now(), record.error)
            store.save(state)
            records.append(record)
            if record.status == "failed":
                announce_failure(ws, run, record.error or "")
        return RunPass(tuple(records), rewound=planned.rewound)


def _run_one(run: DueRun, runner: JobRunner) -> RunRecord:
    shown = run.slot.astimezone(run.zone) if run.zone is not None else run.slot
    about: dict[str, Any] = {"run": run.run_id, "job": run.job.name, "kind": run.job.kind}
    log.info("run started", extra={"fields": {"event": "run.started", **about}})
    try:
        summary = runner(run)
    except Exception as exc:
        error = str(exc) if isinstance(exc, TrinhoError) else f"{type(exc).__name__}: {exc}"
        log.error("run failed", extra={"fields": {"event": "run.failed", **about, "error": error}})
        return RunRecord(run.run_id, run.job.name, shown, "failed", error=error)
    log.info(
        "run finished", extra={"fields": {"event": "run.finished", **about, "summary": summary}}
    )
    return RunRecord(run.run_id, run.job.name, shown, "ok", summary=summary)


def announce_failure(ws: Workspace, run: DueRun, error: str) -> None:
    """Tell the owner, once per run (the outbox keeps one entry per id), that a scheduled run
    failed, why, and the command that runs it again once the cause is fixed."""
    command = (
        "trinho condense" if run.job.kind == "condense" else t(ws.locale, "jobs.failed.next_slot")
    )
    summary = t(ws.locale, "jobs.failed.summary", run=run.run_id, error=error, command=command)
    title = t(ws.locale, "jobs.failed.title", job=run.job.name)
    try:
        Outbox(ws).enqueue(Notification(f"failed:{run.run_id}", title, summary))
    except (OSError, TrinhoError) as exc:  # the failure is logged either way
        log.error(
            "failure not announced",
            extra={
                "fields": {"event": "run.announce_failed", "run": run.run_id, "error": str(exc)}
            },
        )
