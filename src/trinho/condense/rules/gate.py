"""The gate: code, not a model, decides which parts of a MEMORY.md rewrite apply by themselves.

`gate(old, new, today, since, hold=...)` is a pure function. It classifies every change per the
table of docs/rules.md (section "The gate") and returns the text to write now plus every change,
auto or held; `hold` names the new lines whose screening could not be read. Held old lines stay
in the text written now, near where they were; held new lines, and added lines that repeat an
entry (folded), are left out of it.

The table's rows are the verdict functions below, in its order (the two date rows fall back on
`strange_date_verdict`). The last rows are not the gate's: the archive proposal is planned by
`trinho.condense.rules.archive`, and the condensation never writes facts. The rest of the module
pairs lines (`trinho.condense.rules.match`), asks a verdict function about each change, and places
the lines.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from datetime import date
from difflib import SequenceMatcher
from typing import Any, Literal, NamedTuple, get_args

from trinho.condense.rules.match import Matching, date_norm, loose_key, match
from trinho.condense.rules.reasons import (
    ENGLISH,
    REASON_CODES,
    Params,
    Reason,
    ReasonCode,
    reason_or,
)
from trinho.memory.format import Entry, Heading, Item, Loose
from trinho.openclaw.markers import is_comment_line
from trinho.textnorm import has_hidden

ChangeClass = Literal[
    "added",
    "folded",
    "date_changed",
    "moved",
    "removed",
    "edited",
    "strange_date",
    "malformed",
    "suspicious",
    "archive",
]
Action = Literal["auto", "held"]
MoveCode = Literal["order_changed", "section_changed"]

CHANGE_CLASSES: tuple[str, ...] = get_args(ChangeClass)


class GateVerdict(NamedTuple):
    """One row of the table applied to one change: its class, whether it applies, and why."""

    cls: ChangeClass
    action: Action
    why: Reason


# --- the table, row by row ------------------------------------------------------------------------


def addition_verdict(entry: Entry, today: date, since: date) -> GateVerdict:
    """Row `added`: "added entry, dated inside the window and not in the future"."""
    day = entry.date
    if day is None:
        return strange_date_verdict(Reason.of("not_a_date", date=entry.date_text))
    if day > today:
        return strange_date_verdict(Reason.of("future", date=str(day), today=str(today)))
    if day < since:
        return strange_date_verdict(_outside(day, today, since))
    return GateVerdict(
        "added", "auto", Reason.of("added_in_window", since=str(since), today=str(today))
    )


def fold_verdict(kept: str, *, in_old_file: bool) -> GateVerdict:
    """Row `folded`: "added line equal to an entry already there, or added twice": the line is
    dropped and reported, never written twice. `kept` is the line it repeats."""
    code: ReasonCode = "duplicate_of_entry" if in_old_file else "duplicate_addition"
    return GateVerdict("folded", "auto", Reason.of(code, kept=kept))


def date_verdict(old: Entry, new: Entry, today: date, since: date) -> GateVerdict:
    """Row `date_changed`: "same text, date moved later, new date inside the window"."""
    before, after = old.date, new.date
    if after is None:
        return strange_date_verdict(Reason.of("new_date_not_a_date", date=new.date_text))
    if before is None:
        return strange_date_verdict(
            Reason.of("old_date_not_a_date", old=old.date_text, new=str(after))
        )
    if after < before:
        return strange_date_verdict(
            Reason.of("moved_earlier", before=str(before), after=str(after))
        )
    if after > today:
        return strange_date_verdict(Reason.of("future", date=str(after), today=str(today)))
    if after < since:
        return strange_date_verdict(_outside(after, today, since))
    why = Reason.of("moved_later", before=str(before), after=str(after))
    return GateVerdict("date_changed", "auto", why)


def move_verdict(code: MoveCode) -> GateVerdict:
    """Row `moved`: "order or section changed; a heading that moves with its section":
    applies by itself (a heading kept word for word is not a change at all)."""
    return GateVerdict("moved", "auto", Reason(code))


def owner_line_verdict(old: Heading | Loose, similarity: float | None = None) -> GateVerdict:
    """Row `owner line`: "heading, hand-written prose or marker line removed or edited": held,
    as for entries; the owner (or OpenClaw) wrote it, the line stays until approved. A heading
    whose text changed (`similarity`) is one edit; prose and markers pair only verbatim, so
    their edit is a removal (held) and a new line (malformed, held)."""
    if similarity is not None:
        return GateVerdict("edited", "held", Reason.of("edited_heading", similarity=similarity))
    if isinstance(old, Heading):
        code: ReasonCode = "removed_heading"
    else:
        code = "removed_marker" if is_comment_line(old.raw.strip()) else "removed_line"
    return GateVerdict("removed", "held", Reason(code))


def letters_edit_verdict(similarity: float) -> GateVerdict:
    """Row `edited`, for a pair whose key is the same but whose text is not: capitals,
    accents, normal form, punctuation or inner spacing changed. The key only paired the lines;
    the owner's bytes are the truth ("Đi đón Mai" is not "đi đón mai"), so it is held."""
    return GateVerdict("edited", "held", Reason.of("edited_letters", similarity=similarity))


