"""Pure ranking: the FTS5 match expression, the diacritics bonus, fusion of the lexical and
dense sides, the who/when boosts, the neighbouring turns (a reply after a question, a dense
score smoothed over the turns around it), the inference questions and the spread over
sessions."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from trinho.search.tokenize import fold, words

EXACT_BONUS = 1.0
"""How much a hit gains, in proportion, when it has every accented query word as written.

Folded Vietnamese syllables collide a lot (`da` is dạ, đã, đá, đà; `nang` is nàng, nắng,
nặng), so a line holding a folded twin twice can out-score the exact words by BM25 alone
(term frequency gives up to about 1.5x): doubling the exact hit keeps it first."""

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


@dataclass(frozen=True)
class Tuning:
    """The weights of the ranking rules, derived on the LoCoMo dev half (docs/benchmarks.md).

    `dense_weight`: how much a dense hit at the top of the dense list counts against the best
    lexical hit (both scaled to 0..1 within the query's candidates; a cosine below the
    `dense_pool`-th best counts 0; `dense_when_lexical_full` false: the dense side is not waited
    for when the first lexical hits all hold every query term, see `lexical_suffices`).
    `speaker_boost`: the factor for what a person named in the question said. `when_boost`:
    the factor for a line that carries a time expression, for a "when" question.
    `per_session`: the most hits of one day file among the first ones when a question has
    several parts (0: no limit). `answer_weight`: the share of a turn's score that the next
    turn of its transcript gains when the turn asks a question (the answer is said after it).
    `dense_neighbours`: the share of the best neighbouring turn's cosine a turn's own cosine
    gains (`smooth_dense`). For a question asking for a guess about someone
    (`is_inference_question`) answered with the dense side: `inference_dense_weight` and
    `inference_dense_pool` take the place of `dense_weight` and `dense_pool`, and
    `profile_boost` is the factor for a named person's line that tells of themselves
    (`describes_self`). `date_weight`: the share of its own score a line gains when its day
    (or a day it says) is in the span a question names, `date_margin` days either side
    (`trinho.search.dates.asked_span`; 0: the span is not searched).
    `vietnamese_dense_weight`: the dense weight of a Vietnamese question that names no day
    (`for_language`; equal to `dense_weight` or below it: the rule off).
    """

    dense_weight: float = 0.3
    speaker_boost: float = 1.5
    when_boost: float = 1.2
    per_session: int = 0
    protect_full_matches: bool = True
    dense_pool: int = 60
    dense_when_lexical_full: bool = False
    answer_weight: float = 0.3
    dense_neighbours: float = 0.5
    inference_dense_weight: float = 0.6
    inference_dense_pool: int = 120
    profile_boost: float = 2.0
    date_weight: float = 2.0
    date_margin: int = 1
    vietnamese_dense_weight: float = 3.0

    def for_inference(self) -> Tuning:
        """The weights for an inference question: meaning counts twice as much, from twice
        as deep in the dense list, since its words seldom meet the evidence's."""
        return replace(
            self, dense_weight=self.inference_dense_weight, dense_pool=self.inference_dense_pool
        )

    def for_language(self, question: str, dated: bool) -> Tuning:
        """The weights for a question in its language: a Vietnamese one weighs meaning at
        `vietnamese_dense_weight` at least, since its syllables (`nhà`, `có`, `mình`, `đi`)
        match lines by accident far more often than English words do, and a paraphrase's best
        lexical hit is mostly such accidents, above what the dense side found. A question that
        names a day (`dated`) keeps its weights: its lexical side holds the day's own evidence."""
        if dated or not is_vietnamese(question):
            return self
        return replace(self, dense_weight=max(self.dense_weight, self.vietnamese_dense_weight))


_VIETNAMESE_ONLY = frozenset("ăắằẳẵặấầẩẫậđếềểễệốồổỗộơớờởỡợưứừửữựạẹịọụỵảẻỉỏủỷẽĩũỹ")
"""Letters Vietnamese writes and the Western European languages do not (`é`, `à`, `ô`, `ã`
alone are French or Portuguese too: `café` is no Vietnamese question)."""


def is_vietnamese(text: str) -> bool:
    """Whether a text holds a letter only Vietnamese writes (`ơ`, `ư`, `đ`, `ạ`, `ả`, `ế`).
    A question typed without diacritics reads as any other language."""
    return not _VIETNAMESE_ONLY.isdisjoint(unicodedata.normalize("NFC", text.lower()))


