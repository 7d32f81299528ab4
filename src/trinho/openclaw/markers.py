"""OpenClaw's machine lines in markdown: HTML comment markers and managed blocks (pure).

OpenClaw (read at openclaw/openclaw 00e7cfd9, `extensions/memory-core/src/dreaming-markdown.ts`
and 8011aeb6, `packages/memory-host-sdk/src/host/daily-paths.ts`) writes three kinds of line
that nobody typed: promotion markers in MEMORY.md (`<!-- openclaw-memory-promotion:KEY -->`,
each on the line before the entry it tags), other comments (`<!-- trigger: ... -->`), and
managed dreaming blocks in day files: a heading (`## Light Sleep`, `## REM Sleep`), then
`<!-- openclaw:dreaming:light:start -->`, the phase's scratch, `<!-- ...:end -->`.

One parser says which lines those are, so every reader agrees: such lines are kept byte for
byte, are never search hits, and are never material for the weekly rewrite. Day files are named
`YYYY-MM-DD.md` or `YYYY-MM-DD-slug.md` (OpenClaw's session summaries) and dated by the prefix.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Container, Sequence
from datetime import date
from typing import Literal

__all__ = [
    "Role",
    "day_of_name",
    "is_comment_line",
    "line_roles",
    "memory_entry_lines",
    "promotion_lines",
    "promotion_markers_of",
    "reattach_markers",
    "without_markers",
]

Role = Literal["text", "marker", "managed"]
"""`text`: written by a person or a model as memory; `marker`: an HTML comment line;
`managed`: inside a managed block (its markers, its heading and its body)."""

_DAY_NAME_RE = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:-([a-z0-9][a-z0-9._-]*))?\.md$", re.IGNORECASE)
_START_RE = re.compile(r"^<!--\s*([\w.-]+(?::[\w.-]+)*):start\s*-->$")
_HEADING_RE = re.compile(r"^#{1,6}(?:[ \t]|$)")
_MEMORY_ENTRY_RE = re.compile(r"^- [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}: ")
_PROMOTION_RE = re.compile(r"^<!--\s*openclaw-memory-promotion:")
_ANNOTATION_RE = re.compile(r"<!--\s*(?:trigger|importance|project)\s*:[^\r\n]*?-->", re.IGNORECASE)
_TRAILING_BLANKS_RE = re.compile(r"[ \t]+(?=[\r\n\u2028\u2029]|\Z)")


def strip_annotations(text: str) -> str:
    """`text` without OpenClaw's inline annotations (`<!-- trigger: ... -->`,
    `<!-- importance: 8 -->`, `<!-- project: ... -->`, closed on their own line), as its
    `stripMemoryAnnotationCarriers` reads a promoted line: what is left is the owner's text,
    with the blanks the annotations left at a line's end gone. Text with none is unchanged."""
    stripped = _ANNOTATION_RE.sub("", text)
    return text if stripped == text else _TRAILING_BLANKS_RE.sub("", stripped)


def day_of_name(name: str) -> tuple[date, str] | None:
    """The day and slug ("" for the canonical file) of a day file's name, or None when the name
    is not one or its prefix is not a real calendar day."""
    match = _DAY_NAME_RE.match(name)
    if match is None:
        return None
    try:
        return date.fromisoformat(match.group(1)), match.group(2) or ""
    except ValueError:
        return None


def _bare(raw: str, first: bool) -> str:
    """The line as OpenClaw wrote it: a byte-order mark on the first line and white space at
    the end (a CR) do not count; white space in front does (OpenClaw never indents a marker,
    and an indented line is a note's continuation)."""
    text = raw.removeprefix("\ufeff") if first else raw
    return text.rstrip()


def is_comment_line(bare: str) -> bool:
    """A whole-line HTML comment, opened and closed on the line, as OpenClaw writes each
    marker: `<!-- ... -->`, nothing before or after it, no second comment in it."""
    return (
        bare.startswith("<!--")
        and bare.endswith("-->")
        and len(bare) >= 7
        and "-->" not in bare[4:-3]
        and "<!--" not in bare[4:-3]
    )


