"""One token estimate for every budget (prompt parts, condensation chunks, model budgets)."""

from __future__ import annotations

import math


def estimate_tokens(text: str) -> int:
    """A tokenizer-free estimate: one token per 4 UTF-8 bytes, rounded up.

    Vietnamese diacritics take 2-3 bytes, so the estimate grows with them as real tokenizers'
    counts do; four characters a token would undercount Vietnamese by about half.
    """
    return math.ceil(len(text.encode("utf-8")) / 4)
