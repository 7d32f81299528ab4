"""Collecting the week and splitting it into chunks that fit the model's context."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import FixedClock
from trinho.condense.rules.chunks import (
    MIN_ROOM_TOKENS,
    Material,
    cut,
    material_room,
    plan_chunks,
    render_material,
    take_chunk,
)
from trinho.condense.store.collect import (
    DEFAULT_CONTEXT_TOKENS,
    Span,
    collect,
    context_tokens,
    window,
)
from trinho.conversations.store import record_turn
from trinho.errors import TrinhoError
from trinho.notes.store import save_note
from trinho.workspace import Workspace, open_workspace

TODAY = date(2026, 11, 29)
RUN_AT = datetime.fromisoformat("2026-11-29T21:00:00+07:00")
FIRST = Span(None, RUN_AT)
"""A first run (no earlier one): the 7 days ending on its day, up to its start."""


def test_window_is_the_seven_days_ending_on_the_run_day() -> None:
    assert window(TODAY) == (date(2026, 11, 23), TODAY)


def test_collect_reads_notes_and_turns_of_the_window_in_the_owner_zone(
    workspace: Workspace, clock: FixedClock
) -> None:
    workspace.memory_file.write_text("- 2026-01-01: Cũ\n", encoding="utf-8")
    clock.set("2026-11-22T23:59:00+07:00")
    save_note(workspace, "ngoài cửa sổ")  # the day before the window
    clock.set("2026-11-23T00:01:00+07:00")
    save_note(workspace, "Ngày đầu tuần\ndòng thứ hai")
    # 17:30 UTC on the 27th is 00:30 on the 28th in Ho Chi Minh City
    record_turn(
        workspace, "user", "Đêm khuya", at=datetime.fromisoformat("2026-11-27T17:30:00+00:00")
    )
    with workspace.note_path(date(2026, 11, 25)).open("w", encoding="utf-8") as f:
        f.write("typed by hand, not an entry\n\n- 10:00 an entry\n")
    got = collect(workspace, FIRST)
    assert got.memory_text == "- 2026-01-01: Cũ\n"
    assert (got.since, got.today) == (date(2026, 11, 23), TODAY)
    assert [(m.day.day, m.source, m.time, m.who, m.text) for m in got.items] == [
        (23, "note", "00:01", "note", "Ngày đầu tuần\ndòng thứ hai"),
        (25, "note", "", "note", "typed by hand, not an entry"),
        (25, "note", "10:00", "note", "an entry"),
        (28, "conversation", "00:30", "user", "Đêm khuya"),
    ]
    assert got.items[0].where == "memory/2026-11-23.md:1"
    assert got.items[3].where == "conversations/2026-11-28.jsonl:1"
    assert got.days == (date(2026, 11, 23), date(2026, 11, 25), date(2026, 11, 28))


def test_collect_without_memory_file(workspace: Workspace) -> None:
    assert collect(workspace, FIRST).memory_text == ""


def test_rendered_items_cannot_forge_another_item() -> None:
    item = Material(TODAY, "note", "09:00", "note", "một\n- 10:00 [note] giả mạo", "x")
    assert item.render() == "- 09:00 [note] một\n  - 10:00 [note] giả mạo"
    text = render_material([item, Material(TODAY, "conversation", "11:00", "user", "hi", "y")])
    assert text.startswith("### 2026-11-29\n- 09:00") and text.endswith("- 11:00 [user] hi")


def test_context_tokens_default_and_bad_values(workspace: Workspace, clock: FixedClock) -> None:
    assert context_tokens(workspace) == DEFAULT_CONTEXT_TOKENS
    config = workspace.internal / "config.toml"
    base = config.read_text()
    config.write_text(base + "\n[condense]\ncontext_tokens = 64000\n")
    assert context_tokens(open_workspace(workspace.root, clock)) == 64000
    for bad in ('"big"', "12", "true"):
        config.write_text(base + f"\n[condense]\ncontext_tokens = {bad}\n")
        with pytest.raises(TrinhoError, match=r"\[condense\] context_tokens must be"):
            context_tokens(open_workspace(workspace.root, clock))


def test_material_room_leaves_room_for_the_answer() -> None:
    room = material_room(32_000, 500, 4_000)
    assert room == (32_000 - 500 - 8_000 - 512) * 2 // 3
    assert material_room(2_000, 500, 4_000) == 0


days = st.integers(min_value=0, max_value=6).map(lambda n: TODAY - timedelta(days=n))
texts = st.text(
    alphabet=st.sampled_from(list("abc đươ ếỗ\nXYZ0123456789")), min_size=0, max_size=3000
)
items_strategy = st.lists(
    st.builds(
        Material,
        day=days,
        source=st.sampled_from(["note", "conversation"]),
        time=st.sampled_from(["", "08:00", "23:59"]),
        who=st.sampled_from(["note", "user", "assistant"]),
        text=texts,
        where=st.just("memory/x.md:1"),
    ),
    max_size=30,
).map(lambda items: sorted(items, key=lambda m: m.day))


@given(items_strategy, st.integers(min_value=MIN_ROOM_TOKENS, max_value=3000))
def test_chunks_fit_keep_order_and_lose_nothing(items: list[Material], room: int) -> None:
    chunks = plan_chunks(items, room)
    assert [c.number for c in chunks] == list(range(1, len(chunks) + 1))
    for chunk in chunks:
        assert chunk.tokens <= room
        assert chunk.items
    flat = [m for c in chunks for m in c.items]
    rebuilt: list[tuple[date, str]] = []
    for m in flat:
        if m.part and not m.part.startswith("1/"):
            day, text = rebuilt[-1]
            rebuilt[-1] = (day, text + m.text)
        else:
            rebuilt.append((m.day, m.text))
    assert rebuilt == [(m.day, m.text) for m in items]


@given(items_strategy, st.integers(min_value=MIN_ROOM_TOKENS, max_value=3000))
def test_a_day_that_fits_is_never_split(items: list[Material], room: int) -> None:
    chunks = plan_chunks(items, room)
    for day in {m.day for m in items}:
        day_items = [m for m in items if m.day == day]
        size = sum(m.tokens for m in day_items) + 5
        holding = [c.number for c in chunks if day in c.days]
        if size <= room:
            assert len(holding) == 1


def test_small_days_share_a_chunk_and_a_big_one_is_split() -> None:
    small = [Material(TODAY - timedelta(days=3), "note", "08:00", "note", "nhỏ", "a")] * 3
    big = [Material(TODAY, "note", "09:00", "note", "x" * 2000, "b")] * 4
    chunks = plan_chunks(small + big, 1000)
    assert chunks[0].items[:3] == tuple(small)
    assert len(chunks) >= 3 and all(TODAY in c.days for c in chunks[1:])


def test_an_item_too_big_for_any_chunk_is_cut_into_numbered_parts() -> None:
    item = Material(TODAY, "conversation", "10:00", "assistant", "ư" * 10_000, "c")
    parts = cut(item, 400)
    assert len(parts) > 1
    assert "".join(p.text for p in parts) == item.text
    assert [p.part for p in parts] == [f"{n}/{len(parts)}" for n in range(1, len(parts) + 1)]
    assert all(p.tokens <= 400 for p in parts)
    assert "(part 1/" in parts[0].render()
    assert cut(Material(TODAY, "note", "", "note", "short", "d"), 400) == [
        Material(TODAY, "note", "", "note", "short", "d")
    ]


def test_room_below_the_minimum_is_refused() -> None:
    with pytest.raises(ValueError, match="below"):
        take_chunk([], MIN_ROOM_TOKENS - 1)


def test_a_span_reads_from_the_previous_cutoff_to_its_start_and_no_further(
    workspace: Workspace, clock: FixedClock
) -> None:
    for at, text in [
        ("2026-11-22T20:59:00+07:00", "before the previous run"),
        ("2026-11-22T21:00:00+07:00", "in the minute the previous run started"),
        ("2026-11-22T22:30:00+07:00", "after the previous run, on its day"),
        ("2026-11-29T20:59:00+07:00", "just before this run"),
        ("2026-11-29T21:00:00+07:00", "in this run's minute"),
    ]:
        clock.set(at)
        save_note(workspace, text)
    with workspace.note_path(date(2026, 11, 22)).open("a", encoding="utf-8") as f:
        f.write("typed by hand into that day\n")
    previous = datetime.fromisoformat("2026-11-22T21:00:00+07:00")
    got = collect(workspace, Span(previous, RUN_AT))
    assert got.since == date(2026, 11, 22)
    assert [m.text for m in got.items] == [
        "in the minute the previous run started",
        "after the previous run, on its day",
        "typed by hand into that day",
        "just before this run",
    ]
    nxt = collect(workspace, Span(RUN_AT, datetime.fromisoformat("2026-12-06T21:00:00+07:00")))
    assert [m.text for m in nxt.items] == ["in this run's minute"]
    first = collect(workspace, Span(None, previous))
    assert [m.text for m in first.items] == ["before the previous run"]


def test_a_missed_week_is_read_by_the_next_run(workspace: Workspace, clock: FixedClock) -> None:
    for day in (10, 17, 24):
        clock.set(f"2026-11-{day}T09:00:00+07:00")
        save_note(workspace, f"note of the {day}th")
    previous = datetime.fromisoformat("2026-11-08T21:00:00+07:00")
    got = collect(workspace, Span(previous, RUN_AT))
    assert [m.text for m in got.items] == [f"note of the {d}th" for d in (10, 17, 24)]
    assert got.since == date(2026, 11, 8)
