"""An embedder for search tests whose meaning is a table of words: each concept one dimension,
every other word a little of one more, so a test says exactly which lines mean alike."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence


class ConceptEmbedder:
    def __init__(self, name: str, concepts: Mapping[str, int]) -> None:
        self.name = name
        self.concepts = dict(concepts)
        self.other = max(self.concepts.values(), default=-1) + 1

    def _vector(self, text: str) -> list[float]:
        vector = [0.0] * (self.other + 1)
        for word in re.sub(r"[.,:?]", " ", text.lower()).split():
            known = word in self.concepts
            vector[self.concepts.get(word, self.other)] += 1.0 if known else 0.01
        return vector

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)
