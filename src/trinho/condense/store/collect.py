"""What the weekly rewrite reads: MEMORY.md and the week's notes and conversation turns.

A day's notes are its `memory/DAY.md` and OpenClaw's `memory/DAY-slug.md` session files; the
rest of `memory/` (dreaming reports, digests, trinho's own generated `memory/facts.md`) is never
rewrite material.

Reading is the thin shell (`collect`); splitting the material into chunks that fit the model's
context (`plan_chunks`) is a pure function, by day first and within a day only when one day
alone does not fit. Nothing is ever left out: an item too large for any chunk is cut into
numbered parts, and every day is in exactly one or more chunks.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import Literal

from trinho.clock import utc
from trinho.config import DEFAULT_CONTEXT_TOKENS as DEFAULT_CONTEXT_TOKENS
from trinho.config import CondenseProtocol
from trinho.context.budget import MAX_CHAR_TOKENS
from trinho.conversations.store import read_day
from trinho.memory import store as memory_store
from trinho.models import estimate_tokens
from trinho.notes.journal import late_days
from trinho.notes.store import (
    LooseLine,
    NoteEntry,
    day_files,
    entry_instants,
    note_days,
    read_note_file,
    rule_instant,
)
from trinho.workspace import CONVERSATIONS_DIR, NOTES_DIR, Workspace

WINDOW_DAYS = 7
MIN_ROOM_TOKENS = 256
"""Below this much room for the week's material, a rewrite call would be all overhead."""
ANSWER_SLACK_TOKENS = 512

Source = Literal["note", "conversation"]


@dataclass(frozen=True)
class Material:
    """One note or conversation turn of the week, with its day and where it came from.

    `who` is "note" for a note and the speaker's role for a turn; `time` is HH:MM in the owner's
    zone ("" for a hand-typed line of a note file that is not an entry); `part` is "2/3" when a
    very long item had to be cut to fit.
    """

    day: date
    source: Source
    time: str
    who: str
    text: str
    where: str
    part: str = ""
    at: datetime | None = field(default=None, compare=False)
    """When it was recorded (UTC, to the minute for a note): what a run's span holds."""

    def render(self) -> str:
        """The item as the model reads it; extra lines are indented so none looks like an item."""
        stamp = f"{self.time} " if self.time else ""
        part = f" (part {self.part})" if self.part else ""
        first, *rest = self.text.split("\n")
        return "\n".join([f"- {stamp}[{self.who}]{part} {first}", *("  " + r for r in rest)])

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.render()) + 1


@dataclass(frozen=True)
class Collected:
    memory_text: str
    today: date
    since: date
    items: tuple[Material, ...]

    @property
    def days(self) -> tuple[date, ...]:
        return tuple(sorted({item.day for item in self.items}))


@dataclass(frozen=True)
class Chunk:
    """The items of one rewrite call (1-based `number`), in day and file order."""

    number: int
    items: tuple[Material, ...]

    @property
    def days(self) -> tuple[date, ...]:
        return tuple(sorted({item.day for item in self.items}))

    @property
    def tokens(self) -> int:
        return sum(item.tokens for item in self.items) + sum(
            estimate_tokens(day_heading(day)) + 1 for day in self.days
        )


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


def day_heading(day: date) -> str:
    return f"### {day.isoformat()}"


def render_material(items: Sequence[Material]) -> str:
    """Items grouped under one heading per day, in order."""
    lines: list[str] = []
    current: date | None = None
    for item in items:
        if item.day != current:
            if lines:
                lines.append("")
            lines.append(day_heading(item.day))
            current = item.day
        lines.append(item.render())
    return "\n".join(lines)


def material_room(context: int, overhead: int, memory_tokens: int) -> int:
    """Tokens left for material in one call.

    A call sends the instructions (`overhead`), the MEMORY.md so far and the material, and
    must leave room for the answer: the whole MEMORY.md again plus what the material adds
    (counted as half the material) and some slack. So 1.5 * room <= what is left.
    """
    left = context - overhead - 2 * memory_tokens - ANSWER_SLACK_TOKENS
    return max(0, math.floor(left * 2 / 3))


def answer_tokens(memory_tokens: int, material_tokens: int) -> int:
    """The `max_tokens` of a rewrite call, matching `material_room`'s reckoning."""
    return memory_tokens + math.ceil(material_tokens / 2) + ANSWER_SLACK_TOKENS


def take_chunk(
    pending: Sequence[Material], room: int
) -> tuple[tuple[Material, ...], tuple[Material, ...]]:
    """The next chunk of at most `room` tokens from `pending`, and what is left after it.

    Whole days go together when they fit; a day that does not fit in what is left of this
    chunk starts the next one, unless it alone is too big, in which case it is split (and an
    item too big on its own is cut into numbered parts). The rewrite calls this before each
    call, with the room left beside the MEMORY.md of the moment, which grows as it goes.
    """
    if room < MIN_ROOM_TOKENS:
        raise ValueError(f"room {room} is below {MIN_ROOM_TOKENS} tokens")
    taken: list[Material] = []
    used = 0
    i = 0
    while i < len(pending):
        day = pending[i].day
        end = i
        while end < len(pending) and pending[end].day == day:
            end += 1
        heading = estimate_tokens(day_heading(day)) + 1
        size = heading + sum(item.tokens for item in pending[i:end])
        if used + size <= room:
            taken.extend(pending[i:end])
            used += size
            i = end
            continue
        if taken and size <= room:
            break  # the day fits in the next chunk whole: do not split it
        if taken and used + heading + MIN_ROOM_TOKENS // 4 > room:
            break  # too little left here to start a day
        used += heading
        pieces = [p for item in pending[i:end] for p in cut(item, room - 2 * heading)]
        for n, piece in enumerate(pieces):
            if taken and used + piece.tokens > room:
                return tuple(taken), (*pieces[n:], *pending[end:])
            taken.append(piece)
            used += piece.tokens
        i = end
    return tuple(taken), tuple(pending[i:])


def plan_chunks(items: Sequence[Material], room: int) -> tuple[Chunk, ...]:
    """All of `items` in chunks of at most `room` tokens each (see `take_chunk`)."""
    chunks: list[Chunk] = []
    pending: Sequence[Material] = items
    while pending:
        taken, pending = take_chunk(pending, room)
        chunks.append(Chunk(len(chunks) + 1, taken))
    return tuple(chunks)


def cut(item: Material, room: int) -> list[Material]:
    """`item` as it is when it fits in `room` tokens, else in numbered parts that each fit."""
    if item.tokens <= room:
        return [item]
    label = f"{item.part}." if item.part else ""
    frame = Material(item.day, item.source, item.time, item.who, "", item.where, label + "99/99")
    frame_tokens = frame.tokens
    size = max(1, math.floor((room - frame_tokens - 1) / MAX_CHAR_TOKENS))  # the costliest chars
    text = item.text
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    return [
        Material(
            item.day,
            item.source,
            item.time,
            item.who,
            piece,
            item.where,
            f"{label}{n}/{len(pieces)}",
            at=item.at,
        )
        for n, piece in enumerate(pieces, 1)
    ]
