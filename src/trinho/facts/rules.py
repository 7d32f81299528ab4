"""Fact reconciliation: the table of docs/rules.md ("Fact reconciliation") as one pure function.

`reconcile` compares what someone wants saved with the fact's live version and decides; the
store applies the decision under the fact's lock. A version holds on `[valid_from, valid_to)`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import Literal

from trinho.errors import TrinhoError
from trinho.textnorm import has_hidden

Basis = Literal["user", "inferred"]
ActorKind = Literal["owner", "chat", "job"]
"""Who saves: `owner`, the owner's own word (the CLI, an approval); `chat`, a chat model
answering the owner; `job`, an unattended job. See `trinho.proposals.rules` for what each may do."""
FactOutcome = Literal["created", "unchanged", "superseded", "proposed", "historical"]
ProposalReason = Literal["job", "contradicts_user", "hidden_chars"]

BASES: tuple[Basis, ...] = ("user", "inferred")
ACTORS: tuple[ActorKind, ...] = ("owner", "chat", "job")


class FactConflict(TrinhoError):
    """The incoming dates would make two versions of a fact hold on the same day."""


@dataclass(frozen=True)
class FactVersion:
    """One value of a fact over the half-open interval [valid_from, valid_to)."""

    value: str
    basis: Basis
    valid_from: date
    valid_to: date | None
    recorded_at: datetime
    source: str
    confirmed_on: date | None = None
    line: int = field(default=0, compare=False)
    """Line of `value:` in the fact file (0 when the version was not read from a file)."""

    def covers(self, day: date) -> bool:
        return self.valid_from <= day and (self.valid_to is None or day < self.valid_to)

    def ended_by(self, day: date) -> bool:
        return self.valid_to is not None and self.valid_to <= day


@dataclass(frozen=True)
class Fact:
    """A fact: its latest version (`head`, which may have ended) and earlier versions."""

    key: str
    head: FactVersion | None
    history: tuple[FactVersion, ...] = ()

    def versions(self) -> list[FactVersion]:
        """Every version, oldest first."""
        every = [*self.history, *([self.head] if self.head else [])]
        return sorted(every, key=lambda v: (v.valid_from, v.recorded_at))

    def value_on(self, day: date) -> FactVersion | None:
        """What was true on `day`: of the versions covering it, the one recorded last."""
        covering = [v for v in self.versions() if v.covers(day)]
        return max(covering, key=lambda v: v.recorded_at) if covering else None

    def live_head(self, today: date) -> FactVersion | None:
        """The head unless its end date has passed: the version saves are compared with."""
        head = self.head
        return head if head is not None and not head.ended_by(today) else None


@dataclass(frozen=True)
class Incoming:
    """A value someone wants saved. No `valid_from` means from the day it is saved."""

    key: str
    value: str
    basis: Basis
    recorded_at: datetime
    source: str
    valid_from: date | None = None
    valid_to: date | None = None


@dataclass(frozen=True)
class Decision:
    """What `reconcile` decided. `after` is the fact to write (None: write nothing)."""

    outcome: FactOutcome
    after: Fact | None
    proposal_reason: ProposalReason | None = None


def reconcile(current: Fact | None, incoming: Incoming, actor: ActorKind, today: date) -> Decision:
    """The table's rows, tried in this order; the first that matches decides. No I/O, no clock.

    Raises FactConflict when the incoming dates would overlap versions already recorded.
    """
    fact = current or Fact(incoming.key, None)
    start, end = check_dates(incoming.key, incoming.valid_from, incoming.valid_to, today)
    new = FactVersion(
        incoming.value, incoming.basis, start, end, incoming.recorded_at, incoming.source
    )
    live = fact.live_head(today)
    if live is not None and _same(live, incoming, today):  # same value (same dates): unchanged
        return _unchanged(fact, live, incoming.basis, actor, today)
    if actor == "job":  # anything from an unattended job: proposed
        return Decision("proposed", None, "job")
    if actor != "owner" and any(map(has_hidden, incoming.value.split("\n"))):  # invisible: proposed
        return Decision("proposed", None, "hidden_chars")
    future_start_verdict(incoming.key, start, actor, today)  # after today, not the owner: refused
    if end is not None and end <= today:  # valid_to already past: historical
        return _historical(fact, new)
    over_user = live is not None and live.basis == "user" and incoming.basis == "inferred"
    if actor == "owner" and start == today and not over_user and _dated_ahead(fact, today):
        return restated(fact, new, today)  # the owner, now: always saved
    if live is None:  # no live version: created
        return _created(fact, new)
    if live.basis == "user" and incoming.basis == "inferred":  # inferred over user: proposed
        return Decision("proposed", None, "contradicts_user")
    return _superseded(fact, live, new)  # user over any, inferred over inferred: superseded


def future_start_verdict(key: str, start: date, actor: ActorKind, today: date) -> None:
    """Row "valid_from after today, from anyone but the owner": refused in one line (a job's
    save is a proposal before it gets here), so no model can date a value ahead of the owner's
    next statement."""
    if start > today and actor != "owner":
        raise FactConflict.keyed("error.fact.future_start", key=key, start=start, today=today)


def _dated_ahead(fact: Fact, today: date) -> bool:
    """Whether a version reaches past today where it should not: one starting after today (a
    value the owner dated ahead, a save made while the clock ran ahead), or an earlier version
    that still holds after today (a clock-ahead save recorded as history). Such a version is
    not the one current today, and must not block a statement now."""
    live = fact.live_head(today)
    return any(
        not _empty(v)
        and (v.valid_from > today or (v is not live and (v.valid_to is None or v.valid_to > today)))
        for v in fact.versions()
    )


def restated(fact: Fact, new: FactVersion, today: date) -> Decision:
    """Row "the owner can always state a fact now": the owner's value holds from today. A
    version holding today ends today; one dated ahead is withdrawn (it stays in history with
    an empty interval: recorded, never true). Nothing is deleted."""
    kept = []
    for v in fact.versions():
        if _empty(v) or (v.valid_to is not None and v.valid_to <= today):
            kept.append(v)
        elif v.valid_from > today:
            kept.append(replace(v, valid_to=v.valid_from))
        else:
            kept.append(replace(v, valid_to=today))
    outcome: FactOutcome = "created" if fact.live_head(today) is None else "superseded"
    return Decision(outcome, Fact(fact.key, new, _sorted(*kept)))


def _unchanged(
    fact: Fact, live: FactVersion, basis: Basis, actor: ActorKind, today: date
) -> Decision:
    """Same value (same dates, if given): nothing, but the owner's word confirms it today."""
    if actor != "job" and basis == "user":
        refreshed = replace(live, basis="user", confirmed_on=today)
        if refreshed != live:
            return Decision("unchanged", replace(fact, head=refreshed))
    return Decision("unchanged", None)


