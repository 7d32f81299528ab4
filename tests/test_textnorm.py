"""The text rules every store and every printer share: what is shown, what JSON carries."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from trinho.textnorm import (
    has_hidden,
    has_unsafe,
    json_text,
    printable,
    show_hidden,
    show_hidden_lines,
)

BIDI = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}


def acts(c: str) -> bool:
    """This test's own statement of what a terminal or a chat client acts on."""
    return (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F or c in BIDI


any_text = st.text(st.characters(codec="utf-8"), max_size=200) | st.text(
    st.sampled_from(["\x1b", "[", "]", "\x07", "\x9b", "\u202e", "\b", "\r", "a", "ạ", "\n"])
)


@given(any_text)
def test_printable_leaves_nothing_a_terminal_acts_on(text: str) -> None:
    shown = printable(text)
    assert not any(acts(c) for c in shown)
    assert not has_unsafe(shown)
    assert printable(shown) == shown


@given(st.text(st.characters(codec="utf-8").filter(lambda c: not acts(c)), max_size=200))
def test_printable_changes_no_safe_text(text: str) -> None:
    """Vietnamese, emoji, tabs and line breaks are printed as they are."""
    assert printable(text) == text and not has_unsafe(text)


def test_each_control_is_shown_by_its_escape() -> None:
    assert printable("a\x1b]0;t\x07b\x9b\u202ec\r") == "a\\x1b]0;t\\x07b\\x9b\\u202ec\\r"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | any_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(any_text, inner, max_size=4),
    max_leaves=12,
)


@given(json_values)
def test_json_text_parses_back_to_the_same_value_and_prints_safely(value: object) -> None:
    text = json_text(value)
    assert json.loads(text) == value
    assert not any(acts(c) for c in text)
    assert "\n" not in text


def test_json_text_keeps_vietnamese_readable() -> None:
    assert json_text({"ghi chú": "Hà Nội"}) == '{"ghi chú": "Hà Nội"}'


@given(st.lists(st.text(max_size=20).map(lambda s: s.replace("\n", "")), min_size=1, max_size=5))
def test_a_changes_lines_show_their_hidden_characters_and_keep_their_breaks(
    lines: list[str],
) -> None:
    shown = show_hidden_lines("\n".join(lines))
    assert shown.split("\n") == [show_hidden(line) for line in lines]
    assert not any(has_hidden(line) for line in shown.split("\n"))
    assert show_hidden_lines(shown) == shown
