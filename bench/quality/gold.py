"""The gold set: owners' weeks written by hand (`bench/quality/weeks/*.toml`), as values.

Each week is a starting MEMORY.md, the week's notes and conversation turns, and what a careful
assistant would do with them (README.md in this folder says how each is written):

- `learn`: an entry that must be added, as the line a careful assistant would write and the
  fact tokens (`need`) any line carrying that fact holds (`trinho`'s matching rule, `match.py`);
- `resolve`: a line of the starting MEMORY.md that the week changes or makes obsolete (`old`),
  with the line that should take its place (`line`, empty for a plain removal) and its tokens;
- `junk`: something the week says that must not be remembered (a one-off reminder, chatter,
  the assistant's own guess), as tokens and an example line;
- every other non-blank line of the starting MEMORY.md must stay (`keep`, derived).

`wrong` and `reworded` lines under an item are examples for the matching rule's tests: lines
that must not be credited with the fact, and lines that must be.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from quality.match import Token

WEEKS = Path(__file__).parent / "weeks"
RUN_AT = "2026-11-29T21:00:00+07:00"
"""Every gold week is ISO week 2026-W48 (Monday 2026-11-23 to Sunday 2026-11-29), condensed on
its Sunday at 21:00 in Asia/Ho_Chi_Minh."""
ZONE = "Asia/Ho_Chi_Minh"


@dataclass(frozen=True)
class Item:
    """One annotated fact: the line a careful assistant writes, and what carries it."""

    line: str
    need: tuple[Token, ...]
    avoid: tuple[Token, ...] = ()
    old: str = ""
    """For a `resolve`: the line of the starting MEMORY.md the week changes."""
    what: str = ""
    """For `junk`: what kind of thing it is (reminder, chatter, guess, ...)."""
    wrong: tuple[str, ...] = ()
    reworded: tuple[str, ...] = ()


@dataclass(frozen=True)
class Said:
    """A note (`who` = note) or a conversation turn (`user`, `assistant`) at a local time."""

    at: datetime
    who: str
    text: str


@dataclass(frozen=True)
class Week:
    id: str
    title: str
    locale: str
    memory: str
    said: tuple[Said, ...]
    learn: tuple[Item, ...] = ()
    resolve: tuple[Item, ...] = ()
    junk: tuple[Item, ...] = ()
    run_at: str = RUN_AT
    tags: tuple[str, ...] = field(default=())

    @property
    def keep(self) -> tuple[str, ...]:
        """The lines that must stay: every non-blank starting line no `resolve` names."""
        changed = {item.old for item in self.resolve}
        return tuple(
            line for line in self.memory.split("\n") if line.strip() and line not in changed
        )


def _item(data: dict[str, Any]) -> Item:
    return Item(
        line=data.get("line", ""),
        need=tuple(data.get("need", ())),
        avoid=tuple(data.get("avoid", ())),
        old=data.get("old", ""),
        what=data.get("what", ""),
        wrong=tuple(data.get("wrong", ())),
        reworded=tuple(data.get("reworded", ())),
    )


def _said(rows: Sequence[Sequence[str]], who: str | None) -> list[Said]:
    """Rows of `[local time, text]` (notes) or `[local time, role, text]` (turns)."""
    found = []
    for row in rows:
        at = datetime.fromisoformat(f"{row[0].replace(' ', 'T')}:00+07:00")
        found.append(Said(at, who or row[1], row[-1]))
    return found


def parse_week(data: dict[str, Any], name: str) -> Week:
    said = _said(data.get("notes", ()), "note") + _said(data.get("turns", ()), None)
    return Week(
        id=data.get("id", name),
        title=data["title"],
        locale=data.get("locale", "en"),
        memory=data.get("memory", ""),
        said=tuple(sorted(said, key=lambda s: s.at)),
        learn=tuple(_item(d) for d in data.get("learn", ())),
        resolve=tuple(_item(d) for d in data.get("resolve", ())),
        junk=tuple(_item(d) for d in data.get("junk", ())),
        run_at=data.get("run_at", RUN_AT),
        tags=tuple(data.get("tags", ())),
    )


def load_weeks(folder: Path = WEEKS, only: Sequence[str] = ()) -> list[Week]:
    """Every gold week in `folder`, by file name; `only` keeps the ids named."""
    weeks = []
    for path in sorted(folder.glob("*.toml")):
        week = parse_week(tomllib.loads(path.read_text(encoding="utf-8")), path.stem)
        if not only or week.id in only:
            weeks.append(week)
    return weeks
