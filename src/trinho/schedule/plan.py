"""When scheduled work is due: the weekly condensation, the nightly jobs, the daily digest.

The core is pure: given the jobs (from the config), what each job has already covered, and
`now`, it says which runs are due. A job owes at most ONE run at any moment, for its latest
slot that has passed: runs missed while the service was down collapse into one catch-up run,
and a slot once covered is never run again. A job seen for the first time owes nothing for
slots before that moment, so installing the service does not fire a week of old runs; where
the store knows when the owner was added (a database's registry), an owner seen for the
first time owes the slots since then, so an owner added before Sunday's slot and first seen
after it has that week condensed. A clock
that moved backwards (a job covered past `now`) rewinds that job to the present, so the future
it remembers does not hold its schedule back.

Schedules are written `daily HH:MM`, `sun 21:00` or `mon,wed,fri 02:00`, in the owner's zone;
`off` disables a built-in job. A slot is an instant (UTC), resolved once from its day and time
by `trinho.clock.resolve`: a slot in an hour a spring-forward night skips is due at the
first valid instant after it, a slot in an hour a fall-back night repeats is due once, at its
first occurrence. Every comparison is between UTC instants, so a night that changes the offset
runs each slot exactly once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, tzinfo
from typing import Any, Literal, Protocol, Self

from trinho.clock import exists, resolve, utc
from trinho.config import BUILTIN_DEFAULTS as BUILTIN_DEFAULTS
from trinho.config import JobKind as JobKind
from trinho.config import JobSpec as JobSpec
from trinho.config import Schedule as Schedule
from trinho.config import jobs_from_tables as jobs_from_tables
from trinho.config import parse_schedule as parse_schedule
from trinho.errors import TrinhoError

RunStatus = Literal["ok", "failed"]


class ConfigView(Protocol):
    """What the schedule reads of a workspace config (`trinho.config.Config` is one)."""

    @property
    def jobs(self) -> tuple[JobSpec, ...]: ...


def jobs_from_config(config: ConfigView) -> tuple[JobSpec, ...]:
    """The config's scheduled jobs, checked when the config was read (`jobs_from_tables`)."""
    return config.jobs


@dataclass(frozen=True)
class JobState:
    """What a job has covered: every slot at or before `covered_until` is owed no run.

    `last_run` is the id of the last run made (`facts:2026-11-29T02:00`): after the owner's
    zone changed, the new zone's slot of the same day and time is the same run, not a second.
    """

    covered_until: datetime
    last_slot: datetime | None = None
    last_status: RunStatus | None = None
    last_finished_at: datetime | None = None
    last_error: str | None = None
    runs: int = 0
    last_run: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "covered_until": self.covered_until.isoformat(),
            "last_slot": _iso(self.last_slot),
            "last_status": self.last_status,
            "last_finished_at": _iso(self.last_finished_at),
            "last_error": self.last_error,
            "runs": self.runs,
        }
        if self.last_run is not None:
            data["last_run"] = self.last_run
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str) -> Self:
        """A job's state as stored; a bad field is named with `where` (the file and job)."""
        status = data.get("last_status")
        if status not in (None, "ok", "failed"):
            raise TrinhoError.keyed(
                "error.record.choice",
                file=where,
                field="last_status",
                value=status,
                allowed="ok, failed",
            )
        runs, last_error = data.get("runs", 0), data.get("last_error")
        if not isinstance(runs, int) or isinstance(runs, bool):
            raise TrinhoError.keyed("error.record.type", file=where, field="runs", kind="int")
        if last_error is not None and not isinstance(last_error, str):
            raise TrinhoError.keyed("error.record.type", file=where, field="last_error", kind="str")
        last_run = data.get("last_run")
        if last_run is not None and not isinstance(last_run, str):
            raise TrinhoError.keyed("error.record.type", file=where, field="last_run", kind="str")
        return cls(
            covered_until=_aware(data, "covered_until", where),
            last_slot=_maybe(data, "last_slot", where),
            last_status=status,
            last_finished_at=_maybe(data, "last_finished_at", where),
            last_error=last_error,
            runs=runs,
            last_run=last_run,
        )


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _aware(data: Mapping[str, Any], name: str, where: str) -> datetime:
    value = data.get(name)
    if not isinstance(value, str):
        raise TrinhoError.keyed("error.record.type", file=where, field=name, kind="str")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise TrinhoError.keyed("error.record.not_iso", file=where, field=name) from None
    if moment.tzinfo is None:
        raise TrinhoError.keyed("error.record.no_offset", file=where, field=name)
    return moment


def _maybe(data: Mapping[str, Any], name: str, where: str) -> datetime | None:
    return None if data.get(name) is None else _aware(data, name, where)


