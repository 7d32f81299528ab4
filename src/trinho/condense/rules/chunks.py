"""The week's material as the rewrite reads it, and its planning into chunks (pure).

A note or turn is a `Material`; a rewrite call reads one `Chunk` of them, rendered under one
heading per day (`render_material`). Chunks are planned by day first, and within a day only
when one day alone does not fit the room left beside the instructions and MEMORY.md
(`take_chunk`, `plan_chunks`). Nothing is ever left out: an item too large for any chunk is
cut into numbered parts (`cut`), and every day is in exactly one or more chunks. Reading the
material is the store's (`trinho.condense.store.collect`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Literal

from trinho.context.budget import MARGIN, MAX_CHAR_TOKENS, TokenEstimate
from trinho.models import estimate_tokens

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


def no_room_parts(
    estimate: TokenEstimate, context: int, instructions: int, memory: int, answer: int
) -> dict[str, int]:
    """The parts of a request that did not fit, in the model's tokens, and the context that
    would hold them with the margin kept."""
    need = instructions + memory + answer + MIN_ROOM_TOKENS
    return {
        "context": context,
        "usable": math.floor(context * (1 - MARGIN)),
        "margin": round(MARGIN * 100),
        "instructions": estimate.real(instructions),
        "memory": estimate.real(memory),
        "answer": estimate.real(answer),
        "needed": estimate.real(MIN_ROOM_TOKENS),
        "suggest": math.ceil(estimate.real(need) / (1 - MARGIN)),
    }
