"""Daily notes `memory/YYYY-MM-DD.md` on disk: saving an entry (memory_save, append-only),
reading a day's files back, and repairing what a writer that takes no lock lost.

The file format itself (`- HH:MM text` entries, what a note may hold) is `trinho.notes.format`.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from pathlib import Path

from trinho.clock import resolve_in_history
from trinho.durable import append_recorded, committed_size, read_regular
from trinho.notes import journal as note_repair
from trinho.notes.format import (
    NoteFile,
    format_entry,
    line_end,
    parse_note_file,
    split_lines,
    validate_note_text,
)
from trinho.openclaw.markers import day_of_name
from trinho.textnorm import decode
from trinho.workspace import NOTES_DIR, Workspace

__all__ = [
    "SavedNote",
    "day_files",
    "decode",
    "entry_instants",
    "note_days",
    "read_note_file",
    "read_notes",
    "repair_notes",
    "rule_instant",
    "save_note",
]


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


def _day_names(
    workspace: Workspace, wanted: Callable[[date, str], bool] = lambda day, slug: True
) -> list[tuple[date, str, str]]:
    """The day files `wanted` keeps (by day and slug, from the name alone), each a regular
    file inside the workspace: the names are read first, so a search for one day's files
    follows the links of that day's only, not of every year's."""
    folder = workspace.notes_dir
    if not folder.is_dir():
        return []
    found = []
    for child in folder.iterdir():
        parsed = day_of_name(child.name)
        if parsed is None or not wanted(*parsed):
            continue
        if child.is_file() and workspace.inside(child):
            found.append((parsed[0], parsed[1], child.name))
    return sorted(found)


def day_files(workspace: Workspace, day: date) -> list[str]:
    """The day's files, workspace-relative: `memory/DAY.md` first (where trinho writes), then
    OpenClaw's slugged `memory/DAY-slug.md` session files in name order."""
    canonical = f"{NOTES_DIR}/{day.isoformat()}.md"
    names = _day_names(workspace, lambda found, slug: found == day and bool(slug))
    return [canonical, *(f"{NOTES_DIR}/{name}" for _, _, name in names)]


def note_days(workspace: Workspace) -> list[date]:
    """The days that have a day file (`YYYY-MM-DD.md` or OpenClaw's `YYYY-MM-DD-slug.md`),
    oldest first; other files are not day files."""
    return sorted({found for found, _, _ in _day_names(workspace)})
