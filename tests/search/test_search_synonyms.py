"""Vietnamese phrases that name one thing (máy lạnh and điều hòa, ngày Nhà giáo and 20/11):
a query holding one finds the lines holding another, for every pair of the table."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trinho.notes.store import save_note
from trinho.search import Query, SearchIndex
from trinho.search.tokenize import SYNONYMS, expansions, query_terms, terms
from trinho.workspace import Workspace


def test_every_phrase_of_every_group_finds_the_lines_of_the_others(workspace: Workspace) -> None:
    lines = {}
    for g, group in enumerate(SYNONYMS):
        for p, phrase in enumerate(group):
            lines[(g, p)] = f"ghi chú {g}-{p}: chuyện {phrase} hôm đó"
            save_note(workspace, lines[(g, p)])
    with SearchIndex(workspace) as index:
        for g, group in enumerate(SYNONYMS):
            for p, phrase in enumerate(group):
                found = {h.text for h in index.search(Query(phrase, limit=50))}
                others = {lines[(g, o)] for o in range(len(group)) if o != p}
                assert others <= found, (phrase, others - found)


def test_a_query_typed_without_diacritics_expands_from_two_words_up() -> None:
    assert expansions("may lanh phong ngu") == expansions("máy lạnh phòng ngủ") == ["dieu hoa"]
    assert expansions("mu bao hiem") == []  # `mu` alone is a word of its own
    assert expansions("mũ bảo hiểm") == ["non"]


def test_days_known_by_name_and_their_dates_find_each_other() -> None:
    assert expansions("quà ngày Nhà giáo") == ["20 11", "20 thang 11"]
    assert "ngay nha giao" in expansions("20/11 tặng hoa")
    assert "quoc khanh" in expansions("nghỉ ngày 2 tháng 9")


def test_expansions_are_searched_but_are_not_the_query_terms() -> None:
    assert query_terms("máy lạnh hỏng") == terms("máy lạnh hỏng")


def test_the_table_has_no_empty_or_duplicated_phrase() -> None:
    seen: set[str] = set()
    for group in SYNONYMS:
        assert len(group) > 1
        for phrase in group:
            key = " ".join(terms(phrase))
            assert key and key not in seen
            seen.add(key)


@given(st.text(max_size=80))
def test_expansions_of_any_text_are_distinct_phrases_of_the_table(text: str) -> None:
    out = expansions(text)
    assert len(out) == len(set(out))
    table = {" ".join(terms(phrase)) for group in SYNONYMS for phrase in group}
    assert set(out) <= table


@pytest.mark.parametrize("query", ["What did Caroline paint?", "When did Mel go camping?"])
def test_english_questions_are_not_expanded(query: str) -> None:
    assert expansions(query) == []
