"""The reconciliation table of docs/rules.md, one test per row, and its invariants under random
sequences of saves; the rules stay pure."""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import replace
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trinho.facts
from trinho.facts import rules
from trinho.facts.rules import (
    ACTORS,
    BASES,
    ActorKind,
    Basis,
    Fact,
    FactConflict,
    FactVersion,
    Incoming,
    reconcile,
)

TODAY = date(2026, 11, 29)
NOW = datetime.fromisoformat("2026-11-29T14:05:00+07:00")


def version(
    value: str,
    basis: Basis = "user",
    start: date = date(2026, 1, 1),
    end: date | None = None,
    at: datetime = NOW - timedelta(days=30),
) -> FactVersion:
    return FactVersion(value, basis, start, end, at, "chat")


def incoming(
    value: str,
    basis: Basis = "user",
    start: date | None = None,
    end: date | None = None,
) -> Incoming:
    return Incoming("home-city", value, basis, NOW, "chat", start, end)


# ---- one test per row of the table ------------------------------------------------------------


@pytest.mark.parametrize("basis", BASES)
def test_row_none_owner_present_creates(basis: Basis) -> None:
    decision = reconcile(None, incoming("Hà Nội", basis), "chat", TODAY)
    assert decision.outcome == "created"
    assert decision.after is not None and decision.after.head is not None
    head = decision.after.head
    assert (head.value, head.basis, head.valid_from, head.valid_to) == (
        "Hà Nội",
        basis,
        TODAY,
        None,
    )
    assert decision.after.history == ()


@pytest.mark.parametrize("actor", ACTORS)
@pytest.mark.parametrize("old_basis", BASES)
@pytest.mark.parametrize("new_basis", BASES)
def test_row_same_value_is_unchanged(actor: ActorKind, old_basis: Basis, new_basis: Basis) -> None:
    current = Fact("home-city", version("Hà Nội", old_basis))
    decision = reconcile(current, incoming("Hà Nội", new_basis), actor, TODAY)
    assert decision.outcome == "unchanged"
    if decision.after is not None:
        # only the owner's word, in a chat, refreshes: basis user, confirmed today
        assert actor != "job" and new_basis == "user"
        assert decision.after.head == FactVersion(
            "Hà Nội", "user", date(2026, 1, 1), None, NOW - timedelta(days=30), "chat", TODAY
        )
        assert decision.after.history == ()


@pytest.mark.parametrize("old_basis", BASES)
def test_row_user_value_supersedes_any_basis(old_basis: Basis) -> None:
    current = Fact("home-city", version("Hà Nội", old_basis))
    decision = reconcile(current, incoming("Sài Gòn", "user"), "chat", TODAY)
    assert decision.outcome == "superseded"
    assert decision.after is not None and decision.after.head is not None
    assert decision.after.head.value == "Sài Gòn"
    assert decision.after.head.valid_from == TODAY
    (old,) = decision.after.history
    assert (old.value, old.basis, old.valid_to) == ("Hà Nội", old_basis, TODAY)


def test_row_inferred_supersedes_inferred() -> None:
    current = Fact("home-city", version("Hà Nội", "inferred"))
    decision = reconcile(current, incoming("Huế", "inferred"), "chat", TODAY)
    assert decision.outcome == "superseded"
    assert decision.after is not None and decision.after.head is not None
    assert (decision.after.head.value, decision.after.head.basis) == ("Huế", "inferred")
    assert decision.after.history[0].valid_to == decision.after.head.valid_from


def test_row_inferred_against_user_is_a_proposal_and_touches_nothing() -> None:
    current = Fact("home-city", version("Hà Nội", "user"))
    decision = reconcile(current, incoming("Huế", "inferred"), "chat", TODAY)
    assert decision.outcome == "proposed"
    assert decision.proposal_reason == "contradicts_user"
    assert decision.after is None


@pytest.mark.parametrize("current", [None, Fact("home-city", version("Hà Nội", "inferred"))])
@pytest.mark.parametrize("basis", BASES)
@pytest.mark.parametrize("end", [None, date(2026, 11, 1)])
def test_row_unattended_job_always_proposes(
    current: Fact | None, basis: Basis, end: date | None
) -> None:
    start = date(2026, 10, 1) if end else None
    decision = reconcile(current, incoming("Huế", basis, start, end), "job", TODAY)
    assert decision.outcome == "proposed"
    assert decision.proposal_reason == "job"
    assert decision.after is None


