"""Daily notes `memory/YYYY-MM-DD.md`: `- HH:MM text` entries, append-only (memory_save).

A note is one entry whatever its text: extra lines are written as indented continuation
lines, so no text can forge a second `- HH:MM` entry. Lines that are not entries are kept
verbatim, so a hand-edited file parses without loss.
"""

from __future__ import annotations

import re
from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from pathlib import Path

from trinho.clock import resolve_in_history
from trinho.durable import append_recorded, committed_size, read_regular
from trinho.errors import TrinhoError
from trinho.notes import journal as note_repair
from trinho.openclaw.markers import Role, day_of_name, line_roles
from trinho.textnorm import decode, nfc, unify_breaks
from trinho.workspace import NOTES_DIR, Workspace

__all__ = [
    "MAX_NOTE_CHARS",
    "LooseLine",
    "NoteEntry",
    "NoteFile",
    "SavedNote",
    "day_files",
    "decode",
    "entry_instants",
    "format_entry",
    "normalize_note_text",
    "note_days",
    "parse_note_file",
    "read_note_file",
    "read_notes",
    "render_note_file",
    "repair_notes",
    "require_unicode",
    "rule_instant",
    "save_note",
    "validate_note_text",
]

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


@dataclass(frozen=True)
class SavedNote:
    path: str
    line: str
    date: date
    time: str
    line_number: int


def save_note(workspace: Workspace, text: str) -> SavedNote:
    """memory_save: append `- HH:MM text` to today's note (owner's zone). No approval needed.

    The entry is acknowledged once it is fsynced in the day file and in the day's journal
    (`trinho.notes.journal`). A writer that takes no lock may still replace the file from a read
    made before the append: the file is checked right after the append, and again at the next
    save, and what it lost is appended again.
    """
    normalized = validate_note_text(text)
    now = workspace.now()
    day = now.date()
    hhmm = now.strftime("%H:%M")
    entry = format_entry(hhmm, normalized)
    path = workspace.note_path(day)
    rel = f"{NOTES_DIR}/{day.isoformat()}.md"
    with workspace.lock(path):
        before, _ = _repair_locked(workspace, day)
        current = decode(before, rel)
        lines, _ = split_lines(current)
        start = len(lines) + (lines[-1] != "") if current else 1
        eol = line_end(current)
        data = (entry.replace("\n", eol) + eol).encode("utf-8")
        append_recorded(path, data, workspace.intent_path(path))
        acknowledged = note_repair.Acknowledged(hhmm, normalized)
        counts = note_repair.counted_at(now, note_repair.read_floor(workspace))
        note_repair.record(workspace, day, acknowledged, now, counts)
        if counts != now.astimezone(counts.tzinfo):
            note_repair.seen_behind(workspace, now, counts)
        appended = (b"\n" if before and not before.endswith(b"\n") else b"") + data
        after = _committed(workspace, path)
        if note_repair.changed_under(note_repair.file_state(before), appended, after):
            after, _ = _repair_locked(workspace, day, check=True)
            start = _last_line_of(decode(after, rel), hhmm, normalized, start)
        note_repair.store_state(workspace, day, note_repair.file_state(after))
    others = [d for d in note_repair.journal_days(workspace) if d != day]
    repaired = [rel, *_repair_days(workspace, others)]
    note_repair.retire_journals(workspace, day, lambda d, hhmm: rule_instant(workspace, d, hhmm))
    workspace.written(repaired)
    return SavedNote(rel, entry, day, hhmm, start)


def rule_instant(workspace: Workspace, day: date, hhmm: str) -> datetime:
    """The instant (UTC) a `- HH:MM` line of `day` names by the stated rule (docs/rules.md,
    "One clock"): in the zone that held that day (`Workspace.zone_history`), a time a
    spring-forward night skips is the jump, a time a fall-back night repeats is its first
    occurrence. A line typed by hand without a time counts at the last second of its day."""
    history = workspace.zone_history
    if not hhmm:
        next_day = resolve_in_history(day + timedelta(days=1), time(0), history, workspace.tz)
        return next_day - timedelta(seconds=1)
    hour, minute = (int(part) for part in hhmm.split(":"))
    return resolve_in_history(day, time(hour, minute), history, workspace.tz)


def entry_instants(
    workspace: Workspace, day: date, entries: Sequence[tuple[str, str]]
) -> list[datetime]:
    """The instant (UTC, to the minute) of each `(HH:MM, text)` entry of `day`'s file, in
    order: the instant trinho saved it at when the acknowledgement journal (or what its
    retirement kept) has it, the stated rule's otherwise. Resolved the same way by every run,
    so each note falls in exactly one run's span."""
    saved: dict[tuple[str, str], deque[datetime]] = defaultdict(deque)
    for entry, at in note_repair.read_instants(workspace, day):
        saved[(entry.time, entry.text)].append(at.replace(second=0, microsecond=0))
    found = []
    for key in entries:
        queue = saved.get(key)
        found.append(queue.popleft() if queue else rule_instant(workspace, day, key[0]))
    return found


