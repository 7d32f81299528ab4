"""Condensation runs: their ids (one ISO week each) and their journal under `.trinho/runs/`.

A run's folder holds `journal.json` (its state, replaced atomically at every step), the
MEMORY.md it replaced (`MEMORY.before.md`; none when there was no MEMORY.md, which the journal
records as `had_memory: false`), and its report. The states, in order:

- `running`: reading and calling the model; nothing written yet
- `applying`: the before copy and the held changes are saved; MEMORY.md is being replaced
- `applied`: MEMORY.md is the new text (or was left as it was)
- `proposed`: every held change is in the proposals queue
- `done`: announced; the week is condensed
- `failed` / `skipped`: ended before writing; the week may run again

A run cut off before `applied` starts over under the same id; one cut off after it finishes
its proposals and announcement from the journal, so nothing is done twice.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from pathlib import Path
from typing import Any, Literal, cast, get_args

from trinho.durable import atomic_write_text, ensure_dir
from trinho.errors import NotFound, TrinhoError
from trinho.workspace import Workspace

State = Literal["running", "applying", "applied", "proposed", "done", "failed", "skipped"]
STATES: tuple[str, ...] = get_args(State)
WRITTEN: frozenset[str] = frozenset({"applied", "proposed", "done"})
RUN_ID_RE = re.compile(r"^(\d{4})-W(\d{2})(?:\.([2-9]|[1-9]\d+))?$")
JOURNAL = "journal.json"
BEFORE = "MEMORY.before.md"
REPORT = "report.json"


def week_id(day: date) -> str:
    """The ISO week of `day`, e.g. 2026-W48."""
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


def validate_run_id(value: str) -> str:
    if not RUN_ID_RE.fullmatch(value):
        raise TrinhoError.keyed("error.run.bad_id", value=value)
    return value


def run_sequence(run_id: str) -> int:
    m = RUN_ID_RE.fullmatch(run_id)
    assert m is not None
    return int(m.group(3) or 1)


def runs_root(ws: Workspace) -> Path:
    return ws.internal / "runs"


def run_dir(ws: Workspace, run_id: str) -> Path:
    return runs_root(ws) / validate_run_id(run_id)


@dataclass(frozen=True)
class Journal:
    run_id: str
    state: State
    started_at: datetime
    updated_at: datetime
    held: tuple[dict[str, Any], ...] = ()
    """The held changes (`Change.to_dict()`), saved before MEMORY.md is replaced."""
    applied_sha: str | None = None
    proposals: tuple[dict[str, Any], ...] = ()
    """For each held change, in order: proposal id, content hash, status."""
    error: str | None = None
    undone: tuple[dict[str, Any], ...] = field(default=())
    had_memory: bool = True
    """Whether MEMORY.md existed when the run replaced it: an undo removes it when not."""

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "state": self.state,
            "started_at": self.started_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
            "held": list(self.held),
            "applied_sha": self.applied_sha,
            "proposals": list(self.proposals),
            "error": self.error,
            "undone": list(self.undone),
            "had_memory": self.had_memory,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Journal:
        if data.get("state") not in STATES:
            raise ValueError(f"unknown state {data.get('state')!r}")
        return cls(
            run_id=validate_run_id(str(data["run_id"])),
            state=cast(State, data["state"]),
            started_at=datetime.fromisoformat(str(data["started_at"])),
            updated_at=datetime.fromisoformat(str(data["updated_at"])),
            held=tuple(dict(item) for item in data.get("held", [])),
            applied_sha=data.get("applied_sha"),
            proposals=tuple(dict(item) for item in data.get("proposals", [])),
            error=data.get("error"),
            undone=tuple(dict(item) for item in data.get("undone", [])),
            had_memory=bool(data.get("had_memory", True)),
        )


def read_journal(ws: Workspace, run_id: str) -> Journal | None:
    path = run_dir(ws, run_id) / JOURNAL
    if not path.exists():
        return None
    try:
        return Journal.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise TrinhoError.keyed("error.run.bad_journal", path=path, error=str(exc)) from None


def write_journal(ws: Workspace, journal: Journal) -> Journal:
    folder = run_dir(ws, journal.run_id)
    ensure_dir(folder)
    text = json.dumps(journal.to_json(), ensure_ascii=False, indent=1) + "\n"
    atomic_write_text(folder / JOURNAL, text)
    return journal


def advance(ws: Workspace, journal: Journal, state: State, **changes: Any) -> Journal:
    """Record the next state (and any other field) atomically."""
    return write_journal(ws, replace(journal, state=state, updated_at=ws.now(), **changes))


def week_runs(ws: Workspace, week: str) -> list[str]:
    """The ids of this week's runs that have a folder, in order."""
    root = runs_root(ws)
    if not root.is_dir():
        return []
    found = [
        child.name
        for child in root.iterdir()
        if child.is_dir() and RUN_ID_RE.fullmatch(child.name) and child.name.split(".")[0] == week
    ]
    return sorted(found, key=run_sequence)


@dataclass(frozen=True)
class Slot:
    """Which run id this invocation works under, and what it finds there.

    `done` is set when the week is already condensed and no `--force` was given.
    `journal` is the unfinished journal to resume or restart under the same id.
    """

    run_id: str
    done: Journal | None = None
    journal: Journal | None = None


def pick_slot(ws: Workspace, today: date, force: bool) -> Slot:
    week = week_id(today)
    ids = week_runs(ws, week)
    if not ids:
        return Slot(week)
    last = ids[-1]
    journal = read_journal(ws, last)
    if journal is None or journal.state != "done":
        return Slot(last, journal=journal)  # unfinished: resume it or start it over
    if not force:
        return Slot(last, done=journal)
    return Slot(f"{week}.{run_sequence(last) + 1}")


def require_run(ws: Workspace, run_id: str) -> Path:
    folder = run_dir(ws, run_id)
    if not folder.is_dir():
        raise NotFound.keyed("error.run.not_found", id=run_id, folder=runs_root(ws))
    return folder
