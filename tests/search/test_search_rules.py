"""Every search rule (`trinho.search.base.RULES`) on both backends: one case per rule, run on
the file index and on PostgreSQL through the records facade. A rule the registry gives to
one backend only is expected to fail on the other (strictly: once PostgreSQL keeps it, the
registry must say so). A rule added to the registry without a case here fails the listing."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import TZ
from support.backends import Backend
from support.concept_embedder import ConceptEmbedder
from support.reply_talk import QUESTION, REPLY, SAID, turns
from trinho.conversations.store import Turn
from trinho.search import Query, SearchIndex
from trinho.search.base import RULES, Rule
from trinho.search.documents import fact_shown, is_current_fact
from trinho.search.rank import current_first


def texts(backend: Backend, query: Query) -> list[str]:
    return [h.text for h in backend.records().search(query)]


def talk(backend: Backend, said: Sequence[tuple[str, str]], day: int = 1) -> None:
    at = datetime(2026, 11, day, 9, tzinfo=UTC)
    backend.transcripts().import_turns(
        Turn(at + timedelta(minutes=i), who, text, f"t{day}:{i}")
        for i, (who, text) in enumerate(said)
    )


def folding(backend: Backend) -> None:
    backend.records().save_note("Đà Nẵng painting class")
    for query in ("da nang", "ĐÀ NẴNG", "painted"):
        assert texts(backend, Query(query)) == ["Đà Nẵng painting class"], query


def bm25(backend: Backend) -> None:
    records = backend.records()
    for text in ["rice", "rice", "rice fish", "rice", "fish"]:
        records.save_note(text)
    records.write_memory("# Memory\n- 2026-11-22: loves rice and fish soup\n")
    found = texts(backend, Query("fish soup"))
    assert found[0] == "loves rice and fish soup" and set(found[1:]) == {"rice fish", "fish"}


def diacritics(backend: Backend) -> None:
    backend.records().save_note("ma")
    backend.records().save_note("má")
    assert texts(backend, Query("má")) == ["má", "ma"]


def filters(backend: Backend) -> None:
    records = backend.records()
    records.save_note("tea at home")
    backend.clock.advance(days=1)
    records.save_note("tea with Lan")
    records.save_fact("drink", "tea", basis="user")
    today = backend.clock.now.astimezone(ZoneInfo(TZ)).date()
    assert texts(backend, Query("tea", since=today, kinds=("note",))) == ["tea with Lan"]
    assert texts(backend, Query("tea", until=today - timedelta(days=1))) == ["tea at home"]
    assert [h.kind for h in records.search(Query("tea", kinds=("fact",)))] == ["fact"]
    assert len(texts(backend, Query("tea", limit=2))) == 2


def who(backend: Backend) -> None:
    talk(
        backend,
        [("Minh", "Mai and pottery, pottery"), ("Mai", "I tried the pottery class with my aunt")],
    )
    assert texts(backend, Query("What did Mai say about pottery?"))[0].startswith("I tried")


def when(backend: Backend) -> None:
    talk(backend, [("Sam", "pottery pottery is fun"), ("Sam", "pottery class last Friday")])
    assert texts(backend, Query("When did Sam go to pottery?"))[0] == "pottery class last Friday"


def days_asked(backend: Backend) -> None:
    talk(backend, [("Sam", "Yesterday I tried the pottery class.")], day=5)
    for day in range(6, 20):
        talk(backend, [("Sam", f"At the pottery shop, {day + 100}.")], day=day)
    question = "What was Sam doing at pottery on November 4?"
    found = texts(backend, Query(question, limit=3, today=date(2026, 11, 30)))
    assert found[0] == "Yesterday I tried the pottery class."


def reply(backend: Backend) -> None:
    backend.transcripts().import_turns(turns(*SAID))
    assert REPLY in texts(backend, Query(QUESTION, limit=3))


def current_fact(backend: Backend) -> None:
    records = backend.records()
    records.save_fact("city", "Huế", basis="user")
    backend.clock.advance(days=1)
    records.save_fact("city", "Hà Nội", basis="user")
    found = texts(backend, Query("Huế"))
    assert len(found) == 2 and "Hà Nội" in found[0] and "Huế" in found[1]
    day = backend.clock.now.astimezone(ZoneInfo(TZ)).date()
    assert texts(backend, Query("Huế", until=day - timedelta(days=1))) == found[1:]


def synonyms(backend: Backend) -> None:
    backend.records().save_note("điều hòa hỏng rồi")
    assert texts(backend, Query("máy lạnh")) == ["điều hòa hỏng rồi"]


def fact_people(backend: Backend) -> None:
    backend.records().save_fact("wife", "Lan", basis="user")
    backend.records().save_note("Lan went to Huế")
    assert "Lan went to Huế" in texts(backend, Query("where did my wife travel"))


def meaning(backend: Backend) -> None:
    backend.records().save_note("fixed the car")
    backend.records().save_note("fixed the door")
    if backend.kind == "files":
        with SearchIndex(
            backend.workspace, embedder=ConceptEmbedder("concepts:v1", {"car": 0, "automobile": 0})
        ) as index:
            found = [h.text for h in index.search(Query("automobile"))]
    else:
        found = texts(backend, Query("automobile"))
    assert found[:1] == ["fixed the car"]


CASES: dict[str, Callable[[Backend], None]] = {
    "folding": folding,
    "bm25": bm25,
    "diacritics": diacritics,
    "filters": filters,
    "who": who,
    "when": when,
    "days asked": days_asked,
    "reply": reply,
    "current fact": current_fact,
    "synonyms": synonyms,
    "fact people": fact_people,
    "meaning": meaning,
}


def test_every_rule_has_its_case() -> None:
    assert sorted(CASES) == sorted(rule.name for rule in RULES)


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.name)
def test_each_rule_on_each_backend(
    backend: Backend, rule: Rule, request: pytest.FixtureRequest
) -> None:
    if backend.kind not in rule.backends:
        request.applymarker(
            pytest.mark.xfail(
                strict=True, raises=AssertionError, reason=f"{rule.name}: not on {backend.kind}"
            )
        )
    CASES[rule.name](backend)


@given(
    st.lists(st.integers(0, 9), max_size=12),
    st.dictionaries(st.integers(0, 4), st.integers(5, 9), max_size=5),
)
def test_current_first_puts_each_current_version_before_its_past_once(
    order: list[int], current_of: dict[int, int]
) -> None:
    """Past versions (0-4) and current ones (5-9) in any order, a current found or not."""
    out = current_first(order, current_of)
    items = [item for item, _ in out]
    assert len(items) == len(set(items))
    assert set(items) == set(order) | {current_of[p] for p in order if p in current_of}
    for past in set(order) & set(current_of):
        assert items.index(current_of[past]) < items.index(past)
    assert all(by is None or current_of[by] == item for item, by in out)


@given(
    st.text(min_size=1, max_size=12),
    st.text(max_size=20),
    st.dates(),
    st.one_of(st.none(), st.dates()),
)
def test_a_facts_shown_text_says_whether_it_is_current(
    key: str, value: str, since: date, until: date | None
) -> None:
    assert is_current_fact(fact_shown(key, value, since, until)) is (until is None)
