"""Screening new lines: the pure part. Which lines to ask about, reading the model's verdicts,
and applying them to the rewrite before it reaches the gate.

The model answers one line per candidate: `N. ACCEPT` or `N. REJECT: reason` (Vietnamese
`N. NHẬN` / `N. BỎ: lý do`). Only an explicit rejection removes anything from the rewrite, and
only an explicit acceptance lets a new line through to the gate as it is: a line the screening
was asked about but whose verdict cannot be read (missing, garbled, contradictory, or the call
failed) is `Unread`, and the gate holds it for the owner whatever else it is.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from trinho.condense.rules.match import match
from trinho.condense.rules.reasons import Reason
from trinho.textnorm import match_key, nfc, one_line

Decision = Literal["accept", "reject"]

_WORDS: dict[str, Decision] = {
    "accept": "accept",
    "accepted": "accept",
    "nhận": "accept",
    "nhan": "accept",
    "reject": "reject",
    "rejected": "reject",
    "bỏ": "reject",
    "bo": "reject",
}
_VERDICT_RE = re.compile(
    r"""^[\s>*+\-•]*          # markdown bullets, quotes, bold markers
    [\[(#]?\s*(?P<num>\d{1,6})\s*[\])]?\s*[.):\-–—]?\s*   # 3.  3)  3:  (3)  [3]  #3
    [*_`]*\s*(?P<word>[^\W\d_]+)\s*[*_`]*                 # the verdict word, maybe bold
    (?P<rest>.*)$""",
    re.VERBOSE,
)


@dataclass(frozen=True)
class Verdict:
    decision: Decision
    reason: str = ""

    @property
    def rejected(self) -> bool:
        return self.decision == "reject"


MAX_ERROR_CHARS = 200
"""A failed call's error is kept this short in the reason of each line it leaves unread: the
reason travels into a proposal, whose reason has a size limit."""


@dataclass(frozen=True)
class Unread:
    """The screening was asked about the line and no verdict can be read for it: `why` is the
    gate's reason for holding it (`screen_unreadable`, or `screen_failed` with the error)."""

    why: Reason


Outcome = Verdict | Unread
"""What one screening answer says of one candidate line."""


@dataclass(frozen=True)
class Candidate:
    """A new line to screen. `number` is what the model answers to (1-based); `index` is the
    line's 0-based position in the rewrite; `old` is the line it would replace (an edit)."""

    number: int
    line: str
    index: int
    old: str | None


def parse_verdicts(text: str, count: int) -> dict[int, Verdict]:
    """Verdicts by candidate number (1..count). Unreadable lines, numbers out of range and
    numbers answered twice with different decisions are left out: no verdict for those."""
    found: dict[int, Verdict] = {}
    conflicted: set[int] = set()
    for raw in nfc(text).splitlines():
        verdict = _parse_line(raw)
        if verdict is None:
            continue
        number, parsed = verdict
        if not 1 <= number <= count:
            continue
        if number in found and found[number].decision != parsed.decision:
            conflicted.add(number)
        found.setdefault(number, parsed)
    return {n: v for n, v in sorted(found.items()) if n not in conflicted}


def _parse_line(raw: str) -> tuple[int, Verdict] | None:
    m = _VERDICT_RE.match(raw.strip())
    if m is None:
        return None
    word = unicodedata.normalize("NFC", m.group("word").casefold())
    decision = _WORDS.get(word)
    if decision is None:
        return None
    rest = m.group("rest").strip()
    if rest and rest[0].isalnum():
        return None  # "ACCEPTABLE", "ACCEPT IT?": a verdict word must stand alone
    reason = rest.lstrip(":-–—*_` ").strip() if decision == "reject" else ""
    return int(m.group("num")), Verdict(decision, reason)


def read_answer(text: str, count: int) -> dict[int, Outcome]:
    """What a screening answer says of each of its `count` candidates: the verdict read, or
    `Unread` for a number with no readable verdict (missing, garbled or contradictory)."""
    verdicts = parse_verdicts(text, count)
    unread = Unread(Reason("screen_unreadable"))
    return {n: verdicts.get(n, unread) for n in range(1, count + 1)}


def call_failed(count: int, error: str) -> dict[int, Outcome]:
    """Every candidate of a screening call that failed (no answer at all): unread, with why."""
    detail = one_line(error)
    if len(detail) > MAX_ERROR_CHARS:
        detail = detail[: MAX_ERROR_CHARS - 1] + "…"
    unread = Unread(Reason.of("screen_failed", error=detail))
    return dict.fromkeys(range(1, count + 1), unread)


def candidates(old_text: str, new_text: str) -> tuple[Candidate, ...]:
    """New lines of the rewrite to screen: added entries and headings, and the new side of
    edits (of entries and of headings)."""
    m = match(old_text, new_text)
    edits = {**m.edits, **m.heading_edits}
    picked: list[tuple[int, str | None]] = [(j, None) for j in (*m.added, *m.headings_added)]
    picked += [(j, m.old[o].raw) for j, (o, _) in edits.items()]
    picked.sort(key=lambda pair: pair[0])
    return tuple(
        Candidate(number, m.new[j].raw, j, old) for number, (j, old) in enumerate(picked, 1)
    )


def apply_verdicts(old_text: str, new_text: str, verdicts: Mapping[int, Verdict]) -> str:
    """The screened rewrite: a rejected addition is not added; a rejected edit is dropped and
    the old line stays in its place. Accepted and unscreened lines are left as they are. A
    rejected line the rewrite writes more than once (screened once: the copies fold into one
    candidate) goes with every copy not already in the old file."""
    lines = new_text.split("\n")
    drop: set[int] = set()
    rejected: set[str] = set()
    for candidate in candidates(old_text, new_text):
        verdict = verdicts.get(candidate.number)
        if verdict is None or not verdict.rejected:
            continue
        rejected.add(match_key(candidate.line))
        if candidate.old is None:
            drop.add(candidate.index)
        else:
            lines[candidate.index] = candidate.old
    rejected -= {match_key(line) for line in old_text.split("\n")}
    drop |= {i for i, line in enumerate(lines) if match_key(line) in rejected}
    return "\n".join(line for i, line in enumerate(lines) if i not in drop)


@dataclass(frozen=True)
class Screened:
    """The screened rewrite, and the new lines the gate must hold because their screening
    could not be read (by their text, with the reason: the gate may see the rewrite moved by
    a hand edit, so positions would not do)."""

    text: str
    hold: Mapping[str, Reason] = field(default_factory=dict)
    accepted: frozenset[str] = frozenset()
    """The new lines screening read as ACCEPT (a new heading applies by itself only then)."""


def screen_rewrite(old_text: str, new_text: str, outcomes: Mapping[int, Outcome]) -> Screened:
    """The rewrite with its rejected lines dropped, and every unread line to hold. A candidate
    missing from `outcomes` was not asked about (no budget for the call): it is neither."""
    verdicts = {n: o for n, o in outcomes.items() if isinstance(o, Verdict)}
    hold: dict[str, Reason] = {}
    accepted: set[str] = set()
    rejected: set[str] = set()
    for candidate in candidates(old_text, new_text):
        outcome = outcomes.get(candidate.number)
        if isinstance(outcome, Unread):
            hold.setdefault(candidate.line, outcome.why)
        elif isinstance(outcome, Verdict):
            (rejected if outcome.rejected else accepted).add(candidate.line)
    text = apply_verdicts(old_text, new_text, verdicts)
    return Screened(text, hold, frozenset(accepted - rejected - set(hold)))