@dataclass(frozen=True)
class Candidate:
    """What ranking knows of one entry: its lexical and dense evidence and its facets.

    `dense` is the cosine with the query, smoothed over the neighbouring turns for a turn
    (`smooth_dense`); `asks`: a transcript turn that asks a question; `previous`: the doc id
    of the turn just before this one in its transcript; `self_described`: a line that tells
    of its speaker (`describes_self`, computed for inference questions only)."""

    doc_id: int
    text: str
    session: str
    lexical: float = 0.0
    lexical_rank: int | None = None
    dense: float | None = None
    dense_rank: int | None = None
    full_match: bool = False
    speaker_named: bool = False
    time_cue: bool = False
    current: bool = True
    asks: bool = False
    previous: int | None = None
    self_described: bool = False


@dataclass(frozen=True)
class Ranked:
    """A candidate's final score and why: every factor that made it."""

    doc_id: int
    score: float
    why: tuple[str, ...]


_WHEN_RE = re.compile(
    r"\b(when|what (?:date|day|month|year|time)|how long ago|khi nào|bao giờ|lúc nào|hôm nào|"
    r"ngày nào|tháng nào|năm nào|khi nao|bao gio|luc nao|ngay nao|thang nao|nam nao)\b",
    re.IGNORECASE,
)
_MONTHS = (
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday"
)
_TIME_RE = re.compile(
    r"\b(yesterday|today|tonight|tomorrow|ago|last|next|recently|weekend|week|month|year|"
    r"morning|evening|afternoon|"
    + "|".join(_MONTHS.split())
    + r"|\d{1,4}[/-]\d{1,2}(?:[/-]\d{1,4})?|"
    r"(?:19|20)\d\d|hôm qua|hôm nay|ngày mai|tuần trước|tuần sau|tháng trước|năm ngoái|"
    r"năm trước|sáng nay|tối qua|cuối tuần|tháng \d+|ngày \d+)\b",
    re.IGNORECASE,
)


def is_when_question(text: str) -> bool:
    """Whether a question asks for a time (`when`, `what year`, `khi nào`, `bao giờ`)."""
    return _WHEN_RE.search(text) is not None


_INFERENCE_RE = re.compile(r"\b(would|might|likely|probably|considered)\b", re.IGNORECASE)
_SELF_RE = re.compile(  # the words after `I` share it: half the time of one `I ...` each
    r"\b(?:I(?:'m| am| love| like| enjoy|'ve always| feel| believe| think)|my|want|wanna|hope|"
    r"dream|goal|passion|favou?rite|keen|means a lot|important to me)\b",
    re.IGNORECASE,
)


def is_inference_question(text: str) -> bool:
    """Whether a question asks for a guess about someone (`Would Caroline likely ...?`,
    `What might John's degree be in?`): its answer is in what the person says of themselves,
    seldom in the question's words. `could` is left out: it mostly asks what someone can do."""
    return _INFERENCE_RE.search(text) is not None


def describes_self(text: str) -> bool:
    """Whether a line tells of its speaker: who they are, what they love, want or hold dear
    (`I'm`, `my`, `I love`, `goal`, `favorite`)."""
    return _SELF_RE.search(text) is not None


def has_time_cue(text: str) -> bool:
    """Whether a line says when something happened: a date, a month, `yesterday`, `hôm qua`."""
    return _TIME_RE.search(text) is not None


def named_people(query: str, people: Sequence[str]) -> list[str]:
    """The people (speakers of the transcripts) a query names, in the order given: a person
    matches when every word of the name is a word of the query, diacritics folded."""
    asked = {fold(w) for w in words(query)}
    return [p for p in people if (parts := [fold(w) for w in words(p)]) and set(parts) <= asked]


_GENERIC_KEY_WORDS = frozenset({"name", "ten", "full"})
_NAME_WORD_RE = re.compile(r"^[^\W\d_][^\W_]*$")


def looks_like_name(value: str) -> bool:
    """A fact value that names a person: one to four words, each starting with a capital
    (`Lan`, `Nguyễn Thị Lan`, `Bob`), nothing else (no digits, no sentence)."""
    parts = value.split()
    return 0 < len(parts) <= 4 and all(
        _NAME_WORD_RE.match(p) is not None and p[0].isupper() for p in parts
    )


