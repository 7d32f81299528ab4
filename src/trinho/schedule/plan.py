"""When scheduled work is due: the weekly condensation, the nightly jobs, the daily digest.

The core is pure: given the jobs (from the config), what each job has already covered, and
`now`, it says which runs are due. A job owes at most ONE run at any moment, for its latest
slot that has passed: runs missed while the service was down collapse into one catch-up run,
and a slot once covered is never run again. A job seen for the first time owes nothing for
slots before that moment, so installing the service does not fire a week of old runs. A clock
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

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, time, timedelta, tzinfo
from typing import Any, Literal, Protocol, Self

from trinho.clock import exists, resolve, utc
from trinho.errors import TrinhoError
from trinho.textnorm import validate_slug

JobKind = Literal["condense", "facts", "digest", "prompt"]
RunStatus = Literal["ok", "failed"]

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_FULL_NAMES = (
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
)
_TIME_RE = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")
MAX_PROMPT_CHARS = 20_000

BUILTIN_DEFAULTS: dict[str, tuple[JobKind, str]] = {
    "condense": ("condense", "sun 21:00"),
    "facts": ("facts", "daily 02:00"),
    "digest": ("digest", "daily 07:00"),
}
"""Built-in jobs, their kind and default schedule; `[schedule] NAME = "..."` or "off"."""


@dataclass(frozen=True)
class Schedule:
    """Days of the week (0 = Monday) and a wall-clock time in the owner's zone."""

    weekdays: frozenset[int]
    at: time

    def __post_init__(self) -> None:
        if not self.weekdays or not self.weekdays <= frozenset(range(7)):
            raise ValueError(f"weekdays must be a non-empty subset of 0-6, not {self.weekdays}")

    def latest_slot(self, now: datetime) -> datetime:
        """The most recent slot (a UTC instant) at or before `now`, read in `now`'s zone."""
        if now.tzinfo is None:
            raise ValueError("now must be an aware datetime")
        zone, instant = now.tzinfo, utc(now)
        for back in range(9):
            day = now.date() - timedelta(days=back)
            if day.weekday() in self.weekdays:
                slot = resolve(day, self.at, zone)
                if slot <= instant:
                    return slot
        raise AssertionError("a weekly schedule always has a slot within 9 days")

    def slots_between(self, after: datetime, until: datetime) -> list[datetime]:
        """Every slot (UTC instants) in (`after`, `until`], read in `until`'s zone, oldest
        first; each slot once, whatever the night does to the clock."""
        zone = until.tzinfo
        if zone is None:
            raise ValueError("until must be an aware datetime")
        start, end = utc(after), utc(until)
        found: list[datetime] = []
        day = after.astimezone(zone).date() - timedelta(days=1)
        while day <= until.date() + timedelta(days=1):
            if day.weekday() in self.weekdays:
                slot = resolve(day, self.at, zone)
                if start < slot <= end:
                    found.append(slot)
            day += timedelta(days=1)
        return found

    def describe(self) -> str:
        days = (
            "daily"
            if len(self.weekdays) == 7
            else ",".join(WEEKDAYS[d] for d in sorted(self.weekdays))
        )
        return f"{days} {self.at.strftime('%H:%M')}"


def parse_schedule(text: str, where: str) -> Schedule | None:
    """`daily HH:MM`, `DAY[,DAY...] HH:MM` (mon..sun, or full names), or `off` (None)."""
    value = " ".join(str(text).split()).lower()
    if value == "off":
        return None
    parts = value.rsplit(" ", 1)
    match = _TIME_RE.fullmatch(parts[-1]) if len(parts) == 2 else None
    if match is None:
        raise TrinhoError.keyed("error.schedule.bad_text", where=where, text=text)
    at = time(int(match.group(1)), int(match.group(2)))
    days_text = parts[0].replace(" ", "")
    if days_text in ("daily", "everyday"):
        return Schedule(frozenset(range(7)), at)
    weekdays: set[int] = set()
    for name in days_text.split(","):
        if name in WEEKDAYS:
            weekdays.add(WEEKDAYS.index(name))
        elif name in _FULL_NAMES:
            weekdays.add(_FULL_NAMES.index(name))
        else:
            raise TrinhoError.keyed("error.schedule.bad_weekday", where=where, name=name, text=text)
    return Schedule(frozenset(weekdays), at)


