"""Prompt assembly: what is in each part, stability for caching, budgets and omission notices."""

from __future__ import annotations

import json
from datetime import date, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import FixedClock
from support.backends import CliBackend
from trinho.channels import Notification, Outbox
from trinho.cli import main
from trinho.config.files import read_config
from trinho.context.assembly import (
    Budgets,
    ContextInputs,
    FactLine,
    NoteLine,
    assemble,
    fact_lines,
)
from trinho.context.budget import estimate_tokens
from trinho.context.run import (
    PARTS,
    WARNINGS_FILE,
    BudgetWarning,
    budget_warnings,
    budgets_from_config,
    build_context,
    warning_text,
)
from trinho.conversations.store import record_turn
from trinho.errors import TrinhoError
from trinho.facts.render import DEFAULT_INDEX_CHARS, build_index
from trinho.facts.rules import Fact, FactVersion
from trinho.i18n import t
from trinho.tools import service as tools
from trinho.workspace import CONFIG_PATH, Workspace

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
        "yesterday": [NoteLine(YESTERDAY, "21:00", "Đi chợ mua rau")],
        "today": [NoteLine(TODAY, "08:15", "Call the dentist\nabout Friday")],
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
    assert t("en", "context.omitted", count=ctx.omitted["memory"]) in ctx.system
    assert "# MEMORY" in ctx.system


def test_a_memory_md_of_prose_only_is_held_to_its_budget_too() -> None:
    # A MEMORY.md kept by hand, as another assistant leaves it: paragraphs, no dated entries.
    prose = "\n".join(["# About me", *(f"Paragraph {n} about the owner." for n in range(1, 41))])
    ctx = assemble(inputs(memory_text=prose), Budgets(memory=100), "en")
    shown = [n for n in range(1, 41) if f"Paragraph {n} about" in ctx.system]
    assert shown and shown == list(range(shown[0], 41)), "the last lines stay"
    assert ctx.omitted["memory"] == 40 - len(shown) > 0
    assert t("en", "context.omitted", count=ctx.omitted["memory"]) in ctx.system
    assert "# About me" in ctx.system


def test_prose_lines_outlast_dated_entries() -> None:
    text = "- 2026-01-01: an old entry\nTyped by hand: never call after 22:00\n"
    ctx = assemble(inputs(memory_text=text), Budgets(memory=20), "en")
    assert "Typed by hand" in ctx.system
    assert "an old entry" not in ctx.system
    assert ctx.omitted["memory"] == 1


def test_notes_over_budget_keep_the_latest() -> None:
    today = [NoteLine(TODAY, f"{h:02d}:00", f"note at hour {h}") for h in range(24)]
    ctx = assemble(inputs(yesterday=[], today=today), Budgets(notes=40), "en")
    assert "note at hour 23" in ctx.preamble
    assert "note at hour 0\n" not in ctx.preamble
    assert ctx.omitted["notes"] > 0
    assert f"({ctx.omitted['notes']} earlier notes" in ctx.preamble


def test_empty_workspace_says_nothing_yet() -> None:
    ctx = assemble(inputs(memory_text="", facts=[], yesterday=[], today=[]), Budgets(), "en")
    assert ctx.system.count("(nothing yet)") == 2
    assert ctx.preamble == ""


