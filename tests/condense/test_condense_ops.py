"""The edit script: the numbered view, reading operations, applying them, and the gate after."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trinho.condense.rules.gate import gate
from trinho.condense.rules.ops import (
    OP_TOKENS,
    SCRIPT_SLACK_TOKENS,
    Add,
    Applied,
    Edit,
    Ignored,
    IgnoreWhy,
    NewLine,
    Remove,
    Script,
    SetDate,
    apply_ops,
    material_for_output,
    number_lines,
    op_tokens,
    parse_ops,
    script_tokens,
    view_lines,
)
from trinho.condense.rules.rewrite import clean_answer
from trinho.condense.store.prompts import VERSIONS, load_prompt
from trinho.context.budget import estimate_tokens
from trinho.memory.format import Entry, Heading, Loose, parse, parse_line
from trinho.textnorm import nfc

TODAY = date(2026, 11, 29)
SINCE = date(2026, 11, 23)

OLD = (
    "# Gia đình\n"
    "\n"
    "- 2026-10-02: Mẹ thích hoa sen trắng\n"
    "- 2026-11-20: Sinh nhật mẹ là ngày 12/3\n"
    "Ghi chú viết tay: đừng xoá dòng này.\n"
    "\n"
    "# Work\n"
    "- 2026-09-14: Prefers meetings after 10am\n"
    "- 2026-11-01: Lives in Hà Nội\n"
)
N = len(view_lines(OLD))  # 9


def script(answer: str, old: str = OLD, *, cut: bool = False) -> Script:
    return parse_ops(answer, len(view_lines(old)), cut=cut)


def applied(answer: str, old: str = OLD) -> Applied:
    return apply_ops(old, script(answer, old))


def lines_of(text: str) -> list[str]:
    if not text:
        return []
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


# --- the numbered view --------------------------------------------------------------------


def test_every_line_is_numbered_blank_lines_included() -> None:
    view = number_lines(OLD)
    assert view.split("\n")[:4] == [
        "[1] # Gia đình",
        "[2]",
        "[3] - 2026-10-02: Mẹ thích hoa sen trắng",
        "[4] - 2026-11-20: Sinh nhật mẹ là ngày 12/3",
    ]
    assert view.split("\n")[-1] == "[9] - 2026-11-01: Lives in Hà Nội"
    assert N == 9


@pytest.mark.parametrize(
    ("text", "view"),
    [
        ("", ""),
        ("\n", "[1]"),
        ("a", "[1] a"),
        ("a\n\n", "[1] a\n[2]"),
        ("\ufeff# T\r\n- 2026-11-28: x\r\n", "[1] # T\n[2] - 2026-11-28: x"),
    ],
)
def test_the_view_shows_no_line_after_the_last_newline_and_no_cr_or_bom(
    text: str, view: str
) -> None:
    assert number_lines(text) == view


_NUMBERED_RE = re.compile(r"^\[([0-9]+)\](?: (.*))?$", re.DOTALL)
_LINE_CHARS = st.characters(exclude_categories=["Cs"], exclude_characters="\n")


@given(st.lists(st.text(alphabet=_LINE_CHARS, max_size=20), max_size=12), st.booleans())
def test_the_numbers_of_the_view_read_back_to_the_lines(lines: list[str], ending: bool) -> None:
    text = "\n".join(lines) + ("\n" if ending and lines else "")
    view = number_lines(text)
    read = [_NUMBERED_RE.match(line) for line in view.split("\n")] if view else []
    assert all(m is not None for m in read)
    numbers = [int(m.group(1)) for m in read if m]
    assert numbers == list(range(1, len(view_lines(text)) + 1))
    assert [m.group(2) or "" for m in read if m] == view_lines(text)


# --- every operation ----------------------------------------------------------------------


def test_add_after_a_line_before_the_first_and_at_the_end() -> None:
    result = applied(
        "ADD [3] - 2026-11-28: Em gái tên là Lan\n"
        "ADD [0] ## Về chủ nhân\n"
        "ADD - 2026-11-29: Gọi cho anh Đức vào thứ Hai\n"
    )
    lines = lines_of(result.text)
    assert lines[0] == "## Về chủ nhân"
    assert lines[4] == "- 2026-11-28: Em gái tên là Lan"
    assert lines[-1] == "- 2026-11-29: Gọi cho anh Đức vào thứ Hai"
    assert [line for i, line in enumerate(lines) if i not in (0, 4, len(lines) - 1)] == lines_of(
        OLD
    )
    assert result.new_lines == (
        NewLine(0, "## Về chủ nhân"),
        NewLine(4, "- 2026-11-28: Em gái tên là Lan"),
        NewLine(len(lines) - 1, "- 2026-11-29: Gọi cho anh Đức vào thứ Hai"),
    )


def test_several_adds_after_one_line_keep_their_order() -> None:
    result = applied("ADD [1] - 2026-11-28: một\nADD [1] - 2026-11-28: hai\nADD [1] ## ba\n")
    assert lines_of(result.text)[1:4] == ["- 2026-11-28: một", "- 2026-11-28: hai", "## ba"]
    assert result.ignored == ()


def test_edit_replaces_the_line_and_says_what_it_replaced() -> None:
    result = applied("EDIT [9] - 2026-11-28: Lives in Đà Nẵng")
    assert result.text == OLD.replace("2026-11-01: Lives in Hà Nội", "2026-11-28: Lives in Đà Nẵng")
    assert result.new_lines == (
        NewLine(8, "- 2026-11-28: Lives in Đà Nẵng", 9, "- 2026-11-01: Lives in Hà Nội"),
    )


def test_an_edit_to_the_same_text_changes_nothing() -> None:
    result = applied("EDIT [3] - 2026-10-02:   Mẹ thích hoa sen trắng")
    assert result.text == OLD and result.new_lines == ()


def test_date_sets_only_the_date_of_the_entry() -> None:
    result = applied("DATE [4] 2026-11-27")
    assert result.text == OLD.replace("2026-11-20: Sinh", "2026-11-27: Sinh")
    assert result.redated == (4,) and result.new_lines == ()


def test_remove_with_and_without_a_reason() -> None:
    parsed = script("REMOVE [9] chuyển vào Đà Nẵng rồi\nREMOVE [8]")
    assert parsed.ops == (Remove(9, "chuyển vào Đà Nẵng rồi", 1), Remove(8, "", 2))
    result = apply_ops(OLD, parsed)
    assert "Hà Nội" not in result.text and "10am" not in result.text
    assert result.removed == (8, 9)
    assert result.text == OLD.rsplit("\n", 3)[0] + "\n"


@pytest.mark.parametrize("answer", ["NONE", "none.", "  **NONE**  ", "NONE: nothing this week"])
def test_none_gives_the_old_text_byte_for_byte(answer: str) -> None:
    parsed = script(answer)
    assert parsed.none and parsed.ops == () and parsed.chatter == 0
    assert apply_ops(OLD, parsed).text == OLD


def test_an_empty_answer_gives_the_old_text() -> None:
    for answer in ("", "\n\n", "   "):
        assert applied(answer).text == OLD
        assert script(answer) == Script(N)


def test_ops_read_in_answer_order_with_their_source_lines() -> None:
    parsed = script(
        "ADD [2] - 2026-11-28: a\n\nEDIT [3] - 2026-11-28: b\nDATE [4] 2026-11-28\nREMOVE [5] x"
    )
    assert parsed.ops == (
        Add(2, "- 2026-11-28: a", 1),
        Edit(3, "- 2026-11-28: b", 3),
        SetDate(4, "2026-11-28", 4),
        Remove(5, "x", 5),
    )


# --- what models write: tolerated ---------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        "EDIT [9] - 2026-11-28: Sống ở Đà Nẵng",
        "   EDIT [9] - 2026-11-28: Sống ở Đà Nẵng   ",
        "- EDIT [9] - 2026-11-28: Sống ở Đà Nẵng",
        "* EDIT [9] - 2026-11-28: Sống ở Đà Nẵng",
        "3. EDIT [9] - 2026-11-28: Sống ở Đà Nẵng",
        "edit [9] - 2026-11-28: Sống ở Đà Nẵng",
        "Edit 9 - 2026-11-28: Sống ở Đà Nẵng",
        "EDIT [9]: - 2026-11-28: Sống ở Đà Nẵng",
        "EDIT 9: - 2026-11-28: Sống ở Đà Nẵng",
        "EDIT: [ 9 ] - 2026-11-28: Sống ở Đà Nẵng",
        "EDIT [9]- 2026-11-28: Sống ở Đà Nẵng",
        "**EDIT** [9] - 2026-11-28: Sống ở Đà Nẵng",
        "__EDIT__ [9] - 2026-11-28: Sống ở Đà Nẵng",
        "**EDIT [9]** - 2026-11-28: Sống ở Đà Nẵng",
        "**EDIT [9] - 2026-11-28: Sống ở Đà Nẵng**",
        "> EDIT [9] - 2026-11-28: Sống ở Đà Nẵng",
        "EDIT [9] - 2026-11-28:\tSống  ở Đà Nẵng",
        unicodedata.normalize("NFD", "EDIT [9] - 2026-11-28: Sống ở Đà Nẵng"),
    ],
)
def test_tolerated_spellings_of_one_operation(answer: str) -> None:
    assert script(answer).ops == (Edit(9, "- 2026-11-28: Sống ở Đà Nẵng", 1),)


@pytest.mark.parametrize(
    ("answer", "op"),
    [
        ("add - 2026-11-28: cuối", Add(None, "- 2026-11-28: cuối", 1)),
        ("ADD: - 2026-11-28: cuối", Add(None, "- 2026-11-28: cuối", 1)),
        ("1) ADD [0] # Đầu", Add(0, "# Đầu", 1)),
        ("Date [4] 2026-11-27 (nhắc lại trong chat)", SetDate(4, "2026-11-27", 1)),
        ("DATE 4: 2026-11-27", SetDate(4, "2026-11-27", 1)),
        ("DATE [4] - 2026-11-27: Sinh nhật mẹ là ngày 12/3", SetDate(4, "2026-11-27", 1)),
        ("remove 9 - obsolete", Remove(9, "obsolete", 1)),
        ("REMOVE [9] (đã chuyển nhà)", Remove(9, "đã chuyển nhà", 1)),
        ("**REMOVE** [9]", Remove(9, "", 1)),
    ],
)
def test_tolerated_spellings_of_every_kind(answer: str, op: Add | SetDate | Remove) -> None:
    assert script(answer).ops == (op,)


def test_the_new_line_is_what_the_model_wrote_white_space_collapsed() -> None:
    # A bold marker closed before the text is not stripped from it; case and words are kept.
    parsed = script("**ADD** [1] - 2026-11-28: Thích  **cà phê** sữa đá**\n")
    assert parsed.ops == (Add(1, "- 2026-11-28: Thích **cà phê** sữa đá**", 1),)


def test_an_operation_is_recognised_only_by_a_whole_keyword() -> None:
    parsed = script("Added [3] - 2026-11-28: x\nEDITED 3 - 2026-11-28: x\nRemovers [3]")
    assert parsed.ops == () and parsed.chatter == 3


# --- what is ignored, and why ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ("EDIT [0] - 2026-11-28: x", "no_such_line"),
        ("EDIT [10] - 2026-11-28: x", "no_such_line"),
        ("ADD [10] - 2026-11-28: x", "no_such_line"),
        ("DATE [99] 2026-11-28", "no_such_line"),
        ("REMOVE [0]", "no_such_line"),
        ("REMOVE the entry about tea", "unreadable"),
        ("EDIT - 2026-11-28: x", "unreadable"),
        ("DATE [4] tomorrow", "unreadable"),
        ("DATE [4] 28/11/2026", "unreadable"),
        ("DATE [4]", "unreadable"),
        ("ADD [3] Sure, I will add that", "not_a_line"),
        ("ADD [3]", "not_a_line"),
        ("EDIT [3]", "not_a_line"),
        ("ADD [3] `- 2026-11-28: in backticks`", "not_a_line"),
        ("ADD [3] 2026-11-28: no bullet", "not_a_line"),
        ("EDIT [3] #", "not_a_line"),
        ("ADD -2026-11-28: no space", "not_a_line"),
    ],
)
def test_an_operation_that_cannot_stand_is_reported_and_ignored(
    answer: str, why: IgnoreWhy
) -> None:
    parsed = script(answer)
    assert parsed.ops == ()
    assert parsed.ignored == (Ignored(1, answer.strip(), why),)
    assert apply_ops(OLD, parsed).text == OLD


def test_a_second_edit_date_or_remove_of_one_line_is_ignored_the_first_stands() -> None:
    parsed = script(
        "EDIT [9] - 2026-11-28: Lives in Đà Nẵng\n"
        "REMOVE [9] moved\n"
        "DATE [9] 2026-11-28\n"
        "EDIT [9] - 2026-11-28: Lives in Huế\n"
        "ADD [9] - 2026-11-28: Has a cat\n"
    )
    assert parsed.ops == (
        Edit(9, "- 2026-11-28: Lives in Đà Nẵng", 1),
        Add(9, "- 2026-11-28: Has a cat", 5),
    )
    assert [(i.source, i.why) for i in parsed.ignored] == [
        (2, "line_taken"),
        (3, "line_taken"),
        (4, "line_taken"),
    ]
    assert lines_of(apply_ops(OLD, parsed).text)[-2:] == [
        "- 2026-11-28: Lives in Đà Nẵng",
        "- 2026-11-28: Has a cat",
    ]


def test_date_on_a_line_that_is_not_an_entry_is_ignored_when_applied() -> None:
    parsed = script("DATE [1] 2026-11-28\nDATE [2] 2026-11-28\nDATE [5] 2026-11-28")
    assert len(parsed.ops) == 3  # the script cannot tell: only the text can
    result = apply_ops(OLD, parsed)
    assert result.text == OLD and result.redated == ()
    assert [(i.source, i.why) for i in result.ignored] == [
        (1, "not_an_entry"),
        (2, "not_an_entry"),
        (3, "not_an_entry"),
    ]


def test_labels_are_not_trusted_a_heading_edited_into_an_entry_is_applied_as_written() -> None:
    result = applied("EDIT [7] - 2026-11-28: Works at a bookshop")
    assert "# Work\n" not in result.text
    assert result.new_lines == (NewLine(6, "- 2026-11-28: Works at a bookshop", 7, "# Work"),)


def test_an_impossible_date_is_applied_textually_and_the_gate_holds_it() -> None:
    result = applied("DATE [4] 2026-02-30\nADD - 2026-11-31: Đi Huế")
    assert "- 2026-02-30: Sinh nhật mẹ là ngày 12/3" in result.text
    gated = gate(OLD, result.text, TODAY, SINCE)
    assert gated.applied == OLD
    assert [(c.cls, c.action) for c in gated.changes] == [
        ("strange_date", "held"),
        ("strange_date", "held"),
    ]


def test_a_cut_answer_loses_its_last_line_only() -> None:
    answer = "ADD [3] - 2026-11-28: Em gái tên là Lan\nADD [3] - 2026-11-28: Sinh nh\n\n"
    parsed = script(answer, cut=True)
    assert parsed.ops == (Add(3, "- 2026-11-28: Em gái tên là Lan", 1),)
    assert parsed.ignored == (Ignored(2, "ADD [3] - 2026-11-28: Sinh nh", "cut"),)
    assert script(answer).ops[1] == Add(3, "- 2026-11-28: Sinh nh", 2)


# --- chatter and whole files ----------------------------------------------------------------


def test_chatter_is_counted_and_sampled_never_applied() -> None:
    answer = (
        "Sure! Here are the changes for this week:\n"
        "```\n"
        "ADD [3] - 2026-11-28: Em gái tên là Lan\n"
        "```\n"
        "None of the other entries needed changes.\n"
        "Tôi không chắc về dòng 4.\n" + "".join(f"filler {i}\n" for i in range(10))
    )
    parsed = script(answer)
    assert parsed.ops == (Add(3, "- 2026-11-28: Em gái tên là Lan", 3),)
    assert parsed.chatter == 15 and not parsed.none
    assert parsed.samples == (
        "Sure! Here are the changes for this week:",
        "```",
        "```",
        "None of the other entries needed changes.",
        "Tôi không chắc về dòng 4.",
    )
    assert parsed.whole_file is None
    result = apply_ops(OLD, parsed)
    assert [line for line in lines_of(result.text) if line not in lines_of(OLD)] == [
        "- 2026-11-28: Em gái tên là Lan"
    ]


@pytest.mark.parametrize(
    "answer",
    ["I cannot help with that.", "Xin lỗi, tôi không thể làm việc này.", "```\n```"],
)
def test_a_refusal_is_chatter_and_changes_nothing(answer: str) -> None:
    parsed = script(answer)
    assert parsed.ops == () and parsed.whole_file is None and parsed.chatter >= 1
    assert apply_ops(OLD, parsed).text == OLD


def test_a_whole_memory_md_is_recognised_and_returned_as_a_rewrite() -> None:
    answer = "```markdown\n" + OLD.replace("Hà Nội", "Đà Nẵng") + "```"
    parsed = script(answer)
    assert parsed.whole_file == clean_answer(answer)
    assert parsed.ops == () and parsed.chatter == 0
    result = apply_ops(OLD, parsed)
    assert result.whole_file and result.text == clean_answer(answer) and result.new_lines == ()


def test_a_file_like_answer_with_operations_is_a_script() -> None:
    answer = "- 2026-11-28: a\n- 2026-11-28: b\n- 2026-11-28: c\nREMOVE [3]"
    parsed = script(answer)
    assert parsed.whole_file is None and parsed.ops == (Remove(3, "", 4),)
    assert parsed.chatter == 3
    refused = script("- 2026-11-28: a\n- 2026-11-28: b\nREMOVE [30]")
    assert refused.whole_file is None  # an operation was written, even if it cannot stand


def test_prose_mostly_is_not_a_whole_file() -> None:
    assert script("Here you go:\nThe file is fine.\n- 2026-11-28: a\nThanks").whole_file is None
    assert script("# Heading\n## Another").whole_file is None  # no entry at all


@given(st.text(alphabet=st.sampled_from(list("- 0123:abcđ\n#`[]AD")), max_size=200))
def test_a_whole_file_is_cleaned_as_the_whole_file_rewrite_always_was(answer: str) -> None:
    parsed = parse_ops(answer, 3)
    if parsed.whole_file is not None:
        assert parsed.whole_file == clean_answer(answer)


# --- bytes of the old file ------------------------------------------------------------------


def test_crlf_lines_stay_byte_for_byte_and_new_lines_follow_the_file() -> None:
    old = "# T\r\n- 2026-11-01: a\r\n- 2026-11-02: b\r\n"
    answer = "ADD [1] - 2026-11-28: mới\nEDIT [3] - 2026-11-28: bb\nDATE [2] 2026-11-27"
    result = applied(answer, old)
    assert result.text == "# T\r\n- 2026-11-28: mới\r\n- 2026-11-27: a\r\n- 2026-11-28: bb\r\n"


def test_the_byte_order_mark_stays_at_the_start_of_the_file() -> None:
    old = "\ufeff# T\n- 2026-11-01: a\n"
    added = applied("ADD [0] - 2026-11-28: x", old).text
    assert added == "\ufeff- 2026-11-28: x\n# T\n- 2026-11-01: a\n"
    assert applied("REMOVE [1]", old).text == "\ufeff- 2026-11-01: a\n"
    assert applied("EDIT [1] ## T2", old).text == "\ufeff## T2\n- 2026-11-01: a\n"


def test_the_final_line_break_is_kept_as_it_was() -> None:
    assert applied("ADD - 2026-11-28: x", "# T").text == "# T\n- 2026-11-28: x"
    assert applied("ADD - 2026-11-28: x", "").text == "- 2026-11-28: x\n"
    assert applied("ADD [0] - 2026-11-28: x", "").text == "- 2026-11-28: x\n"
    assert applied("REMOVE [1]", "# T\n").text == ""


def test_a_script_read_for_another_file_is_refused() -> None:
    with pytest.raises(ValueError, match="3 lines"):
        apply_ops(OLD, parse_ops("NONE", 3))


# --- through the gate -----------------------------------------------------------------------


def test_the_gate_holds_removes_and_edits_and_applies_adds_and_later_dates() -> None:
    result = applied(
        "REMOVE [9] moved to Đà Nẵng\n"
        "EDIT [8] - 2026-09-14: Prefers meetings after 10am, never on Fridays\n"
        "DATE [4] 2026-11-27\n"
        "ADD [4] - 2026-11-28: Gọi cho anh Đức vào thứ Hai\n"
    )
    gated = gate(OLD, result.text, TODAY, SINCE)
    classes = {(c.cls, c.action, c.old, c.new) for c in gated.changes}
    assert classes == {
        ("removed", "held", "- 2026-11-01: Lives in Hà Nội", None),
        (
            "edited",
            "held",
            "- 2026-09-14: Prefers meetings after 10am",
            "- 2026-09-14: Prefers meetings after 10am, never on Fridays",
        ),
        (
            "date_changed",
            "auto",
            "- 2026-11-20: Sinh nhật mẹ là ngày 12/3",
            "- 2026-11-27: Sinh nhật mẹ là ngày 12/3",
        ),
        ("added", "auto", None, "- 2026-11-28: Gọi cho anh Đức vào thứ Hai"),
    }
    assert gated.applied == (
        OLD.replace("2026-11-20: Sinh", "2026-11-27: Sinh").replace(
            "12/3\n", "12/3\n- 2026-11-28: Gọi cho anh Đức vào thứ Hai\n"
        )
    )


def test_removing_most_lines_is_held_whole_by_the_gate() -> None:
    result = applied("\n".join(f"REMOVE [{n}]" for n in range(1, N + 1)))
    assert result.text == ""
    gated = gate(OLD, result.text, TODAY, SINCE)
    assert gated.applied == OLD and [c.cls for c in gated.changes] == ["suspicious"]


# --- properties: for any answer -------------------------------------------------------------

WORDS = ["likes", "tea", "cà", "phê", "Hà", "Nội", "Đà", "Nẵng", "ĐI", "🙂", "a", "b"]
DATES = ["2026-11-23", "2026-11-28", "2026-11-29", "2026-11-01", "2026-11-30", "2026-02-30"]
words = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)
entry = st.builds(lambda d, x: f"- {d}: {x}", st.sampled_from(DATES), words)
heading = st.builds(lambda n, x: "#" * n + " " + x, st.integers(1, 3), words)
JUNK = [
    "Sure! Here is the updated MEMORY.md:",
    "I cannot help with that.",
    "Xin lỗi, tôi không thể.",
    "```",
    "```markdown",
    "Ghi chú viết tay: nhớ mua quà",
    "   ",
    "",
    "NONE of these",
    "Added a line",
]
junk = st.one_of(st.sampled_from(JUNK), st.text(alphabet=_LINE_CHARS, max_size=12))
old_line = st.one_of(entry, entry, heading, junk)
old_text = st.builds(
    lambda lines, end: "\n".join(lines) + end,
    st.lists(old_line, max_size=10),
    st.sampled_from(["", "\n", "\r\n"]),
)
keyword = st.sampled_from(
    ["ADD", "EDIT", "DATE", "REMOVE", "NONE", "add", "Edit", "**ADD**", "- REMOVE", "1. DATE"]
)
any_ref = st.one_of(
    st.builds("[{}]".format, st.integers(-1, 13)),
    st.builds("{}".format, st.integers(0, 13)),
    st.builds("[{}]:".format, st.integers(0, 13)),
    st.just(""),
)
payload = st.one_of(entry, heading, junk, st.sampled_from(DATES), st.just("2026-1-5 x"))


@st.composite
def old_and_answer(draw: st.DrawFn) -> tuple[str, str]:
    """A MEMORY.md and an answer whose operations mostly name its lines, with what models add
    around them: chatter, stray entries, numbers out of range, garbled arguments."""
    old = draw(old_text)
    count = len(view_lines(old))
    in_range = st.builds("[{}]".format, st.integers(0, count + 1))
    well_formed = st.one_of(
        st.builds("ADD {} {}".format, in_range, st.one_of(entry, heading)),
        st.builds("EDIT {} {}".format, in_range, st.one_of(entry, heading)),
        st.builds("DATE {} {}".format, in_range, st.sampled_from(DATES)),
        st.builds("REMOVE {} {}".format, in_range, junk),
    )
    loose_op = st.builds(lambda k, r, p: f"{k} {r} {p}", keyword, any_ref, payload)
    lines = draw(st.lists(st.one_of(well_formed, well_formed, loose_op, junk, entry), max_size=14))
    return old, "\n".join(lines)


def _body(raw: str) -> str:
    return raw.removesuffix("\r")


def _after_date(line: str) -> str:
    item = parse_line(_body(line), 2)
    assert isinstance(item, Entry)
    return _body(line)[2 + len(item.date_text) :]


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(old_and_answer(), st.booleans())
def test_every_old_line_is_kept_in_place_edited_or_removed_by_name(
    pair: tuple[str, str], cut: bool
) -> None:
    old, text = pair
    parsed = parse_ops(text, len(view_lines(old)), cut=cut)
    result = apply_ops(old, parsed)
    if parsed.whole_file is not None:
        assert result.text == parsed.whole_file and parsed.ops == ()
        assert cut or parsed.whole_file == clean_answer(text)
        return
    old_raw = lines_of(old.removeprefix("\ufeff"))
    new_raw = lines_of(result.text.removeprefix("\ufeff"))
    named = {
        kind: {op.line for op in parsed.ops if isinstance(op, kind)}
        for kind in (Edit, SetDate, Remove)
    }
    edited = {nl.replaces for nl in result.new_lines if nl.replaces is not None}
    assert set(result.removed) == named[Remove]
    assert edited <= named[Edit] and set(result.redated) <= named[SetDate]
    texts = {op.text for op in parsed.ops if isinstance(op, Add | Edit)}
    fresh = {nl.index for nl in result.new_lines}
    for nl in result.new_lines:
        assert _body(new_raw[nl.index]) == nl.text and nl.text in texts
        assert isinstance(parse_line(nl.text, 2), Entry | Heading)
    kept = [
        (n, raw) for n, raw in enumerate(old_raw, 1) if n not in named[Remove] and n not in edited
    ]
    rest = [raw for i, raw in enumerate(new_raw) if i not in fresh]
    assert len(kept) == len(rest)
    for (n, before), after in zip(kept, rest, strict=True):
        if n in result.redated:
            assert _after_date(before) == _after_date(after)
        else:
            assert before == after
    assert len(new_raw) == len(old_raw) - len(result.removed) + sum(
        isinstance(op, Add) for op in parsed.ops
    )


def _entry_keys(text: str) -> Counter[str]:
    return Counter(i.key for i in parse(text).items if isinstance(i, Entry))


def _loose_keys(text: str) -> Counter[str]:
    return Counter(
        nfc(i.raw).strip() for i in parse(text).items if isinstance(i, Loose) and not i.blank
    )


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(old_and_answer())
def test_the_gate_keeps_every_old_entry_and_hand_written_line_whatever_the_answer(
    pair: tuple[str, str],
) -> None:
    old, text = pair
    result = apply_ops(old, parse_ops(text, len(view_lines(old))))
    applied_now = gate(old, result.text, TODAY, SINCE).applied
    assert _entry_keys(old) <= _entry_keys(applied_now)
    assert _loose_keys(old) <= _loose_keys(applied_now)


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(old_text, st.lists(junk, max_size=8), st.booleans())
def test_chatter_none_or_nothing_gives_the_old_text_byte_for_byte(
    old: str, chatter: list[str], say_none: bool
) -> None:
    lines = [*chatter, "NONE"] if say_none else chatter
    parsed = parse_ops("\n".join(lines), len(view_lines(old)))
    assert parsed.ops == ()
    assert apply_ops(old, parsed).text == old


@given(st.text(max_size=300), st.integers(0, 20))
def test_any_text_reads_without_error(text: str, count: int) -> None:
    parsed = parse_ops(text, count)
    for op in parsed.ops:
        line = op.after if isinstance(op, Add) else op.line
        assert line is None or 0 <= line <= count


# --- budgets --------------------------------------------------------------------------------


def test_the_script_budget_grows_with_the_work_not_with_memory_md() -> None:
    assert script_tokens(0, 0) == SCRIPT_SLACK_TOKENS
    assert script_tokens(4000, 1000) == SCRIPT_SLACK_TOKENS + 3000
    # tens of tokens a change: ten notes of a long week ask for 480 tokens, not 3,000
    assert script_tokens(4000, 10) == SCRIPT_SLACK_TOKENS + 10 * OP_TOKENS
    line = "EDIT [12] - 2026-11-28: Sống ở Đà Nẵng"
    assert op_tokens(line) == estimate_tokens(line) + 1
    assert material_for_output(SCRIPT_SLACK_TOKENS) == 0 and material_for_output(0) == 0


@given(st.integers(0, 1_000_000))
def test_material_for_output_is_the_most_that_fits(max_output: int) -> None:
    room = material_for_output(max_output)
    if max_output >= SCRIPT_SLACK_TOKENS:
        assert script_tokens(room, room) <= max_output < script_tokens(room + 2, room + 2)
    else:
        assert room == 0


# --- the prompt -----------------------------------------------------------------------------


def test_the_edit_script_prompt_is_the_current_one() -> None:
    prompt = load_prompt("rewrite", 2)
    assert prompt.version == "rewrite.v2" and VERSIONS["rewrite"] == 2
    assert prompt.placeholders == {"today", "since", "memory_budget", "memory_tokens"}
    filled = prompt.fill(TODAY, SINCE, memory_budget=4000, memory_tokens=3100)
    assert not re.search(r"\{[a-z_]+\}", filled)
    assert "about\n   4000 tokens; it is now about 3100 tokens" in filled
    for rule in (
        "ADD [N] - YYYY-MM-DD: text",
        "EDIT [N]",
        "DATE [N] YYYY-MM-DD",
        "REMOVE [N] reason",
        "`NONE`",
        "Only the numbered lines exist",
        "Do not echo MEMORY.md",
        "Vietnamese",
        "No commentary",
    ):
        assert rule in filled
    assert load_prompt("rewrite", 1).placeholders == {"today", "since"}


def test_the_prompt_example_is_a_script_this_module_reads_whole() -> None:
    filled = load_prompt("rewrite", 2).fill(TODAY, SINCE, memory_budget=1, memory_tokens=1)
    example = filled.split("Example. MEMORY.md:\n", 1)[1].split("\n\nRules:", 1)[0]
    view, answer_text = example.split("\nAn answer:\n")
    memory = "\n".join(_NUMBERED_RE.sub(r"\2", line) for line in view.split("\n")) + "\n"
    assert number_lines(memory) == view
    parsed = parse_ops(answer_text, len(view_lines(memory)))
    assert len(parsed.ops) == 4 and parsed.ignored == () and parsed.chatter == 0
    gated = gate(memory, apply_ops(memory, parsed).text, TODAY, SINCE)
    assert sorted((c.cls, c.action) for c in gated.changes) == [
        ("added", "auto"),
        ("date_changed", "auto"),
        ("edited", "held"),
        ("removed", "held"),
    ]


def test_removing_the_last_line_of_a_file_without_a_final_break_keeps_the_lines_before() -> None:
    old = "\n- 2026-11-23: likes"
    applied = apply_ops(old, parse_ops("REMOVE [2] Sure! Here is the file:", 2))
    assert applied.text == "\n" and view_lines(applied.text) == [""]
    assert apply_ops("a\nb", parse_ops("REMOVE [2]", 2)).text == "a\n"
