"""Text to search terms: NFC, case folding, diacritics folded (đ too), English stemming.

Two forms of every word are kept. The *term* (folded, stemmed, stop words dropped) is what the
index matches on, so `Ha Noi`, `ha noi` and `Hà Nội` meet, and `painting` finds `painted`. The
*exact word* (NFC, case-folded, diacritics kept) lets a match that also has the right
diacritics rank higher.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
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
    if lowered.isascii():  # most words: nothing to decompose (a search folds hundreds)
        return lowered
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


_UNITS = {
    "không": 0,
    "một": 1,
    "mốt": 1,
    "hai": 2,
    "ba": 3,
    "bốn": 4,
    "tư": 4,
    "năm": 5,
    "lăm": 5,
    "nhăm": 5,
    "sáu": 6,
    "bảy": 7,
    "bẩy": 7,
    "tám": 8,
    "chín": 9,
    "mười": 10,
}
_NUMBER_CONTEXT = frozenset({"ngày", "mùng", "mồng", "tháng"})


def spelled_numbers(found: list[str]) -> list[str]:
    """The numbers a Vietnamese query spells after `ngày`, `mùng` or `tháng`, as digits:
    `ngày hai mươi tháng mười một` gives 20 and 11, so it finds a line that says 20/11.

    Only after those words (with diacritics, so `ba`, `tu` and `nam` typed bare stay words)."""
    out: list[str] = []
    i = 0
    while i < len(found):
        if found[i] in _NUMBER_CONTEXT:
            value, j = _number_at(found, i + 1)
            if j > i + 1:
                out.append(str(value))
                i = j
                continue
        i += 1
    return out


def _number_at(found: list[str], i: int) -> tuple[int, int]:
    """A number of one to ninety-nine spelled from `found[i]`, and the index after it."""
    if i >= len(found) or found[i] not in _UNITS:
        return 0, i
    first = _UNITS[found[i]]
    if first == 10:  # mười, mười một ... mười chín
        if i + 1 < len(found) and found[i + 1] in _UNITS and 0 < _UNITS[found[i + 1]] < 10:
            return 10 + _UNITS[found[i + 1]], i + 2
        return 10, i + 1
    if i + 1 < len(found) and found[i + 1] in ("mươi", "chục"):
        tens = first * 10
        nxt = found[i + 2] if i + 2 < len(found) else ""
        if nxt in _UNITS and 0 < _UNITS[nxt] < 10:
            return tens + _UNITS[nxt], i + 3
        return tens, i + 2
    return first, i + 1


def query_terms(text: str) -> list[str]:
    """Distinct terms of a query, in order; a query of stop words only keeps them all.
    Numbers spelled in words after `ngày`/`tháng` are searched as digits too."""
    found = words(text[:MAX_QUERY_CHARS])
    kept = [w for w in found if w not in STOP_WORDS] or found
    out: list[str] = []
    for word in [*kept, *spelled_numbers(found)]:
        value = term(word)
        if value not in out:
            out.append(value)
    return out[:MAX_QUERY_TERMS]


def terms_of(phrase: str) -> list[str]:
    """Every word of a phrase as its index term, stop words included."""
    return [term(w) for w in words(phrase)]


SYNONYMS: tuple[tuple[str, ...], ...] = (
    # Northern and Southern words for one thing, and everyday pairs.
    ("máy lạnh", "điều hòa"),
    ("xe hơi", "ô tô"),
    ("xe máy", "xe gắn máy"),
    ("tivi", "ti vi"),
    ("máy tính xách tay", "laptop"),
    ("bác sĩ", "thầy thuốc"),
    ("nha sĩ", "bác sĩ răng", "nha khoa"),
    ("bệnh viện", "nhà thương"),
    ("nhập viện", "nằm viện", "vào viện"),
    ("cao huyết áp", "tăng huyết áp", "huyết áp cao"),
    ("tiêm phòng", "chích ngừa", "tiêm chủng"),
    ("lợn", "heo"),
    ("thìa", "muỗng"),
    ("mũ", "nón"),
    ("vừng", "mè"),
    ("mất điện", "cúp điện", "cắt điện"),
    ("mất nước", "cúp nước"),
    ("hàng xóm", "láng giềng"),
    ("chuyển nhà", "dọn nhà"),
    ("tăng lương", "lên lương"),
    ("hải sản", "đồ biển"),
    ("ngộ độc thực phẩm", "ngộ độc thức ăn"),
    ("sân bay", "phi trường"),
    ("máy bay", "phi cơ"),
    ("đám cưới", "lễ cưới", "tiệc cưới"),
    ("hộ chiếu", "passport"),
    ("cà phê", "cafe"),
    # Days known by name, and their dates as digits (day/month).
    ("ngày nhà giáo", "20/11", "20 tháng 11"),
    ("quốc khánh", "2/9", "2 tháng 9"),
    ("quốc tế phụ nữ", "8/3", "8 tháng 3"),
    ("phụ nữ việt nam", "20/10", "20 tháng 10"),
    ("quốc tế lao động", "1/5", "1 tháng 5"),
    ("giải phóng miền nam", "30/4", "30 tháng 4"),
    ("quốc tế thiếu nhi", "1/6", "1 tháng 6"),
    ("giáng sinh", "noel", "25/12", "25 tháng 12"),
    ("lễ tình nhân", "valentine", "14/2", "14 tháng 2"),
    ("tết dương lịch", "1/1", "1 tháng 1"),
)
"""Phrases a query finds one another by: a query holding one (as written, or typed without
diacritics when it has two words or more) also searches the others as phrases. One word
without diacritics never triggers (`mu`, `non`, `bac si` are words of their own). A word with two
everyday meanings (`lạc`: peanut, lost; `chăn`: blanket, to herd) is left out."""


@dataclass(frozen=True)
class _Phrase:
    group: int
    exact: tuple[str, ...]
    folded: tuple[str, ...]
    searched: str


_PHRASES = tuple(
    _Phrase(g, tuple(words(p)), tuple(fold(w) for w in words(p)), " ".join(terms_of(p)))
    for g, group in enumerate(SYNONYMS)
    for p in group
)


def _holds(sequence: list[str], part: tuple[str, ...]) -> bool:
    n = len(part)
    return any(tuple(sequence[i : i + n]) == part for i in range(len(sequence) - n + 1))


def expansions(text: str) -> list[str]:
    """The other phrases of every `SYNONYMS` group the query holds, each as its terms joined
    by spaces (an FTS5 phrase), not already in the query: `máy lạnh hỏng` gives `dieu hoa`,
    `ngày Nhà giáo` gives `20 11` and `20 thang 11`."""
    exact = words(text[:MAX_QUERY_CHARS])
    folded = [fold(w) for w in exact]
    seen_exact, seen_folded = set(exact), set(folded)
    held = {
        i
        for i, p in enumerate(_PHRASES)
        if (p.exact[0] in seen_exact and _holds(exact, p.exact))
        or (len(p.folded) > 1 and p.folded[0] in seen_folded and _holds(folded, p.folded))
    }
    groups = {_PHRASES[i].group for i in held}
    out: list[str] = []
    for i, p in enumerate(_PHRASES):
        if p.group in groups and i not in held and p.searched not in out:
            out.append(p.searched)
    return out


def accented_words(text: str) -> frozenset[str]:
    """Query words that carry diacritics: the ones whose exact form earns a bonus."""
    return frozenset(w for w in words(text[:MAX_QUERY_CHARS]) if fold(w) != w)
