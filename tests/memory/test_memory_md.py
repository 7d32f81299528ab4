"""MEMORY.md: any text round-trips byte for byte; entries, headings and loose lines classified."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trinho.memory import format as memory_md
from trinho.memory.format import Entry, Heading, Loose

DAY = st.dates(min_value=date(1900, 1, 1), max_value=date(2999, 12, 31))
WORDS = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\n"), max_size=12)
LINE = st.one_of(
    st.builds(lambda d, t: f"- {d.isoformat()}: {t}x", DAY, WORDS),
    st.builds(lambda n, t: "#" * n + " " + t, st.integers(1, 7), WORDS),
    st.sampled_from(
        [
            "",
            " ",
            "\r",
            "- 2026-02-30: no such day",
            "- 2026-1-5: short date",
            "-2026-01-01: x",
            "- 2026-01-01:",
            "- ٢٠٢٦-٠١-٠١: other digits",
            "\ufeff# bom",
            "* list",
            "\t- 2026-01-01: x",
            "Đà Nẵng, tiếng Việt",
            "e\u0301\u0301",
            "\u2028",
            "\x00",
            "😀",
        ]
    ),
    WORDS,
)
MEMORY_TEXT = st.one_of(
    st.text(),
    st.builds(
        lambda lines, sep, end: sep.join(lines) + end,
        st.lists(LINE, max_size=30),
        st.sampled_from(["\n", "\r\n"]),
        st.sampled_from(["", "\n", "\r\n", "\n\n"]),
    ),
)


@pytest.mark.slow
@given(MEMORY_TEXT)
@settings(max_examples=200)
def test_any_text_round_trips_byte_for_byte(text: str) -> None:
    doc = memory_md.parse(text)
    assert memory_md.render(doc) == text
    assert memory_md.render(doc).encode("utf-8", "surrogatepass") == text.encode(
        "utf-8", "surrogatepass"
    )
    assert [item.line for item in doc.items] == list(range(1, len(doc.items) + 1))


@given(DAY, WORDS.map(lambda t: t + "x"), st.sampled_from(["", "\r"]))
def test_entry_lines_are_entries(day: date, text: str, cr: str) -> None:
    (item,) = memory_md.parse(f"- {day.isoformat()}: {text}{cr}").items
    assert isinstance(item, Entry)
    assert (item.date, item.text) == (day, text.strip())


@given(st.integers(1, 6), WORDS)
def test_heading_lines_are_headings(level: int, title: str) -> None:
    (item,) = memory_md.parse("#" * level + " " + title).items
    assert isinstance(item, Heading)
    assert (item.level, item.title) == (level, title.strip())


def test_classification_of_a_hand_written_file() -> None:
    text = (
        "\ufeff# Về chủ nhân\r\n- 2026-03-12: Sinh nhật mẹ\r\n- 2026-02-30: impossible\r\n"
        "prose\r\n- ٢٠٢٦-٠١-٠١: other digits\r\n####### seven\r\n- 2026-01-01:\r\n"
    )
    items = memory_md.parse(text).items
    kinds = [type(item).__name__ for item in items]
    assert kinds == ["Heading", "Entry", "Entry", "Loose", "Loose", "Loose", "Loose", "Loose"]
    first, second, third = items[0], items[1], items[2]
    assert isinstance(first, Heading) and first.title == "Về chủ nhân"
    assert isinstance(second, Entry) and second.date == date(2026, 3, 12)
    assert second.text == "Sinh nhật mẹ"
    assert isinstance(third, Entry) and third.date is None and third.date_text == "2026-02-30"
    assert isinstance(items[-1], Loose) and items[-1].blank


def test_entry_key_matches_across_case_spacing_and_normalisation() -> None:
    a, b = memory_md.parse("- 2026-01-01: Đà  Nẵng\n- 2026-01-02: đa\u0300 nẵng ").entries
    assert a.key == b.key


def test_format_entry_is_one_line_and_parses_back() -> None:
    line = memory_md.format_entry(date(2026, 11, 22), "  Thích\ncà phê\u2028sữa đá ")
    assert line == "- 2026-11-22: Thích cà phê sữa đá"
    (entry,) = memory_md.parse(line).entries
    assert (entry.date, entry.text) == (date(2026, 11, 22), "Thích cà phê sữa đá")
