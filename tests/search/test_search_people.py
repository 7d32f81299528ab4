"""A person the owner's facts know (`wife: Lan`) is named by a query that names the relation:
their name is searched and what they said is favoured, and the answer reports them."""

import pytest

from conftest import FixedClock
from trinho.conversations.store import Turn, import_turns
from trinho.facts import save_fact
from trinho.notes.store import save_note
from trinho.search import Query, SearchIndex
from trinho.search.rank import fact_people, known_people, looks_like_name
from trinho.workspace import Workspace


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Lan", True),
        ("Nguyễn Thị Lan", True),
        ("Bob", True),
        ("lan", False),
        ("Hà Nội is where I live", False),
        ("Room 42", False),
        ("", False),
        ("A B C D E", False),
    ],
)
def test_a_name_is_a_few_capitalised_words(value: str, expected: bool) -> None:
    assert looks_like_name(value) is expected


def test_a_relation_named_in_the_query_gives_the_person() -> None:
    facts = known_people(
        [("wife", "Lan"), ("ten-con-gai", "Na"), ("home-city", "Đà Nẵng là nhà"), ("dog", "x")]
    )
    assert fact_people(facts, "What does my wife like?") == ["Lan"]
    assert fact_people(facts, "quà sinh nhật cho con gái") == ["Na"]
    assert fact_people(facts, "quà sinh nhật cho con") == []
    assert fact_people(facts, "home city") == []  # the value is not a name


def test_the_wife_of_the_facts_is_searched_by_name_and_reported(
    workspace: Workspace, clock: FixedClock
) -> None:
    save_fact(workspace, "wife", "Lan")
    save_note(workspace, "Lan thích hoa hồng trắng")
    save_note(workspace, "Mua hoa cúc cho văn phòng")
    turns = [Turn(clock(), "Lan", "Em thích hoa hồng nhất", "D1:1")]
    import_turns(workspace, turns)
    with SearchIndex(workspace) as index:
        found = index.find(Query("hoa my wife likes"))
        about = [h.text for h in index.search(Query("what does my wife like"))]
    texts = [h.text for h in found.hits]
    assert "Lan" in found.entities
    assert texts[0].startswith("wife: Lan")  # the fact itself holds the relation and the name
    assert texts[1:] == [
        "Em thích hoa hồng nhất",
        "Lan thích hoa hồng trắng",
        "Mua hoa cúc cho văn phòng",
    ]
    assert any("said by a person named" in why for why in found.why[1])
    assert "Lan thích hoa hồng trắng" in about and "Mua hoa cúc cho văn phòng" not in about


def test_without_a_fact_the_relation_is_only_a_word(workspace: Workspace) -> None:
    save_note(workspace, "Lan thích hoa hồng trắng")
    with SearchIndex(workspace) as index:
        found = index.find(Query("what does my wife like"))
    assert found.entities == () and found.hits == []
