"""Pairing the lines of an old MEMORY.md with those of a rewrite, before any rule is applied.

Entries pair as multisets in four passes, each on what the one before left: the same text and
date, the same text with any date, the same match key (NFC, case-folded, white space collapsed)
and date, the same key with any date. A key pairs lines, it never says two texts are the same:
a pair whose texts differ beyond surrounding white space is an edit to the gate. What is left on
both sides may pair as an *edit* when the texts are similar. Headings (the owner writes facts
into them) and loose lines (hand-written prose, kept verbatim) pair only when equal up to
surrounding white space; a heading left over on both sides pairs as an edit when its text is
similar, or when it stands where the old one stood (between the same paired lines).
Nothing here looks at the run day or the window: that is the gate's business.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from trinho.memory.format import Entry, Heading, Item, Loose, parse, parse_entry_date
from trinho.textnorm import match_key

EDIT_THRESHOLD = 0.6
"""Two entry texts are "similar" (an edit, not a removal plus an addition) when the
`difflib.SequenceMatcher` ratio of their match keys, 2*matches/total characters, is at least
this. It suits both English words and Vietnamese syllables: "sống ở Hà Nội" vs "sống ở Đà Nẵng"
is an edit, "likes tea" vs "has two cats" is not."""

EDIT_CANDIDATES = 4
"""How many old entries, ranked by shared words, are compared character by character."""

EDIT_KEY_CHARS = 256
"""Only the first this many characters of two long entries are compared character by character:
the comparison costs the product of the lengths, and a few hundred characters tell an edit from
a different entry. Longer entries alike at the start are judged an edit, which is held: the
cautious side."""

_POOL = 256
"""At most this many old entries are ranked by shared words for one new entry; they are
gathered from its rarest words first, so common words never make the search quadratic."""

_TOKEN_RE = re.compile(r"\w+")


@dataclass(frozen=True)
class Matching:
    """Index pairs (0-based line numbers: new -> old) and the lines left unpaired."""

    old: tuple[Item, ...]
    new: tuple[Item, ...]
    entries: dict[int, int]
    edits: dict[int, tuple[int, float]]
    loose: dict[int, int]
    headings: dict[int, int]
    added: tuple[int, ...]
    removed: tuple[int, ...]
    lost_lines: int
    malformed: tuple[int, ...]
    headings_added: tuple[int, ...]
    headings_removed: tuple[int, ...]
    heading_edits: dict[int, tuple[int, float]] = field(default_factory=dict)
    """New heading -> (old heading, similarity): a heading whose text was changed."""
    relettered: dict[int, int] = field(default_factory=dict)
    """The pairs of `entries` whose texts differ though their key is the same: edits."""

    @property
    def old_lines(self) -> int:
        """The old file's lines worth keeping: entries and non-blank hand-written lines."""
        return sum(isinstance(item, Entry) or _nonblank_loose(item) for item in self.old)

    @property
    def lost(self) -> tuple[int, ...]:
        """The old lines `lost_lines` counts, in file order: entries the rewrite does not keep
        word for word (removed, or edited into another text) and hand-written lines it drops."""
        edited = (*(o for o, _ in self.edits.values()), *self.relettered.values())
        return tuple(sorted({*self.removed, *edited}))

    @property
    def gained(self) -> tuple[int, ...]:
        """The rewrite's lines the old file did not have, in file order: new entries, the new
        text of edited ones, and hand-written (or malformed) lines."""
        return tuple(sorted({*self.added, *self.edits, *self.relettered, *self.malformed}))


def date_norm(entry: Entry) -> str:
    day = parse_entry_date(entry.date_text)
    return day.isoformat() if day else entry.date_text


def loose_key(raw: str) -> str:
    """Hand-written prose and headings are kept verbatim: only surrounding white space (a CR
    of a CRLF line among it) may differ; another normal form of the same text is an edit."""
    return raw.strip()


