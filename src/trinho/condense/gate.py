"""The gate: code, not a model, decides which parts of a MEMORY.md rewrite apply by themselves.

`gate(old, new, today, since)` is a pure function. It classifies every change per the table of
DESIGN.md section 4 and returns the text to write now plus every change, auto or held. Held old
lines stay in the text written now, near where they were; held new lines are left out of it.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from dataclasses import asdict, dataclass
from datetime import date
from typing import Any, Literal, get_args

from trinho.condense.match import Matching, date_norm, match
from trinho.condense.reasons import ENGLISH, REASON_CODES, Params, Reason, ReasonCode, reason_or
from trinho.memory_md import Entry, Heading, Item

ChangeClass = Literal[
    "added",
    "date_changed",
    "moved",
    "removed",
    "edited",
    "strange_date",
    "malformed",
    "suspicious",
]
Action = Literal["auto", "held"]

CHANGE_CLASSES: tuple[str, ...] = get_args(ChangeClass)


@dataclass(frozen=True)
class Change:
    """One change from the old file to the rewrite.

    `after` (held additions and malformed lines) is the rewrite line that preceded `new` and was
    applied: approving inserts `new` after it if it is still there. `snapshot` and `rewrite`
    (suspicious only) are the whole old file and the whole rewrite. `similarity` is the ratio
    that made an edit an edit.

    `reason` is the English text (stored, and in `--json`); `reason_code` and `reason_params`
    render it in the owner's locale (`reason_in`). Changes stored before codes have no code.
    """

    cls: ChangeClass
    action: Action
    old: str | None
    new: str | None
    reason: str
    after: str | None = None
    snapshot: str | None = None
    rewrite: str | None = None
    similarity: float | None = None
    reason_code: ReasonCode | None = None
    reason_params: Params = ()

    @classmethod
    def because(
        cls,
        change_class: ChangeClass,
        action: Action,
        old: str | None,
        new: str | None,
        why: Reason,
        *,
        after: str | None = None,
        snapshot: str | None = None,
        rewrite: str | None = None,
        similarity: float | None = None,
    ) -> Change:
        """A change whose reason is `why`, its English text kept alongside the code."""
        return cls(
            change_class,
            action,
            old,
            new,
            why.text(ENGLISH),
            after=after,
            snapshot=snapshot,
            rewrite=rewrite,
            similarity=similarity,
            reason_code=why.code,
            reason_params=why.params,
        )

    @property
    def held(self) -> bool:
        return self.action == "held"

    def reason_in(self, locale: str) -> str:
        """The reason as the owner reads it; the stored English text when there is no code."""
        return reason_or(self.reason_code, self.reason_params, self.reason, locale)

    def to_dict(self) -> dict[str, Any]:
        """Every field, `cls` spelt `class`: what a store persists and `from_dict` reads."""
        data = asdict(self)
        data["reason_params"] = dict(self.reason_params)
        return {"class": data.pop("cls"), **data}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Change:
        fields = dict(data)
        fields["cls"] = fields.pop("class")
        if fields["cls"] not in CHANGE_CLASSES or fields["action"] not in ("auto", "held"):
            raise ValueError(f"not a gate change: {data!r}")
        code = fields.get("reason_code")
        params = fields.get("reason_params") or {}
        if (code is not None and code not in REASON_CODES) or not isinstance(params, dict):
            raise ValueError(f"not a gate change reason: {code!r} {params!r}")
        fields["reason_params"] = tuple(params.items())
        return cls(**fields)


@dataclass(frozen=True)
class GateResult:
    applied: str
    changes: tuple[Change, ...]

    @property
    def held(self) -> tuple[Change, ...]:
        return tuple(change for change in self.changes if change.held)


def addition_verdict(entry: Entry, today: date, since: date) -> tuple[ChangeClass, Action, Reason]:
    """An entry the old file did not have: auto only when dated inside the window."""
    day = entry.date
    if day is None:
        return "strange_date", "held", Reason.of("not_a_date", date=entry.date_text)
    if day > today:
        return "strange_date", "held", Reason.of("future", date=str(day), today=str(today))
    if day < since:
        return "strange_date", "held", _outside(day, today, since)
    return "added", "auto", Reason.of("added_in_window", since=str(since), today=str(today))


def date_verdict(
    old: Entry, new: Entry, today: date, since: date
) -> tuple[ChangeClass, Action, Reason]:
    """Same text, another date: auto only when moved later to a day inside the window."""
    before, after = old.date, new.date
    if after is None:
        return "strange_date", "held", Reason.of("new_date_not_a_date", date=new.date_text)
    if before is None:
        why = Reason.of("old_date_not_a_date", old=old.date_text, new=str(after))
        return "strange_date", "held", why
    if after < before:
        why = Reason.of("moved_earlier", before=str(before), after=str(after))
        return "strange_date", "held", why
    if after > today:
        return "strange_date", "held", Reason.of("future", date=str(after), today=str(today))
    if after < since:
        return "strange_date", "held", _outside(after, today, since)
    return "date_changed", "auto", Reason.of("moved_later", before=str(before), after=str(after))


def _outside(day: date, today: date, since: date) -> Reason:
    return Reason.of("outside_window", date=str(day), since=str(since), today=str(today))


def gate(old_text: str, new_text: str, today: date, since: date) -> GateResult:
    """Classify the rewrite `new_text` of `old_text` and return what to write now."""
    m = match(old_text, new_text)
    if m.old_lines and 2 * m.lost_lines > m.old_lines:
        why = Reason.of("suspicious", lost=m.lost_lines, total=m.old_lines)
        held = Change.because(
            "suspicious", "held", None, None, why, snapshot=old_text, rewrite=new_text
        )
        return GateResult(old_text, (held,))
    return _Assembly(m, today, since).run()


class _Assembly:
    """Builds the applied text in the rewrite's order, with held old lines near their place."""

    def __init__(self, m: Matching, today: date, since: date) -> None:
        self.m = m
        self.today = today
        self.since = since
        self.out: list[str | None] = [item.raw for item in m.new]
        self.from_rewrite = [True] * len(m.new)
        self.slot_change: dict[int, Change] = {}
        self.held_addition: dict[int, tuple[ChangeClass, Reason]] = {}
        self.anchor: dict[int, int] = {}

    def run(self) -> GateResult:
        self._classify_slots()
        self._classify_moves()
        return self._assemble()

    def _classify_slots(self) -> None:
        m, old, new = self.m, self.m.old, self.m.new
        for j, o in m.entries.items():
            self.anchor[o] = j
            old_e, new_e = _as_entry(old[o]), _as_entry(new[j])
            if date_norm(old_e) == date_norm(new_e):
                continue
            cls, action, why = date_verdict(old_e, new_e, self.today, self.since)
            self.slot_change[j] = Change.because(cls, action, old_e.raw, new_e.raw, why)
            if action == "held":
                self._keep_old(j, old_e.raw)
        for j, (o, ratio) in m.edits.items():
            self.anchor[o] = j
            why = Reason.of("edited", similarity=ratio)
            self.slot_change[j] = Change.because(
                "edited", "held", old[o].raw, new[j].raw, why, similarity=round(ratio, 4)
            )
            self._keep_old(j, old[o].raw)
        for j in m.added:
            cls, action, why = addition_verdict(_as_entry(new[j]), self.today, self.since)
            if action == "auto":
                self.slot_change[j] = Change.because(cls, action, None, new[j].raw, why)
            else:
                self.held_addition[j] = (cls, why)
                self.out[j] = None
        for j in m.malformed:
            self.held_addition[j] = ("malformed", Reason("malformed"))
            self.out[j] = None
        for j, o in [*m.loose.items(), *m.headings.items()]:
            self.anchor[o] = j
        for j in m.headings_added:
            why = Reason("heading_added")
            self.slot_change[j] = Change.because("moved", "auto", None, new[j].raw, why)

    def _keep_old(self, slot: int, raw: str) -> None:
        self.out[slot] = raw
        self.from_rewrite[slot] = False

    def _classify_moves(self) -> None:
        """Entries and loose lines out of their old relative order, or under another heading."""
        m = self.m
        slots = sorted([*m.entries, *m.edits, *m.loose])
        in_order = set(_longest_increasing(slots, [self.anchor_of(j) for j in slots]))
        old_section = _sections(m.old)
        new_section = _sections(m.new)
        for j in slots:
            if j in self.slot_change:
                continue
            o = self.anchor_of(j)
            code: ReasonCode
            if j not in in_order:
                code = "order_changed"
            elif m.headings.get(new_section[j], -1) != old_section[o]:
                code = "section_changed"
            else:
                continue
            why = Reason(code)
            self.slot_change[j] = Change.because("moved", "auto", m.old[o].raw, m.new[j].raw, why)

    def anchor_of(self, slot: int) -> int:
        m = self.m
        if slot in m.edits:
            return m.edits[slot][0]
        return m.entries[slot] if slot in m.entries else m.loose[slot]

    def _assemble(self) -> GateResult:
        m = self.m
        front, before, after = self._place_removed()
        lines: list[str] = []
        changes: list[Change] = []
        last_applied: str | None = None

        def place(o: int) -> None:
            item = m.old[o]
            if isinstance(item, Heading):
                why = Reason("heading_removed")
                changes.append(Change.because("moved", "auto", item.raw, None, why))
                return
            lines.append(item.raw)
            why = Reason("removed_entry" if isinstance(item, Entry) else "removed_line")
            changes.append(Change.because("removed", "held", item.raw, None, why))

        for o in front:
            place(o)
        for j, raw in enumerate(self.out):
            for o in before[j]:
                place(o)
            if j in self.held_addition:
                cls, why = self.held_addition[j]
                changes.append(
                    Change.because(cls, "held", None, m.new[j].raw, why, after=last_applied)
                )
            elif j in self.slot_change:
                changes.append(self.slot_change[j])
            if raw is not None:
                lines.append(raw)
                if self.from_rewrite[j] and raw.strip():
                    last_applied = raw
            for o in after[j]:
                place(o)
        return GateResult("\n".join(lines), tuple(changes))

    def _place_removed(self) -> tuple[list[int], dict[int, list[int]], dict[int, list[int]]]:
        """Each removed old line goes after its nearest predecessor that survives, else before
        its nearest survivor, else at the top."""
        gone = set(self.m.removed) | set(self.m.headings_removed)
        before: dict[int, list[int]] = defaultdict(list)
        after: dict[int, list[int]] = defaultdict(list)
        pending: list[int] = []
        last: int | None = None
        for o in range(len(self.m.old)):
            if o in self.anchor:
                last = self.anchor[o]
                if pending:
                    before[last].extend(pending)
                    pending = []
            elif o in gone:
                if last is None:
                    pending.append(o)
                else:
                    after[last].append(o)
        return pending, before, after


def _as_entry(item: Item) -> Entry:
    assert isinstance(item, Entry)
    return item


def _sections(items: tuple[Item, ...]) -> list[int]:
    """For each line, the index of the heading it sits under (-1 before any heading)."""
    current = -1
    result: list[int] = []
    for i, item in enumerate(items):
        if isinstance(item, Heading):
            current = i
        result.append(current)
    return result


def _longest_increasing(slots: list[int], values: list[int]) -> list[int]:
    """The slots of one longest strictly increasing run of `values`, in O(n log n)."""
    tails: list[int] = []
    tail_at: list[int] = []
    parent = [-1] * len(values)
    for i, value in enumerate(values):
        k = bisect.bisect_left(tails, value)
        if k == len(tails):
            tails.append(value)
            tail_at.append(i)
        else:
            tails[k] = value
            tail_at[k] = i
        parent[i] = tail_at[k - 1] if k else -1
    result: list[int] = []
    i = tail_at[-1] if tail_at else -1
    while i != -1:
        result.append(slots[i])
        i = parent[i]
    return result[::-1]
