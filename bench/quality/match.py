"""The matching rule: does a line carry a gold fact? On the fact, never on the wording.

A gold item names the fact it carries as a few required *tokens* (`need`); a line carries the
fact when every required token is in it, and none of the item's `avoid` tokens is. A required
token is one of:

- a word or a few words (`"Porto"`, `"swim team"`): found as the same run of words in the line;
- a list of alternatives (`["swim", "bơi"]`): any one of them is enough;
- a date, `"@2026-12-03"` or `"@12-03"` (month and day): found when the line names that day
  in any of the usual ways, `2026-12-03`, `3/12`, `3/12/2026`, `Dec 3`, `3 December`,
  `ngày 3 tháng 12`, `3 tháng 12` (a year, when both sides give one, must agree);
- a time, `"@17:00"`: found as `17:00`, `17h`, `17h00`, `5pm`, `5:00 p.m.`, `5 giờ chiều`, `17 giờ`.

Before comparing, both sides are normalised for matching only (what is written is never
touched): NFC, case-folded, Vietnamese diacritics and `đ` folded away (`Đà Nẵng` = `Da Nang`),
numbers written with thousands separators joined (`1.500` = `1,500` = `1500`), English
number words one to twenty as digits (`two` = `2`), and split into words and digit runs
(`5km` = `5 km`). Words match whole: `cat` is not in `category`, `1` is not in `10`; an
English plural `s` or `es` on the line's word is allowed (`Thursdays` for `Thursday`).

A required token that starts with a capital letter is a *name*: the word in the line must start
with a capital too. So `Mai` (a daughter) is not found in "đi đón con vào ngày mai" (tomorrow),
nor `Lan` in "lan can" (a railing). The line's `- YYYY-MM-DD: ` prefix (the day the entry was
learned) is not part of what is matched: a date token must be in the text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from trinho.search.dates import EN_MONTHS as MONTHS

Token = str | list[str]
"""A required token as the gold file writes it: one form, or a list of alternatives."""

_ENTRY_RE = re.compile(r"^\s*-\s+\d{4}-\d{2}-\d{2}:\s*")
_THOUSANDS_RE = re.compile(r"(?<![\d.,])(\d{1,3})((?:[.,]\d{3})+)(?![.,]?\d)")
_WORD_RE = re.compile(r"\d+|[^\W\d_]+")
NUMBER_WORDS = {
    word: str(n)
    for n, word in enumerate(
        (
            *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"),
            *("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen"),
            *("seventeen", "eighteen", "nineteen", "twenty"),
        )
    )
}
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_DATE_RES = (
    (re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b"), "ymd"),
    (re.compile(r"\b(\d{1,2})/(\d{1,2})(?:/(\d{2,4}))?\b"), "dmy"),
    (
        re.compile(
            rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})\b\.?(?:,?\s+(\d{{4}}))?"
        ),
        "dMy",
    ),
    (re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}}))?"), "Mdy"),
    (re.compile(r"\b(?:ngay\s+)?(\d{1,2})\s+thang\s+(\d{1,2})(?:\s+nam\s+(\d{4}))?\b"), "dmy"),
)
_HALF = r"(am|pm|a\.m\.|p\.m\.)(?![a-z])"
_TIME_RES = (
    re.compile(rf"\b(\d{{1,2}}):(\d{{2}})\s*{_HALF}?"),
    re.compile(r"\b(\d{1,2})h(\d{2})?(?![a-z])()"),
    re.compile(rf"\b(\d{{1,2}})()\s*{_HALF}"),
    re.compile(r"\b(\d{1,2})()\s+gio(?:\s+(sang|chieu|toi|trua))?"),
)


def fold(text: str) -> str:
    """Case-folded, diacritics and `đ` folded: for matching only."""
    text = unicodedata.normalize("NFD", unicodedata.normalize("NFC", text).casefold())
    text = "".join(c for c in text if unicodedata.category(c) != "Mn")
    return text.replace("đ", "d")


def entry_text(line: str) -> str:
    """The line without its `- YYYY-MM-DD: ` prefix, if it has one."""
    return _ENTRY_RE.sub("", line, count=1)


@dataclass(frozen=True)
class Words:
    """A text as words: folded (and numbers normalised) beside whether each started upper."""

    folded: tuple[str, ...]
    capital: tuple[bool, ...]

    @classmethod
    def of(cls, text: str) -> Words:
        text = _THOUSANDS_RE.sub(lambda m: m.group(1) + re.sub(r"[.,]", "", m.group(2)), text)
        folded, capital = [], []
        for m in _WORD_RE.finditer(unicodedata.normalize("NFC", text)):
            word = fold(m.group())
            folded.append(NUMBER_WORDS.get(word, word))
            capital.append(m.group()[0].isupper())
        return cls(tuple(folded), tuple(capital))

    def find(self, form: str) -> bool:
        """Whether `form`'s words are a run of these words (a name's first with a capital)."""
        want = Words.of(form)
        if not want.folded:
            return False
        name = want.capital[0]
        size = len(want.folded)
        return any(
            all(_same(a, b) for a, b in zip(self.folded[i : i + size], want.folded, strict=True))
            and (not name or self.capital[i])
            for i in range(len(self.folded) - size + 1)
        )


def _same(word: str, wanted: str) -> bool:
    """The same word, or an English plural of it (`lessons` for `lesson`)."""
    return word == wanted or (
        len(wanted) >= 3 and not wanted.isdigit() and word in (wanted + "s", wanted + "es")
    )


def dates_in(text: str) -> set[tuple[int | None, int, int]]:
    """Every (year or None, month, day) the text names."""
    found: set[tuple[int | None, int, int]] = set()
    folded = fold(text)
    for pattern, order in _DATE_RES:
        for m in pattern.finditer(folded):
            a, b, c = m.groups()
            year: int | None
            if order == "ymd":
                year, month, day = int(a), int(b), int(c)
            elif order == "dmy":
                day, month, year = int(a), int(b), int(c) if c else None
            elif order == "dMy":
                day, month, year = int(a), MONTHS[b], int(c) if c else None
            else:
                month, day, year = MONTHS[a], int(b), int(c) if c else None
            if year is not None and year < 100:
                year += 2000
            if 1 <= month <= 12 and 1 <= day <= 31:
                found.add((year, month, day))
    return found


def times_in(text: str) -> set[tuple[int, int]]:
    """Every (hour, minute) the text names, on a 24-hour clock."""
    found: set[tuple[int, int]] = set()
    folded = fold(text)
    for pattern in _TIME_RES:
        for m in pattern.finditer(folded):
            hour, minute, half = int(m.group(1)), int(m.group(2) or 0), m.group(3) or ""
            if half.startswith("p") or half in ("chieu", "toi") or (half == "trua" and hour < 6):
                hour += 12 if hour < 12 else 0
            elif half.startswith("a") and hour == 12:
                hour = 0
            if hour < 24 and minute < 60:
                found.add((hour, minute))
    return found


def _has_form(text: str, words: Words, form: str) -> bool:
    if form.startswith("@") and ":" in form:
        hour, minute = (int(x) for x in form[1:].split(":"))
        return (hour, minute) in times_in(text)
    if form.startswith("@"):
        parts = [int(x) for x in form[1:].split("-")]
        year, month, day = parts if len(parts) == 3 else (None, *parts)
        return any(
            (m, d) == (month, day) and (year is None or y is None or y == year)
            for y, m, d in dates_in(text)
        )
    return words.find(form)


def has_token(text: str, token: Token, words: Words | None = None) -> bool:
    """Whether `text` (an entry's text, prefix removed) holds `token` (any alternative)."""
    words = words or Words.of(text)
    forms = [token] if isinstance(token, str) else token
    return any(_has_form(text, words, form) for form in forms)


def carries(line: str, need: Sequence[Token], avoid: Sequence[Token] = ()) -> bool:
    """Whether `line` carries the fact: every token of `need`, no token of `avoid`."""
    text = entry_text(line)
    words = Words.of(text)
    if not need:
        return False
    return all(has_token(text, t, words) for t in need) and not any(
        has_token(text, t, words) for t in avoid
    )
