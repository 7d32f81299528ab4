"""A Vietnamese question weighs meaning more (`Tuning.for_language`): its syllables match lines
by accident, so a paraphrase's best lexical hit must not bury what the dense side found; a full
lexical match still keeps its place, and a question naming a day or in English ranks as before."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from support.concept_embedder import ConceptEmbedder
from trinho.notes.store import save_note
from trinho.search import Query, SearchIndex
from trinho.search.rank import Candidate, Tuning, fuse, is_vietnamese
from trinho.workspace import Workspace

SICK = {"thú", "cưng", "bệnh", "mèo", "ốm"}


def toy_embedder() -> ConceptEmbedder:
    return ConceptEmbedder("toy-vi:v1", {w: 0 for w in SICK})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("thú cưng bị bệnh", True),
        ("mua nhà mới ở đâu", True),
        ("wifi yếu", True),
        ("ĐI ĐÂU", True),
        ("ba cai thuoc", False),
        ("What sign did Melanie see at the café?", False),
        ("Crème brûlée à l'hôtel", False),
        ("", False),
    ],
)
def test_vietnamese_questions(text: str, expected: bool) -> None:
    assert is_vietnamese(text) is expected


@given(st.text(alphabet=st.characters(max_codepoint=127)), st.sampled_from("ăơưđạảếỹ"))
def test_ascii_is_never_vietnamese_and_one_vietnamese_letter_makes_it(
    text: str, letter: str
) -> None:
    assert not is_vietnamese(text)
    assert is_vietnamese(f"{text}{letter}{text}")


@pytest.mark.parametrize(
    ("question", "dated", "weight"),
    [
        ("thú cưng bị bệnh gì", False, 3.0),  # Vietnamese, no day named: meaning weighs more
        ("ai đang nợ tiền mình", False, 3.0),
        ("hôm qua mình ăn gì", True, 0.3),  # a day named: its lexical side holds the day
        ("thu cung bi benh gi", False, 0.3),  # typed without diacritics: any language
        ("where is the café", False, 0.3),  # `é` alone is French too
        ("who owes me money", False, 0.3),
    ],
)
def test_the_language_rule_raises_the_dense_weight_only_for_vietnamese_undated(
    question: str, dated: bool, weight: float
) -> None:
    tuning = Tuning(dense_weight=0.3, vietnamese_dense_weight=3.0)
    assert tuning.for_language(question, dated).dense_weight == weight
    assert Tuning(dense_weight=5.0).for_language(question, dated).dense_weight == 5.0  # never lower


candidate_lists = st.lists(
    st.builds(
        Candidate,
        doc_id=st.integers(0, 10_000),
        text=st.just("x"),
        session=st.sampled_from(["a", "b"]),
        lexical=st.floats(0, 50),
        lexical_rank=st.one_of(st.none(), st.integers(1, 60)),
        dense=st.one_of(st.none(), st.floats(-1, 1)),
        dense_rank=st.integers(1, 60),
        full_match=st.booleans(),
    ),
    max_size=30,
    unique_by=lambda c: c.doc_id,
)
QUESTIONS = st.sampled_from(["thú cưng bị bệnh", "ai đang nợ tiền mình", "who owes me money"])


@given(st.lists(st.integers(-1000, 1000), max_size=30, unique=True), QUESTIONS, st.floats(0.3, 100))
def test_with_no_lexical_side_the_fused_order_is_the_dense_order(
    cosines: list[int], question: str, weight: float
) -> None:
    dense_only = [
        Candidate(doc_id=i, text="x", session="a", dense=k / 1000, dense_rank=i + 1)
        for i, k in enumerate(cosines)
    ]
    tuning = Tuning(vietnamese_dense_weight=weight).for_language(question, dated=False)
    ranked = [r.doc_id for r in fuse(dense_only, tuning, when=False)]
    assert ranked == [c.doc_id for c in sorted(dense_only, key=lambda c: -(c.dense or 0.0))]


@given(candidate_lists, QUESTIONS, st.floats(0.3, 100))
def test_a_full_lexical_match_is_never_put_below_a_line_found_by_meaning(
    candidates: list[Candidate], question: str, weight: float
) -> None:
    tuning = Tuning(vietnamese_dense_weight=weight).for_language(question, dated=False)
    ranked = fuse(candidates, tuning, when=False)
    assert sorted(r.doc_id for r in ranked) == sorted(c.doc_id for c in candidates)
    by_id = {c.doc_id: c for c in candidates}
    full = [
        i
        for i, r in enumerate(ranked)
        if by_id[r.doc_id].full_match and by_id[r.doc_id].lexical_rank
    ]
    found_by_meaning = [i for i, r in enumerate(ranked) if by_id[r.doc_id].lexical_rank is None]
    assert not full or not found_by_meaning or min(found_by_meaning) > max(full)


def test_a_vietnamese_paraphrase_finds_the_line_of_its_meaning_first(
    workspace: Workspace,
) -> None:
    save_note(workspace, "Bị mất ví, bị phạt, bị kẹt xe")
    save_note(workspace, "Con mèo ốm rồi")
    question = Query("thú cưng bị bệnh", limit=2)
    with SearchIndex(workspace, embedder=toy_embedder()) as index:
        found = [h.text for h in index.search(question)]
    off = Tuning(vietnamese_dense_weight=Tuning.dense_weight)
    with SearchIndex(workspace, embedder=toy_embedder(), tuning=off) as index:
        before = [h.text for h in index.search(question)]
    assert found[0] == "Con mèo ốm rồi"
    assert before[0] == "Bị mất ví, bị phạt, bị kẹt xe"
