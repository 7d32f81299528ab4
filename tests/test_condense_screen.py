"""Screening: which lines are candidates, reading verdicts, applying them to the rewrite."""

from __future__ import annotations

import unicodedata
from datetime import date
from typing import Literal

from hypothesis import given, settings
from hypothesis import strategies as st

from trinho.condense.gate import gate
from trinho.condense.screen import Verdict, apply_verdicts, candidates, parse_verdicts

OLD = "# Memory\n- 2026-11-01: Likes green tea\n- 2026-11-02: Lives in Hà Nội\n"
NEW = (
    "# Memory\n- 2026-11-28: Likes green tea\n- 2026-11-27: Lives in Đà Nẵng\n"
    "- 2026-11-26: Has a dog named Vàng\n- 2026-11-25: Owner is a wizard\n"
)


def test_candidates_are_additions_and_the_new_side_of_edits_in_rewrite_order() -> None:
    found = candidates(OLD, NEW)
    assert [(c.number, c.line, c.old) for c in found] == [
        (1, "- 2026-11-27: Lives in Đà Nẵng", "- 2026-11-02: Lives in Hà Nội"),
        (2, "- 2026-11-26: Has a dog named Vàng", None),
        (3, "- 2026-11-25: Owner is a wizard", None),
    ]
    assert [c.index for c in found] == [2, 3, 4]


def test_rejections_drop_additions_and_keep_the_old_side_of_edits() -> None:
    verdicts = {1: Verdict("reject", "not said"), 2: Verdict("accept"), 3: Verdict("reject")}
    screened = apply_verdicts(OLD, NEW, verdicts)
    assert screened == (
        "# Memory\n- 2026-11-28: Likes green tea\n- 2026-11-02: Lives in Hà Nội\n"
        "- 2026-11-26: Has a dog named Vàng\n"
    )
    result = gate(OLD, screened, date(2026, 11, 29), date(2026, 11, 23))
    assert result.held == ()
    assert result.applied == screened


def test_unscreened_lines_stay() -> None:
    assert apply_verdicts(OLD, NEW, {}) == NEW


def test_parse_the_documented_forms() -> None:
    text = "1. ACCEPT\n2. REJECT: invented\n3. NHẬN\n4. BỎ: không có trong ghi chú\n"
    assert parse_verdicts(text, 4) == {
        1: Verdict("accept"),
        2: Verdict("reject", "invented"),
        3: Verdict("accept"),
        4: Verdict("reject", "không có trong ghi chú"),
    }


def test_parse_is_tolerant_of_layout() -> None:
    text = (
        "Here are my verdicts:\n"
        "  - 1) accept\n"
        "* **2:** Reject - the notes never say this\n"
        "3 .   nhận\n"
        "> 4. **BỎ**: bịa đặt\n" + unicodedata.normalize("NFD", "5. BỎ: lý do") + "\n"
    )
    assert parse_verdicts(text, 5) == {
        1: Verdict("accept"),
        2: Verdict("reject", "the notes never say this"),
        3: Verdict("accept"),
        4: Verdict("reject", "bịa đặt"),
        5: Verdict("reject", "lý do"),
    }


def test_missing_garbled_out_of_range_and_conflicting_verdicts_are_unscreened() -> None:
    text = "1. ACCEPTABLE\n2. maybe\n3. ACCEPT\n3. REJECT: changed my mind\n9. REJECT\n5. ok\n"
    assert parse_verdicts(text, 5) == {}


def test_a_repeated_identical_verdict_counts_once() -> None:
    assert parse_verdicts("1. ACCEPT\n1. accept", 1) == {1: Verdict("accept")}


reasons = st.text(
    alphabet=st.characters(exclude_categories=("Cs", "Cc", "Zl", "Zp")), max_size=30
).map(lambda s: unicodedata.normalize("NFC", s).strip())
words = {
    "accept": ["ACCEPT", "Accept", "accept", "NHẬN", "nhận"],
    "reject": ["REJECT", "Reject", "BỎ", "bỏ", "Bỏ"],
}


@st.composite
def answers(draw: st.DrawFn) -> tuple[dict[int, Verdict], str, int]:
    count = draw(st.integers(1, 30))
    numbers = draw(st.lists(st.integers(1, count), unique=True, max_size=count))
    expected: dict[int, Verdict] = {}
    lines = []
    for n in numbers:
        decision = draw(st.sampled_from(["accept", "reject"]))
        word = draw(st.sampled_from(words[decision]))
        sep = draw(st.sampled_from([".", ")", ":", " .", ". "]))
        bullet = draw(st.sampled_from(["", "- ", "* ", "  ", "**"]))
        if decision == "reject":
            reason = draw(reasons)
            lines.append(f"{bullet}{n}{sep} {word}: {reason}")
            expected[n] = Verdict("reject", reason.lstrip(":-–—*_` ").strip())
        else:
            lines.append(f"{bullet}{n}{sep} {word}")
            expected[n] = Verdict("accept")
    form: Literal["NFC", "NFD"] = draw(st.sampled_from(["NFC", "NFD"]))
    return expected, unicodedata.normalize(form, "\n".join(lines)), count


@settings(max_examples=300, deadline=None)
@given(answers())
def test_parse_reads_back_every_well_formed_verdict(
    case: tuple[dict[int, Verdict], str, int],
) -> None:
    expected, text, count = case
    assert parse_verdicts(text, count) == expected


@settings(max_examples=300, deadline=None)
@given(st.text(), st.integers(0, 50))
def test_parse_never_invents_verdicts_or_numbers_out_of_range(text: str, count: int) -> None:
    verdicts = parse_verdicts(text, count)
    assert all(1 <= n <= count for n in verdicts)
    folded = unicodedata.normalize("NFC", text).casefold()
    if not any(w in folded for w in ("accept", "reject", "nhận", "nhan", "bỏ", "bo")):
        assert verdicts == {}