def _historical(fact: Fact, new: FactVersion) -> Decision:
    """`valid_to` already past: the version goes into history only."""
    _no_overlap(fact, new, fact.versions())
    return Decision("historical", replace(fact, history=_sorted(*fact.history, new)))


def _created(fact: Fact, new: FactVersion) -> Decision:
    """No live version: a new one, after everything recorded; an ended head joins history."""
    earlier = fact.versions()
    _no_overlap(fact, new, earlier)
    floor = max((v.valid_to for v in earlier if v.valid_to), default=None)
    if floor is not None and new.valid_from < floor:
        raise FactConflict.keyed(
            "error.fact.before_history", key=fact.key, start=new.valid_from, floor=floor
        )
    moved = (fact.head,) if fact.head else ()
    return Decision("created", Fact(fact.key, new, _sorted(*fact.history, *moved)))


def _superseded(fact: Fact, live: FactVersion, new: FactVersion) -> Decision:
    """`user` over any basis, `inferred` over `inferred`: the old one ends where the new starts."""
    if new.valid_from < live.valid_from:
        raise FactConflict.keyed(
            "error.fact.before_current", key=fact.key, since=live.valid_from, start=new.valid_from
        )
    start = new.valid_from
    ended = replace(live, valid_to=min(live.valid_to, start) if live.valid_to else start)
    return Decision("superseded", Fact(fact.key, new, _sorted(*fact.history, ended)))


TakeBack = Literal["taken_back", "already", "changed"]