def heading_fold_verdict(kept: str) -> GateVerdict:
    """Row `new heading`, "equal to an existing heading: folded": dropped, reported, the
    section stays one."""
    return GateVerdict("folded", "auto", Reason.of("duplicate_heading", kept=kept))


def heading_takes_entries_verdict() -> GateVerdict:
    """Row `new heading`: entries move between sections only by the owner's hand or an
    approved change, so a new heading placed over lines the old file had under another
    heading is held whatever screening said, and those lines stay where they were."""
    return GateVerdict("added", "held", Reason("heading_takes_entries"))


def new_heading_verdict(accepted: bool) -> GateVerdict:
    """Row `new heading`: "screened like a new entry; held unless screening clearly accepts".
    A heading reaches the system prompt of every turn, so only a verdict read as ACCEPT lets
    it apply by itself; not screened, unreadable or `trinho gate` alone: held."""
    if accepted:
        return GateVerdict("added", "auto", Reason("heading_accepted"))
    return GateVerdict("added", "held", Reason("heading_unscreened"))


def removal_verdict(old: Entry) -> GateVerdict:
    """Row `removed`: "entry removed": held, the old line stays until approved."""
    return GateVerdict("removed", "held", Reason("removed_entry"))


def edit_verdict(similarity: float) -> GateVerdict:
    """Row `edited`: "old text gone, a similar new text in its place": held as one change."""
    return GateVerdict("edited", "held", Reason.of("edited", similarity=similarity))


def strange_date_verdict(why: Reason) -> GateVerdict:
    """Row `strange_date`: "unparseable, in the future, outside the window, moved earlier": held."""
    return GateVerdict("strange_date", "held", why)


def malformed_verdict() -> GateVerdict:
    """Row `malformed`: "neither an entry, a heading, a blank line nor an old loose line": held."""
    return GateVerdict("malformed", "held", Reason("malformed"))


def control_verdict(cls: ChangeClass) -> GateVerdict:
    """Row `control characters`: a new line holding a character of the held class
    (`trinho.textnorm.HIDDEN_CATEGORIES`: controls, bidi and zero-width characters, tag
    characters, private use, unassigned, separators), emoji sequences aside: held whatever
    else it is, never applied by itself; review screens show those characters made visible."""
    return GateVerdict(cls, "held", Reason("control_chars"))


def unread_verdict(cls: ChangeClass, why: Reason) -> GateVerdict:
    """Row `screening unreadable`: a new line the screening was asked about and gave no
    verdict that can be read for (`why`: `screen_unreadable` or `screen_failed`): held
    whatever else it is. Only a verdict read as accept lets a screened line apply by itself."""
    return GateVerdict(cls, "held", why)


def suspicious_verdict(lost: int, total: int) -> GateVerdict | None:
    """Row `suspicious`: "a rewrite that loses more than half of the old lines": held whole."""
    if 2 * lost > total:
        return GateVerdict("suspicious", "held", Reason.of("suspicious", lost=lost, total=total))
    return None


def _outside(day: date, today: date, since: date) -> Reason:
    return Reason.of("outside_window", date=str(day), since=str(since), today=str(today))


