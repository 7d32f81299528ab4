"""Days in words: the days a line says, resolved from its own day, and the span a question
names, resolved from today, in English and Vietnamese; then in the index: a line that says
`yesterday` is found by a question naming that day, and the span is never a filter."""

from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trinho.conversations.store import Turn, import_turns
from trinho.search import Query, SearchIndex
from trinho.search.dates import (
    MAX_SPAN_DAYS,
    asked_span,
    day_token,
    day_tokens,
    said_days,
    span_tokens,
)
from trinho.search.rank import Tuning
from trinho.workspace import Workspace

days = st.dates(min_value=date(1900, 3, 1), max_value=date(2200, 12, 1))
EN_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
EN_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
VI_WEEKDAYS = ["thứ Hai", "thứ Ba", "thứ Tư", "thứ Năm", "thứ Sáu", "thứ Bảy", "Chủ nhật"]


@given(days, st.sampled_from(["yesterday", "last night", "hôm qua", "tối qua", "Hôm qua"]))
def test_yesterday_is_the_day_before(day: date, words: str) -> None:
    (said,) = said_days(f"We went to the lake {words}, it was fun", day)
    assert said.first == said.last == day - timedelta(days=1)


@given(days, st.sampled_from(["the day before yesterday", "hôm kia"]))
def test_the_day_before_yesterday(day: date, words: str) -> None:
    (said,) = said_days(words, day)
    assert said.first == day - timedelta(days=2)


@given(
    days, st.integers(1, 30), st.sampled_from(["{n} days ago", "{n} ngày trước", "{n} hôm trước"])
)
def test_days_ago_count_back(day: date, n: int, form: str) -> None:
    (said,) = said_days(form.format(n=n), day)
    assert said.first == said.last == day - timedelta(days=n)


@given(days, st.integers(0, 6))
def test_last_weekday_is_within_the_week_before(day: date, weekday: int) -> None:
    (said,) = said_days(f"last {EN_WEEKDAYS[weekday]} I started painting", day)
    assert said.first.weekday() == weekday
    assert 1 <= (day - said.first).days <= 7


@given(days, st.integers(0, 6), st.sampled_from(["tuần trước", "tuần rồi"]))
def test_vietnamese_weekday_of_last_week(day: date, weekday: int, week: str) -> None:
    (said,) = said_days(f"{VI_WEEKDAYS[weekday]} {week} mình đi Đà Lạt", day)
    assert said.first.weekday() == weekday
    monday = day - timedelta(days=day.weekday())
    assert monday - timedelta(days=7) <= said.first < monday


@given(days, st.sampled_from(["last week", "tuần trước"]))
def test_last_week_is_monday_to_sunday_before(day: date, words: str) -> None:
    (said,) = said_days(words, day)
    assert said.first.weekday() == 0 and (said.last - said.first).days == 6
    assert said.last < day <= said.last + timedelta(days=7)


@given(days, st.sampled_from(["last month", "tháng trước"]))
def test_last_month_is_a_whole_month(day: date, words: str) -> None:
    (said,) = said_days(words, day)
    assert said.month and said.first.day == 1
    assert said.last < day.replace(day=1) and said.last + timedelta(days=1) == day.replace(day=1)


@given(st.text(max_size=80), days)
def test_any_text_gives_days_near_its_own(text: str, day: date) -> None:
    for said in said_days(text, day):
        assert said.first <= said.last
        assert abs((said.first - day).days) <= 400


@given(days, st.integers(0, 5))
def test_tokens_hold_the_own_day_and_the_days_said(day: date, back: int) -> None:
    text = f"{back} days ago" if back else "nothing said"
    tokens = day_tokens(day, said_days(text, day))
    assert day_token(day) in tokens
    assert day_token(day - timedelta(days=back)) in tokens
    assert len(tokens) == len(set(tokens))


@given(days, days)
def test_a_day_written_in_english_is_asked(today: date, asked: date) -> None:
    month = EN_MONTHS[asked.month - 1]
    for text in (
        f"What was Sam doing on {month} {asked.day}, {asked.year}?",
        f"What happened on {asked.day} {month} {asked.year}?",
        f"on {asked.isoformat()}",
    ):
        span = asked_span(text, today)
        assert span is not None and not span.month
        assert span.first == asked - timedelta(days=1) and span.last == asked + timedelta(days=1)
        assert day_token(asked) in span_tokens(span)


@given(days, days, st.sampled_from(["ngày {d} tháng {m} năm {y}", "hôm {d}/{m}/{y}"]))
def test_a_day_written_in_vietnamese_is_asked(today: date, asked: date, form: str) -> None:
    text = "Mình ăn gì " + form.format(d=asked.day, m=asked.month, y=asked.year) + "?"
    span = asked_span(text, today, margin=0)
    assert span is not None and span.first == span.last == asked