def take_back(
    fact: Fact | None, source: str, was_before: Callable[[Fact | None], bool]
) -> tuple[TakeBack, Fact | None]:
    """The fact with the version an approval recorded (its `source`) taken back: the fact as
    it was just before that approval, the version kept in its history withdrawn (an empty
    interval: recorded, never true). Nothing is deleted.

    The state before is proved, not guessed: of the states the approval could have come from
    (the version added with no fact before; an earlier version made head again, open-ended or
    as it was; the version only added to the history), the one `was_before` accepts (the
    proposal's base digest). `changed` when none is (the fact moved on since, or the approval
    restated several versions); `already` when there is nothing to take back (taken back
    before, or the approval only confirmed the value)."""
    if fact is None:
        return "changed", None
    mine = [v for v in fact.versions() if v.source == source]
    if not mine:  # the approval recorded no version (the same value, confirmed): nothing to do
        return ("already" if was_before(fact) else "changed"), None
    if len(mine) != 1:
        return "changed", None
    (version,) = mine
    if _empty(version):  # withdrawn: by a take-back already when the rest is the state before
        kept = _sorted(*(v for v in fact.history if v is not version))
        head = fact.head if fact.head is not version else None
        before = None if head is None and not kept else Fact(fact.key, head, kept)
        return ("already" if was_before(before) else "changed"), None
    rest = [v for v in fact.versions() if v is not version]
    withdrawn = replace(version, valid_to=version.valid_from)
    for before in _states_before(fact, version, rest):
        if was_before(before):
            if before is None:
                return "taken_back", Fact(fact.key, withdrawn)
            return "taken_back", replace(before, history=_sorted(*before.history, withdrawn))
    return "changed", None


def _states_before(fact: Fact, version: FactVersion, rest: list[FactVersion]) -> list[Fact | None]:
    if fact.head is not version:  # recorded in the history only (`historical`)
        kept = tuple(v for v in fact.history if v is not version)
        return [None if fact.head is None and not kept else Fact(fact.key, fact.head, kept)]
    states: list[Fact | None] = [Fact(fact.key, None, _sorted(*rest)) if rest else None]
    for head in rest:
        others = _sorted(*(v for v in rest if v is not head))
        states.append(Fact(fact.key, head, others))
        if head.valid_to == version.valid_from:  # ended by the approval (`superseded`)
            states.append(Fact(fact.key, replace(head, valid_to=None), others))
    return states


def check_dates(
    key: str, valid_from: date | None, valid_to: date | None, today: date
) -> tuple[date, date | None]:
    """The interval a save means: from `valid_from` (default today) to `valid_to`, non-empty."""
    start = valid_from or today
    if valid_to is not None and valid_to <= start:
        which = "error.fact.dates_order" if valid_from else "error.fact.dates_order_today"
        raise FactConflict.keyed(which, key=key, end=valid_to, start=start)
    return start, valid_to


def check_actor(value: str) -> ActorKind:
    if value not in ACTORS:
        raise TrinhoError.keyed("error.fact.bad_actor", value=value, choices=", ".join(ACTORS))
    return value


def _same(live: FactVersion, incoming: Incoming, today: date) -> bool:
    """Same value and dates; no `valid_from` means "holds now", which a version dated ahead
    does not."""
    if incoming.valid_from is None:
        starts = live.valid_from <= today
    else:
        starts = incoming.valid_from == live.valid_from
    return live.value == incoming.value and incoming.valid_to in (None, live.valid_to) and starts


def _sorted(*versions: FactVersion) -> tuple[FactVersion, ...]:
    return tuple(sorted(versions, key=lambda v: (v.valid_from, v.recorded_at)))


def _no_overlap(fact: Fact, new: FactVersion, others: list[FactVersion]) -> None:
    for other in others:
        if _overlaps(new, other):
            raise FactConflict.keyed(
                "error.fact.overlap",
                key=fact.key,
                start=new.valid_from,
                end=new.valid_to,
                value=other.value,
                since=other.valid_from,
                until=other.valid_to or "now",
            )


def _overlaps(a: FactVersion, b: FactVersion) -> bool:
    """Whether two versions hold on a common day; an empty interval holds on none."""
    if _empty(a) or _empty(b):
        return False
    a_end, b_end = a.valid_to or date.max, b.valid_to or date.max
    return a.valid_from < b_end and b.valid_from < a_end


def _empty(v: FactVersion) -> bool:
    return v.valid_to is not None and v.valid_to <= v.valid_from
