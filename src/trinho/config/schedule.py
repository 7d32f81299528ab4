"""The job table: `[schedule]` and `[[jobs]]`, parsed so the typed config holds its jobs (pure);
`trinho.schedule.plan` decides when they are due.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Any, Literal

from trinho.clock import resolve, utc
from trinho.errors import TrinhoError
from trinho.textnorm import validate_slug

JobKind = Literal["condense", "facts", "digest", "prompt"]

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
    name = validate_slug(str(raw["name"]), "job name", where)
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


def default_jobs() -> tuple[JobSpec, ...]:
    return jobs_from_tables({}, [])
