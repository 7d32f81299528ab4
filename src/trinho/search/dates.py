"""Days in words (pure): the days a line says, resolved from its own day, and the span of days
a question names, resolved from the owner's today. English and Vietnamese.

A turn said on 8 May that reads `I went to the support group yesterday` is about 7 May; a
question `what did Caroline do on May 7, 2023?` shares no word with it. The index gives each
line day tokens (`day_tokens`) for its own day and every day it says (`said_days`); a question
that names a day or a month (`asked_span`) also searches the lines carrying the tokens of that
span, and their scores are added to what they had (docs/benchmarks.md).
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from trinho.textnorm import nfc

DAY_PREFIX = "dd"
MONTH_PREFIX = "dm"
"""Day tokens are `dd20231204` (a day) and `dm202312` (a month): letters and digits only, so
FTS5's tokenizer and a tsvector keep them whole, and no word a person types is one of them."""

MAX_SPAN_DAYS = 62
"""A span longer than this (a year, `last month` in a question) names too many days to help."""


@dataclass(frozen=True)
class Said:
    """An expression a line holds (`yesterday`, `hôm qua`) and the days it means."""

    words: str
    first: date
    last: date
    month: bool = False
    """True when the expression names a month as a whole (`last month`, `tháng trước`)."""


@dataclass(frozen=True)
class Span:
    """The days a question names, inclusive; `month` when it names a whole month."""

    words: str
    first: date
    last: date
    month: bool = False


_EN_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "couple of": 2,
    "a couple of": 2,
    "few": 3,
    "a few": 3,
}
_VI_NUMBERS = {
    "một": 1,
    "hai": 2,
    "ba": 3,
    "bốn": 4,
    "năm": 5,
    "sáu": 6,
    "bảy": 7,
    "tám": 8,
    "chín": 9,
    "mười": 10,
    "vài": 3,
    "mấy": 3,
}
_EN_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_VI_WEEKDAYS = {
    "thứ hai": 0,
    "thứ 2": 0,
    "thứ ba": 1,
    "thứ 3": 1,
    "thứ tư": 2,
    "thứ 4": 2,
    "thứ năm": 3,
    "thứ 5": 3,
    "thứ sáu": 4,
    "thứ 6": 4,
    "thứ bảy": 5,
    "thứ 7": 5,
    "chủ nhật": 6,
}
EN_MONTHS = {
    name: i
    for i, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}

_EN_NUM = "|".join(sorted((re.escape(k) for k in _EN_NUMBERS), key=len, reverse=True))
_VI_NUM = "|".join(sorted(_VI_NUMBERS, key=len, reverse=True))
_EN_WD = "|".join(_EN_WEEKDAYS)
_VI_WD = "|".join(sorted(_VI_WEEKDAYS, key=len, reverse=True))
_EN_MON = "|".join(sorted(EN_MONTHS, key=len, reverse=True))
_UNIT = {"day": 1, "week": 7, "ngày": 1, "hôm": 1, "tuần": 7}

_SAID_RE = re.compile(
    r"\b(?:"
    r"(?P<dby>the day before yesterday)|(?P<yesterday>yesterday|last night)|"
    r"(?P<tomorrow>tomorrow)|"
    rf"(?P<en_n>\d{{1,2}}|{_EN_NUM})\s+(?P<en_unit>day|week|month)s?\s+ago|"
    rf"(?:last|this past|past)\s+(?P<en_wd>{_EN_WD})|"
    r"(?P<en_lastweekend>last weekend)|(?P<en_lastweek>last week)|"
    r"(?P<en_lastmonth>last month)|"
    r"(?P<vi_kia>hôm kia)|(?P<vi_qua>hôm qua|tối qua|đêm qua|sáng qua|chiều qua)|"
    r"(?P<vi_mai>ngày mai)|"
    rf"(?P<vi_wd>{_VI_WD})\s+(?:tuần trước|tuần rồi|vừa rồi|vừa qua)|"
    rf"(?P<vi_n>\d{{1,2}}|{_VI_NUM})\s+(?P<vi_unit>ngày|hôm|tuần|tháng)\s+(?:trước|qua)|"
    r"(?P<vi_lastweekend>cuối tuần trước|cuối tuần rồi|cuối tuần qua)|"
    r"(?P<vi_lastweek>tuần trước|tuần rồi)|(?P<vi_lastmonth>tháng trước|tháng rồi)"
    r")(?!\w)",
    re.IGNORECASE,
)


