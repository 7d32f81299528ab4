"""Escaped HTML pieces and the word-level diff of the review page."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from trinho.web.html import Html, esc, html, side_by_side, tokens, word_diff


def test_parameters_are_escaped_and_markup_is_kept() -> None:
    assert html("<b>{x}</b>", x="<i>&") == "<b>&lt;i&gt;&amp;</b>"
    assert html("<b>{x}</b>", x=Html("<i>")) == "<b><i></b>"


def test_invisible_and_control_characters_are_shown_as_their_code_points() -> None:
    assert esc("a\x1bb\u202e\nc") == "a⟨U+001B⟩b⟨U+202E⟩\nc"


def test_word_diff_marks_only_the_changed_words() -> None:
    old, new = word_diff("Anna lives in Lisbon", "Anna lives in Porto")
    assert old == "Anna lives in <del>Lisbon</del>"
    assert new == "Anna lives in <ins>Porto</ins>"


@given(st.text(), st.text())
def test_no_stored_text_becomes_markup(old: str, new: str) -> None:
    page = side_by_side(old, new)
    stripped = page.replace("<del>", "").replace("</del>", "").replace("<ins>", "")
    stripped = stripped.replace("</ins>", "")
    for tag in ("<table", "</table>", "<tr>", "</tr>", "</td>"):
        stripped = stripped.replace(tag, "")
    stripped = stripped.replace('<td class="', "")
    assert "<" not in stripped.replace('">', "")


def test_an_added_semicolon_marks_the_semicolon_alone() -> None:
    old, new = word_diff("Chạy bộ mỗi sáng chủ nhật", "Chạy bộ mỗi sáng chủ nhật; và sáng thứ Tư")
    assert old == "Chạy bộ mỗi sáng chủ nhật"
    assert new == "Chạy bộ mỗi sáng chủ nhật<ins>; và sáng thứ Tư</ins>"
    old, new = word_diff("Mẹ thích hoa sen trắng, đỏ", "Mẹ thích hoa sen trắng; đỏ")
    assert old == "Mẹ thích hoa sen trắng<del>,</del> đỏ"
    assert new == "Mẹ thích hoa sen trắng<ins>;</ins> đỏ"


def test_a_changed_word_is_marked_without_the_spaces_around_it() -> None:
    old, new = word_diff("học hai buổi một tuần", "học ba buổi một tuần")
    assert (old, new) == ("học <del>hai</del> buổi một tuần", "học <ins>ba</ins> buổi một tuần")


@given(st.text())
def test_tokens_give_the_line_back(line: str) -> None:
    assert "".join(tokens(line)) == line


@given(st.text(alphabet="ab;, .đế\u0301"), st.text(alphabet="ab;, .đế\u0301"))
def test_each_side_of_a_word_diff_is_its_line_once_the_marks_are_taken_out(
    old: str, new: str
) -> None:
    left, right = word_diff(old, new)
    for side, tags, line in ((left, ("<del>", "</del>"), old), (right, ("<ins>", "</ins>"), new)):
        plain = str(side)
        for tag in tags:
            plain = plain.replace(tag, "")
        assert plain == esc(line)