@pytest.mark.parametrize("basis", BASES)
def test_row_past_valid_to_goes_to_history_only(basis: Basis) -> None:
    current = Fact("home-city", version("Sài Gòn", "user", start=date(2026, 6, 1)))
    past = incoming("Tokyo", basis, date(2026, 1, 1), date(2026, 3, 1))
    decision = reconcile(current, past, "chat", TODAY)
    assert decision.outcome == "historical"
    assert decision.after is not None
    assert decision.after.head == current.head
    assert [v.value for v in decision.after.history] == ["Tokyo"]
    assert reconcile(None, past, "chat", TODAY).after == Fact(
        "home-city", None, (FactVersion("Tokyo", basis, *_days(past), NOW, "chat"),)
    )


def _days(item: Incoming) -> tuple[date, date | None]:
    assert item.valid_from is not None
    return item.valid_from, item.valid_to


# ---- validity and the dates -------------------------------------------------------------------


def test_ended_version_is_not_current_and_a_new_value_is_created() -> None:
    trip = Fact("trip", version("Tokyo", "user", start=date(2026, 11, 1), end=date(2026, 12, 5)))
    assert trip.value_on(date(2026, 12, 4)) is not None
    assert trip.value_on(date(2026, 12, 5)) is None
    assert trip.live_head(date(2026, 12, 5)) is None
    decision = reconcile(trip, incoming("Hà Nội"), "chat", date(2026, 12, 6))
    assert decision.outcome == "created"
    assert decision.after is not None
    assert [v.value for v in decision.after.versions()] == ["Tokyo", "Hà Nội"]


def test_value_until_a_future_day_then_superseded_keeps_its_end() -> None:
    trip = Fact("trip", version("Tokyo", start=date(2026, 11, 1), end=date(2026, 12, 5)))
    decision = reconcile(trip, incoming("Osaka", start=date(2026, 12, 10)), "owner", TODAY)
    assert decision.outcome == "superseded"
    assert decision.after is not None
    assert decision.after.history[0].valid_to == date(2026, 12, 5)
    assert decision.after.value_on(date(2026, 12, 7)) is None


def test_conflicting_dates_raise_and_name_the_fact() -> None:
    current = Fact("home-city", version("Sài Gòn", start=date(2026, 6, 1)))
    with pytest.raises(FactConflict, match="home-city"):
        reconcile(current, incoming("Huế", start=date(2026, 5, 1)), "chat", TODAY)
    with pytest.raises(FactConflict, match="overlaps"):
        reconcile(
            current, incoming("Huế", "user", date(2026, 5, 1), date(2026, 7, 1)), "chat", TODAY
        )
    with pytest.raises(FactConflict, match="after valid_from"):
        reconcile(current, incoming("Huế", end=TODAY), "chat", TODAY)


def test_a_new_value_cannot_start_before_the_recorded_history_ends() -> None:
    """A value superseded on its first day keeps an empty interval; nothing may start before it."""
    empty = version("Tokyo", start=date(2026, 11, 20), end=date(2026, 11, 20))
    with pytest.raises(FactConflict) as caught:
        reconcile(
            Fact("trip", None, (empty,)), incoming("Osaka", start=date(2026, 11, 10)), "chat", TODAY
        )
    assert caught.value.key == "error.fact.before_history"


# ---- random sequences of saves: the invariants ------------------------------------------------

VALUES = ["Hà Nội", "Sài Gòn", "Đà Nẵng"]
step = st.tuples(
    st.integers(0, 3),  # days the clock moves first
    st.sampled_from(ACTORS),
    st.sampled_from(BASES),
    st.sampled_from(VALUES),
    st.one_of(st.none(), st.integers(-6, 3)),  # valid_from offset from today
    st.one_of(st.none(), st.integers(-3, 8)),  # valid_to offset from today
)


def _ident(v: FactVersion) -> tuple[str, date, datetime]:
    return (v.value, v.valid_from, v.recorded_at)


def _later(
    today: date, moment: datetime, days: int, start_off: int | None, end_off: int | None
) -> tuple[date, datetime, date | None, date | None]:
    """The clock moved `days` (and a minute), and the step's dates from the new today."""
    today += timedelta(days=days)
    moment += timedelta(days=days, minutes=1)
    start = today + timedelta(days=start_off) if start_off is not None else None
    end = today + timedelta(days=end_off) if end_off is not None else None
    return today, moment, start, end


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(st.lists(step, min_size=1, max_size=25))
def test_random_saves_keep_every_invariant(
    steps: list[tuple[int, ActorKind, Basis, str, int | None, int | None]],
) -> None:
    fact: Fact | None = None
    today, moment = TODAY, NOW
    for days, actor, basis, value, start_off, end_off in steps:
        today, moment, start, end = _later(today, moment, days, start_off, end_off)
        item = Incoming("home-city", value, basis, moment, actor, start, end)
        try:
            decision = reconcile(fact, item, actor, today)
        except FactConflict:
            continue
        before = fact.versions() if fact else []
        live_before = fact.live_head(today) if fact else None
        if actor == "job":
            assert decision.outcome in ("proposed", "unchanged")
            assert decision.after is None
        if decision.after is None:
            continue
        after = decision.after
        versions = after.versions()
        # exactly one version holds on any day: no two intervals overlap, history included
        for i, a in enumerate(versions):
            for b in versions[i + 1 :]:
                assert not rules._overlaps(a, b), (a, b)
        assert all(v.valid_to is not None for v in after.history)
        # nothing recorded is ever lost: every earlier version is still there
        assert {_ident(v) for v in before} <= {_ident(v) for v in versions}
        # a user value is never replaced by an inferred one
        if live_before is not None and live_before.basis == "user":
            live_after = after.live_head(today)
            assert live_after is not None
            assert live_after.basis == "user"
        # what the owner just said is what holds on its first day
        if decision.outcome in ("created", "superseded"):
            assert after.head is not None and after.head.value == value
            assert after.value_on(after.head.valid_from) == after.head
        fact = after


