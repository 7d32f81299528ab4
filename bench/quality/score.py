"""Scoring one condensed week against its gold, and adding scores up. Pure: plain values in.

What a run did is read from three things: MEMORY.md before it, MEMORY.md after it, and the new
sides of the changes it left waiting for the owner (`Outcome`). The measures, per week:

- *learned*: gold additions carried by a line the run wrote into MEMORY.md or left waiting;
- *kept*: must-stay lines still in MEMORY.md (an entry may have moved to a later date);
- *resolved*: implied changes made or proposed: the old line removed, edited, or proposed so,
  and (when the change brings a new fact) a written or waiting line carrying it;
- *junk*: must-not items carried by a line written into MEMORY.md (a waiting one is a question,
  not junk);
- *other*: lines written that carry no gold item at all (invented or unasked);
- *questions*: changes the run left waiting for the owner;
- *tokens* and *seconds*: the run's model tokens (in + out) and wall time;
- *ops* and *chatter* (in the per-week detail): the operations read from the model's answers
  and the lines of them that were none.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from quality.gold import Item, Week
from quality.match import carries, entry_text


@dataclass(frozen=True)
class Waiting:
    """A change the run left for the owner: its class, the line it acts on, its new line(s)."""

    cls: str
    old: str | None
    new: tuple[str, ...]


@dataclass(frozen=True)
class Outcome:
    before: str
    after: str
    waiting: tuple[Waiting, ...] = ()
    tokens: int = 0
    seconds: float = 0.0
    calls: int = 0
    ops: int = 0
    """Edit-script operations read from the model's answers."""
    chatter: int = 0
    """Lines of its answers that were no operation."""


@dataclass(frozen=True)
class Score:
    """Counts, so weeks add up; the shares are computed from the sums."""

    learned: int = 0
    learn: int = 0
    kept: int = 0
    keep: int = 0
    resolved: int = 0
    resolve: int = 0
    junk: int = 0
    junk_items: int = 0
    other: int = 0
    questions: int = 0
    tokens: int = 0
    seconds: float = 0.0
    weeks: int = 1
    ops: int = 0
    chatter: int = 0
    missed: tuple[str, ...] = field(default=(), compare=False)
    """What was not learned or resolved, and the junk written: for the per-week detail."""

    def __add__(self, other: Score) -> Score:
        sums = {f: getattr(self, f) + getattr(other, f) for f in NUMBERS}
        return Score(**sums, missed=self.missed + other.missed)


NUMBERS = (
    "learned",
    "learn",
    "kept",
    "keep",
    "resolved",
    "resolve",
    "junk",
    "junk_items",
    "other",
    "questions",
    "tokens",
    "seconds",
    "weeks",
    "ops",
    "chatter",
)


def total(scores: Iterable[Score]) -> Score:
    found = Score(weeks=0)
    for score in scores:
        found = found + score
    return found


def share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def new_lines(before: str, after: str) -> list[str]:
    """Lines of `after` whose entry text `before` does not have (a re-dated line is not new)."""
    old = {entry_text(line).strip() for line in before.split("\n")}
    return [
        line for line in after.split("\n") if line.strip() and entry_text(line).strip() not in old
    ]


def is_kept(line: str, after: Sequence[str]) -> bool:
    """The line itself, or the same entry text under another date, is in `after`."""
    text = entry_text(line)
    return line in after or (text != line and any(entry_text(a) == text for a in after))


def _acted_on(item: Item, after: Sequence[str], waiting: Sequence[Waiting]) -> bool:
    """The run removed or edited the old line, or proposes to."""
    if not is_kept(item.old, after):
        return True
    for change in waiting:
        if change.old == item.old and change.cls in ("edited", "removed"):
            return True
        if change.cls == "suspicious" and item.old not in change.new:
            return True
    return False


def score_week(week: Week, outcome: Outcome) -> Score:
    after = outcome.after.split("\n")
    written = new_lines(outcome.before, outcome.after)
    proposed = [
        line
        for change in outcome.waiting
        for line in (
            new_lines(outcome.before, "\n".join(change.new))
            if change.cls == "suspicious"
            else change.new
        )
    ]
    candidates = written + proposed
    missed: list[str] = []
    learned = 0
    for item in week.learn:
        if any(carries(line, item.need, item.avoid) for line in candidates):
            learned += 1
        else:
            missed.append(f"{week.id} not learned: {item.line}")
    resolved = 0
    for item in week.resolve:
        brings = not item.need or any(carries(line, item.need, item.avoid) for line in candidates)
        if brings and _acted_on(item, after, outcome.waiting):
            resolved += 1
        else:
            missed.append(f"{week.id} not resolved: {item.old}")
    junk = 0
    for item in week.junk:
        found = [line for line in written if carries(line, item.need, item.avoid)]
        if found:
            junk += 1
            missed.append(f"{week.id} junk written: {found[0]}")
    gold = [*week.learn, *week.resolve, *week.junk]
    other = sum(not any(carries(line, i.need, i.avoid) for i in gold) for line in written)
    keep = week.keep
    return Score(
        learned=learned,
        learn=len(week.learn),
        kept=sum(is_kept(line, after) for line in keep),
        keep=len(keep),
        resolved=resolved,
        resolve=len(week.resolve),
        junk=junk,
        junk_items=len(week.junk),
        other=other,
        questions=len(outcome.waiting),
        tokens=outcome.tokens,
        seconds=outcome.seconds,
        ops=outcome.ops,
        chatter=outcome.chatter,
        missed=tuple(missed),
    )


def no_memory(week: Week) -> Score:
    """What having no memory at all scores: nothing kept, nothing learned, nothing asked."""
    return Score(
        learn=len(week.learn),
        keep=len(week.keep),
        resolve=len(week.resolve),
        junk_items=len(week.junk),
    )
