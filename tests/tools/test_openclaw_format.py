"""OpenClaw's memory_get excerpt and answers, as pure functions (trinho.tools.format)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from trinho.tools import format as oc

LINES = st.lists(st.text(st.characters(exclude_characters="\n"), max_size=40), max_size=60)


@given(LINES, st.integers(1, 70), st.one_of(st.none(), st.integers(1, 70)), st.integers(1, 200))
def test_an_excerpt_is_whole_lines_within_its_budget(
    lines: list[str], start: int, count: int | None, budget: int
) -> None:
    got = oc.excerpt("MEMORY.md", lines, start, count, budget)
    assert got["status"] == "ok" and got["path"] == "MEMORY.md" and got["from"] == start
    shown = got["lines"]
    assert shown <= (count or oc.GET_LINES) and start - 1 + shown <= max(len(lines), start - 1)
    body = "\n".join(lines[start - 1 : start - 1 + shown])
    if shown and len(lines[start - 1]) <= budget:
        assert got["text"].startswith(body) and len(body) <= budget
    more = start + shown <= len(lines)
    assert ("nextFrom" in got) == more
    if more:
        assert got["nextFrom"] == start + shown and f"from={start + shown}" in got["text"]
    cut = shown > 0 and len(lines[start - 1]) > budget
    assert got.get("truncated", False) == (more or cut)
    if not got.get("truncated"):
        assert got["text"] == body


@given(LINES, st.integers(1, 200))
def test_following_next_from_reads_every_line_once_in_order(lines: list[str], budget: int) -> None:
    if any(len(line) > budget for line in lines):
        return  # a line longer than the budget is cut: only a plain read gives all of it
    read: list[str] = []
    start = 1
    while True:
        got = oc.excerpt("f.md", lines, start, 7, budget)
        read.extend(lines[start - 1 : start - 1 + got["lines"]])
        if "nextFrom" not in got:
            break
        assert got["nextFrom"] > start
        start = got["nextFrom"]
    assert read == lines


def test_the_default_reads_120_lines() -> None:
    lines = [str(i) for i in range(200)]
    got = oc.excerpt("f.md", lines, 1)
    assert got["lines"] == 120 and got["nextFrom"] == 121 and got["truncated"] is True


def test_a_line_longer_than_the_budget_is_cut_and_says_so() -> None:
    got = oc.excerpt("f.md", ["x" * 50, "y"], 1, None, 10)
    assert got["lines"] == 1 and got["text"].startswith("x" * 10 + "\n\n[")
    assert got["truncated"] is True and got["nextFrom"] == 2
    alone = oc.excerpt("f.md", ["x" * 50], 1, None, 10)
    assert alone["truncated"] is True and "nextFrom" not in alone
    assert "characters" in alone["text"]


def test_the_answers_a_model_reads_instead_of_a_failed_call() -> None:
    assert oc.not_found("memory/x.md") == {"status": "not_found", "path": "memory/x.md", "text": ""}
    refused = oc.read_error("a", oc.MEMORY_PATH_NOT_ALLOWED, "no")
    assert refused == {
        "status": "error",
        "path": "a",
        "text": "",
        "code": oc.MEMORY_PATH_NOT_ALLOWED,
        "error": "no",
    }
    flagged = oc.sessions_unavailable()
    assert flagged["results"] == [] and flagged["disabled"] and flagged["unavailable"]
    assert {"warning", "action", "error"} <= set(flagged)
