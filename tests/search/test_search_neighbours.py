"""The neighbouring turns in ranking: a reply found by the question it answers, and a turn's
dense score smoothed over the turns around it."""

import itertools
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from support.reply_talk import QUESTION, REPLY, SAID, turns
from trinho.conversations.store import import_turns
from trinho.search import Query, SearchIndex
from trinho.search.rank import (
    Candidate,
    Tuning,
    asks_question,
    fuse,
    smooth_dense,
)
from trinho.workspace import Workspace


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("How often do you all work out together?", True),
        ("Bao giờ em về？", True),
        ("Three times a week.", False),
        ("", False),
    ],
)
def test_a_line_asks_when_it_holds_a_question_mark(line: str, expected: bool) -> None:
    assert asks_question(line) is expected


def test_smoothing_adds_a_share_of_the_best_neighbour() -> None:
    cosines = {1: 0.2, 2: 0.9, 3: 0.1, 4: 0.3}
    neighbours = {1: (None, 2), 2: (1, 3), 3: (2, 99)}  # 99: not scored, so not counted
    out = smooth_dense(cosines, neighbours, 0.5)
    assert out == pytest.approx({1: 0.65, 2: 1.0, 3: 0.55, 4: 0.45})  # 4: a line alone


@given(
    st.dictionaries(st.integers(0, 50), st.floats(-1, 1), max_size=30),
    st.floats(0, 2),
)
def test_smoothing_without_neighbours_keeps_the_order(
    cosines: dict[int, float], weight: float
) -> None:
    """Lines that are no turns (notes, facts) all scale alike: their order never changes."""
    out = smooth_dense(cosines, {}, weight)
    assert set(out) == set(cosines)
    order = sorted(cosines, key=lambda i: (-cosines[i], i))
    assert all(out[a] >= out[b] for a, b in itertools.pairwise(order))  # ties: rounding
    assert smooth_dense(cosines, {}, 0.0) == cosines


def candidate(
    doc_id: int, lexical: float, *, asks: bool = False, previous: int | None = None
) -> Candidate:
    return Candidate(
        doc_id, "x", "s", lexical=lexical, lexical_rank=doc_id, asks=asks, previous=previous
    )


def order(candidates: Sequence[Candidate], tuning: Tuning) -> list[int]:
    return [r.doc_id for r in fuse(candidates, tuning, when=False)]


def test_the_turn_after_a_question_gains_a_share_of_its_score() -> None:
    asked = candidate(1, 10.0, asks=True)
    reply = candidate(2, 1.0, previous=1)
    other = candidate(3, 3.0)
    ranked = fuse([asked, other, reply], Tuning(), when=False)
    assert [r.doc_id for r in ranked] == [1, 2, 3]  # 0.1 + 0.3 x 1.0 passes 0.3
    assert any(w.startswith("answers a question") for w in ranked[1].why)
    assert order([asked, other, reply], Tuning(answer_weight=0.0)) == [1, 3, 2]


def test_only_a_question_lends_its_score_to_the_next_turn() -> None:
    said = candidate(1, 10.0)  # a statement: the turn after it is no answer
    after = candidate(2, 1.0, previous=1)
    other = candidate(3, 3.0)
    assert order([said, other, after], Tuning()) == [1, 3, 2]


def test_a_reply_is_found_by_the_question_it_answers(workspace: Workspace) -> None:
    import_turns(workspace, turns(*SAID))
    question = Query(QUESTION, limit=3)
    with SearchIndex(workspace) as index:
        found = index.find(question)
    with SearchIndex(workspace, tuning=Tuning(answer_weight=0.0)) as index:
        before = index.search(question)
    assert REPLY in [h.text for h in found.hits]
    assert REPLY not in [h.text for h in before]


class ToyEmbedder:
    """One dimension for cars, one for everything else."""

    name = "toy:neighbours"

    @staticmethod
    def _vector(text: str) -> list[float]:
        words = text.lower().replace(".", " ").replace(":", " ").split()
        car = sum(w in {"car", "automobile", "vehicle"} for w in words)
        return [float(car), 0.01 * (len(words) - car)]

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)


def test_a_turn_is_found_by_what_is_said_around_it(workspace: Workspace) -> None:
    import_turns(
        workspace,
        turns(
            ("Lan", "It is blue."),
            ("Minh", "Nice."),
            ("Minh", "Tell me about the automobile."),
            ("Lan", "It is red."),
        ),
    )
    with SearchIndex(workspace, embedder=ToyEmbedder()) as index:
        smoothed = [h.text for h in index.search(Query("vehicle", limit=4))]
    with SearchIndex(
        workspace, embedder=ToyEmbedder(), tuning=Tuning(dense_neighbours=0.0)
    ) as index:
        alone = [h.text for h in index.search(Query("vehicle", limit=4))]
    assert smoothed[0] == "Tell me about the automobile."
    assert smoothed.index("It is red.") < smoothed.index("It is blue.")
    assert alone.index("It is red.") > alone.index("It is blue.")  # a tie, kept in file order
