"""One token estimate for every budget (prompt parts, condensation chunks, chat history).

A tokenizer-free count cannot match every model: a small English-trained vocabulary (SmolLM2)
splits a Vietnamese syllable with diacritics into two or three tokens, a large multilingual
one (Gemma) keeps it whole. `estimate_tokens` is the safe side of both, so a budget sized
with it does not overflow a real context; `TokenEstimate` scales it to one model, measured
by the server's own tokenizer or by the `prompt_tokens` its answers reported, and every
budget keeps `MARGIN` of the context free for what the estimate still gets wrong.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

ASCII_WORD_BYTES = 3.0
"""Bytes of ASCII letters and digits per token: English words are 3-5 letters a token in the
small vocabularies, code and identifiers fewer."""
OTHER_CHAR_TOKENS = 0.8
"""Tokens per character outside ASCII (a Vietnamese letter with its diacritics, a symbol):
an English-trained byte-level vocabulary spends one or two tokens on most of them, a
multilingual one shares them with the letters around them."""
PUNCT_TOKENS = 0.6
"""Tokens per ASCII punctuation mark or line break: most are a token of their own."""
MARGIN = 0.10
"""The part of every context kept free for the estimate's error: a budget fills at most 90%."""
MIN_FACTOR = 0.25
MAX_FACTOR = 4.0
"""How far a measured factor may move the estimate: a measurement outside these is a server
that counted something else (a cached prefix, a dropped message), not its tokenizer."""
MIN_SAMPLE_TOKENS = 64
"""Samples smaller than this say more about the chat template than about the tokenizer."""

Source = Literal["default", "server", "usage"]


def base_tokens(text: str) -> float:
    """The unscaled count: ASCII letters and digits by bytes, every other character by its
    kind. Spaces are free: the small vocabularies fold a space into the word after it."""
    word = other = punct = 0
    for char in text:
        if char.isascii():
            if char.isalnum():
                word += 1
            elif char == "\n" or not char.isspace():
                punct += 1
        else:
            other += 1
    return word / ASCII_WORD_BYTES + other * OTHER_CHAR_TOKENS + punct * PUNCT_TOKENS


def estimate_tokens(text: str) -> int:
    """The safe default estimate of `text`'s tokens, rounded up; see the module docstring."""
    return math.ceil(base_tokens(text))


@dataclass(frozen=True)
class TokenEstimate:
    """`estimate_tokens` scaled for one model: real tokens = `factor` x the estimate.

    `source` says where the factor came from: `default` (1.0, the safe side), `server` (its
    tokenizer counted the same texts), `usage` (answers' `prompt_tokens` over the estimates
    of their requests, as kept in the usage ledger).
    """

    factor: float = 1.0
    source: Source = "default"

    def count(self, text: str) -> int:
        """The tokens `text` is expected to take on this model."""
        return math.ceil(base_tokens(text) * self.factor)

    def usable(self, context_tokens: int) -> int:
        """The part of a context a budget may fill, in `estimate_tokens` units: the context
        less `MARGIN`, divided by the factor, so the default estimates of what fits add up
        to at most 90% of the real context."""
        return math.floor(context_tokens * (1 - MARGIN) / self.factor)

    def real(self, estimated: int) -> int:
        """An `estimate_tokens` count as this model's tokens, for messages to the owner."""
        return math.ceil(estimated * self.factor)


def clamp_factor(factor: float) -> float:
    return min(MAX_FACTOR, max(MIN_FACTOR, factor))


def measured(samples: Iterable[tuple[int, int]], source: Source) -> TokenEstimate:
    """The estimate fitted to (estimated, real) pairs: the largest real/estimated ratio among
    the samples big enough to tell, so no measured text is under-counted; the default when
    none is."""
    ratios = [real / est for est, real in samples if est >= MIN_SAMPLE_TOKENS and real > 0]
    if not ratios:
        return TokenEstimate()
    return TokenEstimate(clamp_factor(max(ratios)), source)
