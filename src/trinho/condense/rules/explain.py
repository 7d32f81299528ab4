"""Why each held change was made and where it came from, for the owner deciding on it.

The gate's reason (a code) says why a change is held; the model's reason (`REMOVE [n]
duplicate of the food line`) says why it wanted the change, and is kept beside it. The lines
a change was drawn from are found here too: the MEMORY.md line it removes or edits (with its
line number), and for a new line the week's notes or turns it shares most of its words with.
Pure: the caller turns the plain triples into the proposals' sources.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from trinho.condense.rules.gate import Change
from trinho.condense.rules.ops import Remove, Script, view_lines
from trinho.textnorm import nfc, one_line

SourceTriple = tuple[str, str, str]
"""(kind, ref, text): a `trinho.proposals.Source` as plain values."""

MEMORY_REF = "MEMORY.md"
MAX_DRAWN = 3
"""At most this many notes or turns are named as what a new line was drawn from."""
MIN_SHARED = 0.5
"""A note or turn is named when it has at least this share of the new line's words."""

_WORD_RE = re.compile(r"\w{3,}")
_DATE_PREFIX_RE = re.compile(r"^\s*[-*+]\s*[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}\s*:?\s*")


def removal_reasons(old_text: str, script: Script) -> dict[str, str]:
    """Each line the script removes (as the model read it) -> the reason the model gave."""
    lines = view_lines(old_text)
    found: dict[str, str] = {}
    for op in script.ops:
        if isinstance(op, Remove) and 1 <= op.line <= len(lines) and op.reason.strip():
            found.setdefault(lines[op.line - 1], " ".join(op.reason.split()))
    return found


def _words(text: str) -> set[str]:
    return set(_WORD_RE.findall(_DATE_PREFIX_RE.sub("", text).casefold()))


def drawn_from(
    line: str, material: Iterable[SourceTriple], limit: int = MAX_DRAWN
) -> tuple[SourceTriple, ...]:
    """The notes and turns a new line was most likely written from: those holding at least
    `MIN_SHARED` of its words, most shared first (ties: in the order given)."""
    wanted = _words(line)
    if not wanted:
        return ()
    scored: list[tuple[float, int, SourceTriple]] = []
    for n, item in enumerate(material):
        share = len(wanted & _words(item[2])) / len(wanted)
        if share >= MIN_SHARED:
            scored.append((-share, n, item))
    scored.sort()
    return tuple(item for _, _, item in scored[:limit])


def memory_line_source(old_text: str, line: str) -> SourceTriple | None:
    """The MEMORY.md line a change removes or edits, with its line number as the anchor."""
    wanted = line.removesuffix("\r")
    for number, text in enumerate(view_lines(old_text), 1):
        if text == wanted:
            return ("memory", f"{MEMORY_REF}#L{number}", text)
    return None


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
    old_text: str,
    reasons: Mapping[str, str],
    material: Sequence[SourceTriple],
) -> tuple[Change, ...]:
    """Every held change with the model's reason for it (a removal's) and its sources; the
    changes that applied by themselves as they are, and so is an archive: its reason is the
    budget's, never the model's for a line it moves, and the lines it moves are on its card."""
    out: list[Change] = []
    for change in changes:
        if not change.held or change.cls in ("suspicious", "archive"):
            out.append(change)
            continue
        sources: list[SourceTriple] = []
        why = None
        if change.old is not None:
            for old_line in change.old.split("\n"):
                why = why or reasons.get(old_line.removesuffix("\r"))
                found = memory_line_source(old_text, old_line)
                if found is not None and found not in sources:
                    sources.append(found)
        if change.new is not None:
            sources.extend(s for s in drawn_from(change.new, material) if s not in sources)
        out.append(replace(change, why=why, sources=tuple(sources)))
    return tuple(out)
