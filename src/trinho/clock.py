"""The owner's wall clock turned into instants: one rule for times that do not exist or repeat.

Every instant trinho stores or compares is an aware UTC datetime; the owner's local time is for
showing and for the `- HH:MM` lines and `HH:MM` schedules the owner reads and types. A local
day and time name one instant by this rule (docs/rules.md, "One clock"):

- a time that exists once is that instant;
- a time in a skipped hour (the spring-forward night) is the first valid instant after it,
  the moment the clock jumped (02:30 in America/New_York on 2026-03-08 is 03:00 EDT);
- a time in a repeated hour (the fall-back night) is its first occurrence (fold 0).

Python compares two datetimes of the same `tzinfo` by their wall time, ignoring the offset: two
local times either side of a fall-back compare wrongly. So nothing here returns a local time to
be compared: `resolve` returns UTC, and callers compare only what it returns.

Typed and stored instants, days and zone names are read here too (`parse_now`, `parse_day`,
`load_zone`): each refusal is a keyed error naming where the value came from.

Zone history: when the owner changes the workspace zone (`trinho init --tz`), a day written
before the change was written in the old zone. `zone_at` says which zone held at an instant,
and `resolve_in_history` reads a day's `HH:MM` in the zone that held then.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from trinho.errors import TrinhoError

_SECOND = timedelta(seconds=1)

EARLIEST = datetime(2, 1, 1, tzinfo=UTC)
LATEST = datetime(9998, 12, 31, tzinfo=UTC)
"""Instants accepted from input: a year inside the calendar's ends, so converting one to any
time zone or taking a week from it cannot overflow."""


def parse_now(value: str, where: str = "TRINHO_NOW") -> datetime:
    """Parse an ISO 8601 instant that carries its UTC offset."""
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise TrinhoError.keyed("error.time.not_iso", where=where, value=value) from None
    if moment.tzinfo is None:
        raise TrinhoError.keyed("error.time.no_offset", where=where, value=value)
    return check_instant(moment, f"{where}={value!r}")


def check_instant(moment: datetime, where: str) -> datetime:
    """Refuse an instant too close to the ends of the calendar to compute with."""
    try:
        inside = EARLIEST <= moment.astimezone(UTC) <= LATEST
    except OverflowError:
        inside = False
    if not inside:
        raise TrinhoError.keyed("error.time.out_of_range", where=where)
    return moment


def parse_day(value: str, where: str) -> date:
    """Parse a YYYY-MM-DD calendar date, naming `where` it came from when it is wrong."""
    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            raise ValueError
        return date.fromisoformat(value)
    except ValueError:
        raise TrinhoError.keyed("error.date.invalid", where=where, value=value) from None


def load_zone(name: str, where: str) -> ZoneInfo:
    """The IANA zone `name`, or a keyed error naming `where` it was given."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise TrinhoError.keyed("error.zone.unknown", where=where, name=name) from None


def utc(moment: datetime) -> datetime:
    """`moment` as an aware UTC datetime (refusing a naive one: it names no instant)."""
    if moment.tzinfo is None:
        raise ValueError("a naive datetime names no instant")
    return moment.astimezone(UTC)


def exists(day: date, at: time, zone: tzinfo) -> bool:
    """Whether the wall time `day at` is shown by a clock in `zone` at some instant."""
    local = datetime.combine(day, at, tzinfo=zone)
    back = local.astimezone(UTC).astimezone(zone)
    return back.replace(tzinfo=None) == local.replace(tzinfo=None)


def repeated(day: date, at: time, zone: tzinfo) -> bool:
    """Whether the wall time `day at` is shown twice (the hour a fall-back repeats)."""
    first = datetime.combine(day, at, tzinfo=zone)
    second = first.replace(fold=1)
    return exists(day, at, zone) and utc(first) != utc(second)


def resolve(day: date, at: time, zone: tzinfo) -> datetime:
    """The instant (UTC) the wall time `day at` in `zone` names, by the module's rule."""
    local = datetime.combine(day, at, tzinfo=zone)
    if exists(day, at, zone):
        return utc(local)  # fold 0: the first occurrence of a repeated time
    return _jump(local, zone)


def _jump(local: datetime, zone: tzinfo) -> datetime:
    """The instant the clock jumped over the wall time `local` (which does not exist).

    Read with the offset after the jump, `local` is an instant before the jump; with the offset
    before it, an instant after. The jump is the first second between them whose wall time is
    past `local`'s: found by halving (tz transitions fall on whole seconds)."""
    low = utc(local.replace(fold=1))
    high = utc(local.replace(fold=0))
    if high < low:
        low, high = high, low
    wall = local.replace(tzinfo=None)
    while high - low > _SECOND:
        middle = low + (high - low) / 2
        middle = middle.replace(microsecond=0)
        if middle.astimezone(zone).replace(tzinfo=None) > wall:
            high = middle
        else:
            low = middle
    return high


@dataclass(frozen=True)
class ZoneSpan:
    """From `since` (UTC; None: from the beginning) the workspace read its times in `zone`."""

    since: datetime | None
    zone: str


def zone_at(history: Sequence[ZoneSpan], moment: datetime, default: str) -> str:
    """The zone that held at `moment`: the last span of `history` begun at or before it."""
    found = default
    for span in history:
        if span.since is None or span.since <= moment:
            found = span.zone
    return found


def resolve_in_history(
    day: date, at: time, history: Sequence[ZoneSpan], current: ZoneInfo
) -> datetime:
    """`resolve(day, at, zone)` in the zone that held when that wall time was on the clock.

    Without history (the zone never changed) that is `current`. Otherwise the reading is built
    change by change, oldest first: it starts in the first zone, and a change at instant `since`
    moves it to the new zone's reading only when it was at or after `since` and the new zone's
    reading is too. So a change leaves every reading before it as it was, and one at or after it
    stays at or after it: a change dated at or after the read floor never moves a line into or
    out of a span already read, whatever changes come later. A change to a zone behind repeats
    the wall times around it, as a fall-back night does, and the reading is the first
    occurrence, as there. A time the new zone did not hold yet (typed by hand in the gap a
    change to a zone ahead left) keeps the reading of the zone before the change."""
    if not history:
        return resolve(day, at, current)
    spans = sorted(history, key=lambda s: s.since or datetime.min.replace(tzinfo=UTC))
    reading = resolve(day, at, ZoneInfo(spans[0].zone))
    for span in spans[1:]:
        since = span.since or datetime.min.replace(tzinfo=UTC)
        if reading < since:
            continue
        moment = resolve(day, at, ZoneInfo(span.zone))
        if moment >= since:
            reading = moment
    return reading
