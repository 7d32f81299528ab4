"""Keeping acknowledged notes through writers that take no lock (OpenClaw's model, its dreaming).

Such a writer reads a day file, edits it and replaces it atomically. A trinho note appended
between its read and its replace is gone from the new file, though `save_note` said it was
saved. So every acknowledged entry is also recorded in a small journal under `.trinho/`, one
per day file, and the next trinho write of that day (or a check right after the append) puts
back, once, each entry the file no longer has. The decision is pure (`missing_entries`); the
journal store is a thin shell around it.

The journal also keeps the exact instant (UTC) each entry was saved at: a `- 01:50` line on a
fall-back night names two instants, and a day written before the owner changed zones was
written in another zone. When a journal is retired, the instants the stated rule would not give
back (`trinho.notes.store.rule_instant`) are kept, for good, in `DAY.instants.jsonl`.

A saved entry counts (for the condensation's spans) at the later of the instant it was saved
at and the read floor (`READ_FLOOR_FILE`): the end of the span of the last run that started.
A clock set back behind that floor would otherwise stamp the entry inside a span already
read, and no run would read it; counted at the floor, it falls in the next run's span, and in
no other. A change of zone made with the clock set back is dated at the floor too
(`trinho.workspace.init_workspace`), so it never reaches into a span already read.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from trinho.durable import append_bytes, atomic_write_text, read_regular
from trinho.workspace import CLOCK_BEHIND_FILE, READ_FLOOR_FILE, Workspace, read_floor_at

__all__ = [
    "JOURNAL_DIR",
    "Acknowledged",
    "FileState",
    "behind_seen",
    "changed_under",
    "counted_at",
    "file_state",
    "journal_days",
    "late_days",
    "missing_entries",
    "parse_journal",
    "read_floor",
    "read_instants",
    "read_journal",
    "read_state",
    "record",
    "render_journal_line",
    "retire_journals",
    "seen_behind",
    "store_state",
    "write_floor",
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


def render_journal_line(
    entry: Acknowledged, at: datetime | None = None, counts: datetime | None = None
) -> str:
    """One journal record; `counts` is written only when it differs from `at` (an entry saved
    while the clock read behind the read floor)."""
    data: dict[str, str] = {"time": entry.time, "text": entry.text}
    if at is not None:
        data["at"] = at.astimezone(UTC).isoformat()
    if counts is not None and (at is None or counts != at):
        data["counts"] = counts.astimezone(UTC).isoformat()
    return json.dumps(data, ensure_ascii=False) + "\n"


def counted_at(saved: datetime, floor: datetime | None) -> datetime:
    """The instant a saved entry counts at: when it was saved, or the read floor when the clock
    read behind it (set back), so the entry is in the next run's span and no earlier one."""
    instant = saved.astimezone(UTC)
    return instant if floor is None or instant >= floor else floor.astimezone(UTC)


def parse_instants(text: str) -> list[tuple[Acknowledged, datetime]]:
    """The journal's entries that carry their instant (UTC), in journal order: the one they
    count at (`counts` when recorded, else `at`). A torn or older record (no `at`) is left
    out: its line is read by the stated rule."""
    found = []
    for line in text.split("\n"):
        try:
            value = json.loads(line)
            at = datetime.fromisoformat(value.get("counts") or value["at"])
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            continue
        if isinstance(value.get("time"), str) and isinstance(value.get("text"), str) and at.tzinfo:
            found.append((Acknowledged(value["time"], value["text"]), at.astimezone(UTC)))
    return found


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


def record(
    workspace: Workspace,
    day: date,
    entry: Acknowledged,
    at: datetime | None = None,
    counts: datetime | None = None,
) -> None:
    """Add an acknowledged entry, saved at instant `at` and counted at `counts`, to the day's
    journal. The caller holds the day file's lock."""
    line = render_journal_line(entry, at, counts)
    append_bytes(_journal_path(workspace, day), line.encode("utf-8"))


def seen_behind(workspace: Workspace, reading: datetime, floor: datetime) -> None:
    """Record that the clock read `reading`, behind the read floor `floor`: a run that started
    after `reading` and read to `floor` or before was made while the clock read ahead."""
    path = workspace.confine(workspace.root / CLOCK_BEHIND_FILE)
    with workspace.lock(path):  # a note saved and a run started at once both keep their pair
        seen = behind_seen(workspace)
        key = floor.astimezone(UTC)
        if key in seen and seen[key] <= reading.astimezone(UTC):
            return
        seen[key] = reading.astimezone(UTC)
        data = {k.isoformat(): v.isoformat() for k, v in sorted(seen.items())}
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(data) + "\n")


