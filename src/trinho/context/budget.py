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
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

ENGLISH_LETTER_TOKENS = 1 / 3
"""Tokens per letter of an all-ASCII word: English words are 3-4 letters a token in the
small vocabularies (SmolLM2 0.29, Gemma 3 0.27, fitted on trinho's prompts and notes)."""
VIETNAMESE_LETTER_TOKENS = 0.65
"""Tokens per ASCII letter of a word that also holds a letter outside ASCII (`được`,
`Huế`): such syllables are split into pieces (SmolLM2 0.65, Gemma 3 0.22)."""
OTHER_CHAR_TOKENS = 2.0
"""Tokens per character outside ASCII (a Vietnamese letter with its diacritics, a symbol):
an English-trained byte-level vocabulary spends about two on each (SmolLM2 2.0, Gemma 3
0.6)."""
DIGIT_TOKENS = 1.2
"""Tokens per digit: most vocabularies split numbers digit by digit (both 1.2)."""
PUNCT_TOKENS = 0.8
"""Tokens per ASCII punctuation mark or line break: most are a token of their own."""
_PIECES = re.compile(r"\w+|\S|\n")
MAX_CHAR_TOKENS = max(OTHER_CHAR_TOKENS, DIGIT_TOKENS, PUNCT_TOKENS)
"""The most one character can cost: a text of n characters estimates at most n x this."""
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
    """The unscaled count, the safe side of the small vocabularies on English and Vietnamese:
    letters by the kind of word they are in, digits, marks and line breaks one by one. Spaces
    are free: the vocabularies fold a space into the word after it. It adds up over lines
    (`base_tokens(a + "\\n" + b)` is the sum of the three), so budgets may sum their parts."""
    total = 0.0
    for piece in _PIECES.findall(text):
        if piece == "\n":
            total += PUNCT_TOKENS
        elif piece[0].isalnum() or piece[0] == "_":
            digits = sum(c.isdigit() and c.isascii() for c in piece)
            if piece.isascii():
                total += (len(piece) - digits) * ENGLISH_LETTER_TOKENS + digits * DIGIT_TOKENS
            else:
                other = sum(not c.isascii() for c in piece)
                letters = len(piece) - other - digits
                total += (
                    letters * VIETNAMESE_LETTER_TOKENS
                    + other * OTHER_CHAR_TOKENS
                    + digits * DIGIT_TOKENS
                )
        else:
            total += PUNCT_TOKENS if piece.isascii() else OTHER_CHAR_TOKENS
    return total


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
