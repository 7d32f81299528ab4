"""Escaped HTML pieces and the word-level diff of the review page."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from trinho.web.html import Html, esc, html, side_by_side, word_diff


def test_parameters_are_escaped_and_markup_is_kept() -> None:
    assert html("<b>{x}</b>", x="<i>&") == "<b>&lt;i&gt;&amp;</b>"
    assert html("<b>{x}</b>", x=Html("<i>")) == "<b><i></b>"


def test_control_characters_are_shown_as_escapes() -> None:
    assert esc("a\x1bb\u202e") == "a\\x1bb\\u202e"


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
