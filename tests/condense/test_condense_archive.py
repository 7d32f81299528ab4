"""The archive plan: least recently dated entries move, verbatim, and nothing else changes."""

from __future__ import annotations

import hashlib
import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trinho.condense.rules.archive import (
    ArchivedLine,
    ArchivePlan,
    apply_archive,
    archive_section,
    archive_stands,
    archived_by,
    budget_words,
    pinned_lines,
    plan_archive,
)
from trinho.condense.rules.explain import memory_ref_now
from trinho.condense.rules.gate import Change
from trinho.condense.rules.held import HeldApplied, apply_held
from trinho.condense.rules.loss import ARCHIVE_NAMED, archive_gist, memory_sides
from trinho.condense.rules.ops import view_lines
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


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
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


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
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


# --- beside other pending changes ------------------------------------------------------------


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(memory_text, st.integers(0, 400), st.data())
def test_a_pinned_line_never_moves_the_next_least_recently_dated_do(
    text: str, budget: int, data: st.DataObject
) -> None:
    raws = text.split("\n")
    pinned = frozenset(data.draw(st.sets(st.sampled_from(raws)), label="pinned"))
    plan = plan_archive(text, budget, pinned)
    free = [e for e in _movable(text) if e.raw not in pinned]
    if plan is None:
        assert estimate_tokens(text) <= budget or free == []
        return
    assert not set(plan.raw_lines) & pinned
    moved = {m.line for m in plan.lines}
    for m in plan.lines:
        [archived] = [e for e in free if e.line == m.line]
        assert all(
            (archived.date, archived.line) < (e.date, e.line) for e in free if e.line not in moved
        )
    assert archive_stands(plan.raw_lines, text, pinned)


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(memory_text, st.data())
def test_the_lines_pending_changes_act_on_are_pinned_as_approving_finds_them(
    text: str, data: st.DataObject
) -> None:
    lines = text.split("\n")
    olds = data.draw(st.lists(st.sampled_from(lines), max_size=4), label="olds")
    pending: list[dict[str, str | None]] = [
        {"class": data.draw(st.sampled_from(["edited", "removed", "date_changed"])), "old": old}
        for old in olds
    ]
    pending.append({"class": "archive", "old": "\n".join(lines)})  # pins nothing
    pending.append({"class": "strange_date", "old": None, "new": "- 2026-12-25: x"})
    assert pinned_lines(text, pending) == frozenset(olds)
    assert pinned_lines(text, [*pending, {"class": "suspicious"}]) == frozenset(lines)
    spaced = [{"class": "edited", "old": "- 2025-01-05: tea  ", "new": "- 2025-01-05: x"}]
    assert pinned_lines("- 2025-01-05: tea\n", spaced) == {"- 2025-01-05: tea"}  # find_line's
    retyped = [{"class": "edited", "old": "- 2025-01-05: TEA", "new": "- 2025-01-05: x"}]
    assert pinned_lines("- 2025-01-05: tea\n", retyped) == frozenset()  # other letters: gone


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(st.integers(1, 10**6), st.integers(1, 10**5), st.integers(1, 500))
def test_the_budget_reason_says_how_far_over_and_how_many_in_words(
    tokens: int, budget: int, count: int
) -> None:
    params = {"tokens": budget + tokens, "budget": budget, "count": count}
    for locale in ("en", "vi"):
        said = budget_words(params, locale)
        assert "token" not in said and "MEMORY.md" not in said and "{" not in said
        assert str(count) in said
    english = budget_words(params, "en")
    assert "what fits in the assistant's prompt" in english
    if budget + tokens < 2 * budget:
        assert re.search(r"about \d+% longer than", english)
    else:
        times = round((budget + tokens) / budget)
        assert f"about {times} times as long as" in english


@given(st.lists(entry, min_size=1, max_size=12))
def test_an_archive_gist_names_the_first_entries_and_counts_the_rest(lines: list[str]) -> None:
    said = archive_gist(lines, "en")
    named = re.findall(r"«([^»]*)»", said)
    assert named == [line.removeprefix("- ") for line in lines[:ARCHIVE_NAMED]]
    assert said.startswith(
        f"Move {'the 1 oldest entry' if len(lines) == 1 else f'{len(lines)} oldest entries'}"
    )
    rest = len(lines) - ARCHIVE_NAMED
    assert (f"and {rest} more" in said) is (rest > 0)
    assert memory_sides({"class": "archive", "old": "\n".join(lines)}, "en")[1] == (
        "(moved to the archive: still searchable)"
    )


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(memory_text, st.sampled_from(WORDS), st.integers(1, 60))
def test_a_memory_source_is_anchored_where_its_line_is_now(
    text: str, word: str, stored: int
) -> None:
    quoted = f"- 2025-01-05: {word}"
    ref = memory_ref_now(f"MEMORY.md#L{stored}", quoted, text)
    lines = view_lines(text)
    if quoted in lines:
        assert ref == f"MEMORY.md#L{lines.index(quoted) + 1}"
    else:
        assert ref == "MEMORY.md"
    assert (
        memory_ref_now("memory/2026-11-20.md#14:05", quoted, text) == "memory/2026-11-20.md#14:05"
    )


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(st.data())
def test_the_archive_and_the_changes_it_leaves_alone_apply_in_any_order(
    data: st.DataObject,
) -> None:
    """Rules `pinned_lines`, `plan_archive`, `apply_archive` and `held.apply_held` together:
    whatever the order of approval, nothing is stale, every change is in the end text and
    every archived line is out of it."""
    dates = data.draw(st.lists(st.sampled_from(DATES), min_size=2, max_size=20), label="dates")
    lines = ["# Trí nhớ", *(f"- {d}: kỷ niệm {i}" for i, d in enumerate(dates)), ""]
    text = "\n".join(lines)
    entries = lines[1:-1]
    touched = data.draw(st.lists(st.sampled_from(entries), unique=True, max_size=4), label="t")
    changes = []
    for n, old in enumerate(touched):
        cls = data.draw(st.sampled_from(["edited", "removed", "strange_date"]), label="cls")
        new = None if cls == "removed" else f"{old[:13]}: đổi {n}"
        changes.append(Change(cls, "held", old, new, "held"))  # type: ignore[arg-type]
    after = data.draw(st.sampled_from(entries), label="after")
    changes.append(Change("strange_date", "held", None, "- 2030-01-01: mới", "held", after=after))
    plan = plan_archive(text, 1, pinned_lines(text, [c.to_dict() for c in changes]))
    assert plan is not None or all(e.raw in touched for e in _movable(text))
    moves: list[Change | None] = [*changes, None]  # None: the archive
    order = data.draw(st.permutations(moves), label="order")
    current = text
    for step in order:
        if step is None:
            if plan is None:
                continue
            done = apply_archive(current, plan.raw_lines)
            assert done is not None
            current = done
            continue
        applied = apply_held(current, step)
        assert isinstance(applied, HeldApplied), applied
        current = applied.text
    end = current.split("\n")
    for change in changes:
        assert change.new is None or change.new in end
        assert change.old is None or change.old not in end
    assert plan is None or not set(plan.raw_lines) & set(end)