# ---- taking an approval back ------------------------------------------------------------------

APPROVAL = "proposal:0123456789"


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(
    st.lists(step, max_size=12),
    st.sampled_from(VALUES),
    st.one_of(st.none(), st.integers(-6, 0)),
    st.one_of(st.none(), st.integers(-3, 8)),
)
def test_an_approval_taken_back_leaves_the_fact_as_it_was_before(
    steps: list[tuple[int, ActorKind, Basis, str, int | None, int | None]],
    value: str,
    start_off: int | None,
    end_off: int | None,
) -> None:
    fact: Fact | None = None
    today, moment = TODAY, NOW
    for days, actor, basis, said, s_off, e_off in steps:
        today, moment, start, end = _later(today, moment, days, s_off, e_off)
        try:
            decided = reconcile(
                fact, Incoming("k", said, basis, moment, actor, start, end), actor, today
            )
        except FactConflict:
            continue
        fact = decided.after or fact
    _, _, start, end = _later(today, moment, 0, start_off, end_off)
    approval = Incoming("k", value, "user", moment + timedelta(minutes=1), APPROVAL, start, end)
    try:
        decision = reconcile(fact, approval, "owner", today)
    except FactConflict:
        return
    if decision.after is None:
        return

    def was_before(state: Fact | None) -> bool:  # as the proposal's base digest: not confirmed_on
        return plain(state) == plain(fact)

    outcome, back = rules.take_back(decision.after, APPROVAL, was_before)
    if outcome == "already":  # the approval only confirmed the value
        assert decision.outcome == "unchanged"
        return
    if outcome == "changed":  # only where the approval changed a version it cannot prove back
        assert not set(fact.versions() if fact else []) <= set(decision.after.versions())
        return
    assert outcome == "taken_back" and back is not None
    # every day reads as before the approval, and nothing recorded is lost
    for offset in range(-10, 12):
        day = today + timedelta(days=offset)
        was = fact.value_on(day) if fact else None
        assert back.value_on(day) == was, day
    kept = {_ident(v) for v in back.versions()}
    assert {_ident(v) for v in (fact.versions() if fact else [])} < kept
    (withdrawn,) = [v for v in back.versions() if v.source == APPROVAL]
    assert rules._empty(withdrawn)
    assert rules.take_back(back, APPROVAL, was_before) == ("already", None)


def plain(fact: Fact | None) -> object:
    if fact is None:
        return None
    return [replace(v, confirmed_on=None) for v in fact.versions()], fact.head and fact.head.value


def test_an_approval_is_not_taken_back_once_the_fact_moved_on() -> None:
    before = Fact("home-city", version("Hà Nội", "inferred"))
    approved = reconcile(
        before, Incoming("home-city", "Huế", "user", NOW, APPROVAL), "owner", TODAY
    ).after
    assert approved is not None
    later = reconcile(
        approved,
        Incoming("home-city", "Đà Nẵng", "user", NOW + timedelta(hours=1), "chat"),
        "owner",
        TODAY,
    ).after
    assert later is not None
    assert rules.take_back(later, APPROVAL, lambda b: b == before) == ("changed", None)
    assert rules.take_back(later, APPROVAL, lambda b: b == approved) == ("changed", None)
    assert rules.take_back(approved, APPROVAL, lambda b: b == before)[0] == "taken_back"
    assert rules.take_back(None, APPROVAL, lambda b: True) == ("changed", None)


# ---- purity and the package --------------------------------------------------------------------

PURE = {"__future__", "dataclasses", "datetime", "typing", "trinho.errors", "trinho.i18n"}
PURE |= {"trinho.textnorm", "trinho.context.budget", "collections.abc"}


