"""The scheduler's pure core: schedules, due runs, catch-up once, never twice."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trinho.config.files import parse_config
from trinho.errors import TrinhoError
from trinho.schedule.plan import (
    DueRun,
    JobSpec,
    JobState,
    Schedule,
    jobs_from_config,
    next_slot,
    parse_schedule,
    plan,
    record_run,
)

TZ = ZoneInfo("Asia/Ho_Chi_Minh")
WEEKLY = JobSpec("condense", "condense", Schedule(frozenset({6}), time(21, 0)))
NIGHTLY = JobSpec("facts", "facts", Schedule(frozenset(range(7)), time(2, 0)))


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=TZ)


def test_parse_schedules() -> None:
    assert parse_schedule("sun 21:00", "x") == Schedule(frozenset({6}), time(21, 0))
    assert parse_schedule("daily 02:00", "x") == Schedule(frozenset(range(7)), time(2, 0))
    assert parse_schedule("Mon, Wed,fri 7:05", "x") == Schedule(frozenset({0, 2, 4}), time(7, 5))
    assert parse_schedule("sunday 00:00", "x") == Schedule(frozenset({6}), time(0, 0))
    assert parse_schedule(" OFF ", "x") is None


@pytest.mark.parametrize("bad", ["", "sun", "21:00", "sun 24:00", "sun 9:60", "funday 02:00"])
def test_bad_schedules_name_where(bad: str) -> None:
    with pytest.raises(TrinhoError, match=r"\[schedule\] condense"):
        parse_schedule(bad, "[schedule] condense")


@settings(deadline=None)
@given(
    days=st.frozensets(st.integers(0, 6), min_size=1),
    hour=st.integers(0, 23),
    minute=st.integers(0, 59),
)
def test_describe_round_trips(days: frozenset[int], hour: int, minute: int) -> None:
    schedule = Schedule(days, time(hour, minute))
    assert parse_schedule(schedule.describe(), "x") == schedule


def test_config_jobs_defaults_overrides_and_custom_jobs() -> None:
    config = parse_config(
        '[schedule]\ncondense = "sat 20:30"\ndigest = "off"\n'
        '[[jobs]]\nname = "tidy"\nschedule = "mon,thu 03:00"\nprompt = "Dọn dẹp ghi chú"\n',
        "cfg",
    )
    assert jobs_from_config(config) == config.jobs
    jobs = {job.name: job for job in config.jobs}
    assert set(jobs) == {"condense", "facts", "tidy"}
    assert jobs["condense"].schedule.describe() == "sat 20:30"
    assert jobs["facts"].schedule.describe() == "daily 02:00"
    assert jobs["tidy"].kind == "prompt"
    assert jobs["tidy"].prompt == "Dọn dẹp ghi chú"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[schedule]\nweekly = "sun 21:00"\n', "not a built-in job"),
        ('[[jobs]]\nname = "x"\nschedule = "daily 01:00"\n', "missing prompt"),
        ('[[jobs]]\nname = "Bad Name"\nschedule = "daily 01:00"\nprompt = "p"\n', "job name"),
        ('[[jobs]]\nname = "facts"\nschedule = "daily 01:00"\nprompt = "p"\n', "already exists"),
        ('[[jobs]]\nname = "x"\nschedule = "daily 01:00"\nprompt = "  "\n', "non-empty"),
        ('[[jobs]]\nname = "x"\nschedule = "off"\nprompt = "p"\n', "remove the entry"),
        ("jobs = 3\n", "array of tables"),
    ],
)
def test_bad_job_config_is_a_clear_error(text: str, message: str) -> None:
    with pytest.raises(TrinhoError, match=message):
        parse_config(text, "cfg")


def test_latest_slot_is_at_or_before_now() -> None:
    schedule = WEEKLY.schedule
    assert schedule.latest_slot(at("2026-11-29T21:00")) == at("2026-11-29T21:00")
    assert schedule.latest_slot(at("2026-11-29T20:59")) == at("2026-11-22T21:00")
    assert schedule.latest_slot(at("2026-12-03T08:00")) == at("2026-11-29T21:00")


def test_first_sight_owes_nothing_then_the_weekly_run_fires_once() -> None:
    start = at("2026-11-29T14:05")
    first = plan([WEEKLY], {}, start)
    assert first.due == ()
    assert first.state["condense"].covered_until == start
    before = plan([WEEKLY], first.state, at("2026-11-29T20:59"))
    assert before.due == ()
    fire = plan([WEEKLY], first.state, at("2026-11-29T21:00"))
    assert fire.due == (DueRun(WEEKLY, at("2026-11-29T21:00")),)
    assert fire.due[0].run_id == "condense:2026-11-29T21:00"
    done = record_run(fire.state, fire.due[0], "ok", at("2026-11-29T21:03"))
    assert plan([WEEKLY], done, at("2026-11-29T21:05")).due == ()
    assert plan([WEEKLY], done, at("2026-12-06T20:00")).due == ()
    assert plan([WEEKLY], done, at("2026-12-06T21:00")).due[0].slot == at("2026-12-06T21:00")


SCHEDULES = st.builds(
    Schedule,
    st.frozensets(st.integers(0, 6), min_size=1),
    st.builds(time, st.integers(0, 23), st.sampled_from([0, 15, 30, 59])),
)
GAPS = st.lists(st.integers(1, 60 * 24 * 20), min_size=1, max_size=40)


def test_an_owner_added_before_sundays_slot_and_first_seen_after_it_owes_that_week() -> None:
    late = plan([WEEKLY, NIGHTLY], {}, at("2026-11-29T21:05"), since=at("2026-11-29T19:00"))
    assert late.due == (DueRun(WEEKLY, at("2026-11-29T21:00")),)
    assert plan([WEEKLY], {}, at("2026-11-29T21:05"), since=at("2026-11-29T21:03")).due == ()
    added_later = plan([WEEKLY], {}, at("2026-11-29T21:05"), since=at("2026-12-01T00:00"))
    assert added_later.due == ()  # a registry clock ahead of the pass's: nothing, no rewind
    assert added_later.state["condense"].covered_until == at("2026-11-29T21:05")
    known = {"facts": JobState(covered_until=at("2026-11-29T02:00"))}  # an owner seen before
    assert plan([WEEKLY], known, at("2026-11-29T21:05"), since=at("2026-11-29T19:00")).due == ()


@settings(max_examples=150, deadline=None)
@given(
    schedule=SCHEDULES,
    since_minutes=st.integers(0, 60 * 24 * 30),
    seen_after=st.integers(0, 60 * 24 * 30),
)
def test_a_job_first_seen_owes_its_latest_slot_exactly_when_it_came_after_the_owner(
    schedule: Schedule, since_minutes: int, seen_after: int
) -> None:
    job = JobSpec("job", "facts", schedule)
    since = at("2026-01-01T00:00") + timedelta(minutes=since_minutes)
    now = since + timedelta(minutes=seen_after)
    first = plan([job], {}, now, since=since)
    latest = schedule.latest_slot(now)
    assert [run.slot for run in first.due] == ([latest] if latest > since else [])
    assert plan([job], {}, now).due == ()  # without it: nothing before first sight
    if first.due:
        done = record_run(first.state, first.due[0], "ok", now)
        assert plan([job], done, now, since=since).due == ()


def test_a_long_downtime_is_caught_up_once_for_the_latest_slot() -> None:
    state = {"facts": JobState(covered_until=at("2026-11-20T02:00"))}
    due = plan([NIGHTLY], state, at("2026-11-29T09:00")).due
    assert due == (DueRun(NIGHTLY, at("2026-11-29T02:00")),)
    state = record_run(state, due[0], "failed", at("2026-11-29T09:01"), "model down")
    assert state["facts"].last_status == "failed"
    assert state["facts"].last_error == "model down"
    assert plan([NIGHTLY], state, at("2026-11-29T23:00")).due == ()


def test_due_runs_come_oldest_slot_first() -> None:
    digest = JobSpec("digest", "digest", Schedule(frozenset(range(7)), time(7, 0)))
    state = {name: JobState(covered_until=at("2026-11-28T00:00")) for name in ("facts", "digest")}
    due = plan([digest, NIGHTLY], state, at("2026-11-29T08:00")).due
    assert [run.job.name for run in due] == ["facts", "digest"]


def test_next_slot() -> None:
    assert next_slot([WEEKLY, NIGHTLY], at("2026-11-29T14:05")) == at("2026-11-29T21:00")
    assert next_slot([WEEKLY], at("2026-11-29T21:00")) == at("2026-12-06T21:00")
    assert next_slot([], at("2026-11-29T21:00")) is None


@settings(max_examples=150, deadline=None)
@given(schedule=SCHEDULES, gaps=GAPS, start_minutes=st.integers(0, 60 * 24 * 14))
def test_random_clocks_and_downtimes_never_run_a_slot_twice(
    schedule: Schedule, gaps: list[int], start_minutes: int
) -> None:
    """A service waking at random times (minutes to weeks apart): each pass runs at most one
    run, for the latest slot passed; no slot is run twice; after each pass nothing is owed;
    a gap that passes several slots runs exactly one of them (the latest)."""
    job = JobSpec("j", "prompt", schedule, "p")
    now = at("2026-01-01T00:00") + timedelta(minutes=start_minutes)
    state = plan([job], {}, now).state
    ran: list[datetime] = []
    for gap in gaps:
        before = now
        now = now + timedelta(minutes=gap)
        passed = schedule.slots_between(before, now)
        result = plan([job], state, now)
        if passed:
            assert result.due == (DueRun(job, passed[-1]),)
        else:
            assert result.due == ()
        for run in result.due:
            assert run.slot <= now
            state = record_run(result.state, run, "ok", now)
            ran.append(run.slot)
        assert plan([job], state, now).due == ()
    assert len(ran) == len(set(ran))
    assert ran == sorted(ran)


@settings(max_examples=60, deadline=None)
@given(
    schedule=SCHEDULES,
    step=st.integers(1, 60 * 23),
    ticks=st.integers(1, 300),
)
def test_frequent_ticks_fire_every_slot_exactly_once(
    schedule: Schedule, step: int, ticks: int
) -> None:
    """Woken more often than slots come (less than a day apart), every slot runs, once."""
    job = JobSpec("j", "prompt", schedule, "p")
    start = at("2026-03-01T00:00")
    state = plan([job], {}, start).state
    now = start
    ran: list[datetime] = []
    for _ in range(ticks):
        now += timedelta(minutes=step)
        result = plan([job], state, now)
        for run in result.due:
            state = record_run(result.state, run, "ok", now)
            ran.append(run.slot)
    assert ran == schedule.slots_between(start, now)


def test_a_clock_back_from_the_future_rewinds_to_the_present() -> None:
    """A pass at a clock a year ahead covers every job far in the future; back in the present,
    the jump is reported, nothing before now is owed, and the next slots fire again."""
    state = plan([WEEKLY, NIGHTLY], {}, at("2026-12-01T09:00")).state
    ahead = plan([WEEKLY, NIGHTLY], state, at("2027-06-01T09:00"))
    state = ahead.state
    for run in ahead.due:
        state = record_run(state, run, "ok", at("2027-06-01T09:00"))
    back = plan([WEEKLY, NIGHTLY], state, at("2026-12-13T22:00"))
    assert back.due == ()
    assert [(r.job, r.covered_until, r.now) for r in back.rewound] == [
        ("condense", at("2027-05-30T21:00"), at("2026-12-13T22:00")),
        ("facts", at("2027-06-01T02:00"), at("2026-12-13T22:00")),
    ]
    assert plan([WEEKLY, NIGHTLY], back.state, at("2026-12-13T22:05")).rewound == ()
    later = plan([WEEKLY, NIGHTLY], back.state, at("2026-12-14T02:30"))
    assert later.due == (DueRun(NIGHTLY, at("2026-12-14T02:00")),)


def test_a_clock_back_to_a_slot_owes_that_slot() -> None:
    state = {"condense": JobState(covered_until=at("2026-12-20T21:00"))}
    result = plan([WEEKLY], state, at("2026-12-13T21:00"))
    assert result.due == (DueRun(WEEKLY, at("2026-12-13T21:00")),)


MINUTE_JUMPS = st.one_of(
    st.integers(-120, 120),
    st.integers(-60 * 24 * 40, 60 * 24 * 40),
    st.integers(-60 * 24 * 400, 60 * 24 * 400),
)


@settings(max_examples=150, deadline=None)
@given(
    schedule=SCHEDULES,
    jumps=st.lists(MINUTE_JUMPS, min_size=1, max_size=20),
    start_minutes=st.integers(0, 60 * 24 * 14),
)
def test_any_clock_jumps_resume_every_slot_from_the_latest_reading(
    schedule: Schedule, jumps: list[int], start_minutes: int
) -> None:
    """Clock readings moving forward and back by minutes to a year: a slot runs a second time
    only after the clock went back to it or before it; after the last reading, no job is
    covered past it, every slot from then on runs exactly once as the clock moves forward,
    and a slot at a reading the clock went back to runs at that reading."""
    jobs = [WEEKLY, NIGHTLY, JobSpec("j", "prompt", schedule, "p")]
    readings = [at("2026-01-01T00:00") + timedelta(minutes=start_minutes)]
    for jump in jumps:
        readings.append(readings[-1] + timedelta(minutes=jump))
    state: dict[str, JobState] = {}
    ran: list[tuple[int, str, datetime]] = []
    rewound: set[str] = set()
    for index, now in enumerate(readings):
        result = plan(jobs, state, now)
        rewound = {back.job for back in result.rewound}
        state = result.state
        for run in result.due:
            state = record_run(state, run, "ok", now)
            ran.append((index, run.job.name, run.slot))
        assert plan(jobs, state, now).due == ()
    for first, (i, name, slot) in enumerate(ran):
        for k, other, again in ran[first + 1 :]:
            if (other, again) == (name, slot):
                went_back = (
                    readings[m] <= slot and readings[m] < max(readings[i:m])
                    for m in range(i + 1, k + 1)
                )
                assert any(went_back)
    last = readings[-1]
    assert all(job_state.covered_until <= last for job_state in state.values())
    if len(readings) > 1 and last < max(readings[:-1]):
        at_last = {(name, slot) for i, name, slot in ran if i == len(readings) - 1}
        for job in jobs:  # a job covered past the reading (not one that ran at it) runs again
            if job.name in rewound and job.schedule.latest_slot(last) == last:
                assert (job.name, last) in at_last
    ahead = last + timedelta(days=8)
    owed = sorted(
        (slot, job.name) for job in jobs for slot in job.schedule.slots_between(last, ahead)
    )
    fired: list[tuple[datetime, str]] = []
    for slot, _ in owed:
        result = plan(jobs, state, slot.astimezone(TZ))  # slots are instants: read in TZ
        state = result.state
        for run in result.due:
            state = record_run(state, run, "ok", slot)
            fired.append((run.slot, run.job.name))
    assert sorted(fired) == owed
