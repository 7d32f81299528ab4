"""Text to search terms: NFC, case folding, diacritics folded (đ too), English stemming.

Two forms of every word are kept. The *term* (folded, stemmed, stop words dropped) is what the
index matches on, so `Ha Noi`, `ha noi` and `Hà Nội` meet, and `painting` finds `painted`. The
*exact word* (NFC, case-folded, diacritics kept) lets a match that also has the right
diacritics rank higher.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import snowballstemmer  # type: ignore[import-untyped]

from trinho.textnorm import nfc

TOKENIZER_VERSION = "1"
"""Changes whenever terms change, so an index built with other terms is rebuilt."""

MAX_QUERY_CHARS = 2_000
"""A longer query is cut here: nobody types more, and a pasted document stays fast."""

MAX_QUERY_TERMS = 64

_WORD_RE = re.compile(r"[^\W_]+")
# Letters that Unicode does not decompose into a base letter plus a mark.
_FOLD_EXTRA = str.maketrans({"đ": "d", "ð": "d", "ø": "o", "ł": "l", "ß": "ss", "æ": "ae"})

_STOP_TEXT = """
a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have
having he her here hers herself him himself his how i if in into is it its itself just let me more
most my myself no nor not of off on once only or other ought our ours ourselves out over own same
she should so some such than that the their theirs them themselves then there these they this
those through to too under until up very was we were what when where which while who whom why will
with would you your yours yourself yourselves s t d ll m re ve don didn doesn isn wasn weren hasn
haven hadn won wouldn shouldn couldn
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())

_stemmer = snowballstemmer.stemmer("english")


def fold(word: str) -> str:
    """Case-fold and drop diacritics: `Đà Nẵng` -> `da nang`."""
    lowered = nfc(word).casefold().translate(_FOLD_EXTRA)
    stripped = "".join(
        ch for ch in unicodedata.normalize("NFD", lowered) if not unicodedata.combining(ch)
    )
    return unicodedata.normalize("NFC", stripped)


def words(text: str) -> list[str]:
    """The words of `text` as written (NFC, case-folded, diacritics kept)."""
    return _WORD_RE.findall(nfc(text).casefold())


@lru_cache(maxsize=65_536)
def term(word: str) -> str:
    """The index term of one word (already case-folded): folded, then stemmed."""
    folded = fold(word)
    return str(_stemmer.stemWord(folded)) if folded.isascii() else folded


def terms(text: str) -> list[str]:
    """The index terms of `text`, in order, stop words dropped.

    Stop words are English and matched as written, so `tô` or `đó` (Vietnamese) are kept.
    """
    return [term(w) for w in words(text) if w not in STOP_WORDS]


def query_terms(text: str) -> list[str]:
    """Distinct terms of a query, in order; a query of stop words only keeps them all."""
    found = words(text[:MAX_QUERY_CHARS])
    kept = [w for w in found if w not in STOP_WORDS] or found
    out: list[str] = []
    for word in kept:
        value = term(word)
        if value not in out:
            out.append(value)
    return out[:MAX_QUERY_TERMS]


def accented_words(text: str) -> frozenset[str]:
    """Query words that carry diacritics: the ones whose exact form earns a bonus."""
    return frozenset(w for w in words(text[:MAX_QUERY_CHARS]) if fold(w) != w)