def _block_end(bare: list[str], start: int, name: str, owned: Container[int]) -> int | None:
    """Index of the end marker closing the block opened at `start`, if there is one before
    any line of an entry (a block never spans what trinho wrote)."""
    end_re = re.compile(rf"^<!--\s*{re.escape(name)}:end\s*-->$")
    for j in range(start + 1, len(bare)):
        if j in owned:
            return None
        if end_re.match(bare[j]):
            return j
    return None


def _heading_before(bare: list[str], roles: list[Role], start: int) -> int | None:
    j = start - 1
    while j >= 0 and not bare[j]:
        j -= 1
    if j >= 0 and roles[j] == "text" and _HEADING_RE.match(bare[j]):
        return j
    return None


def line_roles(lines: Sequence[str], owned: Container[int] = ()) -> tuple[Role, ...]:
    """The role of each line. `owned` are the indices of lines that belong to an entry (a
    note's `- HH:MM` line and its continuation lines, a MEMORY.md entry): they are always
    text, and no block spans them. Only the exact whole-line forms OpenClaw writes count: a
    comment opened and closed on its line is a marker, and a named `NAME:start` marker with
    its `NAME:end` further down makes a managed block (with the heading just before it). A
    comment that does not close on its line is text, so no line can hide the ones after it;
    a start without its end is a marker only, so an unfinished write hides nothing."""
    bare = [_bare(raw, i == 0) for i, raw in enumerate(lines)]
    roles: list[Role] = ["text"] * len(lines)
    i = 0
    while i < len(bare):
        if i in owned or not is_comment_line(bare[i]):
            i += 1
            continue
        start = _START_RE.match(bare[i])
        end = None if start is None else _block_end(bare, i, start.group(1), owned)
        if end is not None:
            heading = _heading_before(bare, roles, i)
            first = i if heading is None or heading in owned else heading
            roles[first : end + 1] = ["managed"] * (end + 1 - first)
            i = end + 1
            continue
        roles[i] = "marker"
        i += 1
    return tuple(roles)


def memory_entry_lines(lines: Sequence[str]) -> frozenset[int]:
    """The indices of MEMORY.md's dated entries (`- YYYY-MM-DD: text`): lines trinho wrote,
    which no marker or block may take."""
    return frozenset(i for i, raw in enumerate(lines) if _MEMORY_ENTRY_RE.match(_bare(raw, i == 0)))


def without_markers(text: str) -> str:
    """`text` without its marker lines, every other line byte for byte (a byte-order mark
    stays first): what a rewrite model is shown, as it may not touch them
    (`reattach_markers` puts them back)."""
    lines = text.split("\n")
    roles = line_roles(lines, memory_entry_lines(lines))
    if "marker" not in roles:
        return text
    out = "\n".join(line for line, role in zip(lines, roles, strict=True) if role != "marker")
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    return out if out.startswith(bom) else bom + out


def _markers_of(text: str) -> list[str]:
    lines = text.split("\n")
    roles = line_roles(lines, memory_entry_lines(lines))
    return [line for line, role in zip(lines, roles, strict=True) if role == "marker"]