def match(old_text: str, new_text: str) -> Matching:
    old = parse(old_text).items
    new = parse(new_text).items
    entries, added, unpaired_old = _pair_entries(old, new)
    edits = _pair_edits(old, new, unpaired_old, added)
    edited_old = {o for o, _ in edits.values()}
    loose, malformed, loose_removed = _pair_lines(old, new, _nonblank_loose, loose_key)
    headings, headings_added, headings_removed = _pair_lines(
        old, new, lambda item: isinstance(item, Heading), loose_key
    )
    heading_edits = _pair_heading_edits(old, new, headings_removed, headings_added)
    anchors = {**entries, **{n: o for n, (o, _) in edits.items()}, **loose, **headings}
    heading_edits.update(
        _pair_headings_in_place(
            old,
            new,
            [o for o in headings_removed if o not in {o for o, _ in heading_edits.values()}],
            [n for n in headings_added if n not in heading_edits],
            anchors,
        )
    )
    edited_headings = {o for o, _ in heading_edits.values()}
    removed = sorted([o for o in unpaired_old if o not in edited_old] + list(loose_removed))
    relettered = {n: o for n, o in entries.items() if _entry(old, o).text != _entry(new, n).text}
    return Matching(
        old=old,
        new=new,
        entries=entries,
        edits=edits,
        loose=loose,
        headings=headings,
        added=tuple(n for n in added if n not in edits),
        removed=tuple(removed),
        lost_lines=len(unpaired_old) + len(loose_removed) + len(relettered),
        malformed=tuple(malformed),
        headings_added=tuple(n for n in headings_added if n not in heading_edits),
        headings_removed=tuple(o for o in headings_removed if o not in edited_headings),
        heading_edits=heading_edits,
        relettered=relettered,
    )


def _nonblank_loose(item: Item) -> bool:
    return isinstance(item, Loose) and not item.blank


def _indices(items: Sequence[Item], kind: type) -> list[int]:
    return [i for i, item in enumerate(items) if isinstance(item, kind)]


def _entry(items: Sequence[Item], index: int) -> Entry:
    item = items[index]
    assert isinstance(item, Entry)
    return item


def _pair_entries(
    old: Sequence[Item], new: Sequence[Item]
) -> tuple[dict[int, int], list[int], list[int]]:
    """Pair entries in file order, each pass on what the passes before left: the same text
    and date, the same text, the same key and date, the same key."""
    passes: list[Callable[[Entry], tuple[str, ...]]] = [
        lambda e: (e.text, date_norm(e)),
        lambda e: (e.text,),
        lambda e: (e.key, date_norm(e)),
        lambda e: (e.key,),
    ]
    old_left = _indices(old, Entry)
    new_left = _indices(new, Entry)
    pairs: dict[int, int] = {}
    for key_of in passes:
        pool: dict[tuple[str, ...], deque[int]] = defaultdict(deque)
        for o in old_left:
            pool[key_of(_entry(old, o))].append(o)
        rest: list[int] = []
        for n in new_left:
            queue = pool.get(key_of(_entry(new, n)))
            if queue:
                pairs[n] = queue.popleft()
            else:
                rest.append(n)
        used = set(pairs.values())
        old_left = [o for o in old_left if o not in used]
        new_left = rest
    return pairs, new_left, old_left


def _tokens(text: str) -> set[str]:
    return set(_TOKEN_RE.findall(text))


def _dice(a: set[str], b: set[str]) -> float:
    return 2 * len(a & b) / (len(a) + len(b))


def _pair_edits(
    old: Sequence[Item], new: Sequence[Item], old_left: Iterable[int], new_left: Iterable[int]
) -> dict[int, tuple[int, float]]:
    """Pair leftover entries whose texts are similar, best pairs first, each line at most once.

    Candidates come from an index of shared words (rarest first, at most `_POOL` of them), and
    only the `EDIT_CANDIDATES` sharing the most words are compared character by character, so
    the work per new line is bounded whatever the size of the file.
    """
    old_keys = {o: _entry(old, o).key for o in old_left}
    old_tokens = {o: _tokens(key) for o, key in old_keys.items()}
    postings: dict[str, list[int]] = defaultdict(list)
    for o, tokens in old_tokens.items():
        for token in tokens:
            postings[token].append(o)
    scored: list[tuple[float, int, int]] = []
    for n in new_left:
        key = _entry(new, n).key
        tokens = _tokens(key)
        pool: set[int] = set()
        for token in sorted(tokens, key=lambda tok: (len(postings.get(tok, ())), tok)):
            posting = postings.get(token)
            if not posting:
                continue
            if pool and len(pool) + len(posting) > _POOL:
                break
            pool.update(posting[:_POOL])
        ranked = sorted(pool, key=lambda o: (-_dice(tokens, old_tokens[o]), o))
        matcher = SequenceMatcher(None, autojunk=False)
        matcher.set_seq2(key[:EDIT_KEY_CHARS])  # analysed once, compared with each candidate
        for o in ranked[:EDIT_CANDIDATES]:
            matcher.set_seq1(old_keys[o][:EDIT_KEY_CHARS])
            if matcher.real_quick_ratio() < EDIT_THRESHOLD or matcher.quick_ratio() < (
                EDIT_THRESHOLD
            ):
                continue
            ratio = matcher.ratio()
            if ratio >= EDIT_THRESHOLD:
                scored.append((ratio, n, o))
    return _best_pairs(scored)


