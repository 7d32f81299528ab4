"""The fact use cases planned once (`trinho.facts.plan`): what a save and an approval write,
whatever store reads and writes them. Properties over random facts and changes."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trinho.errors import TrinhoError
from trinho.facts.format import FactChange, fact_digest, proposal_change, read_fact_change
from trinho.facts.plan import (
    KIND,
    Propose,
    Proposer,
    Settle,
    incoming,
    plan_approval,
    plan_save,
)
from trinho.facts.rules import ACTORS, BASES, ActorKind, Basis, Fact, FactVersion, reconcile
from trinho.proposals.format import Source
from trinho.proposals.plan import AlreadyApplied, Apply, StaleChange, result_of

TODAY = date(2026, 11, 29)
NOW = datetime.fromisoformat("2026-11-29T14:05:00+07:00")
KEY = "home-city"

values = st.sampled_from(["Hà Nội", "Đà Nẵng", "Huế", "Sài Gòn"])


@st.composite
def facts(draw: st.DrawFn) -> Fact | None:
    """No fact, or one with a head and some history, none of it dated ahead."""
    if draw(st.booleans()):
        return None
    count = draw(st.integers(1, 3))
    versions = []
    start = date(2025, 1, 1)
    for n in range(count):
        end = start + timedelta(days=draw(st.integers(1, 200)))
        last = n == count - 1
        versions.append(
            FactVersion(
                draw(values),
                draw(st.sampled_from(BASES)),
                start,
                None if last and draw(st.booleans()) else min(end, TODAY),
                NOW - timedelta(days=400 - n),
                "chat",
            )
        )
        start = min(end, TODAY)
        if start >= TODAY:
            break
    *history, head = versions
    return Fact(KEY, head, tuple(history))


@given(facts(), values, st.sampled_from(BASES), st.sampled_from(ACTORS))
def test_a_save_plans_what_reconcile_decides(
    current: Fact | None, value: str, basis: Basis, actor: ActorKind
) -> None:
    asked = incoming(KEY, value, basis, actor, None, None, None, NOW, TODAY)
    proposer = Proposer("agent:main", "said so", (Source("turn", "c.jsonl#1", "I moved"),))
    plan = plan_save("owner", current, asked, actor, TODAY, "en", proposer)
    decision = reconcile(current, asked, actor, TODAY)
    if decision.outcome == "proposed":
        assert isinstance(plan, Propose)
        sub = plan.submission
        assert (sub.kind, sub.origin, sub.why) == (KIND, "agent:main", "said so")
        assert sub.change == proposal_change("owner", asked, current, TODAY)
        assert sub.sources == proposer.sources
    else:
        assert plan == Settle(decision.outcome, decision.after, decision.after or current)


def proposed(current: Fact | None, value: str, basis: Basis) -> FactChange | None:
    """The change a job's save of `value` over `current` proposes, read back as an approval
    reads it; None when the save proposes nothing (the same value: unchanged)."""
    asked = incoming(KEY, value, basis, "job", None, None, None, NOW, TODAY)
    plan = plan_save("owner", current, asked, "job", TODAY, "en", Proposer("job:facts"))
    if not isinstance(plan, Propose):
        return None
    return read_fact_change(plan.submission.change, "proposal abcdef0123")


@given(facts(), values, st.sampled_from(BASES))
def test_an_approval_planned_twice_is_already_applied(
    current: Fact | None, value: str, basis: Basis
) -> None:
    """A rerun (an approval that died before recording its decision) finds its own version
    there and applies nothing again."""
    change = proposed(current, value, basis)
    if change is None:
        return
    first = plan_approval(change, "abcdef0123", current, NOW, TODAY, "en")
    assert isinstance(first, Apply) and first.write is not None
    second = plan_approval(change, "abcdef0123", first.write, NOW, TODAY, "en")
    assert isinstance(second, AlreadyApplied) and result_of(second).ok


@given(facts(), facts(), values)
def test_a_stale_approval_writes_nothing(
    proposed_on: Fact | None, current: Fact | None, value: str
) -> None:
    change = FactChange("owner", KEY, value, None, None, fact_digest(proposed_on))
    plan = plan_approval(change, "abcdef0123", current, NOW, TODAY, "en")
    if fact_digest(current) != fact_digest(proposed_on):
        assert isinstance(plan, StaleChange)
        assert not result_of(plan).ok
    else:
        assert isinstance(plan, Apply)


@given(facts(), values, st.sampled_from(BASES))
def test_an_approval_saves_the_owners_word(current: Fact | None, value: str, basis: Basis) -> None:
    change = proposed(current, value, basis)
    if change is None:
        return
    plan = plan_approval(change, "abcdef0123", current, NOW, TODAY, "en")
    assert isinstance(plan, Apply) and plan.write is not None
    now = plan.write.value_on(TODAY)
    assert now is not None and (now.value, now.basis) == (value, "user")


def test_a_change_missing_a_field_is_refused_naming_it() -> None:
    asked = incoming(KEY, "Huế", "user", "job", None, None, None, NOW, TODAY)
    change = proposal_change("owner", asked, None, TODAY)
    assert read_fact_change(change, "proposal abcdef0123").value == "Huế"
    del change["value"]
    with pytest.raises(TrinhoError) as refused:
        read_fact_change(change, "proposal abcdef0123")
    assert refused.value.key == "error.field.missing"
