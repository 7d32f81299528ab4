"""The archive plan: least recently dated entries move, verbatim, and nothing else changes."""

from __future__ import annotations

import hashlib
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from trinho.condense.rules.archive import (
    ArchivedLine,
    ArchivePlan,
    apply_archive,
    archive_section,
    archived_by,
    plan_archive,
)
from trinho.context.budget import estimate_tokens
from trinho.memory.format import Entry, parse

MEMORY = "\n".join(
    [
        "# Gia đình",
        "- 2026-10-02: Mẹ thích hoa sen trắng",
        "- 2025-01-05: Em gái tên là Lan",
        "Ghi chú viết tay: đừng xoá dòng này.",
        "- 2026-02-30: Đi Huế",
        "# Work",
        "- 2025-01-05: Works at a bookshop in District 1",
        "- 2026-11-01: Lives in Hà Nội",
        "",
    ]
)


def test_within_budget_there_is_no_plan() -> None:
    assert plan_archive(MEMORY, estimate_tokens(MEMORY)) is None
    assert plan_archive("", 0) is None


def test_the_least_recently_dated_entries_move_ties_in_line_order() -> None:
    budget = estimate_tokens(MEMORY) - 1
    plan = plan_archive(MEMORY, budget)
    assert plan is not None
    assert plan.lines == (ArchivedLine(3, "- 2025-01-05: Em gái tên là Lan"),)
    assert plan.text == MEMORY.replace("- 2025-01-05: Em gái tên là Lan\n", "")
    assert (plan.tokens_before, plan.budget_tokens) == (estimate_tokens(MEMORY), budget)
    assert plan.tokens_after == estimate_tokens(plan.text) <= 0.9 * budget


def test_a_small_budget_moves_every_dated_entry_and_nothing_else() -> None:
    plan = plan_archive(MEMORY, 1)
    assert plan is not None
    assert [moved.line for moved in plan.lines] == [2, 3, 7, 8]  # file order
    assert plan.text == (
        "# Gia đình\nGhi chú viết tay: đừng xoá dòng này.\n- 2026-02-30: Đi Huế\n# Work\n"
    )


def test_nothing_to_move_is_no_plan() -> None:
    prose = "# About me\n" + "Written by hand, at length.\n" * 40 + "- 2026-02-30: not a date\n"
    assert plan_archive(prose, 10) is None


def test_a_first_line_with_the_byte_order_mark_stays() -> None:
    text = "\ufeff- 2020-01-01: oldest\n- 2026-11-01: newer\n"
    plan = plan_archive(text, 1)
    assert plan is not None and plan.raw_lines == ("- 2026-11-01: newer",)
    assert plan.text == "\ufeff- 2020-01-01: oldest\n"


def test_the_archive_section_names_the_run_and_keeps_the_lines_verbatim() -> None:
    lines = ["- 2025-01-05: Em gái tên là Lan", "- 2025-01-05: Works at  a bookshop\r"]
    digest = hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()[:12]
    assert archive_section("2026-W48", lines) == (
        f"## Archived by run 2026-W48 (sha256 {digest})\n\n"
        "- 2025-01-05: Em gái tên là Lan\n"
        "- 2025-01-05: Works at  a bookshop\r\n"
    )
    assert archived_by(archive_section("2026-W48", lines), "2026-W48") == tuple(lines)
    assert archived_by(archive_section("2026-W48.2", lines), "2026-W48") == ()


def test_applying_later_removes_the_lines_if_they_are_all_still_there() -> None:
    plan = plan_archive(MEMORY, 1)
    assert plan is not None
    edited = "- 2026-11-29: typed since\n" + MEMORY
    assert apply_archive(edited, plan.raw_lines) == "- 2026-11-29: typed since\n" + plan.text
    retyped = MEMORY.replace("Em gái tên là Lan", "Em gái tên Lan")
    assert apply_archive(retyped, plan.raw_lines) is None
    twice = [*plan.raw_lines, plan.raw_lines[0]]
    assert apply_archive(MEMORY, twice) is None  # counted: the line is there once


# --- properties -----------------------------------------------------------------------------

DATES = ["2024-03-01", "2025-01-05", "2025-12-31", "2026-11-01", "2026-02-30", "2026-1-5"]
WORDS = ["trà", "cà phê", "Hà Nội", "tea", "bookshop", "🙂", "a"]
entry = st.builds(
    lambda d, words: f"- {d}: {' '.join(words)}",
    st.sampled_from(DATES),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=6),
)
other = st.sampled_from(["# Gia đình", "## Work", "Viết tay: nhớ mua quà", "", "   ", "* x"])
memory_text = st.builds(
    lambda lines, end: "\n".join(lines) + end,
    st.lists(st.one_of(entry, entry, entry, other), max_size=30),
    st.sampled_from(["", "\n"]),
)


def _movable(text: str) -> list[Entry]:
    return [e for e in parse(text).entries if e.date is not None]


@settings(max_examples=300, deadline=None)
@given(memory_text, st.integers(0, 400))
def test_a_plan_moves_only_entries_verbatim_and_reaches_the_target_when_it_can(
    text: str, budget: int
) -> None:
    plan = plan_archive(text, budget)
    if estimate_tokens(text) <= budget:
        assert plan is None
        return
    if plan is None:
        assert _movable(text) == []
        return
    assert isinstance(plan, ArchivePlan)
    raws = text.split("\n")
    moved = {m.line - 1 for m in plan.lines}
    assert [m.line for m in plan.lines] == [i + 1 for i in sorted(moved)]  # file order
    for m in plan.lines:
        assert raws[m.line - 1] == m.raw
        item = parse(text).items[m.line - 1]
        assert isinstance(item, Entry) and item.date is not None  # never a heading or prose
    assert plan.text == "\n".join(r for i, r in enumerate(raws) if i not in moved)
    assert Counter(raws) - Counter(plan.text.split("\n")) == Counter(plan.raw_lines)
    assert plan.tokens_after == estimate_tokens(plan.text)
    everything = "\n".join(r for i, r in enumerate(raws) if i + 1 not in _lines(_movable(text)))
    if 10 * estimate_tokens(everything) <= 9 * budget:
        assert 10 * plan.tokens_after <= 9 * budget
    else:
        assert plan.text == everything
    assert apply_archive(text, plan.raw_lines) == plan.text


@settings(max_examples=200, deadline=None)
@given(memory_text, st.integers(0, 400))
def test_the_least_recently_dated_move_first(text: str, budget: int) -> None:
    plan = plan_archive(text, budget)
    if plan is None:
        return
    moved = {m.line for m in plan.lines}
    staying = [e for e in _movable(text) if e.line not in moved]
    for m in plan.lines:
        [archived] = [e for e in _movable(text) if e.line == m.line]
        assert all((archived.date, archived.line) < (e.date, e.line) for e in staying)


def _lines(entries: list[Entry]) -> set[int]:
    return {e.line for e in entries}


def test_an_archive_is_not_asked_while_one_waits_or_a_rejection_stands() -> None:
    from trinho.condense.rules.archive import archive_waits_or_was_refused as answered

    assert answered(1000, 500, waiting=True, rejected_at=[])
    assert not answered(1000, 500, waiting=False, rejected_at=[])
    assert answered(1049, 500, waiting=False, rejected_at=[1000])  # grown by less than 50
    assert not answered(1050, 500, waiting=False, rejected_at=[1000])
    assert answered(1300, 500, waiting=False, rejected_at=[1000, 1290])
