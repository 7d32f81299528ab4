"""A question asking for a guess about someone (`Would Lan likely ...?`): meaning weighs more,
from deeper in the dense list, and what the named person says of themselves is favoured; only
when the dense side answered, so lexical search ranks as before."""

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from support.concept_embedder import ConceptEmbedder
from trinho.conversations.store import Turn, import_turns
from trinho.search import Query, SearchIndex
from trinho.search.rank import Candidate, Tuning, describes_self, fuse, is_inference_question
from trinho.workspace import Workspace

CONCEPTS = {"car": 0, "vehicle": 0, "drive": 0, "dog": 1}


def toy_embedder() -> ConceptEmbedder:
    return ConceptEmbedder("toy:v1", CONCEPTS)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Would Caroline likely have Dr. Seuss books on her bookshelf?", True),
        ("What might John's degree be in?", True),
        ("Would John be considered a patriotic person?", True),
        ("Is it probably a cat?", True),
        ("What could John do after his basketball career?", False),
        ("What did Caroline buy?", False),
        ("Who is Anthony?", False),
        ("Lan có thích mèo không?", False),
    ],
)
def test_inference_questions(question: str, expected: bool) -> None:
    assert is_inference_question(question) is expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("I'm keen on counseling or working in mental health", True),
        ("My kids have so much", True),
        ("I love reading, books guide me", True),
        ("Winning a championship is my number one goal", True),
        ("Thanks, Mel! See you soon", False),
        ("That's so cool! What did it look like?", False),
    ],
)
def test_lines_that_tell_of_their_speaker(line: str, expected: bool) -> None:
    assert describes_self(line) is expected


@given(st.text(), st.sampled_from(["would", "Might", "LIKELY", "probably", "considered"]))
def test_a_word_of_guessing_anywhere_makes_an_inference_question(text: str, word: str) -> None:
    assert is_inference_question(f"{text} {word} {text}")


@given(st.text(alphabet=st.characters(categories=["Nd", "P", "Zs"])))
def test_digits_and_punctuation_tell_of_no_one(text: str) -> None:
    assert not describes_self(text)
    assert describes_self(f"{text} my {text}")


candidate_lists = st.lists(
    st.builds(
        Candidate,
        doc_id=st.integers(0, 10_000),
        text=st.just("x"),
        session=st.sampled_from(["a", "b"]),
        lexical=st.floats(0, 50),
        lexical_rank=st.one_of(st.none(), st.integers(1, 60)),
        dense=st.one_of(st.none(), st.floats(-1, 1)),
        dense_rank=st.integers(1, 120),
        full_match=st.booleans(),
        speaker_named=st.booleans(),
        asks=st.booleans(),
        previous=st.one_of(st.none(), st.integers(0, 10_000)),
        self_described=st.booleans(),
    ),
    max_size=30,
    unique_by=lambda c: c.doc_id,
)


@given(candidate_lists, st.booleans(), st.floats(1, 5))
def test_the_profile_boost_needs_an_inference_question(
    candidates: list[Candidate], when: bool, boost: float
) -> None:
    off = fuse(candidates, Tuning(profile_boost=1.0), when, inference=False)
    assert fuse(candidates, Tuning(profile_boost=boost), when, inference=False) == off


@given(candidate_lists, st.booleans())
def test_an_inference_question_keeps_full_matches_first(
    candidates: list[Candidate], when: bool
) -> None:
    ranked = fuse(candidates, Tuning().for_inference(), when, inference=True)
    assert sorted(r.doc_id for r in ranked) == sorted(c.doc_id for c in candidates)
    by_id = {c.doc_id: c for c in candidates}
    full = [
        i
        for i, r in enumerate(ranked)
        if by_id[r.doc_id].full_match and by_id[r.doc_id].lexical_rank
    ]
    dense_only = [i for i, r in enumerate(ranked) if by_id[r.doc_id].lexical_rank is None]
    assert not full or not dense_only or min(dense_only) > max(full)


@given(candidate_lists, st.booleans())
def test_a_line_of_the_person_about_themselves_never_falls(
    candidates: list[Candidate], when: bool
) -> None:
    plain = Tuning(answer_weight=0.0, protect_full_matches=False, profile_boost=1.0)
    before = [r.doc_id for r in fuse(candidates, plain, when, inference=True)]
    after = [r.doc_id for r in fuse(candidates, replace(plain, profile_boost=2.0), when, True)]
    for c in candidates:
        if c.speaker_named and c.self_described:
            assert after.index(c.doc_id) <= before.index(c.doc_id)


def test_tuning_for_inference_swaps_the_dense_weights() -> None:
    tuning = Tuning(dense_weight=0.3, inference_dense_weight=0.6, inference_dense_pool=120)
    swapped = tuning.for_inference()
    assert (swapped.dense_weight, swapped.dense_pool) == (0.6, 120)
    assert replace(swapped, dense_weight=0.3, dense_pool=tuning.dense_pool) == tuning


def turns(*said: tuple[str, str]) -> list[Turn]:
    at = datetime(2026, 3, 1, 9, tzinfo=UTC)
    return [
        Turn(at + timedelta(minutes=i), role, text, f"D1:{i + 1}")
        for i, (role, text) in enumerate(said)
    ]


CONVERSATION = turns(
    ("Minh", "Lan, did you see the dog?"),
    ("Lan", "I love to drive, my car is my world"),
    ("Minh", "The car wash is closed today"),
)


def test_the_person_named_telling_of_themselves_is_favoured(workspace: Workspace) -> None:
    import_turns(workspace, CONVERSATION)
    question = Query("Would Lan likely buy a vehicle?")
    with SearchIndex(workspace, embedder=toy_embedder()) as index:
        found = index.find(question)
        plain = index.find(Query("Did Lan buy a vehicle?"))
    assert found.hits[0].text == "I love to drive, my car is my world"
    assert "tells of the person named x2" in found.why[0]
    assert not any("tells of" in why for whys in plain.why for why in whys)


def test_without_the_dense_side_an_inference_question_ranks_as_before(
    workspace: Workspace,
) -> None:
    import_turns(workspace, CONVERSATION)
    question = Query("Would Lan likely say the car wash is closed?")
    with SearchIndex(workspace) as index:
        found = index.find(question)
    with SearchIndex(workspace, tuning=Tuning(profile_boost=1.0)) as index:
        off = index.find(question)
    assert found == off
    assert not any("tells of" in why for whys in found.why for why in whys)