# --- changes and the gate -------------------------------------------------------------------------


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
    why: str | None = None
    """The model's own reason for the change (a `REMOVE [n] reason`), when it gave one."""
    sources: tuple[tuple[str, str, str], ...] = ()
    """What the change was drawn from, as (kind, ref, text): `trinho.condense.rules.explain`."""

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

    @classmethod
    def judged(
        cls,
        verdict: GateVerdict,
        old: str | None,
        new: str | None,
        *,
        snapshot: str | None = None,
        rewrite: str | None = None,
        similarity: float | None = None,
    ) -> Change:
        """The change from `old` to `new` as `verdict` classes it."""
        return cls.because(
            verdict.cls,
            verdict.action,
            old,
            new,
            verdict.why,
            snapshot=snapshot,
            rewrite=rewrite,
            similarity=similarity,
        )

    @property
    def held(self) -> bool:
        return self.action == "held"

    def reason_in(self, locale: str) -> str:
        """The reason as the owner reads it; the stored English text when there is no code."""
        return reason_or(self.reason_code, self.reason_params, self.reason, locale)

    def to_dict(self) -> dict[str, Any]:
        """Every field, `cls` spelt `class`: what a store persists and `from_dict` reads;
        `why` and `sources` only when there are any (a journal reads as it did before them)."""
        data = asdict(self)
        data["reason_params"] = dict(self.reason_params)
        if self.why is None:
            del data["why"]
        if self.sources:
            data["sources"] = [list(s) for s in self.sources]
        else:
            del data["sources"]
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
        sources = fields.get("sources") or []
        if not isinstance(sources, list) or not all(
            isinstance(s, list) and len(s) == 3 and all(isinstance(x, str) for x in s)
            for s in sources
        ):
            raise ValueError(f"not a gate change's sources: {sources!r}")
        fields["sources"] = tuple((s[0], s[1], s[2]) for s in sources)
        return cls(**fields)


@dataclass(frozen=True)
class GateResult:
    applied: str
    changes: tuple[Change, ...]

    @property
    def held(self) -> tuple[Change, ...]:
        return tuple(change for change in self.changes if change.held)


def gate(
    old_text: str,
    new_text: str,
    today: date,
    since: date,
    *,
    hold: Mapping[str, Reason] | None = None,
    accepted: Collection[str] = (),
) -> GateResult:
    """Classify the rewrite `new_text` of `old_text` and return what to write now.

    `hold` maps new lines (their text) whose screening could not be read to the reason: such a
    line does not apply by itself (`unread_verdict`). `accepted` are the new lines screening
    read as ACCEPT: only those of them that are headings may apply by themselves."""
    m = match(old_text, new_text)
    verdict = suspicious_verdict(m.lost_lines, m.old_lines)
    if verdict is not None:
        whole = Change.judged(verdict, None, None, snapshot=old_text, rewrite=new_text)
        return GateResult(old_text, (whole,))
    changes = _slot_changes(m, today, since, frozenset(accepted))
    if hold:
        changes = _hold_unread(changes, hold)
    placed = _place(m, changes, _removals(m))
    if not any(c.action == "auto" and c.cls != "folded" for c in placed.changes):
        return GateResult(old_text, placed.changes)  # nothing applies: the file byte for byte
    return placed


# --- asking the table about each line -------------------------------------------------------------


def _slot_changes(
    m: Matching, today: date, since: date, accepted: frozenset[str]
) -> dict[int, Change]:
    """The change at each rewrite line that has one, by its index in the rewrite."""
    changes: dict[int, Change] = {}
    for j, o in m.entries.items():
        old, new = _as_entry(m.old[o]), _as_entry(m.new[j])
        if old.text != new.text:
            ratio = round(_similarity(old.text, new.text), 4)
            verdict = letters_edit_verdict(ratio)
            changes[j] = Change.judged(verdict, old.raw, new.raw, similarity=ratio)
        elif date_norm(old) != date_norm(new):
            changes[j] = Change.judged(date_verdict(old, new, today, since), old.raw, new.raw)
    for j, (o, ratio) in m.edits.items():
        verdict = edit_verdict(ratio)
        changes[j] = Change.judged(verdict, m.old[o].raw, m.new[j].raw, similarity=round(ratio, 4))
    for j, verdict in _additions(m, today, since):
        changes[j] = Change.judged(verdict, None, m.new[j].raw)
    for j in m.malformed:
        changes[j] = Change.judged(malformed_verdict(), None, m.new[j].raw)
    for j, (o, ratio) in m.heading_edits.items():
        verdict = owner_line_verdict(_as_heading(m.old[o]), round(ratio, 4))
        changes[j] = Change.judged(verdict, m.old[o].raw, m.new[j].raw, similarity=round(ratio, 4))
    changes.update(_new_headings(m, accepted))
    changes.update(_moves(m, changes))
    for j, change in changes.items():
        brought = change.cls not in ("moved", "folded") and not (
            change.old and has_hidden(change.old)
        )
        if brought and not change.held and change.new is not None and has_hidden(change.new):
            changes[j] = Change.judged(control_verdict(change.cls), change.old, change.new)
    return changes


