"""The usage ledger and budgets: every call recorded, sums right, budgets decide."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trinho.config.files import parse_config
from trinho.errors import TrinhoError
from trinho.models import ChatRequest, ChatResponse, ScriptedModel, Usage, load_model, user
from trinho.models.base import FailureKind
from trinho.models.ledger import (
    LEDGER_PATH,
    PURPOSES,
    Budget,
    BudgetLimits,
    UsageRecord,
    budget_from,
    budget_limits,
    load_budget,
    parse_ledger,
    parse_record,
    read_ledger,
    record_line,
    summarize,
)
from trinho.workspace import Workspace

counts = st.integers(0, 10**9)
instants = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
)
records = st.builds(
    UsageRecord,
    at=instants,
    purpose=st.sampled_from(PURPOSES),
    model=st.text(max_size=40),
    input_tokens=counts,
    output_tokens=counts,
    run=st.none() | st.text(max_size=20),
    cached_input_tokens=st.just(0) | counts,
    failure=st.none() | st.sampled_from(get_args(FailureKind)) | st.text(max_size=20),
)


@given(records)
def test_a_record_survives_its_line(record: UsageRecord) -> None:
    line = record_line(record)
    assert "\n" not in line
    assert parse_record(line) == record
    assert ("cached_input_tokens" in json.loads(line)) == (record.cached_input_tokens > 0)
    assert ("failure" in json.loads(line)) == (record.failure is not None)


def test_a_line_written_before_failures_were_recorded_reads_as_an_answered_call() -> None:
    old = (
        '{"at": "2026-11-29T10:00:00+07:00", "purpose": "chat", "model": "ollama:m", '
        '"input_tokens": 30, "output_tokens": 4}'
    )
    record = parse_record(old)
    assert record is not None and record.failure is None and record.total_tokens == 34
    assert record_line(record) == old
    newer = old.replace('"output_tokens": 4}', '"output_tokens": 0, "failure": "overheated"}')
    assert parse_record(newer) == replace(record, output_tokens=0, failure="overheated")


one_line_text = st.text(st.characters(exclude_characters="\n"), max_size=80)


@given(st.lists(records), st.lists(one_line_text))
def test_damaged_lines_are_skipped_and_the_records_kept_in_order(
    good: list[UsageRecord], junk: list[str]
) -> None:
    lines = [record_line(r) for r in good]
    mixed = [x for pair in zip(lines, junk, strict=False) for x in pair]
    mixed += lines[len(junk) :] + junk[len(lines) :]
    ledger = parse_ledger("\n".join(mixed))
    junk_records = [parse_record(j) for j in junk if j.strip()]
    assert ledger.skipped == junk_records.count(None)
    assert [r for r in ledger.records if r in good] == good
    assert len(ledger.records) == len(good) + len(junk_records) - ledger.skipped


@pytest.mark.parametrize(
    "line",
    [
        "",
        "{",
        "[]",
        '{"at": "2026-11-29T10:00:00", "purpose": "chat", "model": "m", '
        '"input_tokens": 1, "output_tokens": 1}',
        '{"at": "2026-11-29T10:00:00+07:00", "purpose": "fun", "model": "m", '
        '"input_tokens": 1, "output_tokens": 1}',
        '{"at": "2026-11-29T10:00:00+07:00", "purpose": "chat", "model": "m", '
        '"input_tokens": -1, "output_tokens": 1}',
        '{"at": "2026-11-29T10:00:00+07:00", "purpose": "chat", "model": "m", '
        '"input_tokens": true, "output_tokens": 1}',
        '{"at": "2026-11-29T10:00:00+07:00", "purpose": "chat", "model": "m", '
        '"input_tokens": 1, "output_tokens": 1, "run": 5}',
        '{"at": 5, "purpose": "chat", "model": "m", "input_tokens": 1, "output_tokens": 1}',
        '{"at": "2026-11-29T10:00:00+07:00", "purpose": "chat", "model": "m", '
        '"input_tokens": 1, "output_tokens": 1, "cached_input_tokens": -1}',
        '{"at": "2026-11-29T10:00:00+07:00", "purpose": "chat", "model": "m", '
        '"input_tokens": 1, "output_tokens": 1, "cached_input_tokens": null}',
        '{"at": "2026-11-29T10:00:00+07:00", "purpose": "chat", "model": "m", '
        '"input_tokens": 1, "output_tokens": 1, "cached_input_tokens": false}',
        '{"at": "2026-11-29T10:00:00+07:00", "purpose": "chat", "model": "m", '
        '"input_tokens": 1, "output_tokens": 1, "failure": 5}',
    ],
)
def test_malformed_lines_are_not_records(line: str) -> None:
    assert parse_record(line) is None


@given(st.lists(records), st.none() | instants)
def test_groups_add_up_to_the_total(items: list[UsageRecord], since: datetime | None) -> None:
    summary = summarize(items, since=since)
    kept = [r for r in items if since is None or r.at >= since]
    assert summary.total.calls == len(kept)
    assert summary.total.total_tokens == sum(r.total_tokens for r in kept)
    for groups in (summary.by_purpose, summary.by_model):
        assert sum(g.calls for g in groups.values()) == summary.total.calls
        assert sum(g.input_tokens for g in groups.values()) == summary.total.input_tokens
        assert sum(g.output_tokens for g in groups.values()) == summary.total.output_tokens
        cached = sum(g.cached_input_tokens for g in groups.values())
        assert (
            cached == summary.total.cached_input_tokens == sum(r.cached_input_tokens for r in kept)
        )
        assert sum(g.failed_calls for g in groups.values()) == summary.total.failed_calls
    failed = [r for r in kept if r.failure is not None]
    assert summary.total.failed_calls == len(failed) == sum(summary.by_failure.values())
    assert set(summary.by_failure) == {r.failure for r in failed}


def test_every_call_through_load_model_lands_in_the_ledger(workspace: Workspace) -> None:
    scripted = ScriptedModel([ChatResponse("a", usage=Usage(100, 20)), "b"], name="scripted:x")
    model = load_model(workspace, "rewrite", run="run-1", model=scripted)
    model.chat(ChatRequest((user("one"),)))
    model.chat(ChatRequest((user("two"),)))
    lines = (workspace.root / LEDGER_PATH).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2
    first = json.loads(lines[0])
    assert first == {
        "at": workspace.now().isoformat(),
        "purpose": "rewrite",
        "model": "scripted:x",
        "input_tokens": 100,
        "output_tokens": 20,
        "run": "run-1",
        "estimated_input_tokens": 1,  # beside the server's count: it calibrates the estimate
    }
    ledger = read_ledger(workspace)
    assert ledger.skipped == 0
    assert [r.purpose for r in ledger.records] == ["rewrite", "rewrite"]
    assert model.usage == scripted.usage


def test_cached_input_tokens_reach_the_ledger_only_when_there_are_some(
    workspace: Workspace,
) -> None:
    replies = [ChatResponse("a", usage=Usage(1000, 20, 900)), ChatResponse("b", usage=Usage(5, 1))]
    model = load_model(workspace, "rewrite", model=ScriptedModel(replies))
    model.chat(ChatRequest((user("one"),)))
    model.chat(ChatRequest((user("two"),)))
    first, second = (workspace.root / LEDGER_PATH).read_text(encoding="utf-8").splitlines()
    assert json.loads(first)["cached_input_tokens"] == 900
    assert "cached_input_tokens" not in json.loads(second)
    assert [r.cached_input_tokens for r in read_ledger(workspace).records] == [900, 0]
    assert model.usage == Usage(1005, 21, 900)
    assert summarize(read_ledger(workspace).records).total.cached_input_tokens == 900


def test_a_failed_call_is_recorded_with_its_failure_and_no_tokens(workspace: Workspace) -> None:
    model = load_model(workspace, "chat", model=ScriptedModel([]))
    with pytest.raises(TrinhoError):
        model.chat(ChatRequest((user("x"),)))
    (record,) = read_ledger(workspace).records
    assert (record.failure, record.purpose, record.total_tokens) == ("exhausted", "chat", 0)
    assert model.usage == Usage()
    line = json.loads((workspace.root / LEDGER_PATH).read_text("utf-8"))
    assert line["failure"] == "exhausted" and line["input_tokens"] == 0


def test_an_exception_that_is_no_model_failure_records_nothing(workspace: Workspace) -> None:
    def broken(request: ChatRequest) -> str:
        raise RuntimeError("a bug, not a call")

    with pytest.raises(RuntimeError):
        load_model(workspace, "chat", model=ScriptedModel(broken)).chat(ChatRequest((user("x"),)))
    assert not (workspace.root / LEDGER_PATH).exists()


def test_a_torn_last_line_is_skipped_and_appending_continues(workspace: Workspace) -> None:
    path = workspace.root / LEDGER_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b'{"at": "2026-11-29T10:00:00+07:00", "purp')
    load_model(workspace, "job", model=ScriptedModel(["ok"])).chat(ChatRequest((user("x"),)))
    ledger = read_ledger(workspace)
    assert ledger.skipped == 1
    assert [r.purpose for r in ledger.records] == ["job"]


def test_budget_allows_until_a_limit_would_be_passed() -> None:
    budget = Budget(BudgetLimits(run_tokens=1000, week_tokens=5000), run_spent=900, week_spent=0)
    assert budget.allows(100)
    assert not budget.allows(101)
    assert budget.exceeded(101) == "run"
    assert Budget(BudgetLimits(week_tokens=10), 0, 10).exceeded(1) == "week"
    assert Budget(BudgetLimits()).allows(10**12)
    assert budget.spend(100).run_spent == 1000 and budget.spend(100).week_spent == 100
    assert budget.refusal(50, "en") is None
    assert "this run's budget (900 of 1000 used)" in (budget.refusal(500, "en") or "")
    assert (budget.refusal(500, "vi") or "").startswith("Đã bỏ qua")


def test_budget_counts_the_run_and_the_last_seven_days() -> None:
    now = datetime(2026, 11, 29, 12, tzinfo=UTC)

    def rec(days_ago: float, tokens: int, run: str | None) -> UsageRecord:
        return UsageRecord(now - timedelta(days=days_ago), "screen", "m", tokens, 0, run)

    items = [rec(8, 1000, None), rec(6, 200, "r1"), rec(1, 30, "r2"), rec(0, 4, "r2")]
    budget = budget_from(BudgetLimits(100, 300), items, now, "r2")
    assert (budget.run_spent, budget.week_spent) == (34, 234)
    assert budget.allows(66) and not budget.allows(67)


def test_budget_limits_come_from_the_config(workspace: Workspace, tmp_path: Path) -> None:
    config = parse_config("[budget]\nrun_tokens = 50000\nweek_tokens = 200000\n", "cfg")
    assert budget_limits(config) == BudgetLimits(50000, 200000)
    assert load_budget(workspace).limits == BudgetLimits()
    for bad in ("run_tokens = -1", 'week_tokens = "lots"', "run_tokens = 1.5"):
        with pytest.raises(TrinhoError) as info:
            budget_limits(parse_config(f"[budget]\n{bad}\n", "cfg"))
        assert bad.split(" ")[0] in str(info.value)


@pytest.mark.parametrize(
    "line",
    [
        '{"at": "2026-11-29T14:05:00+07:00", "purpose": "rewrite", "model": "scripted:model", '
        '"input_tokens": 574, "output_tokens": 91, "run": "2026-W48"}',
        '{"at": "2026-11-29T14:05:00+07:00", "purpose": "chat", "model": "ollama:qwen3:8b", '
        '"input_tokens": 1200, "output_tokens": 0}',
        '{"at": "2026-11-29T14:05:00+07:00", "purpose": "rewrite", "model": "anthropic:c", '
        '"input_tokens": 9000, "output_tokens": 310, "cached_input_tokens": 8200, '
        '"run": "2026-W48"}',
    ],
)
def test_a_line_as_written_reads_back_and_is_written_byte_for_byte(line: str) -> None:
    record = parse_record(line)
    assert record is not None
    assert record_line(record) == line