def _imports(path: Path, *, skip_type_checking: bool = False) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped: set[int] = set()
    if skip_type_checking:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
                skipped |= {id(n) for n in ast.walk(node)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_the_rules_import_nothing_but_pure_modules() -> None:
    assert _imports(Path(rules.__file__)) <= PURE


def test_the_package_loads_no_submodule_until_a_name_is_asked_for() -> None:
    init = Path(trinho.facts.__file__)
    assert _imports(init, skip_type_checking=True) == {"__future__", "typing", "trinho.exports"}


def test_importing_the_rules_loads_no_store() -> None:
    """Run apart, so only what the rules pull in is loaded (the package inits are lazy)."""
    code = (
        "import sys\n"
        "import trinho.facts.rules\n"
        "print(sorted(m for m in sys.modules if m.startswith('trinho.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(ast.literal_eval(out.stdout))
    assert loaded == {
        "trinho.exports",
        "trinho.facts",
        "trinho.facts.rules",
        "trinho.errors",
        "trinho.i18n",
        "trinho.textnorm",
    }


# ---- no actor but the owner can date a value ahead, and the owner can always speak now --------


def test_row_a_model_cannot_date_a_value_after_today() -> None:
    actor: ActorKind = "chat"
    """Issue case: `user_memory_save {"valid_from": "9999-12-31"}` from a chat model is refused
    in one line, and a job's becomes a proposal: nothing is written either way."""
    current = Fact("home-city", version("Hà Nội"))
    with pytest.raises(FactConflict, match="only the owner may give a value that starts after"):
        reconcile(current, incoming("Nowhere", start=date(9999, 12, 31)), actor, TODAY)
    job = reconcile(current, incoming("Nowhere", start=date(9999, 12, 31)), "job", TODAY)
    assert (job.outcome, job.after) == ("proposed", None)
    owner = reconcile(current, incoming("Huế", start=date(2027, 1, 1)), "owner", TODAY)
    assert owner.outcome == "superseded" and owner.after is not None
    now, then = owner.after.value_on(TODAY), owner.after.value_on(date(2027, 1, 1))
    assert now is not None and now.value == "Hà Nội"  # not current before its date
    assert then is not None and then.value == "Huế"


def test_a_value_saved_while_the_clock_was_ahead_does_not_block_the_owner() -> None:
    """Issue case: a save dated 9999-12-31 (or made while the clock was years ahead) is not
    current, and the owner's `fact set` now succeeds, keeping every version in history."""
    ahead = Fact(
        "home-city",
        version("Nowhere", start=date(9999, 12, 31), at=NOW),
        (version("Hà Nội", end=date(9999, 12, 31)),),
    )
    held = ahead.value_on(TODAY)
    assert held is not None and held.value == "Hà Nội"
    decision = reconcile(ahead, incoming("Đà Nẵng"), "owner", TODAY)
    assert decision.outcome == "superseded" and decision.after is not None
    after = decision.after
    assert after.head is not None and after.head.value == "Đà Nẵng"
    assert after.value_on(TODAY) == after.head
    assert [v.value for v in after.versions()] == ["Hà Nội", "Đà Nẵng", "Nowhere"]
    withdrawn = next(v for v in after.history if v.value == "Nowhere")
    assert withdrawn.valid_to == withdrawn.valid_from  # recorded, never true
    assert after.value_on(date(9999, 12, 31)) == after.head


_day = st.dates(min_value=date(2000, 1, 1), max_value=date(9999, 12, 30))
_save = st.tuples(
    st.sampled_from(["Nowhere", "Hà Nội", "Huế", "Đà Nẵng"]),
    st.sampled_from(BASES),
    st.sampled_from(["chat", "job"]),
    st.none() | _day,
    st.none() | _day,
    _day,  # the clock at the save: anything, years ahead included
)


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(st.lists(_save, max_size=6), st.sampled_from(["Đà Nẵng", "Sài Gòn"]))
def test_no_model_save_makes_the_owners_next_statement_fail(
    saves: list[tuple[str, Basis, ActorKind, date | None, date | None, date]], value: str
) -> None:
    """For any sequence of model and job saves (any valid_from, any valid_to, any clock), the
    owner's statement now succeeds, its value is the current one, and no version is lost."""
    fact: Fact | None = None
    for text, basis, actor, start, end, clock in saves:
        saved = Incoming("home-city", text, basis, NOW, actor, start, end)
        try:
            decision = reconcile(fact, saved, actor, clock)
        except FactConflict:
            continue
        fact = decision.after or fact
    before = [] if fact is None else fact.versions()
    decision = reconcile(fact, incoming(value), "owner", TODAY)
    assert decision.outcome in ("created", "superseded", "unchanged")
    after = decision.after or fact
    assert after is not None
    current = after.value_on(TODAY)
    assert current is not None and current.value == value
    kept = [(v.value, v.recorded_at, v.valid_from) for v in after.versions()]
    for v in before:
        assert (v.value, v.recorded_at, v.valid_from) in kept
