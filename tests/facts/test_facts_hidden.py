"""A fact value holding a character of the held class (bidi, zero-width, tag, control) from
anyone but the owner waits for the owner, as a new MEMORY.md line with one does."""

from __future__ import annotations

from datetime import UTC, date, datetime

from hypothesis import given
from hypothesis import strategies as st

from trinho.facts.rules import ACTORS, BASES, Incoming, reconcile
from trinho.textnorm import has_hidden

TODAY = date(2026, 11, 29)
HIDDEN = ["\u202e", "\u200f", "\u200b", "\U000e0041", "\x1b", "\ufeff"]


def incoming(value: str, basis: str) -> Incoming:
    return Incoming(
        key="wifi",
        value=value,
        basis=basis,  # type: ignore[arg-type]
        valid_from=None,
        valid_to=None,
        recorded_at=datetime(2026, 11, 29, 9, tzinfo=UTC),
        source="test",
    )


@given(
    st.text(
        st.characters(exclude_categories=("Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp")),
        min_size=1,
        max_size=20,
    ),
    st.sampled_from(HIDDEN),
    st.sampled_from(BASES),
    st.sampled_from(ACTORS),
)
def test_a_value_with_a_hidden_character_from_anyone_but_the_owner_is_proposed(
    text: str, hidden: str, basis: str, actor: str
) -> None:
    value = f"{text}{hidden}1234"
    assert has_hidden(value)
    decision = reconcile(None, incoming(value, basis), actor, TODAY)  # type: ignore[arg-type]
    if actor == "owner":
        assert decision.outcome == "created"  # the owner's own word is saved as typed
    else:
        assert (decision.outcome, decision.after) == ("proposed", None)
        assert decision.proposal_reason in ("job", "hidden_chars")


def test_a_clean_value_from_the_chat_is_saved() -> None:
    decision = reconcile(None, incoming("ABC-1234", "inferred"), "chat", TODAY)
    assert decision.outcome == "created"