@dataclass(frozen=True)
class DueRun:
    """A run owed now: `job` for its `slot` (the latest one passed, a UTC instant), read in
    `zone` (the owner's; None: the slot's own)."""

    job: JobSpec
    slot: datetime
    zone: tzinfo | None = field(default=None, compare=False)

    @property
    def run_id(self) -> str:
        """Stable per job and slot, e.g. `facts:2026-11-29T02:00`, in the owner's wall time."""
        return run_label(self.job, self.slot, self.zone)


def run_label(job: JobSpec, slot: datetime, zone: tzinfo | None) -> str:
    """The id of `job`'s run for `slot`: its day and time as the schedule names them. A slot in
    a skipped hour is named by its schedule's time (`02:30`), though it runs at the jump."""
    local = slot.astimezone(zone) if zone is not None else slot
    day, at, tz = local.date(), job.schedule.at, local.tzinfo
    if tz is not None and not exists(day, at, tz) and resolve(day, at, tz) == utc(slot):
        return f"{job.name}:{day.isoformat()}T{at.strftime('%H:%M')}"
    return f"{job.name}:{local.strftime('%Y-%m-%dT%H:%M')}"


@dataclass(frozen=True)
class Rewind:
    """A job found covered past `now`: the clock moved backwards since it was covered."""

    job: str
    covered_until: datetime
    now: datetime


@dataclass(frozen=True)
class Plan:
    due: tuple[DueRun, ...]
    state: dict[str, JobState]
    """The state with a baseline for every job seen for the first time, and every rewind."""
    rewound: tuple[Rewind, ...] = ()


_INSTANT = timedelta(microseconds=1)


def rewind(
    state: Mapping[str, JobState], now: datetime
) -> tuple[dict[str, JobState], list[Rewind]]:
    """Each job covered past `now` covered only until just before `now`.

    Coverage past `now` can only come from a clock that read later than it reads now (a run
    or a baseline is never recorded past the clock of its pass). That future says nothing
    about the real present, so the schedule resumes from the present: a slot at `now` or
    later is owed again, a slot before `now` is not (as for a job seen the first time).
    """
    new_state = dict(state)
    found: list[Rewind] = []
    instant = utc(now)
    for name, current in state.items():
        if current.covered_until > instant:
            new_state[name] = replace(current, covered_until=instant - _INSTANT)
            found.append(Rewind(name, current.covered_until, now))
    return new_state, found


def plan(
    jobs: Sequence[JobSpec],
    state: Mapping[str, JobState],
    now: datetime,
    since: datetime | None = None,
) -> Plan:
    """Which runs are due at `now`, oldest slot first. New jobs get `now` as their baseline;
    for an owner seen for the first time (no job has a state yet), `since`, when the owner
    was added (never later than `now`): a job added to the config later owes nothing old.

    Slots are read in `now`'s zone and compared as UTC instants. A slot whose run id is the
    job's last run (the same day and time, read in a zone the owner has just changed to) is
    covered, not run a second time."""
    new_state, rewound = rewind(state, now)
    baseline = utc(now) if since is None or state else min(utc(since), utc(now))
    due: list[DueRun] = []
    for job in jobs:
        current = new_state.get(job.name)
        if current is None:
            current = new_state[job.name] = JobState(covered_until=baseline)
        slot = job.schedule.latest_slot(now)
        if slot > current.covered_until:
            run = DueRun(job, slot, now.tzinfo)
            if _same_run_other_zone(current, run):
                new_state[job.name] = replace(current, covered_until=slot)
                continue
            due.append(run)
    due.sort(key=lambda run: run.slot)
    return Plan(tuple(due), new_state, tuple(rewound))


def _same_run_other_zone(current: JobState, run: DueRun) -> bool:
    """Whether `run` is the job's last run under another zone's reading of the same day and
    time (the owner changed zones between them): the same id, another instant."""
    return (
        current.last_run == run.run_id
        and current.last_slot is not None
        and utc(current.last_slot) != utc(run.slot)
    )


def record_run(
    state: Mapping[str, JobState],
    run: DueRun,
    status: RunStatus,
    finished_at: datetime,
    error: str | None = None,
) -> dict[str, JobState]:
    """The state once `run` finished (either way): its slot, and all before, are covered.

    A failed run is not retried before the next slot: it is logged and shown, and a model or
    network outage does not turn into a loop of failing runs.
    """
    slot = utc(run.slot)
    current = state.get(run.job.name) or JobState(covered_until=slot)
    updated = replace(
        current,
        covered_until=max(utc(current.covered_until), slot),
        last_slot=slot,
        last_status=status,
        last_finished_at=utc(finished_at),
        last_error=error,
        runs=current.runs + 1,
        last_run=run.run_id,
    )
    return {**state, run.job.name: updated}


def next_slot(jobs: Sequence[JobSpec], now: datetime) -> datetime | None:
    """The earliest slot (a UTC instant) strictly after `now` among `jobs`, read in `now`'s
    zone (None when there are none): an instant that exists and is ahead, always."""
    later = [
        slot
        for job in jobs
        for slot in job.schedule.slots_between(now, now + timedelta(days=8))[:1]
    ]
    return min(later) if later else None