def _best_pairs(scored: list[tuple[float, int, int]]) -> dict[int, tuple[int, float]]:
    """Scored (ratio, new, old) candidates paired greedily, best first (ties by position):
    each new item to at most one old one and each old one to at most one new one."""
    edits: dict[int, tuple[int, float]] = {}
    taken: set[int] = set()
    for ratio, n, o in sorted(scored, key=lambda s: (-s[0], s[1], s[2])):
        if n not in edits and o not in taken:
            edits[n] = (o, ratio)
            taken.add(o)
    return edits


HEADING_PAIRS = 10_000
"""Leftover headings are compared pairwise only when there are at most this many pairs; a
rewrite with more (a flood of headings) pairs none: every old one is then a removal, held."""


def _pair_heading_edits(
    old: Sequence[Item], new: Sequence[Item], old_left: Sequence[int], new_left: Sequence[int]
) -> dict[int, tuple[int, float]]:
    """Pair leftover headings whose texts are similar (as entries are), best pairs first: a
    heading the rewrite changed is one edit, not a removal and an addition."""
    if len(old_left) * len(new_left) > HEADING_PAIRS:
        return {}
    scored: list[tuple[float, int, int]] = []
    matcher = SequenceMatcher(None, autojunk=False)
    for n in new_left:
        matcher.set_seq2(match_key(new[n].raw)[:EDIT_KEY_CHARS])
        for o in old_left:
            matcher.set_seq1(match_key(old[o].raw)[:EDIT_KEY_CHARS])
            if matcher.quick_ratio() < EDIT_THRESHOLD:
                continue
            ratio = matcher.ratio()
            if ratio >= EDIT_THRESHOLD:
                scored.append((ratio, n, o))
    return _best_pairs(scored)


def _pair_headings_in_place(
    old: Sequence[Item],
    new: Sequence[Item],
    old_left: Sequence[int],
    new_left: Sequence[int],
    anchors: dict[int, int],
) -> dict[int, tuple[int, float]]:
    """Pair a leftover heading of the rewrite with the one leftover old heading that stood
    between the same paired lines: whatever its words, the rewrite wrote it in that heading's
    place, so it is an edit of it (held), never a removal plus a new heading that would take the
    section's entries."""
    old_of = sorted(anchors.items())
    kept_old = sorted(anchors.values())

    def gap_new(n: int) -> tuple[int, int]:
        i = bisect.bisect_left([j for j, _ in old_of], n)
        before = old_of[i - 1][1] if i else -1
        after = old_of[i][1] if i < len(old_of) else len(old)
        return before, after

    def gap_old(o: int) -> tuple[int, int]:
        i = bisect.bisect_left(kept_old, o)
        before = kept_old[i - 1] if i else -1
        after = kept_old[i] if i < len(kept_old) else len(old)
        return before, after

    olds: dict[tuple[int, int], list[int]] = defaultdict(list)
    for o in old_left:
        olds[gap_old(o)].append(o)
    news: dict[tuple[int, int], list[int]] = defaultdict(list)
    for n in new_left:
        news[gap_new(n)].append(n)
    pairs: dict[int, tuple[int, float]] = {}
    for gap, [n] in ((g, ns) for g, ns in news.items() if len(ns) == 1):
        if len(olds.get(gap, ())) == 1:
            o = olds[gap][0]
            ratio = SequenceMatcher(None, match_key(old[o].raw), match_key(new[n].raw)).ratio()
            pairs[n] = (o, ratio)
    return pairs


def _pair_lines(
    old: Sequence[Item],
    new: Sequence[Item],
    keep: Callable[[Item], bool],
    key: Callable[[str], str],
) -> tuple[dict[int, int], list[int], list[int]]:
    """Multiset pairing by `key` of the whole line, for the items `keep` selects."""
    pool: dict[str, deque[int]] = defaultdict(deque)
    for o, item in enumerate(old):
        if keep(item):
            pool[key(item.raw)].append(o)
    pairs: dict[int, int] = {}
    unpaired_new: list[int] = []
    for n, item in enumerate(new):
        if not keep(item):
            continue
        queue = pool.get(key(item.raw))
        if queue:
            pairs[n] = queue.popleft()
        else:
            unpaired_new.append(n)
    used = set(pairs.values())
    unpaired_old = [o for o, item in enumerate(old) if keep(item) and o not in used]
    return pairs, unpaired_new, unpaired_old
