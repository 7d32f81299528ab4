"""Search through the records facade, on each backend (`records`): trinho's folding
(diacritics, đ, stemming), a match with the query's own diacritics first, more and rarer
terms ranked higher, and what a store writes found at once while what it replaced is not."""

from __future__ import annotations

import pytest

from conftest import FixedClock
from trinho.records.protocol import Records
from trinho.search import Query


def texts(records: Records, query: str) -> list[str]:
    return [h.text for h in records.search(Query(query))]


@pytest.mark.parametrize("query", ["Hà Nội", "ha noi", "HÀ NỘI", "Ha Noi"])
def test_vietnamese_is_found_with_or_without_diacritics(records: Records, query: str) -> None:
    records.save_note("đi Hà Nội thăm bà")
    records.save_note("ăn phở bò")
    assert texts(records, query) == ["đi Hà Nội thăm bà"]


def test_d_with_stroke_and_stemming_are_folded(records: Records) -> None:
    records.save_note("Đà Nẵng painting class")
    assert texts(records, "da nang") == ["Đà Nẵng painting class"]
    assert texts(records, "painted") == ["Đà Nẵng painting class"]
    assert texts(records, "hue") == []


def test_a_match_with_the_querys_diacritics_ranks_first(records: Records) -> None:
    records.save_note("ma")  # folded: ma
    records.save_note("má")  # folded: ma, as written with the accent
    assert texts(records, "má") == ["má", "ma"]


def test_more_of_the_terms_and_rarer_terms_rank_higher(records: Records) -> None:
    for text in ["rice", "rice", "rice fish", "rice", "fish"]:
        records.save_note(text)
    records.write_memory("# Memory\n- 2026-11-22: loves rice and fish soup\n")
    hits = records.search(Query("fish soup"))
    assert hits[0].text == "loves rice and fish soup" and hits[0].path == "MEMORY.md"
    assert {h.text for h in hits[1:]} == {"rice fish", "fish"}


def test_what_a_store_writes_is_found_at_once_and_what_it_replaced_is_not(
    records: Records, clock: FixedClock
) -> None:
    records.save_note("mua bánh mì")
    records.write_memory("# Memory\n- 2026-11-22: thích phở\n")
    records.save_fact("city", "Huế", basis="user")
    assert [h.path for h in records.search(Query("banh mi"))] == ["memory/2026-11-29.md"]
    assert [h.path for h in records.search(Query("pho"))] == ["MEMORY.md"]
    city = texts(records, "city hue")
    assert city and city[0].startswith("city: Huế")
    records.write_memory("# Memory\n- 2026-11-29: thích bún\n")
    assert records.search(Query("pho")) == []
    clock.advance(days=1)
    records.save_fact("city", "Hà Nội", basis="user")
    found = texts(records, "city")
    assert len(found) == 2 and any("Hà Nội" in text for text in found)