def _new_headings(m: Matching, accepted: frozenset[str]) -> dict[int, Change]:
    """The verdict on each new heading: one equal to a heading already there (or to an
    earlier new one) folds; one over lines the old file had elsewhere is held; the others
    apply only if screening accepted them."""
    seen = {loose_key(item.raw): item.raw for item in reversed(m.old) if isinstance(item, Heading)}
    kept = set(_kept_pairs(m))
    sections = _sections(m.new)
    changes: dict[int, Change] = {}
    for j in m.headings_added:
        raw = m.new[j].raw
        if loose_key(raw) in seen:
            changes[j] = Change.judged(heading_fold_verdict(seen[loose_key(raw)]), None, raw)
            continue
        seen[loose_key(raw)] = raw
        takes = any(sections[k] == j for k in kept)
        verdict = heading_takes_entries_verdict() if takes else new_heading_verdict(raw in accepted)
        changes[j] = Change.judged(verdict, None, raw)
    return changes


def _similarity(a: str, b: str) -> float:
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


def _hold_unread(changes: dict[int, Change], hold: Mapping[str, Reason]) -> dict[int, Change]:
    """`changes` with every new line of `hold` held, unless it is held already (it keeps that
    reason), merely moved, or folded (a repeat, written nowhere)."""
    result = dict(changes)
    for j, change in changes.items():
        why = hold.get(change.new) if change.new is not None else None
        if why is None or change.held or change.cls in ("moved", "folded"):
            continue
        result[j] = Change.judged(unread_verdict(change.cls, why), change.old, change.new)
    return result


def _additions(m: Matching, today: date, since: date) -> Iterable[tuple[int, GateVerdict]]:
    """The verdict on each added entry: one repeating an old entry's text, or an earlier
    addition's, folds; one with the same key but other letters is held (two texts are never
    judged the same by their key); the others are judged by their date."""
    texts: dict[str, str] = {}
    keys: set[str] = set()
    for item in reversed(m.old):  # the first old entry of each text wins
        if isinstance(item, Entry):
            texts[item.text] = item.raw
            keys.add(item.key)
    in_old = set(texts)
    for j in m.added:
        entry = _as_entry(m.new[j])
        if entry.text in texts:
            yield j, fold_verdict(texts[entry.text], in_old_file=entry.text in in_old)
        elif entry.key in keys:
            yield j, GateVerdict("added", "held", Reason.of("edited_letters", similarity=1.0))
        else:
            texts[entry.text] = entry.raw
            keys.add(entry.key)
            yield j, addition_verdict(entry, today, since)


def _moves(m: Matching, judged: dict[int, Change]) -> dict[int, Change]:
    """Kept lines (entries and loose lines with no other change) out of their old relative
    order, or under another heading."""
    paired = _kept_pairs(m)
    slots = sorted(paired)
    in_order = set(_longest_increasing(slots, [paired[j] for j in slots]))
    old_section = _sections(m.old, skip=frozenset(m.headings_removed))  # held: they stay
    held_new = frozenset(j for j in m.headings_added if judged[j].held or judged[j].cls == "folded")
    new_section = _sections(m.new, skip=held_new)
    heading_of = {**m.headings, **{j: o for j, (o, _) in m.heading_edits.items()}}
    moves: dict[int, Change] = {}
    for j in slots:
        if j in judged:
            continue
        o = paired[j]
        code: MoveCode
        if j not in in_order:
            code = "order_changed"
        elif heading_of.get(new_section[j], -1) != old_section[o]:
            code = "section_changed"
        else:
            continue
        moves[j] = Change.judged(move_verdict(code), m.old[o].raw, m.new[j].raw)
    return moves


def _removals(m: Matching) -> dict[int, Change]:
    """The change for each old line the rewrite dropped, by its index in the old file."""
    changes: dict[int, Change] = {}
    for o in [*m.removed, *m.headings_removed]:
        item = m.old[o]
        verdict = removal_verdict(item) if isinstance(item, Entry) else owner_line_verdict(item)
        changes[o] = Change.judged(verdict, item.raw, None)
    return changes


# --- placing the lines ----------------------------------------------------------------------------


