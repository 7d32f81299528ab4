"""Prompt assembly: what is in each part, stability for caching, budgets and omission notices."""

from __future__ import annotations

from datetime import date

from hypothesis import given
from hypothesis import strategies as st

from trinho.context import (
    Budgets,
    ContextInputs,
    FactLine,
    NoteLine,
    assemble,
    estimate_tokens,
)

TODAY = date(2026, 11, 29)
YESTERDAY = date(2026, 11, 28)

MEMORY = """# MEMORY

## Gia đình
- 2026-10-01: Mẹ sống ở Hà Nội
- 2026-11-22: Prefers tea over coffee
Viết tay: đừng xoá dòng này
"""


def inputs(**overrides: object) -> ContextInputs:
    base: dict[str, object] = {
        "memory_text": MEMORY,
        "facts": [FactLine("city: Đà Nẵng (user, since 2026-01-05)", date(2026, 1, 5))],
        "facts_omitted": 0,
        "yesterday": [NoteLine(YESTERDAY, "21:00", "Đi chợ mua rau")],
        "today": [NoteLine(TODAY, "08:15", "Call the dentist\nabout Friday")],
        "today_date": TODAY,
    }
    base.update(overrides)
    return ContextInputs(**base)  # type: ignore[arg-type]


def test_system_holds_memory_and_facts_preamble_holds_notes() -> None:
    ctx = assemble(inputs(), Budgets(), "en")
    assert "- 2026-10-01: Mẹ sống ở Hà Nội" in ctx.system
    assert "Viết tay: đừng xoá dòng này" in ctx.system
    assert "city: Đà Nẵng" in ctx.system
    assert "Đi chợ mua rau" not in ctx.system
    assert "## Notes from yesterday (2026-11-28)" in ctx.preamble
    assert "## Notes from today (2026-11-29)" in ctx.preamble
    assert "- 08:15 Call the dentist\n  about Friday" in ctx.preamble
    assert "Mẹ sống" not in ctx.preamble
    assert ctx.omitted == {"memory": 0, "facts": 0, "notes": 0}
    assert ctx.tokens == {
        "system": estimate_tokens(ctx.system),
        "preamble": estimate_tokens(ctx.preamble),
    }


def test_system_block_does_not_change_with_notes() -> None:
    first = assemble(inputs(), Budgets(), "vi")
    more_notes = [*inputs().today, NoteLine(TODAY, "09:00", "Thêm một ghi chú")]
    second = assemble(inputs(today=more_notes), Budgets(), "vi")
    assert first.system == second.system
    assert first.preamble != second.preamble


def test_headings_follow_the_locale() -> None:
    ctx = assemble(inputs(), Budgets(), "vi")
    assert "## Trí nhớ dài hạn (MEMORY.md)" in ctx.system
    assert "## Dữ kiện về chủ nhân" in ctx.system
    assert "## Ghi chú hôm qua (2026-11-28)" in ctx.preamble


def test_memory_over_budget_keeps_newest_and_says_how_many_left_out() -> None:
    lines = ["# MEMORY", *(f"- 2026-01-{d:02d}: entry number {d}" for d in range(1, 29))]
    ctx = assemble(inputs(memory_text="\n".join(lines)), Budgets(memory=60), "en")
    kept = [d for d in range(1, 29) if f"entry number {d}\n" in ctx.system + "\n"]
    assert kept, "some entries fit"
    assert kept == list(range(kept[0], 29)), "the newest are kept"
    assert ctx.omitted["memory"] == 28 - len(kept)
    assert f"({ctx.omitted['memory']} older entries are not shown here; memory_search" in ctx.system
    assert "# MEMORY" in ctx.system


def test_notes_over_budget_keep_the_latest() -> None:
    today = [NoteLine(TODAY, f"{h:02d}:00", f"note at hour {h}") for h in range(24)]
    ctx = assemble(inputs(yesterday=[], today=today), Budgets(notes=40), "en")
    assert "note at hour 23" in ctx.preamble
    assert "note at hour 0\n" not in ctx.preamble
    assert ctx.omitted["notes"] > 0
    assert f"({ctx.omitted['notes']} earlier notes" in ctx.preamble


def test_facts_omitted_by_the_index_are_announced() -> None:
    ctx = assemble(inputs(facts_omitted=3), Budgets(), "en")
    assert ctx.omitted["facts"] == 3
    assert "(3 more facts are not shown here; memory_search finds them.)" in ctx.system


def test_empty_workspace_says_nothing_yet() -> None:
    ctx = assemble(inputs(memory_text="", facts=[], yesterday=[], today=[]), Budgets(), "en")
    assert ctx.system.count("(nothing yet)") == 2
    assert ctx.preamble == ""


entry_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=30
).filter(lambda s: s.strip() == s and s)


@given(
    st.lists(st.tuples(st.dates(date(2020, 1, 1), TODAY), entry_text), max_size=40),
    st.integers(0, 400),
)
def test_nothing_cut_silently(entries: list[tuple[date, str]], budget: int) -> None:
    """Every MEMORY.md entry is either in the system block or counted as omitted."""
    text = "\n".join(f"- {d.isoformat()}: {s}" for d, s in entries)
    ctx = assemble(inputs(memory_text=text), Budgets(memory=budget), "en")
    shown = sum(1 for d, s in entries if f"- {d.isoformat()}: {s}" in ctx.system.split("\n"))
    assert shown + ctx.omitted["memory"] >= len(entries)
    assert ctx.omitted["memory"] <= len(entries)
