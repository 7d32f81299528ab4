"""Screening: which lines are candidates, reading verdicts, applying them to the rewrite."""

from __future__ import annotations

import unicodedata
from datetime import date
from typing import Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trinho.condense.rules.gate import gate
from trinho.condense.rules.match import match
from trinho.condense.rules.reasons import Reason
from trinho.condense.rules.screen import (
    MAX_ERROR_CHARS,
    Outcome,
    Unread,
    Verdict,
    apply_verdicts,
    call_failed,
    candidates,
    parse_verdicts,
    read_answer,
    screen_rewrite,
)

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


def test_missing_garbled_out_of_range_and_conflicting_verdicts_are_not_verdicts() -> None:
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


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(answers())
def test_parse_reads_back_every_well_formed_verdict(
    case: tuple[dict[int, Verdict], str, int],
) -> None:
    expected, text, count = case
    assert parse_verdicts(text, count) == expected


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(st.text(), st.integers(0, 50))
def test_parse_never_invents_verdicts_or_numbers_out_of_range(text: str, count: int) -> None:
    verdicts = parse_verdicts(text, count)
    assert all(1 <= n <= count for n in verdicts)
    folded = unicodedata.normalize("NFC", text).casefold()
    if not any(w in folded for w in ("accept", "reject", "nhận", "nhan", "bỏ", "bo")):
        assert verdicts == {}


UNREADABLE = Unread(Reason("screen_unreadable"))
TODAY, SINCE = date(2026, 11, 29), date(2026, 11, 23)


def test_read_answer_gives_every_candidate_a_verdict_or_unread() -> None:
    text = "1. ACCEPT\n2) maybe?\n3. ACCEPT\n3. REJECT: no\n9. REJECT\n"
    assert read_answer(text, 4) == {
        1: Verdict("accept"),
        2: UNREADABLE,
        3: UNREADABLE,  # contradictory
        4: UNREADABLE,  # missing
    }
    assert read_answer("", 0) == {}


def test_a_failed_call_leaves_every_line_unread_with_its_error_kept_short() -> None:
    said = call_failed(2, "timeout:\n no answer within 60 s")
    assert said == dict.fromkeys(
        (1, 2), Unread(Reason.of("screen_failed", error="timeout: no answer within 60 s"))
    )
    [long] = set(call_failed(1, "x" * 5000).values())
    assert isinstance(long, Unread)
    error = dict(long.why.params)["error"]
    assert isinstance(error, str) and len(error) == MAX_ERROR_CHARS and error.endswith("…")


def test_screen_rewrite_drops_rejections_and_holds_what_it_could_not_read() -> None:
    outcomes: dict[int, Outcome] = {
        1: UNREADABLE,
        2: Verdict("accept"),
        3: Verdict("reject", "invented"),
    }
    screened = screen_rewrite(OLD, NEW, outcomes)
    assert screened.text == NEW.replace("- 2026-11-25: Owner is a wizard\n", "")
    assert screened.hold == {"- 2026-11-27: Lives in Đà Nẵng": Reason("screen_unreadable")}
    result = gate(OLD, screened.text, TODAY, SINCE, hold=screened.hold)
    assert [(c.cls, c.reason_code) for c in result.held] == [("edited", "edited")]  # held anyway
    assert screen_rewrite(OLD, NEW, {}).hold == {}  # not asked: nothing to hold


def test_an_unread_addition_is_held_and_reaches_memory_only_through_approval() -> None:
    old = "# Memory\n- 2026-11-01: Likes green tea\n"
    new = old + "- 2026-11-28: Adopted a cat\n- 2026-11-28: Plays chess\n"
    screened = screen_rewrite(old, new, {1: UNREADABLE, 2: Verdict("accept")})
    result = gate(old, screened.text, TODAY, SINCE, hold=screened.hold)
    assert result.applied == old + "- 2026-11-28: Plays chess\n"
    [held] = result.held
    assert (held.cls, held.new, held.reason_code) == (
        "added",
        "- 2026-11-28: Adopted a cat",
        "screen_unreadable",
    )
    assert held.after == "- 2026-11-01: Likes green tea"
    assert held.reason_in("vi").startswith("việc kiểm tra dòng mới không cho câu trả lời")


VERDICT_WORDS = ["ACCEPT", "accept", "NHẬN", "REJECT", "REJECT: no", "BỎ: không", "maybe", ""]
ANSWER_LINES = st.one_of(
    st.builds(
        lambda n, sep, word: f"{n}{sep} {word}",
        st.integers(0, 8),
        st.sampled_from([".", ")", ":", ""]),
        st.sampled_from(VERDICT_WORDS),
    ),
    st.text(max_size=20),
)
SCREEN_OLD = "# Memory\n- 2026-11-01: Likes green tea\n- 2026-11-02: Lives in Hà Nội\n"
NEW_LINES = st.sampled_from(
    [
        "- 2026-11-01: Likes green tea",
        "- 2026-11-02: Lives in Hà Nội",
        "- 2026-11-27: Lives in Đà Nẵng",
        "- 2026-11-26: Has a dog named Vàng",
        "- 2026-11-25: Owner is a wizard",
        "- 2026-11-28: Likes green tea",
        "- 2026-12-25: A date in the future",
        "## Pets",
        "",
    ]
)


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(st.lists(NEW_LINES, max_size=8), st.lists(ANSWER_LINES, max_size=10))
def test_no_new_line_applies_unless_its_verdict_was_read_as_accept(
    lines: list[str], answer: list[str]
) -> None:
    """Whatever the screening answered, every new line the gate writes now (an addition or
    the new side of an edit, not in the old file) was explicitly accepted, and nothing else new
    is written."""
    new = "\n".join(lines) + "\n"
    found = candidates(SCREEN_OLD, new)
    said = read_answer("\n".join(answer), len(found))
    screened = screen_rewrite(SCREEN_OLD, new, said)
    result = gate(SCREEN_OLD, screened.text, TODAY, SINCE, hold=screened.hold)
    written = set(result.applied.split("\n")) - set(SCREEN_OLD.split("\n"))
    for line in written & {c.line for c in found}:
        # a line the rewrite has twice is written once, if one of its copies was accepted
        assert Verdict("accept") in [said[c.number] for c in found if c.line == line], line
    applied = match(SCREEN_OLD, result.applied)
    assert {applied.new[j].raw for j in applied.gained} <= {c.line for c in found}


def test_a_rejected_line_the_rewrite_writes_twice_is_dropped_with_every_copy() -> None:
    """Found by the property test above: two copies fold into one candidate, screened once."""
    line = "- 2026-11-28: Likes green tea"
    new = f"{line}\n{line}\n"
    assert len(candidates(SCREEN_OLD, new)) == 1
    said = read_answer("1. REJECT: not said by the owner", 1)
    screened = screen_rewrite(SCREEN_OLD, new, said)
    assert line not in screened.text
    assert line not in gate(SCREEN_OLD, screened.text, TODAY, SINCE, hold=screened.hold).applied