def known_people(facts: Sequence[tuple[str, str]]) -> list[tuple[frozenset[str], str]]:
    """The people among current facts (key, value): each name-valued fact as the words of its
    key (diacritics folded; words such as `name` left out) and the name. Computed once per
    change of the index, so a search only compares sets."""
    found: list[tuple[frozenset[str], str]] = []
    for key, value in facts:
        parts = frozenset(fold(w) for w in words(key)) - _GENERIC_KEY_WORDS
        if parts and looks_like_name(value):
            found.append((parts, value))
    return found


def fact_people(known: Sequence[tuple[frozenset[str], str]], query: str) -> list[str]:
    """The people the owner's facts know that a query names by their relation: every key word
    in the query (`wife`: `Lan` for `what does my wife like`; `ten-con-gai`: `Na` for
    `con gái`), diacritics folded."""
    asked = {fold(w) for w in words(query)}
    found: list[str] = []
    for parts, name in known:
        if parts <= asked and name not in found:
            found.append(name)
    return found


_PARTS_RE = re.compile(r"\b(and|both|or|also|và|cả|hoặc|với)\b", re.IGNORECASE)


def asks_question(text: str) -> bool:
    """Whether a line asks something (a question mark, half- or full-width): the turn after
    it is where its answer is."""
    return "?" in text or "\uff1f" in text


def smooth_dense(
    cosines: Mapping[int, float],
    neighbours: Mapping[int, tuple[int | None, int | None]],
    weight: float,
) -> dict[int, float]:
    """Each turn's cosine plus `weight` times the best cosine of the turns just before and
    after it in its transcript (those in `cosines`; a line without any counts its own), so a
    turn is found by what is said around it, as the lexical side reads its neighbours' words.

    A reply (`Three times a week`) holds little of the question's meaning; the line it answers
    does."""
    out: dict[int, float] = {}
    for doc_id, own in cosines.items():
        before, after = neighbours.get(doc_id, (None, None))
        around = [cosines[n] for n in (before, after) if n is not None and n in cosines]
        out[doc_id] = own + weight * (max(around) if around else own)
    return out


def is_multipart(text: str, named: Sequence[str]) -> bool:
    """Whether a question has more than one part: two people, or parts joined by `and`/`và`."""
    return len(named) > 1 or _PARTS_RE.search(text) is not None


def lexical_suffices(full_matches: Sequence[bool], limit: int) -> bool:
    """Whether the first `limit` lexical hits (in order, each: does it hold every query term)
    leave the dense side nothing to do: every one is a full match, which no line found by
    meaning alone may pass, so the search does not wait for the query's embedding (the
    dearest step of a search, started beside the lexical one)."""
    return len(full_matches) >= limit and all(full_matches[:limit])


def fuse(
    candidates: Sequence[Candidate],
    tuning: Tuning,
    when: bool,
    inference: bool = False,
) -> list[Ranked]:
    """Order candidates by lexical and dense evidence, then the who/when boosts (and, for an
    inference question, the boost of a named person's lines about themselves).

    Both sides are scaled to 0..1 within the query (BM25 by its best candidate, a cosine by the
    span of the dense list), so a dense hit far above the rest can pass lexical hits that match
    one common word, but a line with every query term (an exact or folded match) is never put
    below a line found by meaning alone.
    """
    best_lexical = max((c.lexical for c in candidates), default=0.0) or 1.0
    dense = [c.dense for c in candidates if c.dense is not None and c.dense_rank is not None]
    pool = sorted(dense, reverse=True)[: tuning.dense_pool]
    top, floor = (pool[0], pool[-1]) if pool else (1.0, 0.0)
    span = top - floor if top > floor else 1.0
    ranked: list[tuple[float, int, Ranked, Candidate]] = []
    for order, c in enumerate(candidates):
        why: list[str] = []
        score = c.lexical / best_lexical
        if c.lexical_rank is not None:
            why.append(f"lexical #{c.lexical_rank} bm25 {c.lexical:.3g}")
        if c.dense is not None:
            part = tuning.dense_weight * max(c.dense - floor, 0.0) / span
            score += part
            why.append(f"dense #{c.dense_rank} {c.dense:.3f} (+{part:.3f})")
        if c.speaker_named and tuning.speaker_boost != 1.0:
            score *= tuning.speaker_boost
            why.append(f"said by a person named x{tuning.speaker_boost:g}")
        if inference and c.speaker_named and c.self_described and tuning.profile_boost != 1.0:
            score *= tuning.profile_boost
            why.append(f"tells of the person named x{tuning.profile_boost:g}")
        if when and c.time_cue and tuning.when_boost != 1.0:
            score *= tuning.when_boost
            why.append(f"says when x{tuning.when_boost:g}")
        ranked.append((score, order, Ranked(c.doc_id, 0.0, tuple(why)), c))
    ranked = _answers(ranked, tuning.answer_weight)
    ranked = [
        (score, order, Ranked(r.doc_id, score * best_lexical, r.why), c)  # on the BM25 scale
        for score, order, r, c in ranked
    ]
    ranked.sort(key=lambda item: (-item[0], item[1]))
    out = [(r, c) for _, _, r, c in ranked]
    if tuning.protect_full_matches:
        out = _protect(out)
    return [r for r, _ in out]