def behind_seen(workspace: Workspace) -> dict[datetime, datetime]:
    """Each read floor the clock was seen behind, with the earliest reading then (UTC): one
    pair a floor, so the file grows with the runs made while the clock read behind, not the
    notes."""
    path = workspace.root / CLOCK_BEHIND_FILE
    try:
        data = json.loads(read_regular(path).decode("utf-8")) if path.exists() else {}
        return {
            datetime.fromisoformat(k).astimezone(UTC): datetime.fromisoformat(v).astimezone(UTC)
            for k, v in data.items()
        }
    except (OSError, ValueError, TypeError, AttributeError):
        return {}


def _floor_path(workspace: Workspace) -> Path:
    return workspace.confine(workspace.root / READ_FLOOR_FILE)


def read_floor(workspace: Workspace) -> datetime | None:
    """The read floor (UTC), None when no run has started or the file is unreadable."""
    return read_floor_at(workspace.root)


def write_floor(workspace: Workspace, moment: datetime) -> None:
    """Raise the read floor to `moment` (never lower it): a run calls it before it reads, with
    the end of its span. One instant, replaced atomically: it does not grow with history."""
    current = read_floor(workspace)
    instant = moment.astimezone(UTC)
    if current is not None and current >= instant:
        return
    path = _floor_path(workspace)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, instant.isoformat() + "\n")


def _instants_path(workspace: Workspace, day: date) -> Path:
    return workspace.confine(workspace.internal / JOURNAL_DIR / f"{day.isoformat()}.instants.jsonl")


def read_instants(workspace: Workspace, day: date) -> list[tuple[Acknowledged, datetime]]:
    """The instants trinho saved the day's entries at: those a retirement kept first (the ones
    the stated rule would not give back), then the journal's. A day whose journal was retired
    gets a new one when a clock set back saves to it again, and both count."""
    return joined_instants(
        _parsed(_instants_path(workspace, day)), _parsed(_journal_path(workspace, day))
    )


Instants = list[tuple[Acknowledged, datetime]]


def joined_instants(kept: Instants, journal: Instants) -> Instants:
    """The kept instants, then the journal's not already among them (pure): a retirement cut
    off after it kept a journal and before it removed it leaves that journal's entries as the
    kept tail, and a clock set back may have appended to it since; those are counted once."""
    for n in range(min(len(kept), len(journal)), 0, -1):
        if kept[-n:] == journal[:n]:
            return kept + journal[n:]
    return kept + journal


def _parsed(path: Path) -> list[tuple[Acknowledged, datetime]]:
    if not path.exists():
        return []
    return parse_instants(read_regular(path).decode("utf-8", "replace"))


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


def late_days(workspace: Workspace, start: datetime, end: datetime) -> list[date]:
    """The days that hold a saved entry counting in [start, end): with the clock set back behind
    the read floor, an entry's day file may lie well before the span's days. Only days with a
    journal or kept instants are looked at: a day's instants are kept past its journal only
    when they differ from the stated rule (a set-back clock, a repeated hour, a changed zone),
    so this grows with those days alone."""
    folder = workspace.confine(workspace.internal / JOURNAL_DIR)
    if not folder.is_dir():
        return []
    days: set[date] = set()
    for child in folder.iterdir():
        name = child.name.removesuffix(".instants.jsonl").removesuffix(".jsonl")
        try:
            days.add(date.fromisoformat(name))
        except ValueError:
            continue
    return sorted(
        day for day in days if any(start <= at < end for _, at in read_instants(workspace, day))
    )


InstantRule = Callable[[date, str], datetime]
"""The instant the stated rule gives a day's `HH:MM` (`trinho.notes.store.rule_instant`)."""


def retire_journals(workspace: Workspace, today: date, rule: InstantRule | None = None) -> None:
    """Remove the journals of days before yesterday: no foreign writer rewrites those. The
    instants `rule` would not give back (a repeated hour's second pass, a day written in a zone
    since changed) are kept first, in `DAY.instants.jsonl`."""
    for day in journal_days(workspace):
        if (today - day).days >= KEEP_DAYS:
            path = _journal_path(workspace, day)
            if rule is not None and path.exists():
                saved = parse_instants(read_regular(path).decode("utf-8", "replace"))
                odd = [(e, at) for e, at in saved if _minute(at) != rule(day, e.time)]
                if odd:  # each kept at the instant it counts at, after those kept before
                    kept = read_instants(workspace, day)
                    text = "".join(render_journal_line(e, at) for e, at in kept)
                    atomic_write_text(_instants_path(workspace, day), text)
            path.unlink(missing_ok=True)
            _state_path(workspace, day).unlink(missing_ok=True)


def _minute(moment: datetime) -> datetime:
    return moment.replace(second=0, microsecond=0)
