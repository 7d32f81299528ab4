"""Pure ranking: the FTS5 match expression, the diacritics bonus, reciprocal rank fusion."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from trinho.search.tokenize import words

EXACT_BONUS = 1.0
"""How much a hit gains, in proportion, when it has every accented query word as written.

Folded Vietnamese syllables collide a lot (`da` is dạ, đã, đá, đà; `nang` is nàng, nắng,
nặng), so a line holding a folded twin twice can out-score the exact words by BM25 alone
(term frequency gives up to about 1.5x): doubling the exact hit keeps it first."""

RRF_K = 60
"""The usual constant of reciprocal rank fusion: damps the weight of the very first ranks."""

HYBRID_K = 10
SEMANTIC_WEIGHT = 0.2
"""Hybrid search fuses with k = 10 and the semantic list at a fifth of the lexical one: on the
LoCoMo dev half, equal weights (k = 60) cost 0.11 of recall@10, these gain 0.005."""

K = TypeVar("K", bound=Hashable)


def match_expression(query_terms: Sequence[str]) -> str:
    """An FTS5 MATCH string that treats every term as plain text, never as FTS syntax.

    Each term is a double-quoted string (quotes inside doubled), joined by OR so that BM25
    ranks documents holding more of the terms first.
    """
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in query_terms)


@dataclass(frozen=True)
class Scored:
    """A candidate from the lexical index: its id, text, and BM25 score (higher is better)."""

    doc_id: int
    text: str
    score: float


def exact_bonus(accented: frozenset[str], text: str) -> float:
    """The share of the query's accented words found as written in `text` (0..1)."""
    if not accented:
        return 0.0
    present = accented.intersection(words(text))
    return len(present) / len(accented)


def rerank(candidates: Sequence[Scored], accented: frozenset[str]) -> list[Scored]:
    """Raise hits whose words carry the query's diacritics; stable for ties."""
    if not accented:
        return list(candidates)
    boosted = [
        Scored(c.doc_id, c.text, c.score * (1.0 + EXACT_BONUS * exact_bonus(accented, c.text)))
        for c in candidates
    ]
    return sorted(boosted, key=lambda c: -c.score)


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[K]], k: int = RRF_K, weights: Sequence[float] | None = None
) -> list[tuple[K, float]]:
    """Fuse ranked lists: each item scores the sum of weight/(k + rank) over the lists it is in."""
    scores: dict[K, float] = {}
    first_seen: dict[K, int] = {}
    for i, ranking in enumerate(rankings):
        weight = 1.0 if weights is None else weights[i]
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
            first_seen.setdefault(item, len(first_seen))
    return sorted(scores.items(), key=lambda kv: (-kv[1], first_seen[kv[0]]))
