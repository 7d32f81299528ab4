"""One clock (docs/rules.md, "One clock"): wall times resolved once, slots as instants.

Property tests over generated instants in zones with daylight saving (America/New_York,
Europe/London, Australia/Lord_Howe, whose clock moves by half an hour) and one without.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trinho.clock import ZoneSpan, exists, repeated, resolve, resolve_in_history, zone_at
from trinho.schedule.plan import JobSpec, JobState, Schedule, next_slot, plan, record_run

ZONES = ("America/New_York", "Europe/London", "Australia/Lord_Howe", "Asia/Ho_Chi_Minh")
DST_NIGHTS = {
    "America/New_York": (datetime(2026, 3, 8, 5, tzinfo=UTC), datetime(2026, 11, 1, 4, tzinfo=UTC)),
    "Europe/London": (datetime(2026, 3, 29, 0, tzinfo=UTC), datetime(2026, 10, 25, 0, tzinfo=UTC)),
    "Australia/Lord_Howe": (
        datetime(2026, 10, 3, 14, tzinfo=UTC),
        datetime(2026, 4, 4, 14, tzinfo=UTC),
    ),
    "Asia/Ho_Chi_Minh": (datetime(2026, 3, 8, 0, tzinfo=UTC), datetime(2026, 11, 1, 0, tzinfo=UTC)),
}
"""Per zone: an instant a few hours before its spring-forward night, and its fall-back night."""


def test_a_skipped_time_is_the_jump_and_a_repeated_one_its_first_occurrence() -> None:
    ny = ZoneInfo("America/New_York")
    spring, fall = date(2026, 3, 8), date(2026, 11, 1)
    assert not exists(spring, time(2, 30), ny)
    assert resolve(spring, time(2, 30), ny) == datetime(2026, 3, 8, 7, 0, tzinfo=UTC)  # 03:00 EDT
    assert repeated(fall, time(1, 30), ny)
    assert resolve(fall, time(1, 30), ny) == datetime(2026, 11, 1, 5, 30, tzinfo=UTC)  # EDT
    howe = ZoneInfo("Australia/Lord_Howe")
    assert not exists(date(2026, 10, 4), time(2, 15), howe)
    assert resolve(date(2026, 10, 4), time(2, 15), howe).astimezone(howe).time() == time(2, 30)


@settings(deadline=None, max_examples=200)
@given(
    zone=st.sampled_from(ZONES),
    day=st.dates(date(2020, 1, 1), date(2030, 12, 31)),
    minute=st.integers(0, 24 * 60 - 1),
)
def test_every_wall_time_names_one_instant_that_shows_it_or_the_jump(
    zone: str, day: date, minute: int
) -> None:
    tz = ZoneInfo(zone)
    at = time(minute // 60, minute % 60)
    moment = resolve(day, at, tz)
    assert moment.tzinfo is UTC
    shown = moment.astimezone(tz).replace(tzinfo=None)
    wall = datetime.combine(day, at)
    if exists(day, at, tz):
        assert shown == wall
        assert moment <= datetime.combine(day, at, tzinfo=tz).replace(fold=1).astimezone(UTC)
    else:  # the first instant whose wall time is past it, one second before still before it
        assert shown > wall
        assert (moment - timedelta(seconds=1)).astimezone(tz).replace(tzinfo=None) < wall


SCHEDULE_TIMES = st.sampled_from(
    [time(h, m) for h, m in ((0, 0), (1, 0), (1, 30), (1, 45), (2, 0), (2, 15), (2, 30))]
    + [time(2, 45), time(3, 0), time(21, 0)]
)


def _readings(start: datetime, steps: list[int]) -> list[datetime]:
    readings = [start]
    for step in steps:
        readings.append(readings[-1] + timedelta(minutes=step))
    return readings


@settings(deadline=None, max_examples=150)
@given(
    zone=st.sampled_from(ZONES),
    which=st.sampled_from((0, 1)),
    at=SCHEDULE_TIMES,
    days=st.frozensets(st.integers(0, 6), min_size=1),
    offset=st.integers(-240, 240),
    steps=st.lists(st.integers(1, 40), min_size=10, max_size=120),
)
def test_every_slot_runs_exactly_once_through_daylight_saving_nights(
    zone: str, which: int, at: time, days: frozenset[int], offset: int, steps: list[int]
) -> None:
    """A pass every few minutes (as `trinho jobs run` from cron, or the service's loop) over a
    spring-forward or fall-back night: each slot in the time covered runs once, at or after
    its instant, never before; the runs' ids are all different."""
    tz = ZoneInfo(zone)
    job = JobSpec("j", "prompt", Schedule(days, at), "p")
    start = DST_NIGHTS[zone][which] + timedelta(minutes=offset)
    readings = [r.astimezone(tz) for r in _readings(start, steps)]
    state: dict[str, JobState] = {}
    fired: list[tuple[datetime, str]] = []
    for now in readings:
        result = plan([job], state, now)
        assert result.rewound == ()  # the clock only moved forward: no false clock_back
        state = result.state
        for run in result.due:
            assert run.slot <= now
            state = record_run(state, run, "ok", now)
            fired.append((run.slot, run.run_id))
    owed = job.schedule.slots_between(readings[0], readings[-1])
    assert [slot for slot, _ in fired] == owed
    assert len({run_id for _, run_id in fired}) == len(fired)


@settings(deadline=None, max_examples=150)
@given(
    zone=st.sampled_from(ZONES),
    which=st.sampled_from((0, 1)),
    at=SCHEDULE_TIMES,
    offset=st.integers(-24 * 60, 24 * 60),
)
def test_next_slot_is_an_instant_that_exists_and_is_ahead(
    zone: str, which: int, at: time, offset: int
) -> None:
    """What `trinho jobs list` shows as a job's next run: after now, never a wall time the
    night skips, and the slot the scheduler will run next."""
    tz = ZoneInfo(zone)
    job = JobSpec("j", "prompt", Schedule(frozenset(range(7)), at), "p")
    now = (DST_NIGHTS[zone][which] + timedelta(minutes=offset)).astimezone(tz)
    upcoming = next_slot([job], now)
    assert upcoming is not None and upcoming > now
    shown = upcoming.astimezone(tz)
    assert exists(shown.date(), shown.time(), tz)
    state = {"j": JobState(covered_until=now.astimezone(UTC))}
    just_before = (upcoming - timedelta(seconds=1)).astimezone(tz)
    assert plan([job], state, just_before).due == ()
    due = plan([job], state, upcoming.astimezone(tz)).due
    assert [run.slot for run in due] == [upcoming]


@settings(deadline=None, max_examples=100)
@given(
    zones=st.lists(st.sampled_from(ZONES), min_size=2, max_size=4),
    at=SCHEDULE_TIMES,
    steps=st.lists(st.integers(5, 180), min_size=20, max_size=80),
    change_every=st.integers(3, 15),
)
def test_a_changed_zone_runs_no_slot_twice(
    zones: list[str], at: time, steps: list[int], change_every: int
) -> None:
    """Passes with the owner's zone changing now and then: no run id runs twice, every run is
    for a slot of the zone of its pass, and no slot earlier than one already run is run."""
    job = JobSpec("facts", "facts", Schedule(frozenset(range(7)), at))
    readings = _readings(datetime(2026, 3, 1, tzinfo=UTC), steps)
    state: dict[str, JobState] = {}
    ids: list[str] = []
    last: datetime | None = None
    for index, moment in enumerate(readings):
        tz = ZoneInfo(zones[(index // change_every) % len(zones)])
        now = moment.astimezone(tz)
        result = plan([job], state, now)
        state = result.state
        for run in result.due:
            assert run.slot == job.schedule.latest_slot(now)
            assert last is None or run.slot > last
            last = run.slot
            ids.append(run.run_id)
            state = record_run(state, run, "ok", now)
    assert len(ids) == len(set(ids))


def test_zone_history_reads_each_day_in_the_zone_it_was_written_in() -> None:
    change = datetime(2026, 6, 8, 12, tzinfo=UTC)
    history = [ZoneSpan(None, "Asia/Ho_Chi_Minh"), ZoneSpan(change, "Europe/Berlin")]
    berlin = ZoneInfo("Europe/Berlin")
    assert zone_at(history, change - timedelta(seconds=1), "UTC") == "Asia/Ho_Chi_Minh"
    assert zone_at(history, change, "UTC") == "Europe/Berlin"
    before = resolve_in_history(date(2026, 6, 7), time(20, 0), history, berlin)
    assert before == datetime(2026, 6, 7, 13, tzinfo=UTC)  # 20:00 in Ho Chi Minh City
    after = resolve_in_history(date(2026, 6, 8), time(20, 0), history, berlin)
    assert after == datetime(2026, 6, 8, 18, tzinfo=UTC)  # 20:00 in Berlin


def test_a_change_to_a_zone_behind_repeats_wall_times_and_reads_the_first() -> None:
    change = datetime(2026, 3, 29, 1, 9, tzinfo=UTC)  # 02:09 in London, 21:09 in New York
    history = (ZoneSpan(None, "Europe/London"), ZoneSpan(change, "America/New_York"))
    ny = ZoneInfo("America/New_York")
    typed = resolve_in_history(date(2026, 3, 29), time(2, 2), history, ny)  # in London
    assert typed == datetime(2026, 3, 29, 1, 2, tzinfo=UTC)  # as when it was written
    later = resolve_in_history(date(2026, 3, 29), time(9, 0), history, ny)  # only NY holds it
    assert later == datetime(2026, 3, 29, 13, 0, tzinfo=UTC)


def test_a_time_typed_in_a_gap_keeps_its_reading_through_a_later_change() -> None:
    """The CI case of issue 44: 17:23 typed on 2026-03-10 in London, then a change to
    Lord Howe dated earlier (at the read floor, the clock set back) leaves it in a gap no zone
    held; it is read in London. A later change to New York, dated after that reading, does
    not move it to 17:23 in New York, in the next run's span (read twice)."""
    history = (
        ZoneSpan(None, "America/New_York"),
        ZoneSpan(datetime(2026, 3, 8, 1, 1, tzinfo=UTC), "Europe/London"),
        ZoneSpan(datetime(2026, 3, 10, 16, 5, tzinfo=UTC), "Australia/Lord_Howe"),
    )
    ny = ZoneInfo("America/New_York")
    before = resolve_in_history(date(2026, 3, 10), time(17, 23), history, ny)
    assert before == datetime(2026, 3, 10, 17, 23, tzinfo=UTC)  # in London
    later = (*history, ZoneSpan(datetime(2026, 3, 10, 17, 41, tzinfo=UTC), "America/New_York"))
    assert resolve_in_history(date(2026, 3, 10), time(17, 23), later, ny) == before


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(ZONES), min_size=1, max_size=4),
    st.datetimes(min_value=datetime(2026, 1, 1), max_value=datetime(2026, 12, 1)),
    st.integers(1, 400),
    st.sampled_from(ZONES),
    st.integers(-2000, 400),
    st.integers(-40, 40),
    st.times(),
)
def test_a_zone_change_never_moves_a_time_read_before_it(
    zones: list[str], first: datetime, gap_hours: int, new: str, shift: int, near: int, at: time
) -> None:
    """What any wall time meant before a change at instant `change`, it still means after when
    that was before `change`, and a reading at or after it stays at or after it: the change
    adds no second reading of a line already read, and moves none back into a span already
    read, so no run reads it twice. The change may be dated before earlier ones (a clock set
    back), and the wall time may be one no zone held (typed in the gap a change to a zone
    ahead left)."""
    since = [first.replace(tzinfo=UTC) + timedelta(hours=gap_hours * i) for i in range(len(zones))]
    history = (ZoneSpan(None, "UTC"), *(ZoneSpan(t, z) for t, z in zip(since, zones, strict=True)))
    change = since[-1] + timedelta(hours=shift)
    day = (change + timedelta(hours=near)).date()  # the days around the change
    at = at.replace(second=0, microsecond=0)
    before = resolve_in_history(day, at, history, ZoneInfo(zones[-1]))
    after = resolve_in_history(day, at, (*history, ZoneSpan(change, new)), ZoneInfo(new))
    if before < change:
        assert after == before
    else:
        assert after >= change


@pytest.mark.parametrize("zone", ZONES)
def test_slots_are_utc_instants(zone: str) -> None:
    tz = ZoneInfo(zone)
    schedule = Schedule(frozenset(range(7)), time(2, 30))
    now = DST_NIGHTS[zone][0].astimezone(tz) + timedelta(hours=12)
    assert schedule.latest_slot(now).tzinfo is UTC
    assert all(s.tzinfo is UTC for s in schedule.slots_between(now - timedelta(days=3), now))
