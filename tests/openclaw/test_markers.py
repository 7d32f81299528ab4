"""The one parser of OpenClaw's machine lines (markers, managed dreaming blocks)."""

from __future__ import annotations

from collections import Counter
from datetime import date
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from trinho.condense.rules.ops import number_lines, shown_lines, view_lines
from trinho.openclaw.markers import (
    day_of_name,
    line_roles,
    memory_entry_lines,
    promotion_lines,
    promotion_markers_of,
    reattach_markers,
)

FIXTURE = Path(__file__).parents[1] / "data" / "openclaw" / "MEMORY.md"

BLOCK = (
    "## Light Sleep\n<!-- openclaw:dreaming:light:start -->\n- Candidate: x\n"
    "<!-- openclaw:dreaming:light:end -->"
)


def test_day_files_are_dated_by_their_prefix() -> None:
    assert day_of_name("2026-04-20.md") == (date(2026, 4, 20), "")
    assert day_of_name("2026-04-20-dalat-plans.md") == (date(2026, 4, 20), "dalat-plans")
    assert day_of_name("2026-02-30.md") is None
    assert day_of_name("network.md") is None
    assert day_of_name("2026-04-20-.md") is None


def test_a_managed_block_with_its_heading_is_managed() -> None:
    lines = ["# Day", "", "text", "", *BLOCK.split("\n"), "after"]
    assert line_roles(lines) == (("text",) * 4 + ("managed",) * 4 + ("text",))


def test_comments_are_markers_and_an_unfinished_block_hides_nothing() -> None:
    """Only a comment opened and closed on its own line is a marker: one spread over two
    lines is text, so no line can hide the lines after it."""
    lines = [
        "<!-- openclaw-memory-promotion:memory:memory/2026-04-20.md:3:3 -->",
        "- promoted",
        "<!-- a comment",
        "over two lines -->",
        "<!-- openclaw:dreaming:rem:start -->",
        "- typed after a start with no end",
        "a sentence with <!-- an inline comment --> in it",
    ]
    assert line_roles(lines) == (
        "marker", "text", "text", "text", "marker", "text", "text"
    )  # fmt: skip


def test_markers_go_back_before_their_entries_after_a_rewrite() -> None:
    old = "# M\n\n<!-- k:1 -->\n- one\n<!-- k:2 -->\n- two\n- three\n"
    moved = "# M\n\n- two\n- three\n- one\n<!-- invented -->\n"
    assert (
        reattach_markers(old, moved) == "# M\n\n<!-- k:2 -->\n- two\n- three\n<!-- k:1 -->\n- one\n"
    )
    # an entry that went: its marker stays before what followed it, byte for byte
    assert (
        reattach_markers(old, "# M\n\n- three\n") == "# M\n\n<!-- k:1 -->\n<!-- k:2 -->\n- three\n"
    )


_line = st.sampled_from(
    ["- a", "- b", "text", "", "## H", "<!-- m:1 -->", "<!-- m:2 -->", "<!-- x:start -->",
     "<!-- x:end -->", "<!-- open", "close -->"]
)  # fmt: skip


_one_line = _line.filter(lambda x: x not in ("<!-- open", "close -->"))


@given(st.lists(_one_line, max_size=14), st.lists(_one_line, max_size=14))
def test_reattach_keeps_every_old_marker_and_the_rewrites_order(
    old_given: list[str], new_given: list[str]
) -> None:
    old, new = "\n".join(old_given), "\n".join(new_given)
    out = reattach_markers(old, new).split("\n")
    old_lines, new_lines = old.split("\n"), new.split("\n")
    markers = [x for x, r in zip(old_lines, line_roles(old_lines), strict=True) if r == "marker"]
    kept = [x for x, r in zip(new_lines, line_roles(new_lines), strict=True) if r != "marker"]
    assert Counter(markers) <= Counter(out)
    rest = "\n".join(kept).split("\n")
    assert [x for x in out if x not in markers and x] == [x for x in rest if x not in markers and x]
    assert reattach_markers(old, old) == reattach_markers(old, reattach_markers(old, old))