@dataclass(frozen=True)
class JobSpec:
    """One scheduled job: a built-in (`condense`, `facts`, `digest`) or a configured prompt."""

    name: str
    kind: JobKind
    schedule: Schedule
    prompt: str = ""


class ConfigView(Protocol):
    """What the schedule reads of a workspace config (`trinho.config.Config` is one)."""

    @property
    def jobs(self) -> tuple[JobSpec, ...]: ...


def jobs_from_config(config: ConfigView) -> tuple[JobSpec, ...]:
    """The config's scheduled jobs, checked when the config was read (`jobs_from_tables`)."""
    return config.jobs


def jobs_from_tables(section: Mapping[str, Any], raw_jobs: object) -> tuple[JobSpec, ...]:
    """The built-in jobs (unless `off`) and every `[[jobs]]` entry, checked: `[schedule]` and
    the `jobs` array of the config's TOML (`trinho.config` keeps the result as `Config.jobs`)."""
    where = ".trinho/config.toml"
    unknown = sorted(set(section) - set(BUILTIN_DEFAULTS))
    if unknown:
        raise TrinhoError.keyed(
            "error.schedule.not_builtin",
            where=where,
            name=unknown[0],
            builtins=", ".join(BUILTIN_DEFAULTS),
        )
    jobs: list[JobSpec] = []
    for name, (kind, default) in BUILTIN_DEFAULTS.items():
        schedule = parse_schedule(str(section.get(name, default)), f"{where} [schedule] {name}")
        if schedule is not None:
            jobs.append(JobSpec(name, kind, schedule))
    if not isinstance(raw_jobs, list):
        raise TrinhoError.keyed("error.jobs.not_array", where=where)
    seen = set(BUILTIN_DEFAULTS)
    for index, raw in enumerate(raw_jobs, start=1):
        jobs.append(_job_entry(raw, f"{where} [[jobs]] #{index}", seen))
    return tuple(jobs)


def _job_entry(raw: Any, where: str, seen: set[str]) -> JobSpec:
    if not isinstance(raw, dict):
        raise TrinhoError.keyed("error.jobs.not_table", where=where)
    missing = [key for key in ("name", "schedule", "prompt") if key not in raw]
    if missing:
        raise TrinhoError.keyed("error.field.missing", where=where, names=", ".join(missing))
    name = validate_slug(str(raw["name"]), f"job name in {where}")
    if name in seen:
        raise TrinhoError.keyed("error.jobs.duplicate", where=where, name=name)
    seen.add(name)
    prompt = raw["prompt"]
    if not isinstance(prompt, str) or not prompt.strip():
        raise TrinhoError.keyed("error.jobs.empty_prompt", where=where, name=name)
    if len(prompt) > MAX_PROMPT_CHARS:
        raise TrinhoError.keyed(
            "error.jobs.prompt_too_long", where=where, name=name, limit=MAX_PROMPT_CHARS
        )
    schedule = parse_schedule(str(raw["schedule"]), f"{where} ({name}) schedule")
    if schedule is None:
        raise TrinhoError.keyed("error.jobs.off", where=where, name=name)
    return JobSpec(name, "prompt", schedule, prompt.strip())


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


def plan(jobs: Sequence[JobSpec], state: Mapping[str, JobState], now: datetime) -> Plan:
    """Which runs are due at `now`, oldest slot first; new jobs get `now` as their baseline.

    Slots are read in `now`'s zone and compared as UTC instants. A slot whose run id is the
    job's last run (the same day and time, read in a zone the owner has just changed to) is
    covered, not run a second time."""
    new_state, rewound = rewind(state, now)
    due: list[DueRun] = []
    for job in jobs:
        current = new_state.get(job.name)
        if current is None:
            new_state[job.name] = JobState(covered_until=utc(now))
            continue
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
