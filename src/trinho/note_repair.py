"""Keeping acknowledged notes through writers that take no lock (OpenClaw's model, its dreaming).

Such a writer reads a day file, edits it and replaces it atomically. A trinho note appended
between its read and its replace is gone from the new file, though `save_note` said it was
saved. So every acknowledged entry is also recorded in a small journal under `.trinho/`, one
per day file, and the next trinho write of that day (or a check right after the append) puts
back, once, each entry the file no longer has. The decision is pure (`missing_entries`); the
journal store is a thin shell around it.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from trinho.durable import append_bytes, read_regular
from trinho.workspace import Workspace

__all__ = [
    "JOURNAL_DIR",
    "Acknowledged",
    "FileState",
    "changed_under",
    "file_state",
    "journal_days",
    "missing_entries",
    "parse_journal",
    "read_journal",
    "read_state",
    "record",
    "render_journal_line",
    "retire_journals",
    "store_state",
]

JOURNAL_DIR = "notes-journal"
"""The folder under `.trinho/` holding one `DAY.jsonl` journal per day file trinho wrote."""

KEEP_DAYS = 2
"""Journals of today and yesterday are kept: those are the day files OpenClaw rewrites (its
model edits today's notes, its dreaming the day just ended). Older ones are removed."""


@dataclass(frozen=True)
class Acknowledged:
    """One entry `save_note` returned for: its `HH:MM` and its normalised text."""

    time: str
    text: str


@dataclass(frozen=True)
class FileState:
    """A day file's size and SHA-256, to tell whether it changed under an append."""

    size: int
    digest: str


def file_state(data: bytes) -> FileState:
    return FileState(len(data), hashlib.sha256(data).hexdigest())


def changed_under(before: FileState, appended: bytes, after: bytes) -> bool:
    """Whether the file is not exactly what it was plus `appended`: someone else replaced or
    edited it between the read before the append and the read after it (or the append went
    to a file already renamed away)."""
    if len(after) != before.size + len(appended):
        return True
    return file_state(after[: before.size]) != before or not after.endswith(appended)


def missing_entries(
    journal: Sequence[Acknowledged], present: Iterable[Acknowledged]
) -> list[Acknowledged]:
    """The journal's entries the file lacks, in journal order, counted as a multiset: a note
    saved twice with the same time and text must be there twice, and one the file still
    has is never put back a second time."""
    have = Counter(present)
    missing = []
    for entry in journal:
        if have[entry] > 0:
            have[entry] -= 1
        else:
            missing.append(entry)
    return missing


def render_journal_line(entry: Acknowledged) -> str:
    return json.dumps({"time": entry.time, "text": entry.text}, ensure_ascii=False) + "\n"


def parse_journal(text: str) -> list[Acknowledged]:
    """The journal's entries; a line that is not one (a record torn by a kill before
    `save_note` returned, so never acknowledged) is skipped."""
    entries = []
    for line in text.split("\n"):
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue
        if (
            isinstance(value, dict)
            and isinstance(value.get("time"), str)
            and isinstance(value.get("text"), str)
        ):
            entries.append(Acknowledged(value["time"], value["text"]))
    return entries


def _journal_path(workspace: Workspace, day: date) -> Path:
    return workspace.confine(workspace.internal / JOURNAL_DIR / f"{day.isoformat()}.jsonl")


def read_journal(workspace: Workspace, day: date) -> list[Acknowledged]:
    """The day's acknowledged entries (none when trinho saved nothing that day)."""
    path = _journal_path(workspace, day)
    if not path.exists():
        return []
    return parse_journal(read_regular(path).decode("utf-8", "replace"))


def record(workspace: Workspace, day: date, entry: Acknowledged) -> None:
    """Add an acknowledged entry to the day's journal. The caller holds the day file's lock."""
    append_bytes(_journal_path(workspace, day), render_journal_line(entry).encode("utf-8"))


def _state_path(workspace: Workspace, day: date) -> Path:
    return workspace.confine(workspace.internal / JOURNAL_DIR / f"{day.isoformat()}.state")


def read_state(workspace: Workspace, day: date) -> FileState | None:
    """The day file's state after trinho's last write to it, if recorded."""
    try:
        size, digest = _state_path(workspace, day).read_text(encoding="ascii").split()
        return FileState(int(size), digest)
    except (FileNotFoundError, ValueError):
        return None


def store_state(workspace: Workspace, day: date, state: FileState) -> None:
    """Remember the day file's state after a write, so the next save can skip reading the
    journal when nobody else touched the file. Not fsynced: a lost or stale state only
    makes the next save check the file."""
    path = _state_path(workspace, day)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{state.size} {state.digest}", encoding="ascii")


def journal_days(workspace: Workspace) -> list[date]:
    """The days that have a journal, oldest first."""
    folder = workspace.confine(workspace.internal / JOURNAL_DIR)
    if not folder.is_dir():
        return []
    days = []
    for child in folder.iterdir():
        try:
            if child.suffix == ".jsonl":
                days.append(date.fromisoformat(child.stem))
        except ValueError:
            continue
    return sorted(days)


def retire_journals(workspace: Workspace, today: date) -> None:
    """Remove the journals of days before yesterday: no foreign writer rewrites those."""
    for day in journal_days(workspace):
        if (today - day).days >= KEEP_DAYS:
            _journal_path(workspace, day).unlink(missing_ok=True)
            _state_path(workspace, day).unlink(missing_ok=True)