def _committed(workspace: Workspace, path: Path) -> bytes:
    """The day file's bytes without a torn tail (empty when there is no file)."""
    if not path.exists():
        return b""
    return read_regular(path)[: committed_size(path, workspace.intent_path(path))]


def _repair_locked(workspace: Workspace, day: date, *, check: bool = False) -> tuple[bytes, bool]:
    """Append again, once, each acknowledged entry of `day` its file has lost; the file's
    bytes after, and whether anything was appended. The journal is read only when the file
    is not as trinho left it (or when `check` says it changed). The caller holds the day
    file's lock."""
    path = workspace.note_path(day)
    data = _committed(workspace, path)
    if not check and note_repair.read_state(workspace, day) == note_repair.file_state(data):
        return data, False
    journal = note_repair.read_journal(workspace, day)
    text = decode(data, f"{NOTES_DIR}/{day.isoformat()}.md")
    present = [note_repair.Acknowledged(e.time, e.text) for e in parse_note_file(text).entries]
    missing = note_repair.missing_entries(journal, present)
    if missing:
        eol = line_end(text)
        lost = "".join(format_entry(m.time, m.text).replace("\n", eol) + eol for m in missing)
        append_recorded(path, lost.encode("utf-8"), workspace.intent_path(path))
        data = _committed(workspace, path)
    note_repair.store_state(workspace, day, note_repair.file_state(data))
    return data, bool(missing)


def _last_line_of(text: str, hhmm: str, note: str, default: int) -> int:
    """Where the entry now is in `text`, after it was appended again."""
    lines = [e.line for e in parse_note_file(text).entries if (e.time, e.text) == (hhmm, note)]
    return lines[-1] if lines else default


def _repair_days(workspace: Workspace, days: list[date]) -> list[str]:
    """Repair these journaled day files, each under its lock; the files written."""
    written = []
    for day in days:
        with workspace.lock(workspace.note_path(day)):
            if _repair_locked(workspace, day)[1]:
                written.append(f"{NOTES_DIR}/{day.isoformat()}.md")
    return written


def repair_notes(workspace: Workspace) -> list[str]:
    """Put back every acknowledged entry a foreign writer dropped from a journaled day file
    (today's, and yesterday's that a dreaming run may rewrite after midnight); the files
    written. `save_note` does this itself; this is for a caller that writes no note."""
    written = _repair_days(workspace, note_repair.journal_days(workspace))
    workspace.written(written)
    return written


def read_notes(workspace: Workspace, day: date) -> NoteFile:
    """One day's note file as parsed (empty when there is none); reading writes nothing."""
    return read_note_file(workspace, f"{NOTES_DIR}/{day.isoformat()}.md")


def read_note_file(workspace: Workspace, rel: str) -> NoteFile:
    """A day file (canonical or slugged) as parsed, empty when there is none. A name that is
    a link out of the workspace is refused by `Workspace.confine`."""
    path = workspace.path(rel)
    if not path.exists():
        return NoteFile((), ("",))
    with workspace.read_lock(path):
        data = read_regular(path)[: committed_size(path, workspace.intent_path(path))]
    return parse_note_file(decode(data, rel))


def _day_names(workspace: Workspace) -> list[tuple[date, str, str]]:
    folder = workspace.notes_dir
    if not folder.is_dir():
        return []
    found = []
    for child in folder.iterdir():
        parsed = day_of_name(child.name)
        if parsed is not None and child.is_file() and workspace.inside(child):
            found.append((parsed[0], parsed[1], child.name))
    return sorted(found)


def day_files(workspace: Workspace, day: date) -> list[str]:
    """The day's files, workspace-relative: `memory/DAY.md` first (where trinho writes), then
    OpenClaw's slugged `memory/DAY-slug.md` session files in name order."""
    canonical = f"{NOTES_DIR}/{day.isoformat()}.md"
    names = _day_names(workspace)
    slugged = [f"{NOTES_DIR}/{name}" for found, slug, name in names if found == day and slug]
    return [canonical, *slugged]


def note_days(workspace: Workspace) -> list[date]:
    """The days that have a day file (`YYYY-MM-DD.md` or OpenClaw's `YYYY-MM-DD-slug.md`),
    oldest first; other files are not day files."""
    return sorted({found for found, _, _ in _day_names(workspace)})
