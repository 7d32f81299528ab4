"""A BERT of random weights in the sentence-transformers layout, for the local embedder's tests
and the `[local]` extra's smoke test (.ci/smoke.py): numpy, tokenizers and safetensors only."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from safetensors.numpy import save_file
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

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