def _answers(
    ranked: list[tuple[float, int, Ranked, Candidate]], weight: float
) -> list[tuple[float, int, Ranked, Candidate]]:
    """A turn right after a candidate that asks a question gains `weight` times that
    question's score: `How often do you all work out together?` finds the reply
    `Three times a week`, which shares no word with the query."""
    if weight <= 0:
        return ranked
    asking = {c.doc_id: score for score, _, _, c in ranked if c.asks}
    out = []
    for score, order, r, c in ranked:
        asked = asking.get(c.previous) if c.previous is not None else None
        if asked:
            part = weight * asked
            score += part
            r = Ranked(r.doc_id, r.score, (*r.why, f"answers a question found (+{part:.3f})"))
        out.append((score, order, r, c))
    return out


def _protect(ranked: list[tuple[Ranked, Candidate]]) -> list[tuple[Ranked, Candidate]]:
    """Lines found by meaning alone go after every line holding all the query's terms."""
    last = max(
        (i for i, (_, c) in enumerate(ranked) if c.full_match and c.lexical_rank is not None),
        default=-1,
    )
    head = ranked[: last + 1]
    moved = [(r, c) for r, c in head if c.lexical_rank is None]
    if not moved:
        return ranked
    kept = [(r, c) for r, c in head if c.lexical_rank is not None]
    shown = [
        (Ranked(r.doc_id, r.score, (*r.why, "after the full lexical matches")), c) for r, c in moved
    ]
    return kept + shown + ranked[last + 1 :]


def spread_sessions(
    ranked: Sequence[K], session: Callable[[K], str], per_session: int, limit: int
) -> list[K]:
    """At most `per_session` of the first `limit` from one session while others are there:
    a question of several parts gets the best of each day, not ten lines of one."""
    if per_session <= 0:
        return list(ranked)
    first: list[K] = []
    later: list[K] = []
    counts: dict[str, int] = {}
    for item in ranked:
        key = session(item)
        if len(first) < limit and counts.get(key, 0) < per_session:
            first.append(item)
            counts[key] = counts.get(key, 0) + 1
        else:
            later.append(item)
    return first + later


CANDIDATES = 50
"""How many lexical candidates beyond the limit a search reads when a rule may reorder them."""


def pool_size(limit: int, reordered: bool) -> int:
    """How many matches a search reads: `CANDIDATES` beyond the limit when a ranking rule may
    reorder them (diacritics, a person named, a "when" question, the days named, the dense
    side), else the limit alone, which BM25's order already settles. Both indexes read so."""
    return limit + CANDIDATES if reordered else limit


CURRENT_WHY = "the current version of a fact found by its past"
"""What `--explain` says of a fact's current version placed by `current_first`."""


def current_first(order: Sequence[K], current_of: Mapping[K, K]) -> list[tuple[K, K | None]]:
    """A fact's past version is shown after its current one: `order` with each past version
    (a key of `current_of`) preceded by its current version, moved up when it came later,
    each item once. Each pair is an item and the past version that placed it (None for the
    items of `order` in their own place), whose score and reasons the current one takes."""
    out: list[tuple[K, K | None]] = []
    placed: set[K] = set()
    for item in order:
        if item in placed:
            continue
        now = current_of.get(item)
        if now is not None and now not in placed:
            out.append((now, item))
            placed.add(now)
        out.append((item, None))
        placed.add(item)
    return out