_SAID_TRIGGERS = (
    "yesterday",
    "tomorrow",
    "ago",
    "last",
    "past",
    "kia",
    "qua",
    "mai",
    "trước",
    "rồi",
)
"""Every expression `_SAID_RE` knows holds one of these (lower-cased)."""


def _norm(text: str) -> str:
    return nfc(text).casefold().replace("’", "'")


def _month_span(year: int, month: int) -> tuple[date, date]:
    first = date(year, month, 1)
    nxt = date(year + (month == 12), month % 12 + 1, 1)
    return first, nxt - timedelta(days=1)


def _shift_months(day: date, months: int) -> tuple[int, int]:
    total = day.year * 12 + day.month - 1 - months
    return total // 12, total % 12 + 1


def _previous_weekday(day: date, weekday: int) -> date:
    """The last `weekday` strictly before `day` (`last Friday` said on a Friday: a week ago)."""
    back = (day.weekday() - weekday) % 7 or 7
    return day - timedelta(days=back)


def _week_before(day: date) -> tuple[date, date]:
    """Monday to Sunday of the week before the one `day` is in."""
    monday = day - timedelta(days=day.weekday() + 7)
    return monday, monday + timedelta(days=6)


def _resolve(m: re.Match[str], day: date) -> tuple[date, date, bool] | None:
    """The days one match of `_SAID_RE` means, said on `day`; None when out of the calendar."""
    g = m.groupdict()
    if g["dby"] or g["vi_kia"]:
        d = day - timedelta(days=2)
        return d, d, False
    if g["yesterday"] or g["vi_qua"]:
        d = day - timedelta(days=1)
        return d, d, False
    if g["tomorrow"] or g["vi_mai"]:
        d = day + timedelta(days=1)
        return d, d, False
    if g["en_n"] or g["vi_n"]:
        return _ago(g, day)
    return _named(g, day)


def _ago(g: dict[str, Any], day: date) -> tuple[date, date, bool] | None:
    """`two weeks ago`, `3 ngày trước`: a day, a week (± 3 days) or a month back."""
    n_text, unit = (g["en_n"], g["en_unit"]) if g["en_n"] else (g["vi_n"], g["vi_unit"])
    n_text = n_text.lower()
    n = int(n_text) if n_text.isdigit() else _EN_NUMBERS.get(n_text, _VI_NUMBERS.get(n_text))
    if not n:
        return None
    if unit in ("month", "tháng"):
        year, month = _shift_months(day, n)
        return (*_month_span(year, month), True)
    d = day - timedelta(days=n * _UNIT[unit])
    if _UNIT[unit] == 1:
        return d, d, False
    return d - timedelta(days=3), d + timedelta(days=3), False


def _named(g: dict[str, Any], day: date) -> tuple[date, date, bool] | None:
    """`last Friday`, `thứ Sáu tuần trước`, `last weekend`, `last week`, `last month`."""
    if g["en_wd"]:
        d = _previous_weekday(day, _EN_WEEKDAYS.index(g["en_wd"].lower()))
        return d, d, False
    if g["vi_wd"]:
        monday, _ = _week_before(day)
        d = monday + timedelta(days=_VI_WEEKDAYS[g["vi_wd"].lower()])
        return d, d, False
    if g["en_lastweekend"] or g["vi_lastweekend"]:
        saturday = _previous_weekday(day, 5)
        if day.weekday() == 6:  # said on a Sunday: the weekend before this one
            saturday -= timedelta(days=7)
        return saturday, saturday + timedelta(days=1), False
    if g["en_lastweek"] or g["vi_lastweek"]:
        return (*_week_before(day), False)
    if g["en_lastmonth"] or g["vi_lastmonth"]:
        year, month = _shift_months(day, 1)
        return (*_month_span(year, month), True)
    return None