def reattach_markers(old: str, new: str) -> str:
    """`new` with every marker line of `old` back right before the line it tagged.

    A rewrite whose other lines are old's, in order, is `old` itself: a run that changes
    nothing leaves the file byte for byte. A rewrite that kept old's markers, in order (an
    edit script, which never names a marker line), is `new` as it is: they stand where they
    stood. Otherwise a marker tags the next text line after it in `old`. In `new`, marker
    lines are taken out (one the rewrite invented is dropped: markers are OpenClaw's, not the
    model's), then each marker of `old` goes back, byte for byte, before the first line of
    `new` equal to its entry; when that entry is gone, before the next surviving line that
    followed it in `old`, else at the end. Lines that are not markers keep their order.
    """
    if without_markers(new).removeprefix("\ufeff") == without_markers(old).removeprefix("\ufeff"):
        return old
    if _markers_of(new) == _markers_of(old):
        return new
    old_lines = old.split("\n")
    old_roles = line_roles(old_lines, memory_entry_lines(old_lines))
    new_lines = new.split("\n")
    new_roles = line_roles(new_lines, memory_entry_lines(new_lines))
    kept = [line for line, role in zip(new_lines, new_roles, strict=True) if role != "marker"]
    if "marker" not in old_roles:
        return "\n".join(kept)
    texts = [(x, r) for x, r in zip(old_lines, old_roles, strict=True) if r != "marker"]
    anchors: list[tuple[list[str], list[tuple[str, int]]]] = []  # markers, what follows them
    pending: list[str] = []
    seen: Counter[str] = Counter()
    for line, role in zip(old_lines, old_roles, strict=True):
        if role == "marker":
            pending.append(line)
            continue
        seen[line] += 1
        if pending and line.strip():
            anchors.append((pending, _following(texts, line, seen[line])))
            pending = []
    tail = pending
    taken: set[int] = set()
    before: dict[int, list[str]] = {}
    end = len(kept) - 1 if kept and kept[-1] == "" else len(kept)
    for markers, after in anchors:
        at = min(_place(kept, after, taken), end)
        before.setdefault(at, []).extend(markers)
    out: list[str] = []
    for index, line in enumerate(kept):
        out.extend(before.get(index, []))
        out.append(line)
    out.extend(before.get(len(kept), []))
    if tail:
        at = len(out) - 1 if out and out[-1] == "" else len(out)
        out[at:at] = tail
    return "\n".join(out)


def _following(texts: Sequence[tuple[str, str]], line: str, nth: int) -> list[tuple[str, int]]:
    """The non-blank lines from the `nth` `line` of `texts` on, each with its occurrence."""
    count: Counter[str] = Counter()
    out: list[tuple[str, int]] = []
    started = False
    for text, _ in texts:
        count[text] += 1
        if not started and text == line and count[text] == nth:
            started = True
        if started and text.strip():
            out.append((text, count[text]))
    return out


def _place(kept: list[str], after: list[tuple[str, int]], taken: set[int]) -> int:
    """Where in `kept` a marker goes: before the same occurrence of its entry (or the last one
    there is), else before what followed it."""
    for n, (wanted, nth) in enumerate(after):
        found = [i for i, line in enumerate(kept) if line == wanted]
        if found:
            index = found[min(nth, len(found)) - 1]
            if n == 0:
                taken.add(index)
            return index
    return len(kept)


def _is_promotion(lines: Sequence[str], roles: Sequence[Role], i: int) -> bool:
    return roles[i] == "marker" and bool(_PROMOTION_RE.match(_bare(lines[i], i == 0)))


def promotion_markers_of(lines: Sequence[str], at: int) -> tuple[int, ...]:
    """The indices of the promotion markers that tag line `at`: the marker lines right above
    it (OpenClaw writes each on the line before its entry, no blank between) that are
    `openclaw-memory-promotion` markers. Removing the line takes them with it, so no marker is
    left tagging the line after."""
    roles = line_roles(lines, memory_entry_lines(lines))
    if not 0 <= at < len(lines) or roles[at] != "text" or not lines[at].strip():
        return ()
    found: list[int] = []
    j = at - 1
    while j >= 0 and roles[j] == "marker":
        if _is_promotion(lines, roles, j):
            found.append(j)
        j -= 1
    return tuple(sorted(found))


def promotion_lines(lines: Sequence[str]) -> frozenset[int]:
    """The indices of what OpenClaw writes when it promotes: each promotion marker, the line
    it tags (the next non-blank line that is not a marker), and the heading of the section it
    opened (a heading right above the first marker, blank lines between included)."""
    roles = line_roles(lines, memory_entry_lines(lines))
    found: set[int] = set()
    for i in range(len(lines)):
        if not _is_promotion(lines, roles, i):
            continue
        found.add(i)
        j = i + 1
        while j < len(lines) and (roles[j] == "marker" or not lines[j].strip()):
            j += 1
        if j < len(lines) and roles[j] == "text":
            found.add(j)
        k = i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        if k >= 0 and roles[k] == "text" and _HEADING_RE.match(_bare(lines[k], k == 0)):
            found.update(range(k, i))
    return frozenset(found)