@given(st.lists(_line, max_size=20))
def test_roles_cover_every_line(lines: list[str]) -> None:
    assert len(line_roles(lines)) == len(lines)


def test_a_block_never_spans_an_entry_and_an_entry_is_never_a_marker() -> None:
    """A start and an end marker around a note's entry are two markers, not a block: the
    entry stays an entry. Lines that belong to an entry are text whatever they look like."""
    lines = ["<!-- a:start -->", "- 09:00 Passport C1234567", "<!-- a:end -->"]
    assert line_roles(lines, owned={1}) == ("marker", "text", "marker")
    assert line_roles(["<!-- x -->", "<!-- y -->"], owned={0, 1}) == ("text", "text")
    assert line_roles(["  <!-- indented -->", "<!-- a --> b <!-- c -->"]) == ("text", "text")


@given(st.lists(_line | st.text(max_size=8), max_size=20), st.data())
def test_owned_lines_are_always_text_and_roles_are_local(
    lines: list[str], data: st.DataObject
) -> None:
    owned = set(data.draw(st.lists(st.integers(0, max(len(lines) - 1, 0)), max_size=5)))
    roles = line_roles(lines, owned)
    assert all(roles[i] == "text" for i in owned if i < len(lines))
    for i, line in enumerate(lines):  # a line no block can take is a marker only as itself
        if roles[i] == "marker":
            assert line.rstrip().startswith("<!--") and line.rstrip().endswith("-->")


def test_what_openclaw_writes_when_it_promotes_is_told_apart() -> None:
    """In OpenClaw's own MEMORY.md: the section heading, the blank under it, each marker and
    the line it tags; not the hand-written lines before them."""
    lines = FIXTURE.read_text(encoding="utf-8").split("\n")
    assert sorted(promotion_lines(lines)) == [6, 7, 8, 9, 10, 11]
    assert promotion_markers_of(lines, 9) == (8,)
    assert promotion_markers_of(lines, 11) == (10,)
    assert promotion_markers_of(lines, 4) == ()  # a line nobody promoted
    assert promotion_markers_of(lines, 8) == ()  # a marker tags, it is not tagged


_line = st.sampled_from(
    [
        "<!-- openclaw-memory-promotion:memory:memory/2026-04-20.md:3:3 -->",
        "<!-- trigger: x -->",
        "## Promoted From Short-Term Memory (2026-04-21)",
        "- 2026-01-01: an entry",
        "- promoted [score=0.8]",
        "prose",
        "",
    ]
)


@given(st.lists(_line, max_size=14), st.integers(0, 14))
def test_only_promotion_markers_right_above_a_line_tag_it(lines: list[str], at: int) -> None:
    found = promotion_markers_of(lines, at)
    roles = line_roles(lines)
    for i in found:
        assert lines[i].startswith("<!-- openclaw-memory-promotion:") and i < at
        assert all(roles[j] == "marker" for j in range(i, at))
    assert set(found) <= promotion_lines(lines)
    assert all(0 <= i < len(lines) for i in promotion_lines(lines))


_view_line = st.sampled_from(
    ["# M", "", "- 2026-11-01: a", "<!-- openclaw-memory-promotion:memory:x:1:1 -->", "<!--", "b"]
)


@given(st.lists(_view_line, max_size=12))
def test_the_rewrites_numbered_view_shows_every_line_but_the_markers(lines: list[str]) -> None:
    """The numbers a model reads count the lines that are not markers, and name them in the
    file: no marker can be named, and each shown line is the file's own."""
    text = "\n".join(lines) + "\n"
    view = view_lines(text)
    roles = line_roles(view, memory_entry_lines(view))
    shown = shown_lines(text)
    assert [view[n - 1] for n in shown] == [
        x for x, r in zip(view, roles, strict=True) if r != "marker"
    ]
    numbered = number_lines(text).split("\n") if shown else []
    assert len(numbered) == len(shown) and not any(
        "openclaw-memory-promotion" in x for x in numbered
    )
