"""What the weekly rewrite reads: MEMORY.md and the week's notes and conversation turns.

A day's notes are its `memory/DAY.md` and OpenClaw's `memory/DAY-slug.md` session files; the
rest of `memory/` (dreaming reports, digests, trinho's own generated `memory/facts.md`) is never
rewrite material.

Reading is this thin shell (`collect`); the material's values and their planning into chunks
that fit the model's context are pure, in `trinho.condense.rules.chunks`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta

from trinho.clock import utc
from trinho.condense.rules.chunks import Material
from trinho.config import DEFAULT_CONTEXT_TOKENS as DEFAULT_CONTEXT_TOKENS
from trinho.config import CondenseProtocol
from trinho.conversations.store import read_day
from trinho.memory import store as memory_store
from trinho.notes.format import LooseLine, NoteEntry
from trinho.notes.journal import late_days
from trinho.notes.store import day_files, entry_instants, note_days, read_note_file, rule_instant
from trinho.workspace import CONVERSATIONS_DIR, NOTES_DIR, Workspace

WINDOW_DAYS = 7


@dataclass(frozen=True)
class Collected:
    memory_text: str
    today: date
    since: date
    items: tuple[Material, ...]

    @property
    def days(self) -> tuple[date, ...]:
        return tuple(sorted({item.day for item in self.items}))


def window(today: date) -> tuple[date, date]:
    """The 7 days that end on the run day: (since, today)."""
    return today - timedelta(days=WINDOW_DAYS - 1), today


def context_tokens(ws: Workspace) -> int:
    """`[condense] context_tokens` from the config, or the documented default."""
    return ws.config.condense.context_tokens


Protocol = CondenseProtocol


def condense_protocol(ws: Workspace) -> Protocol:
    """`[condense] protocol`: "ops" (the default: the model answers with an edit script) or
    "file" (the model answers with the whole new MEMORY.md, for models that handle it better)."""
    return ws.config.condense.protocol


@dataclass(frozen=True)
class Span:
    """The material a run reads: recorded at or after `start` (None: the first run, which
    reads the 7 days ending today) and before `end`, the run's own start. Consecutive runs'
    spans meet, so every note and turn is read by exactly one run, a missed week included.
    Both ends are instants, compared in UTC: a fall-back night or a changed zone moves no
    note across them."""

    start: datetime | None
    end: datetime
    first_day: date | None = None
    """Set for a run whose clock reads behind `start` (set back after reading ahead): its
    material lies on the days of the corrected clock, which come before the span's instants."""
    last_day: date | None = None
    """With `first_day`: the corrected clock's today."""

    def since(self, ws: Workspace) -> date:
        """The first day the span touches: the gate's window for additions starts there."""
        if self.first_day is not None:
            return self.first_day
        return (
            window(ws.local_date(self.end))[0] if self.start is None else ws.local_date(self.start)
        )

    def until(self, ws: Workspace) -> date:
        """The last day of the run's window: the day the span ends, or the corrected clock's."""
        return self.last_day if self.last_day is not None else ws.local_date(self.end)

    def holds(self, moment: datetime) -> bool:
        instant = utc(moment)
        return (self.start is None or utc(self.start) <= instant) and instant < utc(self.end)


def note_moment(ws: Workspace, day: date, hhmm: str) -> datetime:
    """When a note line counts as recorded by the stated rule (`trinho.notes.store.rule_instant`):
    its minute, in the zone that held that day; a line typed by hand without a time counts at
    the end of its day."""
    return rule_instant(ws, day, hhmm)


def moment_of(ws: Workspace, item: Material) -> datetime:
    """The instant an item counts as recorded: its own, else the stated rule's."""
    return item.at if item.at is not None else note_moment(ws, item.day, item.time)


def collect(ws: Workspace, span: Span) -> Collected:
    """MEMORY.md and every note and turn of `span`; reading writes nothing."""
    today, since = span.until(ws), span.since(ws)
    items: list[Material] = []
    # from a cutoff on, a day named in a zone since changed may lie a day either side
    margin = timedelta(days=0 if span.start is None else 1)
    days = ws.days_between(since - margin, today + margin)
    if span.start is not None:  # an entry saved with the clock set back counts in this span
        late = late_days(ws, utc(span.start), utc(span.end))
        ahead = ahead_days(ws, span.start) if span.last_day is not None else []
        days = sorted({*days, *late, *ahead})
    for day in days:
        found = [
            item
            for rel in day_files(ws, day)
            for item in _timed(ws, day, rel, note_items(day, read_note_file(ws, rel).items, rel))
        ]
        items.extend(m for m in found if m.at is not None and span.holds(m.at))
        for stored in read_day(ws, day):
            turn = stored.turn
            if not span.holds(turn.at):
                continue
            items.append(
                Material(
                    day,
                    "conversation",
                    turn.at.astimezone(ws.tz).strftime("%H:%M"),
                    turn.role,
                    turn.text,
                    f"{stored.path}:{stored.line}",
                    at=utc(turn.at),
                )
            )
    return Collected(memory_store.read_text(ws), today, since, tuple(items))


def ahead_days(ws: Workspace, start: datetime) -> list[date]:
    """The days with a note file or a transcript from the day before `start`'s on: with the
    clock put back behind `start`, what was written while it read ahead lies there."""
    first = ws.local_date(start) - timedelta(days=1)
    folder = ws.root / CONVERSATIONS_DIR
    names = [c.name.removesuffix(".jsonl") for c in folder.iterdir()] if folder.is_dir() else []
    found = set(note_days(ws))
    for name in names:
        with contextlib.suppress(ValueError):
            found.add(date.fromisoformat(name))
    return sorted(day for day in found if day >= first)


def latest_moment(ws: Workspace, span: Span) -> datetime | None:
    """The latest instant any note or turn in `span` counts at (UTC); None when it holds none."""
    return max((utc(moment_of(ws, item)) for item in collect(ws, span).items), default=None)


def _timed(ws: Workspace, day: date, rel: str, found: list[Material]) -> list[Material]:
    """`found` with each item's instant: trinho's own day file's entries by the instant they
    were saved at (`trinho.notes.store.entry_instants`), every other line by the stated rule."""
    canonical = rel == f"{NOTES_DIR}/{day.isoformat()}.md"
    timed = [(m.time, m.text) for m in found if m.time] if canonical else []
    instants = iter(entry_instants(ws, day, timed))
    return [
        replace(m, at=next(instants) if canonical and m.time else note_moment(ws, day, m.time))
        for m in found
    ]


def note_items(
    day: date, parsed: Iterable[NoteEntry | LooseLine], where: str | None = None
) -> list[Material]:
    """Entries of a day file, and its non-blank hand-typed lines: nothing typed is skipped.
    OpenClaw's machine lines (markers, managed dreaming blocks) are not material: nobody said
    them, and OpenClaw itself never promotes from them."""
    where = where or f"{NOTES_DIR}/{day.isoformat()}.md"
    found: list[Material] = []
    for item in parsed:
        if isinstance(item, NoteEntry):
            found.append(
                Material(day, "note", item.time, "note", item.text, f"{where}:{item.line}")
            )
        elif item.role == "text" and item.raw.strip():
            found.append(
                Material(day, "note", "", "note", item.raw.strip(), f"{where}:{item.line}")
            )
    return found
