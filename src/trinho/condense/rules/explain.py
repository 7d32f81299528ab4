"""Why each held change was made and where it came from, for the owner deciding on it.

The gate's reason (a code) says why a change is held; the model's reason (`REMOVE [n]
duplicate of the food line`) says why it wanted the change, and is kept beside it. Where a
change came from is the week's notes or turns that led to it: for a new text, those sharing
its meaningful words; for a removal, those sharing the model's reason's. The line a change
removes is never its own source, and a note sharing only a common word is no source at all.
Pure: the caller turns the plain triples into the proposals' sources.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from trinho.condense.rules.chunks import Material
from trinho.condense.rules.gate import Change
from trinho.condense.rules.ops import Remove, Script, view_lines
from trinho.textnorm import match_key, nfc, one_line

SourceTriple = tuple[str, str, str]
"""(kind, ref, text): a `trinho.proposals.Source` as plain values."""

MAX_DRAWN = 3
"""At most this many notes or turns are named as what a change was drawn from."""
MIN_WORDS = 2
"""A source shares at least this many meaningful words with the change (all of them when
the change has fewer)."""
MIN_SHARED = 0.5
"""... and at least this share of the words of the shorter of the two."""

_WORD_RE = re.compile(r"\w+")
_DATE_PREFIX_RE = re.compile(r"^\s*[-*+]\s*[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}\s*:?\s*")
_STOP_TEXT = (
    # English function words, and the words any reason or memory line uses.
    "the and for with that this from have has had was were are but not you your his her"
    " its our their they them she him who what when where which will would can could"
    " should into onto about over under than then there here also just very more most"
    " some any all one two now today yesterday tomorrow week day days line lines entry"
    " entries memory note notes same already again old new duplicate duplicated outdated"
    " remove removed removing keep kept owner user says said likes like"
    # Vietnamese function words (syllables): what every sentence holds, never a topic.
    " và là có không được của cho với những các một này đó đã đang sẽ thì mà nhưng"
    " hay hoặc rồi còn cũng vẫn nữa lại ra vào lên xuống để khi nếu vì bị tôi bạn anh"
    " chị em mình họ người ông bà nó ấy ở tại trong ngoài trên dưới từ đến về theo như"
    " rất lắm quá nhiều ít hơn nhất hôm nay mai qua tuần ngày dòng ghi chú trùng cũ mới"
)
STOP_WORDS = frozenset(_STOP_TEXT.split())
"""Words too common to tie a note to a change: sharing only these is no sign of a source."""


def removal_reasons(old_text: str, script: Script) -> dict[str, str]:
    """Each line the script removes (as the model read it) -> the reason the model gave."""
    lines = view_lines(old_text)
    found: dict[str, str] = {}
    for op in script.ops:
        if isinstance(op, Remove) and 1 <= op.line <= len(lines) and op.reason.strip():
            found.setdefault(lines[op.line - 1], " ".join(op.reason.split()))
    return found


def meaningful_words(text: str) -> set[str]:
    """The words of `text` that can tie it to another text: case-folded, NFC, without a
    MEMORY.md entry's date, numbers and `STOP_WORDS`; English words of three letters or more,
    any Vietnamese syllable with a mark (`cá`, `bò`)."""
    words = _WORD_RE.findall(nfc(_DATE_PREFIX_RE.sub("", text)).casefold())
    return {
        w
        for w in words
        if not w.isdigit() and w not in STOP_WORDS and (len(w) >= 3 or not w.isascii())
    }


def related(text: str, basis: str) -> bool:
    """Whether `text` (a note, a turn) shares enough meaningful words with `basis` (a change's
    new text, or the model's reason for a removal) to be named as where it came from."""
    wanted, found = meaningful_words(basis), meaningful_words(text)
    shared = len(wanted & found)
    if not wanted or not found or shared < min(MIN_WORDS, len(wanted)):
        return False
    return shared >= MIN_SHARED * min(len(wanted), len(found))


def _same_line(a: str, b: str) -> bool:
    return match_key(_DATE_PREFIX_RE.sub("", a)) == match_key(_DATE_PREFIX_RE.sub("", b))


def drawn_from(
    basis: str,
    material: Iterable[SourceTriple],
    limit: int = MAX_DRAWN,
    removed: Sequence[str] = (),
) -> tuple[SourceTriple, ...]:
    """The notes and turns a change was most likely drawn from: those `related` to `basis`,
    most shared words first (ties: in the order given); never one that is a `removed` line
    itself (a removal's source is what led to it, not what it removes)."""
    wanted = meaningful_words(basis)
    scored: list[tuple[int, int, SourceTriple]] = []
    for n, item in enumerate(material):
        if not related(item[2], basis) or any(_same_line(item[2], r) for r in removed):
            continue
        scored.append((-len(wanted & meaningful_words(item[2])), n, item))
    scored.sort()
    return tuple(item for _, _, item in scored[:limit])


MEMORY_REF = "MEMORY.md"
"""How a source in MEMORY.md is named: the file, and `#L7` for its line."""


def memory_ref_now(ref: str, quoted: str, memory_text: str) -> str:
    """Where a MEMORY.md source (`ref`, its line `quoted` as a source quotes it) is now: at the
    first line that holds that text (`MEMORY.md#L7`), or the file alone when none does any more.

    A change keeps the number its line had when it was made; an approval, an archive or a hand
    edit moves lines since, so a screen anchors the source on the file as it is when drawn,
    never on the stored number. Other files' refs are returned as they are."""
    if ref.partition("#")[0] != MEMORY_REF:
        return ref
    for number, line in enumerate(view_lines(memory_text), 1):
        shown = one_line(nfc(line))
        if shown == quoted or (quoted.endswith("…") and shown.startswith(quoted[:-1])):
            return f"{MEMORY_REF}#L{number}"
    return MEMORY_REF


def explained(
    changes: Sequence[Change],
    reasons: Mapping[str, str],
    material: Sequence[SourceTriple],
) -> tuple[Change, ...]:
    """Every held change with the model's reason for it (a removal's) and where it came
    from; the changes that applied by themselves and a rewrite held whole as they are, and so
    is an archive: its reason is the budget's, never the model's for a line it moves, and the
    lines it moves are on its card."""
    out: list[Change] = []
    for change in changes:
        if not change.held or change.cls in ("suspicious", "archive"):
            out.append(change)
            continue
        removed = [line.removesuffix("\r") for line in (change.old or "").split("\n") if line]
        why = next((reasons[line] for line in removed if line in reasons), None)
        basis = change.new if change.new is not None else why
        sources = drawn_from(basis, material, removed=removed) if basis else ()
        out.append(replace(change, why=why, sources=sources))
    return tuple(out)


def material_source(m: Material) -> SourceTriple:
    """A note or turn of the week as a source: its file, anchored at the note's time or the
    turn's line (`memory/2026-11-20.md#14:05`, `conversations/2026-11-20.jsonl#3`)."""
    path, _, line = m.where.rpartition(":")
    if m.source == "note":
        return ("note", f"{path}#{m.time or 'L' + line}", m.text)
    return ("turn", f"{path}#{line}", m.text)