def said_days(text: str, day: date) -> list[Said]:
    """The days `text`, said or written on `day`, refers to in words, in order.

    Relative days only (`yesterday`, `last Friday`, `two weeks ago`, `hôm qua`, `thứ Sáu tuần
    trước`, `3 ngày trước`): a date written out is already searchable by its words."""
    out: list[Said] = []
    lowered = _norm(text)
    if not any(word in lowered for word in _SAID_TRIGGERS):
        return out  # most lines say no relative day: a few substring tests, not the regex
    for m in _SAID_RE.finditer(lowered):
        try:
            found = _resolve(m, day)
        except (OverflowError, ValueError):
            continue
        if found is not None:
            out.append(Said(m.group(0), *found))
    return out


def day_token(d: date) -> str:
    return f"{DAY_PREFIX}{d.year:04d}{d.month:02d}{d.day:02d}"


def month_token(year: int, month: int) -> str:
    return f"{MONTH_PREFIX}{year:04d}{month:02d}"


def day_tokens(day: date | None, said: list[Said]) -> list[str]:
    """The tokens a line carries: its own day and month, and every day (or month) it says."""
    out: list[str] = []
    if day is not None:
        out += [day_token(day), month_token(day.year, day.month)]
    for s in said:
        if s.month:
            out.append(month_token(s.first.year, s.first.month))
            continue
        d = s.first
        while d <= s.last:
            out += [day_token(d), month_token(d.year, d.month)]
            d += timedelta(days=1)
    return list(dict.fromkeys(out))


_ASKED_RE = re.compile(
    r"\b(?:"
    rf"(?P<mdy_m>{_EN_MON})\.?\s+(?P<mdy_d>\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(?P<mdy_y>\d{{4}}))?|"
    rf"(?:the\s+)?(?P<dmy_d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<dmy_m>{_EN_MON})"
    r"(?:,?\s+(?P<dmy_y>\d{4}))?|"
    rf"(?:in|during|of|since|from)\s+(?:early\s+|late\s+|mid-?\s*)?(?P<my_m>{_EN_MON})"
    r"(?:,?\s+(?P<my_y>\d{4}))?|"
    rf"(?P<my2_m>{_EN_MON})\s+(?P<my2_y>\d{{4}})|"
    r"(?P<iso>\d{4}-\d{2}-\d{2})|"
    rf"on the (?P<nth>\d{{1,2}})(?:st|nd|rd|th)(?!\s+(?:of\s+)?(?:{_EN_MON}))|"
    r"(?:ngày|mùng|mồng|hôm)\s+(?P<vi_d>\d{1,2})\s*(?:tháng\s+|/)(?P<vi_m>\d{1,2})"
    r"(?:\s*(?:năm\s+|/)(?P<vi_y>\d{4}))?|"
    r"(?P<sl_d>\d{1,2})/(?P<sl_m>\d{1,2})(?:/(?P<sl_y>\d{4}))?|"
    r"tháng\s+(?P<vim_m>\d{1,2})(?:\s*(?:năm\s+|/)(?P<vim_y>\d{4}))?|"
    rf"(?:on\s+)?(?P<on_wd>{_EN_WD})|(?:hôm\s+)?(?P<hom_wd>{_VI_WD})(?!\s+tuần)|"
    r"(?P<rel>yesterday|last weekend|last week|hôm qua|hôm kia|tuần trước|tuần rồi|"
    r"cuối tuần trước|cuối tuần rồi|"
    rf"(?:\d{{1,2}}|{_EN_NUM})\s+(?:day|week)s?\s+ago|"
    rf"(?:last|this past|past)\s+(?:{_EN_WD})|"
    rf"(?:{_VI_WD})\s+(?:tuần trước|tuần rồi|vừa rồi|vừa qua)|"
    rf"(?:\d{{1,2}}|{_VI_NUM})\s+(?:ngày|hôm|tuần)\s+(?:trước|qua))"
    r")(?!\w)",
    re.IGNORECASE,
)


