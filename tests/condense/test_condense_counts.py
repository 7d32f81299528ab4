"""Counts the owner reads in a run's report and its announcement take their noun's form:
"1 note", "1 model call", never "1 notes"; Vietnamese has one form, the numbers as they are."""

from __future__ import annotations

import re
from datetime import date

from hypothesis import given
from hypothesis import strategies as st

from trinho.condense.announce import summary_line
from trinho.condense.rules.report import Calls, DayUsed, RunReport, day_line, render_report

DAY = date(2026, 11, 28)
counts = st.integers(min_value=0, max_value=3)
WRONG_ONE = re.compile(
    r"\b1 (notes|turns|changes|new lines|model calls|tokens|restarts|operations|other lines)\b"
)


def _form(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


@given(counts, counts, counts, counts, counts)
def test_the_report_gives_every_count_its_form(
    notes: int, turns: int, calls: int, tokens: int, restarts: int
) -> None:
    report = RunReport(
        "2026-W48",
        "done",
        DAY,
        DAY,
        days=(DayUsed(DAY, notes, turns, (1,), True),),
        calls=(Calls("rewrite", calls, tokens, 0),),
        restarts=restarts,
    )
    english = render_report(report, "en")
    said_day = f"{_form(notes, 'note', 'notes')}, {_form(turns, 'turn', 'turns')}"
    said_calls = f"{_form(calls, 'model call', 'model calls')}, {_form(tokens, 'token', 'tokens')}"
    assert f"2026-11-28: {said_day}" in english
    assert f"; {said_calls};" in english
    assert f"; {_form(restarts, 'restart', 'restarts')} after a hand edit" in english
    assert "0 changes applied, 0 held for approval; 0 new lines:" in english
    assert WRONG_ONE.search(english) is None
    vietnamese = render_report(report, "vi")
    assert f"2026-11-28: {notes} ghi chú, {turns} lượt hội thoại" in vietnamese
    assert f"; {calls} lần gọi mô hình, {tokens} token; {restarts} lần làm lại do sửa tay" in (
        vietnamese
    )


def test_a_day_a_damaged_report_lacks_a_count_of_shows_what_it_holds() -> None:
    assert day_line(DAY, None, 1, True, "en") == "  2026-11-28: None, 1 turn"


@given(counts, st.integers(min_value=1, max_value=3))
def test_the_announcement_gives_both_counts_their_form(auto: int, held: int) -> None:
    english = summary_line(auto, held, "en")
    applied = "1 change was applied by itself" if auto == 1 else f"{auto} changes were applied"
    waits = "1 waits for your approval." if held == 1 else f"{held} wait for your approval."
    assert english.startswith(applied) and english.endswith(waits)
    assert summary_line(auto, held, "vi") == (
        f"{auto} thay đổi đã tự áp dụng; {held} thay đổi chờ bạn duyệt."
    )
