"""The daily note file's format: `- HH:MM text` entries, and what a note's text may be (pure).

A note is one entry whatever its text: extra lines are written as indented continuation
lines, so no text can forge a second `- HH:MM` entry. Lines that are not entries are kept
verbatim, so a hand-edited file parses without loss and renders back byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from trinho.errors import TrinhoError
from trinho.openclaw.markers import Role, line_roles
from trinho.textnorm import nfc, unify_breaks

MAX_NOTE_CHARS = 10_000
"""Longest note text accepted by `save_note`, in characters after normalisation."""

CONTINUATION = "  "
_ENTRY_RE = re.compile(r"^- ([01]\d|2[0-3]):([0-5]\d)(?: (.*))?$")
_BREAK_RE = re.compile(r"(\r\n|\r|\n)")


@dataclass(frozen=True)
class NoteEntry:
    """One `- HH:MM text` entry; `line` is 1-based, `lines` how many physical lines it spans."""

    time: str
    text: str
    line: int
    lines: int


@dataclass(frozen=True)
class LooseLine:
    """A line that is not part of an entry, kept verbatim; `role` says whether it is memory
    (`text`) or one of OpenClaw's machine lines (see `trinho.openclaw.markers`)."""

    raw: str
    line: int
    role: Role = "text"

    @property
    def prose(self) -> str:
        """The line's text when it is something typed by hand (an untimed bullet, a sentence);
        empty for a blank line, a heading (structure) or a machine line."""
        text = self.shown
        return "" if self.heading else text

    @property
    def heading(self) -> bool:
        return self.role == "text" and self.raw.lstrip("\ufeff").strip().startswith("#")

    @property
    def shown(self) -> str:
        """The line as memory: its prose, or a heading's title (`## 14:00 - Lesson` gives
        `14:00 - Lesson`); empty for a blank line or a machine line, which say nothing."""
        if self.role != "text":
            return ""
        text = self.raw.lstrip("\ufeff").strip()
        return text.lstrip("#").strip() if text.startswith("#") else text


NoteItem = NoteEntry | LooseLine


@dataclass(frozen=True)
class NoteFile:
    """A parsed day file: its items, and its physical lines without their line ends; `ends`
    holds each line's own end (`\n`, `\r\n`, `\r`; the last one's is empty), so a file
    written with any line ending renders back byte for byte and no text ever holds a `\r`."""

    items: tuple[NoteItem, ...]
    raw_lines: tuple[str, ...]
    ends: tuple[str, ...] = ()

    @property
    def entries(self) -> list[NoteEntry]:
        return [item for item in self.items if isinstance(item, NoteEntry)]


def normalize_note_text(text: str) -> str:
    """What a note's text becomes when saved: NFC, '\\n' line breaks, outer space stripped."""
    return unify_breaks(nfc(text)).strip()


def format_entry(hhmm: str, text: str) -> str:
    """The lines of one entry, continuation lines indented, without a final newline."""
    first, *rest = normalize_note_text(text).split("\n")
    return "\n".join([f"- {hhmm} {first}", *(CONTINUATION + line for line in rest)])


def parse_note_file(text: str) -> NoteFile:
    """Parse a daily note file. `render_note_file` gives back the same text, byte for byte.

    Entries are read first: a `- HH:MM` line and the indented lines after it are one entry,
    whatever they hold, so a note's text (a `<!--`, a marker look-alike) is never read as one
    of OpenClaw's lines and never changes how another entry is read. Lines end with any of
    `\n`, `\r\n` or `\r` (a file saved on Windows or an old Mac reads the same)."""
    raw_lines, ends = split_lines(text)
    spans = _entry_spans(raw_lines)
    owned = frozenset(i for start, end in spans.items() for i in range(start, end))
    roles = line_roles(raw_lines, owned)
    items: list[NoteItem] = []
    i = 0
    while i < len(raw_lines):
        end = spans.get(i)
        if end is None:
            items.append(LooseLine(raw_lines[i], i + 1, roles[i]))
            i += 1
            continue
        match = _entry_match(raw_lines[i], i)
        assert match is not None
        parts = [match.group(3) or ""]
        parts.extend(line[len(CONTINUATION) :] for line in raw_lines[i + 1 : end])
        items.append(
            NoteEntry(f"{match.group(1)}:{match.group(2)}", "\n".join(parts), i + 1, end - i)
        )
        i = end
    return NoteFile(tuple(items), tuple(raw_lines), tuple(ends))


def split_lines(text: str) -> tuple[list[str], list[str]]:
    """`text`'s lines without their ends, and each line's end (the last line's is empty)."""
    parts = _BREAK_RE.split(text)
    return parts[0::2], [*parts[1::2], ""]


def line_end(text: str) -> str:
    """The line end an append to `text` uses: the file's own last one when it is `\r\n`
    (a Windows file stays one), `\n` otherwise."""
    _, ends = split_lines(text)
    found = [end for end in ends if end]
    return "\r\n" if found and found[-1] == "\r\n" else "\n"


def _entry_match(raw: str, index: int) -> re.Match[str] | None:
    # a byte-order mark (an editor's) is kept in the raw line, not read as text
    return _ENTRY_RE.match(raw.removeprefix("\ufeff") if index == 0 else raw)


def _entry_spans(raw_lines: Sequence[str]) -> dict[int, int]:
    """Each entry's first line -> the line after its last continuation line."""
    spans: dict[int, int] = {}
    i = 0
    while i < len(raw_lines):
        if _entry_match(raw_lines[i], i) is None:
            i += 1
            continue
        j = i + 1
        while j < len(raw_lines) and raw_lines[j].startswith(CONTINUATION):
            j += 1
        spans[i] = j
        i = j
    return spans


def render_note_file(note_file: NoteFile) -> str:
    if not note_file.ends:
        return "\n".join(note_file.raw_lines)
    pairs = zip(note_file.raw_lines, note_file.ends, strict=True)
    return "".join(line + end for line, end in pairs)


def require_unicode(text: str, what: str) -> None:
    """Refuse text that cannot be stored as UTF-8 (lone surrogates, e.g. from bad argv bytes)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise TrinhoError.keyed(
            "error.text.not_unicode", what=what, position=exc.start + 1
        ) from None


def validate_note_text(text: str) -> str:
    """The text `save_note` would write, or a clear error; nothing is written either way."""
    require_unicode(text, "note")
    normalized = normalize_note_text(text)
    if not normalized:
        raise TrinhoError.keyed("error.note.empty")
    if "\x00" in normalized:
        raise TrinhoError.keyed("error.note.nul")
    if len(normalized) > MAX_NOTE_CHARS:
        raise TrinhoError.keyed("error.note.too_long", size=len(normalized), limit=MAX_NOTE_CHARS)
    return normalized
