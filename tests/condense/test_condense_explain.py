"""Why a held change was made and where it came from: the model's removal reasons, and the
notes or turns that led to the change (sharing meaningful words with its new text, or with the
model's reason for a removal), never the removed line itself nor a note sharing a common word."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from trinho.condense.rules.explain import (
    MAX_DRAWN,
    MIN_WORDS,
    drawn_from,
    explained,
    meaningful_words,
    related,
    removal_reasons,
)
from trinho.condense.rules.gate import Change
from trinho.condense.rules.ops import parse_ops
from trinho.condense.rules.reasons import Reason
from trinho.textnorm import match_key

OLD = "# Memory\n\n- 2026-09-14: Allergic to shrimp\n- 2026-10-01: Likes pho\n"
SHRIMP = "- 2026-09-14: Allergic to shrimp"
WEEK = (
    ("note", "memory/2026-11-20.md#14:05", "Grabbed a flat white at the airport"),
    ("turn", "conversations/2026-11-20.jsonl#3", "The flight was late today"),
    ("note", "memory/2026-11-21.md#09:00", "Allergic to shrimp"),
    ("note", "memory/2026-11-22.md#19:30", "Doctor says the shrimp allergy test came back clean"),
    ("note", "memory/2026-11-23.md#08:00", "Today was a long day at the office"),
)


def test_the_reason_of_each_remove_is_kept_by_the_line_it_names() -> None:
    script = parse_ops("REMOVE [3] duplicate of the food line\nREMOVE [4]\nREMOVE [99] x", 4)
    assert removal_reasons(OLD, script) == {SHRIMP: "duplicate of the food line"}


def test_a_removal_cites_the_note_its_reason_rests_on_never_the_removed_line() -> None:
    removal = Change.because("removed", "held", SHRIMP, None, Reason("removed_entry"))
    auto = Change.because("added", "auto", None, "- 2026-11-29: x", Reason("malformed"))
    reasons = {SHRIMP: "shrimp allergy test came back clean"}
    held, kept = explained((removal, auto), reasons, WEEK)
    assert held.why == "shrimp allergy test came back clean"
    assert held.sources == (WEEK[3],)  # not WEEK[2], the removed line itself
    assert kept == auto
    assert Change.from_dict(held.to_dict()) == held
    assert "why" not in auto.to_dict() and "sources" not in auto.to_dict()


def test_a_removal_without_a_reason_cites_nothing() -> None:
    removal = Change.because("removed", "held", SHRIMP, None, Reason("removed_entry"))
    [held] = explained((removal,), {}, WEEK)
    assert held.why is None and held.sources == ()


def test_a_new_line_names_the_notes_it_was_written_from_and_no_other() -> None:
    assert drawn_from("- 2026-11-20: Drinks flat white at airports", WEEK) == (WEEK[0],)
    # one common word ("day", "today", "was") ties nothing
    assert drawn_from("- 2026-11-23: Today was the day of the big move", WEEK) == ()
    assert drawn_from("- 2026-11-23: Moved offices", WEEK) == ()


def test_vietnamese_words_tie_a_note_by_their_syllables_not_their_function_words() -> None:
    notes = [
        ("note", "memory/2026-11-20.md#07:00", "Sáng nay uống cà phê sữa đá ở quán"),
        ("note", "memory/2026-11-20.md#12:00", "Trưa nay ăn cơm với đồng nghiệp ở văn phòng"),
    ]
    assert drawn_from("- 2026-11-20: Thích cà phê sữa đá", notes) == (notes[0],)
    assert not related("Hôm nay là một ngày của tôi", "Tôi có một ngày")


words = st.lists(
    st.sampled_from(["shrimp", "allergy", "coffee", "airport", "the", "day", "cà", "phê", "và"]),
    max_size=6,
).map(" ".join)


@given(
    st.one_of(st.text(max_size=40), words),
    st.lists(
        st.tuples(st.just("note"), st.just("x.md#1"), st.one_of(st.text(max_size=40), words)),
        max_size=8,
    ),
    st.lists(st.one_of(st.text(max_size=30), words), max_size=2),
)
def test_a_source_always_shares_meaningful_words_and_is_never_a_removed_line(
    basis: str, material: list[tuple[str, str, str]], removed: list[str]
) -> None:
    found = drawn_from(basis, material, removed=removed)
    assert len(found) <= MAX_DRAWN
    wanted = meaningful_words(basis)
    for item in found:
        assert item in material
        shared = wanted & meaningful_words(item[2])
        assert len(shared) >= min(MIN_WORDS, len(wanted)) > 0
        assert all(match_key(item[2]) != match_key(r) for r in removed)
    for item in material:
        if not wanted & meaningful_words(item[2]):
            assert item not in found