def _day_or_none(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _latest(today: date, month: int, day: int | None) -> int:
    """The year of the latest `day`/`month` not after `today` (a question asks of the past)."""
    if (month, day or 1) <= (today.month, today.day):
        return today.year
    return today.year - 1


def _asked(m: re.Match[str], today: date) -> tuple[date, date, bool] | None:
    g = m.groupdict()
    for mk, dk, yk in (("mdy_m", "mdy_d", "mdy_y"), ("dmy_m", "dmy_d", "dmy_y")):
        if g[mk]:
            month, d = EN_MONTHS[g[mk].lower()], int(g[dk])
            year = int(g[yk]) if g[yk] else _latest(today, month, d)
            found = _day_or_none(year, month, d)
            return None if found is None else (found, found, False)
    for mk, yk in (("my_m", "my_y"), ("my2_m", "my2_y"), ("vim_m", "vim_y")):
        if g[mk]:
            month = EN_MONTHS[g[mk].lower()] if not g[mk].isdigit() else int(g[mk])
            if not 1 <= month <= 12:
                return None
            year = int(g[yk]) if g[yk] else _latest(today, month, None)
            return (*_month_span(year, month), True)
    return _asked_day(g, today)


def _asked_day(g: dict[str, Any], today: date) -> tuple[date, date, bool] | None:
    """An ISO day, `20/11`, `ngày 4 tháng 12`, `on the 4th`, a weekday, a relative day."""
    if g["iso"]:
        found = _day_or_none(*(int(p) for p in g["iso"].split("-")))
        return None if found is None else (found, found, False)
    for dk, mk, yk in (("vi_d", "vi_m", "vi_y"), ("sl_d", "sl_m", "sl_y")):
        if g[dk]:
            d, month = int(g[dk]), int(g[mk])
            if not 1 <= month <= 12:
                return None
            year = int(g[yk]) if g[yk] else _latest(today, month, d)
            found = _day_or_none(year, month, d)
            return None if found is None else (found, found, False)
    if g["nth"]:
        d = int(g["nth"])
        year, month = today.year, today.month
        if d > today.day:
            year, month = _shift_months(today, 1)
        found = _day_or_none(year, month, d)
        return None if found is None else (found, found, False)
    if g["on_wd"] or g["hom_wd"]:
        weekday = (
            _EN_WEEKDAYS.index(g["on_wd"].lower())
            if g["on_wd"]
            else _VI_WEEKDAYS[g["hom_wd"].lower()]
        )
        back = (today.weekday() - weekday) % 7
        found = today - timedelta(days=back)
        return found, found, False
    if g["rel"]:
        said = said_days(g["rel"], today)
        return None if not said else (said[0].first, said[0].last, said[0].month)
    return None


def asked_span(text: str, today: date, margin: int = 1) -> Span | None:
    """The span of days a question names, widened by `margin` days each side (a day said
    `yesterday` at midnight, a session that ran late), or None. The first expression found
    wins; a span longer than `MAX_SPAN_DAYS` is None."""
    for m in _ASKED_RE.finditer(_norm(text)):
        try:
            found = _asked(m, today)
        except (OverflowError, ValueError):
            continue
        if found is None:
            continue
        first, last, month = found
        if month:
            return Span(m.group(0), first, last, True)
        with contextlib.suppress(OverflowError):
            first, last = first - timedelta(days=margin), last + timedelta(days=margin)
        if (last - first).days < MAX_SPAN_DAYS:
            return Span(m.group(0), first, last)
    return None


def span_tokens(span: Span) -> list[str]:
    """The tokens that put a line in `span`: the month's for a whole month, else each day's."""
    if span.month:
        return [month_token(span.first.year, span.first.month)]
    out: list[str] = []
    d = span.first
    while d <= span.last:
        out.append(day_token(d))
        if d == date.max:
            break
        d += timedelta(days=1)
    return out