def _place(m: Matching, at_slot: dict[int, Change], removed: dict[int, Change]) -> GateResult:
    """The text to write now, in the rewrite's order, and every change in that order.

    A rewrite line goes in unless its change is held; a line kept as it was (or only moved) is
    written as the old file had it, byte for byte. An old line that stays because its change
    is held (an edit, a date move) stays at its rewrite line when that line follows the same
    kept line as the old one did; otherwise it goes back where it was, as a dropped line whose
    removal is held does: after its nearest predecessor that is written now, else before its
    nearest successor, else at the top. A held change never moves a line.
    """
    pairs = {**_kept_pairs(m), **m.headings, **{j: o for j, (o, _) in m.heading_edits.items()}}
    held = {j for j, c in at_slot.items() if c.held and c.old is not None and j in pairs}
    anchors = {j: o for j, o in pairs.items() if j not in held}
    in_place = {j for j in held if _same_gap(anchors, j, pairs[j])}
    anchors.update({j: pairs[j] for j in in_place})
    back = {*removed, *(pairs[j] for j in held - in_place)}
    front, before, after = _old_places(len(m.old), anchors, back)
    out = _Output()
    out.old_lines(m, front, removed)
    for j, item in enumerate(m.new):
        out.old_lines(m, before[j], removed)
        change = at_slot.get(j)
        if j in in_place:
            out.lines.append(m.old[pairs[j]].raw)
        unchanged = j in anchors and (change is None or change.cls == "moved")
        out.slot(m.old[anchors[j]].raw if unchanged else item.raw, change)  # the owner's bytes
        out.old_lines(m, after[j], removed)
    return GateResult("\n".join(out.lines), tuple(out.changes))


def _same_gap(anchors: dict[int, int], j: int, o: int) -> bool:
    """Whether rewrite line `j` and old line `o` follow the same kept line (or none)."""
    before_new = max((k for k in anchors if k < j), default=None)
    before_old = max((a for a in anchors.values() if a < o), default=None)
    return (anchors[before_new] if before_new is not None else None) == before_old


class _Output:
    """The lines written now and the changes, as `_place` goes through the rewrite."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.changes: list[Change] = []
        self.last_applied: str | None = None  # what a held new line is to be inserted after

    def old_lines(self, m: Matching, olds: Iterable[int], removed: dict[int, Change]) -> None:
        """Old lines put back: a dropped one is listed with its removal, and written when
        the removal is held; one whose change is held is written (the change is listed at its
        rewrite line)."""
        for o in olds:
            change = removed.get(o)
            if change is not None:
                self.changes.append(change)
                if not change.held:
                    continue
            self.lines.append(m.old[o].raw)

    def slot(self, raw: str, change: Change | None) -> None:
        """The rewrite line `raw`, unless its change is held (its old line, if any, is put
        back where it was) or folded (a repeat: nothing)."""
        if change is not None and change.held:
            if change.old is None:
                change = replace(change, after=self.last_applied)
        elif change is None or change.cls != "folded":
            self.lines.append(raw)
            if raw.strip():
                self.last_applied = raw
        if change is not None:
            self.changes.append(change)


def _old_places(
    size: int, anchors: dict[int, int], back: set[int]
) -> tuple[list[int], dict[int, list[int]], dict[int, list[int]]]:
    """Where each old line of `back` goes: after its nearest predecessor among the anchors
    (rewrite line -> old line, the lines written now), else before its nearest anchored
    successor, else at the top."""
    anchor = {o: j for j, o in anchors.items()}
    before: dict[int, list[int]] = defaultdict(list)
    after: dict[int, list[int]] = defaultdict(list)
    pending: list[int] = []
    last: int | None = None
    for o in range(size):
        if o in anchor:
            last = anchor[o]
            if pending:
                before[last].extend(pending)
                pending = []
        elif o in back:
            if last is None:
                pending.append(o)
            else:
                after[last].append(o)
    return pending, before, after


def _kept_pairs(m: Matching) -> dict[int, int]:
    """Rewrite line -> old line, for the entries (edited or not) and loose lines paired."""
    return {**m.entries, **{j: o for j, (o, _) in m.edits.items()}, **m.loose}


def _as_entry(item: Item) -> Entry:
    assert isinstance(item, Entry)
    return item


def _as_heading(item: Item) -> Heading:
    assert isinstance(item, Heading)
    return item


def _sections(items: tuple[Item, ...], skip: frozenset[int] = frozenset()) -> list[int]:
    """For each line, the index of the heading it sits under (-1 before any heading); the
    headings of `skip` do not count."""
    current = -1
    result: list[int] = []
    for i, item in enumerate(items):
        if isinstance(item, Heading) and i not in skip:
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