entry_text = st.text(
    alphabet=st.characters(exclude_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=30
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


# The shell: reading the workspace, budgets from the config, warning the owner once.


def write_note(ws: Workspace, day: date, lines: str) -> None:
    path = ws.note_path(day)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(lines, encoding="utf-8")


def test_what_is_in_and_out_for_a_given_day(workspace: Workspace, clock: FixedClock) -> None:
    workspace.memory_file.write_text(MEMORY, encoding="utf-8")
    write_note(workspace, date(2026, 11, 27), "- 10:00 hai ngày trước\n")
    write_note(workspace, YESTERDAY, "- 21:00 hôm qua\n")
    write_note(workspace, TODAY, "- 08:15 hôm nay\n")
    write_note(workspace, date(2026, 11, 30), "- 07:00 ngày mai\n")
    record_turn(workspace, "user", "một câu trong hội thoại")
    ctx = build_context(workspace)
    assert "- 2026-10-01: Mẹ sống ở Hà Nội" in ctx.system
    assert "hôm qua" in ctx.preamble and "hôm nay" in ctx.preamble
    everything = ctx.system + ctx.preamble
    for absent in ("hai ngày trước", "ngày mai", "một câu trong hội thoại"):
        assert absent not in everything
    clock.advance(days=1)
    later = build_context(workspace)
    assert "hôm qua" not in later.preamble
    assert "hôm nay" in later.preamble and "ngày mai" in later.preamble
    assert later.system == ctx.system


def test_prose_typed_into_a_note_reaches_the_preamble(workspace: Workspace) -> None:
    # An OpenClaw-style note: a heading, untimed bullets, a sentence, then a timed entry.
    write_note(
        workspace,
        TODAY,
        "# 2026-11-29\n\n- Hẹn nha sĩ thứ Sáu\nMẹ gọi lúc trưa.\n- 14:05 mua hoa\n",
    )
    ctx = build_context(workspace)
    assert ctx.preamble.endswith(
        "## Notes from today (2026-11-29)\n# 2026-11-29\n"
        "- Hẹn nha sĩ thứ Sáu\nMẹ gọi lúc trưa.\n- 14:05 mua hoa\n"
    )
    assert "\n# 2026-11-29\n- Hẹn" in ctx.preamble  # the note's heading is kept with its lines
    small = build_context(workspace, budgets=Budgets(notes=12))
    assert "mua hoa" in small.preamble and "nha sĩ" not in small.preamble
    assert small.omitted["notes"] == 3  # the heading, the bullet and the sentence


def test_system_block_unchanged_after_memory_save(workspace: Workspace, clock: FixedClock) -> None:
    workspace.memory_file.write_text(MEMORY, encoding="utf-8")
    before = build_context(workspace)
    clock.advance(minutes=3)
    assert not tools.call(workspace, "memory_save", {"text": "Mua hoa"}, tools.Actor()).is_error
    after = build_context(workspace)
    assert after.system == before.system
    assert "- 14:08 Mua hoa" in after.preamble
    assert "Mua hoa" not in before.preamble


def set_config(ws: Workspace, extra: str) -> Workspace:
    config = ws.root / CONFIG_PATH
    config.write_text(config.read_text(encoding="utf-8") + extra, encoding="utf-8")
    return Workspace(ws.root, read_config(ws.root) or ws.config, ws._clock)


def test_budgets_come_from_the_config(workspace: Workspace) -> None:
    assert budgets_from_config(workspace) == Budgets()
    ws = set_config(workspace, "\n[context]\nmemory_tokens = 60\nnotes_tokens = 5\n")
    assert budgets_from_config(ws) == Budgets(memory=60, facts=Budgets().facts, notes=5)
    lines = ["# MEMORY", *(f"- 2026-01-{d:02d}: entry number {d}" for d in range(1, 29))]
    ws.memory_file.write_text("\n".join(lines), encoding="utf-8")
    ctx = build_context(ws)
    assert 0 < ctx.omitted["memory"] < 28
    assert "older entries are not shown here; memory_search finds them" in ctx.system


@pytest.mark.parametrize("value", ["-1", '"many"', "true", "1.5"])
def test_a_bad_budget_names_the_setting(workspace: Workspace, value: str) -> None:
    with pytest.raises(TrinhoError, match=r"\[context\] facts_tokens must be a whole number"):
        set_config(workspace, f"\n[context]\nfacts_tokens = {value}\n")


def announced(ws: Workspace) -> list[Notification]:
    return [entry.notification for entry in Outbox(ws).entries()]


def test_the_owner_is_warned_once_per_overflow(workspace: Workspace, clock: FixedClock) -> None:
    ws = set_config(workspace, "\n[context]\nnotes_tokens = 20\n")
    build_context(ws)
    assert announced(ws) == []
    assert not (ws.internal / WARNINGS_FILE).exists()
    for i in range(6):
        tools.call(ws, "memory_save", {"text": f"ghi chú số {i} khá dài"}, tools.Actor())
    for _ in range(3):
        assert build_context(ws).omitted["notes"] > 0
    notices = announced(ws)
    assert [n.id for n in notices] == ["context-budget:notes:2026-11-29"]
    assert "earlier notes are left out of the prompt" in notices[0].summary
    assert notices[0].title == "The prompt's memory is over budget"
    clock.advance(days=2)
    assert build_context(ws).omitted["notes"] == 0
    tools.call(ws, "memory_save", {"text": "x " * 200}, tools.Actor())
    build_context(ws)
    build_context(ws)
    assert sorted(n.id for n in announced(ws)) == [
        "context-budget:notes:2026-11-29",
        "context-budget:notes:2026-12-01",
    ]


def test_warning_text_follows_the_locale() -> None:
    warning = BudgetWarning("context-budget:memory:2026-11-29", "memory", 12, 6000)
    assert "12 mục cũ hơn" in warning_text("vi", warning)
    assert "memory_tokens" in warning_text("en", warning)


@given(st.lists(st.fixed_dictionaries({p: st.integers(0, 2) for p in PARTS}), max_size=20))
def test_one_warning_per_overflow_episode(history: list[dict[str, int]]) -> None:
    state: dict[str, str] = {}
    warned = dict.fromkeys(PARTS, 0)
    day = TODAY
    for omitted in history:
        state, new = budget_warnings(state, omitted, Budgets(), day)
        for warning in new:
            warned[warning.part] += 1
        assert set(state) == {p for p in PARTS if omitted[p] > 0}
    for part in PARTS:
        flags = [o[part] > 0 for o in history]
        episodes = sum(1 for i, f in enumerate(flags) if f and (i == 0 or not flags[i - 1]))
        assert warned[part] == episodes


def test_cli_context_json_shape(
    cli_backend: CliBackend, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["init", "--locale", "vi", "--tz", "Asia/Ho_Chi_Minh"]) == 0
    monkeypatch.setenv("TRINHO_NOW", "2026-11-28T20:00:00+07:00")
    assert main(["note", "Mua hoa"]) == 0
    monkeypatch.setenv("TRINHO_NOW", "2026-11-29T14:05:00+07:00")
    assert main(["note", "Gọi cho bà"]) == 0
    assert main(["fact", "set", "que", "Huế"]) == 0
    capsys.readouterr()
    assert main(["context", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"system", "preamble", "tokens", "omitted"}
    assert set(data["tokens"]) == {"system", "preamble"}
    assert data["tokens"]["preamble"] == estimate_tokens(data["preamble"])
    assert "## Ghi chú hôm nay (2026-11-29)\n- 14:05 Gọi cho bà" in data["preamble"]
    assert "20:00 Mua hoa" in data["preamble"] and "que: Huế" in data["system"]
    assert data["omitted"] == {"memory": 0, "facts": 0, "notes": 0}
    assert main(["context"]) == 0
    human = capsys.readouterr().out
    assert human.startswith("=== Khối hệ thống (")
    assert "Gọi cho bà" in human


def test_facts_index_goes_into_the_system_block(workspace: Workspace, clock: FixedClock) -> None:
    chat = tools.Actor()
    for key, value, since in [
        ("home_city", "Đà Nẵng", "2025-01-05"),
        ("allergy", "tôm", "2026-03-01"),
        ("partner", "Lan", "2026-11-20"),
    ]:
        args = {"key": key, "value": value, "basis": "user", "valid_from": since}
        assert not tools.call(workspace, "user_memory_save", args, chat).is_error
    ctx = build_context(workspace)
    assert "home_city: Đà Nẵng (user, since 2025-01-05)" in ctx.system
    assert ctx.system.index("allergy") < ctx.system.index("home_city") < ctx.system.index("partner")
    assert "partner" not in ctx.preamble
    tight = build_context(workspace, budgets=Budgets(facts=30))
    assert "partner: Lan" in tight.system, "the newest fact is kept"
    assert "home_city" not in tight.system
    assert tight.omitted["facts"] == 2
    assert "(2 more facts are not shown here; memory_search finds them.)" in tight.system
    job = tools.Actor("job", "nightly")
    args = {"key": "partner", "value": "Linh", "basis": "inferred"}
    saved = tools.call(workspace, "user_memory_save", args, job).data
    assert saved is not None and saved["outcome"] == "proposed"
    assert build_context(workspace).system == ctx.system, "a proposal changes nothing"


def test_the_prompt_facts_have_one_limit_the_token_budget() -> None:
    """The index is capped in characters for `trinho facts` only; the prompt fits it in tokens."""
    at = datetime.fromisoformat("2026-11-01T09:00:00+07:00")
    many = [
        Fact(
            f"fact-{i:03}", FactVersion(f"giá trị khá dài số {i}", "user", YESTERDAY, None, at, "x")
        )
        for i in range(200)
    ]
    lines = fact_lines(many, TODAY, "en")
    assert len(lines) == 200 and sum(len(line.text) + 1 for line in lines) > DEFAULT_INDEX_CHARS
    assert lines[0] == FactLine(
        "fact-000: giá trị khá dài số 0 (user, since 2026-11-28)", YESTERDAY
    )
    _, capped, omitted = build_index(many, TODAY, "en")
    assert omitted > 0 and capped == [line.text for line in lines[: len(capped)]]
    roomy = assemble(inputs(facts=lines), Budgets(facts=100_000), "en")
    assert roomy.omitted["facts"] == 0
    assert all(line.text in roomy.system for line in lines)
    assert fact_lines([Fact("gone", None)], TODAY, "en") == []


@given(
    st.lists(st.tuples(entry_text, st.dates(date(2020, 1, 1), TODAY)), max_size=30),
    st.integers(0, 200),
)
def test_no_fact_cut_silently(facts: list[tuple[str, date]], budget: int) -> None:
    """Every fact is in the system block or counted as omitted, and the notice says how many."""
    lines = [FactLine(f"fact-{i}: {text}", since) for i, (text, since) in enumerate(facts)]
    ctx = assemble(inputs(facts=lines), Budgets(facts=budget), "en")
    shown = [line for line in lines if line.text in ctx.system.split("\n")]
    assert len(shown) + ctx.omitted["facts"] == len(lines)
    if ctx.omitted["facts"]:
        assert t("en", "context.facts_omitted", count=ctx.omitted["facts"]) in ctx.system
    kept_since = [line.since for line in shown]
    dropped_since = [line.since for line in lines if line not in shown]
    assert not kept_since or not dropped_since or min(kept_since) >= max(dropped_since)


@given(
    st.lists(st.tuples(st.integers(0, 1439), entry_text), max_size=20),
    st.lists(st.tuples(st.integers(0, 1439), entry_text), max_size=20),
    st.integers(0, 200),
)
def test_no_note_cut_silently(
    yesterday: list[tuple[int, str]], today: list[tuple[int, str]], budget: int
) -> None:
    """The latest notes are kept; every other one is counted in the omission notice."""

    def notes(day: date, items: list[tuple[int, str]]) -> list[NoteLine]:
        stamped = sorted(items)
        return [
            NoteLine(day, f"{m // 60:02d}:{m % 60:02d}", f"{text} #{day.day}.{i}")
            for i, (m, text) in enumerate(stamped)
        ]

    y, td = notes(YESTERDAY, yesterday), notes(TODAY, today)
    ctx = assemble(inputs(yesterday=y, today=td), Budgets(notes=budget), "en")
    every = [*y, *td]
    lines = ctx.preamble.split("\n")
    shown = [i for i, n in enumerate(every) if f"- {n.time} {n.text}" in lines]
    assert len(shown) + ctx.omitted["notes"] == len(every)
    assert shown == list(range(len(every) - len(shown), len(every))), "the latest are kept"
    if ctx.omitted["notes"]:
        assert t("en", "context.notes_omitted", count=ctx.omitted["notes"]) in ctx.preamble
