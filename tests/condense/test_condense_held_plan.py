"""Approving a held MEMORY.md change planned once (`trinho.condense.rules.held.plan_held`),
for the files and PostgreSQL alike: the text to write, or stale and nothing written."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trinho.condense.rules.gate import Change, ChangeClass
from trinho.condense.rules.held import (
    HeldApplied,
    apply_held,
    check_approvable,
    held_change,
    plan_held,
)
from trinho.errors import TrinhoError
from trinho.proposals.plan import Apply, StaleChange, result_of

lines = st.sampled_from(
    [
        "- 2026-11-01: Likes green tea",
        "- 2026-11-02: Lives in Hà Nội",
        "",
        "# Memory",
        "- Đi đón Mai",
    ]
)
texts = st.lists(lines, max_size=6).map("\n".join)
LINE_CLASSES: tuple[ChangeClass, ...] = ("edited", "removed", "added")


@st.composite
def changes(draw: st.DrawFn) -> Change:
    """A held line change: an edit, a removal or an addition."""
    cls = draw(st.sampled_from(LINE_CLASSES))
    old = None if cls == "added" else draw(lines.filter(bool))
    new = None if cls == "removed" else draw(st.sampled_from(["- 2026-11-28: Lives in Huế", "- x"]))
    return Change(cls, "held", old, new, "held for the owner")


@given(texts, changes())
def test_a_held_change_is_written_as_apply_held_says_and_a_stale_one_never(
    text: str, change: Change
) -> None:
    plan = plan_held(text, change, "en")
    outcome = apply_held(text, change)
    if isinstance(outcome, HeldApplied):
        assert isinstance(plan, Apply) and result_of(plan).ok
        assert plan.write == (outcome.text if outcome.text != text else None)
    else:
        assert isinstance(plan, StaleChange)  # nothing to write: the type has no text
        assert not result_of(plan).ok
        assert change.old is not None and change.old.strip() not in map(str.strip, text.split("\n"))


@given(texts, changes())
def test_an_edit_or_removal_applied_once_is_stale_the_second_time(
    text: str, change: Change
) -> None:
    """The line it acts on is gone once approved: a second approval writes nothing (the
    proposal is decided; its store refuses a second decision before planning)."""
    first = plan_held(text, change, "en")
    if change.old is None or not isinstance(first, Apply) or first.write is None:
        return
    if change.old.strip() in map(str.strip, first.write.split("\n")):
        return  # the same line twice in the text: the other one is still there
    assert isinstance(plan_held(first.write, change, "en"), StaleChange)


def test_what_no_person_approves_is_refused_in_one_line() -> None:
    moved = Change("moved", "auto", "- a", "- a", "moved")
    auto = Change("edited", "auto", "- a", "- b", "auto")
    held = Change("edited", "held", "- a", "- b", "held")
    for change in (moved, auto):
        with pytest.raises(TrinhoError) as refused:
            check_approvable(change, "proposal p", "p", None)
        assert refused.value.key == "error.condense.applies_itself"
    with pytest.raises(TrinhoError) as undone:
        check_approvable(held, "proposal p", "p", "2026-W48")
    assert undone.value.key == "error.condense.run_undone"
    check_approvable(held, "proposal p", "p", None)


def test_a_change_that_is_not_one_is_refused_naming_where() -> None:
    with pytest.raises(TrinhoError) as refused:
        held_change({"class": "edited"}, "proposal 0123456789")
    assert refused.value.key == "error.condense.not_memory_change"
    assert "0123456789" in str(refused.value)
