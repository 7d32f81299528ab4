"""The fact file: what is rendered is parsed back the same, and every broken file is refused
with a keyed error that names the file and line, in English and in Vietnamese."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support.catalogs import CATALOG
from trinho.errors import TrinhoError
from trinho.facts.format import parse_fact, render_fact
from trinho.facts.rules import BASES, Fact, FactVersion

WHERE = "users/owner/facts/home-city.md"

text_values = st.text(
    st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from('\n\t"\\:-#đĐ'),
    min_size=1,
    max_size=40,
)
days = st.dates(date(1990, 1, 1), date(2090, 1, 1))
moments = st.datetimes(datetime(2000, 1, 1), datetime(2080, 1, 1)).map(
    lambda d: d.replace(microsecond=0).astimezone()
)


@st.composite
def versions_st(draw: st.DrawFn, ended: bool) -> FactVersion:
    start = draw(days)
    length = draw(st.integers(0, 400))
    end = start + timedelta(days=length) if ended or draw(st.booleans()) else None
    return FactVersion(
        value=draw(text_values),
        basis=draw(st.sampled_from(BASES)),
        valid_from=start,
        valid_to=end,
        recorded_at=draw(moments),
        source=draw(text_values),
        confirmed_on=draw(st.none() | days),
    )


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(st.none(), versions_st(ended=False)),
    st.lists(versions_st(ended=True), max_size=4),
)
def test_render_parse_round_trip(head: FactVersion | None, history: list[FactVersion]) -> None:
    fact = Fact("home-city", head, tuple(history))
    parsed = parse_fact(render_fact(fact), "x.md", expected_key="home-city")
    assert parsed == fact


GOOD = """---
key: home-city
value: "Hà Nội"
basis: user
valid_from: 2026-06-01
recorded_at: 2026-06-01T09:00:00+07:00
source: "chat"
---

## History

- value: "Huế"
  basis: user
  valid_from: 2020-01-01
  valid_to: 2026-06-01
  recorded_at: 2020-01-01T09:00:00+07:00
  source: "chat"
"""


def test_a_good_file_is_read_and_written_back_exactly() -> None:
    fact = parse_fact(GOOD, WHERE, expected_key="home-city")
    assert [(v.value, v.line) for v in fact.versions()] == [("Huế", 12), ("Hà Nội", 3)]
    assert render_fact(fact) == GOOD


def _broken(old: str, new: str) -> str:
    assert old in GOOD
    return GOOD.replace(old, new, 1)


BROKEN = [
    (GOOD.removeprefix("---\n"), "error.fact_file.no_front_matter", 1),
    ("---\nkey: home-city\n", "error.fact_file.not_closed", 1),
    (_broken("key: home-city\n", ""), "error.fact_file.no_key", 7),
    (_broken("key: home-city", "key: other"), "error.fact_file.key_mismatch", 2),
    (_broken("key: home-city", "key: Home City"), "error.slug.invalid", 2),
    (GOOD + "some prose\n", "error.fact_file.unexpected_line", 18),
    (_broken("  valid_to: 2026-06-01\n", ""), "error.fact_file.no_valid_to", 12),
    (_broken("basis: user", "basis user"), "error.fact_file.bad_field", 4),
    (_broken("basis: user", "mood: user"), "error.fact_file.bad_field", 4),
    (
        _broken('source: "chat"\n---', 'source: "chat"\nsource: "x"\n---'),
        "error.fact_file.field_twice",
        8,
    ),
    (_broken("basis: user\n", ""), "error.fact_file.missing_field", 3),
    (_broken('value: "Hà Nội"', "value: Hà Nội"), "error.fact_file.not_json_string", 3),
    (_broken('source: "chat"', "source: 7"), "error.fact_file.not_json_string", 7),
    (_broken("T09:00:00+07:00", "T09:00:00"), "error.fact_file.bad_recorded_at", 6),
    (
        _broken("recorded_at: 2026-06-01T09", "recorded_at: soon"),
        "error.fact_file.bad_recorded_at",
        6,
    ),
    (_broken("basis: user", "basis: maybe"), "error.fact_file.bad_basis", 4),
    (
        _broken("valid_to: 2026-06-01", "valid_to: 2019-01-01"),
        "error.fact_file.dates_order",
        15,
    ),
    (_broken("valid_from: 2020-01-01", "valid_from: 2020-02-30"), "error.date.invalid", 14),
]


def test_every_fact_file_error_of_the_catalog_is_tried() -> None:
    tried = {key for _, key, _ in BROKEN}
    assert {k for k in CATALOG if k.startswith("error.fact_file.")} <= tried


@pytest.mark.parametrize(("text", "key", "line"), BROKEN)
def test_every_broken_file_is_a_keyed_error_naming_file_and_line(
    text: str, key: str, line: int
) -> None:
    with pytest.raises(TrinhoError) as caught:
        parse_fact(text, WHERE, expected_key="home-city")
    error = caught.value
    assert error.key == key
    place = f"{WHERE}:{line}: "
    vietnamese = error.localized("vi")
    assert place in str(error) and place in vietnamese and vietnamese != str(error)
    if key.startswith("error.fact_file."):
        assert str(error).startswith(place) and vietnamese.startswith(place)


def test_the_first_problem_in_the_file_is_the_one_reported() -> None:
    """A history item is read when the next starts: its missing field comes before later lines."""
    two = GOOD.replace("  basis: user\n", "") + "- nonsense\n"
    with pytest.raises(TrinhoError) as caught:
        parse_fact(two, WHERE, expected_key="home-city")
    assert caught.value.key == "error.fact_file.missing_field"
