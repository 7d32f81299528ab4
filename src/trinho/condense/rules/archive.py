"""The archive plan: when MEMORY.md outgrows its prompt budget, which entries move out.

Pure: `plan_archive` chooses, `archive_section` writes the text `memory/archive.md` gains, and
`apply_archive` replays the plan on the file as it is when the owner approves (docs/rules.md,
section "The gate", row `archive`). Only dated entries move, least recently dated first, and
verbatim: headings and hand-written lines stay, and so do entries whose date is not a calendar
date (the gate holds those already). A line another pending change acts on stays too
(`pinned_lines`): the archive and that change are decided in any order, each one applying.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from trinho.condense.rules.held import find_line
from trinho.context.budget import base_tokens, estimate_tokens
from trinho.i18n import N_, t
from trinho.memory.format import BOM, Entry, parse
from trinho.textnorm import one_line

TARGET_SHARE = (9, 10)
"""What is left after archiving is at most 9/10 of the budget, so the next week's additions
do not bring an archive proposal straight back."""


@dataclass(frozen=True)
class ArchivedLine:
    """One line that moves: its 1-based number in MEMORY.md and its text, verbatim."""

    line: int
    raw: str


@dataclass(frozen=True)
class ArchivePlan:
    """The lines to move (in file order), MEMORY.md's text once they are gone, and the token
    estimates (`trinho.context.budget.estimate_tokens`) before and after, with the budget."""

    lines: tuple[ArchivedLine, ...]
    text: str
    tokens_before: int
    tokens_after: int
    budget_tokens: int

    @property
    def raw_lines(self) -> tuple[str, ...]:
        return tuple(moved.raw for moved in self.lines)


ORIGIN = "condense:"
"""A proposal's `origin` is this and the id of the run that made it (an archive's section
heading names that run)."""


def plan_archive(
    text: str, budget_tokens: int, pinned: Collection[str] = frozenset()
) -> ArchivePlan | None:
    """The entries to move so that `text` is back within 90% of `budget_tokens`; a line of
    `pinned` (another pending change acts on it: `pinned_lines`) never moves, the next least
    recently dated entries move instead.

    None when `text` is within the budget, or when nothing can move. When moving every dated
    entry is still not enough, they all move: the most the archive can do.
    """
    before = estimate_tokens(text)
    if before <= budget_tokens:
        return None
    raws = text.split("\n")
    left = base_tokens(text)
    chosen: set[int] = set()
    for entry in _oldest_first(text):
        if entry.raw in pinned:
            continue
        if _within_target(left, budget_tokens):
            break
        chosen.add(entry.line - 1)
        left -= base_tokens(entry.raw + "\n")  # the line and one line break
    if not chosen:
        return None
    after = "\n".join(raw for i, raw in enumerate(raws) if i not in chosen)
    moved = tuple(ArchivedLine(i + 1, raws[i]) for i in sorted(chosen))
    return ArchivePlan(moved, after, before, estimate_tokens(after), budget_tokens)


def pinned_lines(text: str, pending: Iterable[Mapping[str, Any]]) -> frozenset[str]:
    """The lines of `text` that a pending change (`Change.to_dict()`, a proposal's change) acts
    on, found as approving it finds them (`held.find_line`): the old side of an edit, a
    removal, a date change. A rewrite held whole was made for the file as it is: it pins every
    line. An archive pins nothing (it is the one planned, or the one it replaces)."""
    lines = text.split("\n")
    pinned: set[str] = set()
    for change in pending:
        cls, old = change.get("class"), change.get("old")
        if cls == "suspicious":
            return frozenset(lines)
        if cls == "archive" or not isinstance(old, str):
            continue
        for raw in old.split("\n"):
            at = find_line(lines, raw)
            if at is not None:
                pinned.add(lines[at])
    return frozenset(pinned)


def archive_stands(lines: Iterable[str], text: str, pinned: Collection[str]) -> bool:
    """Whether an archive of `lines` waiting for the owner may still be approved on `text`
    beside every other pending change: each line is still there, and none is `pinned`."""
    wanted = tuple(lines)
    return apply_archive(text, wanted) is not None and not any(raw in pinned for raw in wanted)


SECTION_PREFIX = "## Archived by run "


def archive_section(run_id: str, lines: Iterable[str]) -> str:
    """What `memory/archive.md` gains: a heading naming the run and the content hash of its
    lines, then the lines verbatim. A rerun, a resume or a second approval finds the heading
    (`section_heading`) already there and writes nothing again.

    It ends with a line break, so sections appended one after another stay apart.
    """
    moved = tuple(lines)
    body = "".join(f"{raw}\n" for raw in moved)
    return f"{section_heading(run_id, moved)}\n\n{body}"


def section_heading(run_id: str, lines: Sequence[str]) -> str:
    """`## Archived by run 2026-W48 (sha256 1f2e3d4c5b6a)`: the run, and the hash of what
    moved, so the same section is known again and another one of the same run is not."""
    digest = hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()[:12]
    return f"{SECTION_PREFIX}{one_line(run_id)} (sha256 {digest})"


def archived_by(archive_text: str, run_id: str) -> tuple[str, ...]:
    """Every line the archive's sections of run `run_id` hold (a rerun of the run, cut off
    between the archive and MEMORY.md, moved them already)."""
    found: list[str] = []
    inside = False
    prefix = f"{SECTION_PREFIX}{one_line(run_id)}"
    for raw in archive_text.split("\n"):
        if raw.startswith("## "):
            inside = raw == prefix or raw.startswith(prefix + " (sha256 ")
            continue
        if inside and raw.strip():
            found.append(raw)
    return tuple(found)


def without_lines(text: str, lines: Iterable[str]) -> tuple[tuple[str, ...], str]:
    """The lines of `lines` that `text` still has (each once, first occurrences first), and
    `text` without them."""
    wanted = Counter(lines)
    gone: list[str] = []
    kept: list[str] = []
    for raw in text.split("\n"):
        if wanted[raw]:
            wanted[raw] -= 1
            gone.append(raw)
        else:
            kept.append(raw)
    return tuple(gone), "\n".join(kept)


def apply_archive(current_text: str, lines: Iterable[str]) -> str | None:
    """`current_text` without `lines` (each removed once, first occurrences first), or None
    when one of them is no longer there as it was: the plan is stale."""
    wanted = Counter(lines)
    raws = current_text.split("\n")
    if wanted - Counter(raws):
        return None
    kept: list[str] = []
    for raw in raws:
        if wanted[raw]:
            wanted[raw] -= 1
        else:
            kept.append(raw)
    return "\n".join(kept)


def _oldest_first(text: str) -> list[Entry]:
    """The entries that may move, least recently dated first, ties in line order. A first
    line carrying the byte-order mark stays, so the mark stays where it belongs."""
    entries = parse(text).entries
    dated = [
        (day, entry.line, entry)
        for entry in entries
        if (day := entry.date) is not None and not entry.raw.startswith(BOM)
    ]
    return [entry for _, _, entry in sorted(dated, key=lambda d: (d[0], d[1]))]


def _within_target(left: float, budget_tokens: int) -> bool:
    """Whether `left` (a `base_tokens` sum: it adds up over the lines) is at most 9/10 of
    the budget once rounded up as `estimate_tokens` rounds."""
    tokens = math.ceil(round(max(left, 0.0), 6))
    numerator, denominator = TARGET_SHARE
    return tokens * denominator <= budget_tokens * numerator


REASK_SHARE = 10
"""A rejected archive is asked again once the file has grown by budget / REASK_SHARE tokens."""


def archive_waits_or_was_refused(
    tokens: int, budget: int, *, waiting: bool, rejected_at: Sequence[int]
) -> bool:
    """Row "MEMORY.md over its prompt budget", its limits: no second archive proposal while
    one waits, and none after the owner rejected one (made when the file had `rejected_at`
    tokens) until the file has grown by another tenth of the budget."""
    return waiting or any(tokens < asked + budget // REASK_SHARE for asked in rejected_at)


TIMES_FROM = 2
"""From twice the budget on, how far over it reads "about N times as long as"; below, as a
percentage ("about 20% longer than")."""


def budget_words(params: Mapping[str, Any], locale: str) -> str:
    """An archive's reason as the owner reads it (`reason_params` of `over_budget`: tokens,
    budget, count): how far over what fits in the assistant's prompt the long-term memory is,
    and how many of its oldest entries would move, in words; never a token count, never a
    model's reason for another change. Parameters a stored change lacks read as no excess."""
    tokens, budget, count = (params.get(k) for k in ("tokens", "budget", "count"))
    tokens = tokens if isinstance(tokens, int) else 0
    budget = budget if isinstance(budget, int) else 0
    if budget > 0 and tokens < TIMES_FROM * budget:
        percent = max(1, math.ceil(100 * (tokens - budget) / budget))
        over = t(locale, N_("review.over.percent"), percent=percent)
    else:
        times = t(locale, "count.times", count=round(tokens / max(budget, 1)))
        over = t(locale, N_("review.over.times"), times=times)
    return t(
        locale,
        N_("review.why.over_budget"),
        over=over,
        count=count if isinstance(count, int) else 0,
    )