@given(days, st.integers(1, 12), st.sampled_from(["in {name} {y}", "tháng {m} năm {y}"]))
def test_a_month_is_asked_as_a_whole(today: date, month: int, form: str) -> None:
    text = "Which hobby did Dave pick up " + form.format(name=EN_MONTHS[month - 1], m=month, y=2023)
    span = asked_span(text, today)
    assert span is not None and span.month
    assert (span.first.year, span.first.month, span.first.day) == (2023, month, 1)
    assert span_tokens(span) == [f"dm2023{month:02d}"]


@given(days, days)
def test_a_day_without_a_year_is_the_latest_not_after_today(today: date, asked: date) -> None:
    for text in (
        f"hôm {asked.day}/{asked.month} mình ăn gì?",
        f"on {EN_MONTHS[asked.month - 1]} {asked.day}",
    ):
        span = asked_span(text, today, margin=0)
        if span is None:  # 29 February of a year without one
            assert (asked.month, asked.day) == (2, 29)
            continue
        assert span.first <= today
        assert (span.first.month, span.first.day) == (asked.month, asked.day)
        assert (today - span.first).days < 366


@given(st.text(max_size=80), days)
def test_any_question_gives_a_short_span_or_none(text: str, today: date) -> None:
    span = asked_span(text, today)
    if span is not None:
        assert span.first <= span.last
        assert (span.last - span.first).days < MAX_SPAN_DAYS


@pytest.mark.parametrize(
    ("question", "first", "last"),
    [
        ("what did I do on the 4th?", date(2023, 12, 3), date(2023, 12, 5)),
        ("hôm 20/11 mình ăn gì?", date(2023, 11, 19), date(2023, 11, 21)),
        ("tuần trước mình gặp ai?", date(2023, 11, 26), date(2023, 12, 4)),
        ("what did we eat last Friday?", date(2023, 11, 30), date(2023, 12, 2)),
        ("hôm thứ Sáu mình đi đâu?", date(2023, 11, 30), date(2023, 12, 2)),
    ],
)
def test_questions_of_the_owner(question: str, first: date, last: date) -> None:
    span = asked_span(question, date(2023, 12, 5))  # a Tuesday
    assert span is not None and (span.first, span.last) == (first, last)


@pytest.mark.parametrize("question", ["When did Caroline go to the group?", "Mai thích gì?"])
def test_a_question_naming_no_day_has_no_span(question: str) -> None:
    assert asked_span(question, date(2023, 12, 5)) is None


def _at(day: date, hour: int = 10) -> datetime:
    return datetime(day.year, day.month, day.day, hour, tzinfo=UTC)


def _talk(workspace: Workspace) -> None:
    import_turns(
        workspace,
        [
            Turn(_at(date(2023, 12, 4)), "Sam", "Painting the fence, finally.", "c"),
            Turn(_at(date(2023, 12, 5)), "Sam", "Yesterday I tried the pottery class.", "a"),
            Turn(_at(date(2023, 12, 9)), "Sam", "Pottery and painting are my thing.", "b"),
            *[
                Turn(_at(date(2023, 11, d)), "Sam", f"Painting again, canvas {d + 100}.", f"p{d}")
                for d in range(1, 20)
            ],
        ],
    )


def test_a_line_that_says_yesterday_is_found_by_the_day_asked(workspace: Workspace) -> None:
    _talk(workspace)
    question = Query("What was Sam doing on December 4, 2023?", limit=2, today=date(2023, 12, 31))
    with SearchIndex(workspace) as index:
        found = index.find(question)
    assert {h.refs[0] for h in found.hits} <= {"a", "c"}
    why = " ".join(found.why[[h.refs[0] for h in found.hits].index("a")])
    assert "yesterday = 2023-12-04" in why
    assert "in the days asked" in why


def test_the_span_is_never_a_filter(workspace: Workspace) -> None:
    """Lines outside the span still come, after the ones in it."""
    _talk(workspace)
    question = Query("painting on December 4, 2023", limit=10, today=date(2023, 12, 31))
    with SearchIndex(workspace) as index:
        refs = [h.refs[0] for h in index.search(question)]
    with SearchIndex(workspace, tuning=Tuning(date_weight=0.0)) as index:
        without = [h.refs[0] for h in index.search(question)]
    assert refs[0] == "c"  # said on 4 December
    assert len(refs) == 10 and any(r.startswith("p") for r in refs)
    assert without[0] != "c"
