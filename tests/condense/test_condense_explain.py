"""Why a held change was made and where it came from: the model's removal reasons, the
MEMORY.md line it touches, the notes or turns a new line shares most of its words with."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from trinho.condense.rules.explain import (
    MAX_DRAWN,
    MIN_SHARED,
    _words,
    drawn_from,
    explained,
    memory_line_source,
    removal_reasons,
)
from trinho.condense.rules.gate import Change
from trinho.condense.rules.ops import parse_ops
from trinho.condense.rules.reasons import Reason

OLD = "# Memory\n\n- 2026-09-14: Allergic to shrimp\n- 2026-10-01: Likes pho\n"


def test_the_reason_of_each_remove_is_kept_by_the_line_it_names() -> None:
    script = parse_ops("REMOVE [3] duplicate of the food line\nREMOVE [4]\nREMOVE [99] x", 4)
    assert removal_reasons(OLD, script) == {
        "- 2026-09-14: Allergic to shrimp": "duplicate of the food line"
    }


def test_a_held_removal_carries_its_reason_and_its_line() -> None:
    removal = Change.because(
        "removed", "held", "- 2026-09-14: Allergic to shrimp", None, Reason("removed_entry")
    )
    auto = Change.because("added", "auto", None, "- 2026-11-29: x", Reason("malformed"))
    reasons = {"- 2026-09-14: Allergic to shrimp": "duplicate"}
    held, kept = explained((removal, auto), OLD, reasons, ())
    assert held.why == "duplicate"
    assert held.sources == (("memory", "MEMORY.md#L3", "- 2026-09-14: Allergic to shrimp"),)
    assert kept == auto
    assert Change.from_dict(held.to_dict()) == held
    assert "why" not in auto.to_dict() and "sources" not in auto.to_dict()


def test_a_new_line_names_the_notes_it_was_written_from() -> None:
    material = [
        ("note", "memory/2026-11-20.md#14:05", "Grabbed a flat white at the airport"),
        ("turn", "conversations/2026-11-20.jsonl#3", "The flight was late"),
    ]
    assert drawn_from("- 2026-11-20: Drinks flat white at airports", material) == (material[0],)
    assert memory_line_source(OLD, "- gone") is None


@given(
    st.text(max_size=40),
    st.lists(
        st.tuples(st.just("note"), st.just("memory/x.md#1"), st.text(max_size=40)), max_size=8
    ),
)
def test_a_source_always_shares_enough_words_and_there_are_few(
    line: str, material: list[tuple[str, str, str]]
) -> None:
    found = drawn_from(line, material)
    assert len(found) <= MAX_DRAWN
    wanted = _words(line)
    for item in found:
        assert item in material
        assert len(wanted & _words(item[2])) >= MIN_SHARED * len(wanted) > 0
