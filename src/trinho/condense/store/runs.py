"""Condensation runs: their ids (one ISO week each) and their journal under `.trinho/runs/`.

A run's folder holds `journal.json` (its state, replaced atomically at every step), the
MEMORY.md it replaced (`MEMORY.before.md`; none when there was no MEMORY.md, which the journal
records as `had_memory: false`), and its report. Its states, the steps between them and what
a restart does from each are one table, `trinho.condense.rules.lifecycle`: `advance` records
only a step that table allows.

Only the latest run keeps `MEMORY.before.md` in full: when a run saves its own, the one before
it is compacted into `MEMORY.before.diff.json`, the line edits that turn this run's copy into
it, so `.trinho/runs` grows with what changed each week, not with the size of MEMORY.md.
`read_before` rebuilds any run's copy along that chain.

An undo is recorded (`undone`, and the state `done`) before MEMORY.md is put back: from then on
nothing the run proposed can be approved, and the run is never resumed.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any, Self, cast

from trinho import fields
from trinho.clock import resolve_in_history, utc
from trinho.condense.rules.archive import ORIGIN as ORIGIN
from trinho.condense.rules.gate import Change
from trinho.condense.rules.lifecycle import RUN_STATES, check_step
from trinho.condense.rules.lifecycle import WRITTEN as WRITTEN
from trinho.condense.rules.lifecycle import RunState as RunState
from trinho.durable import atomic_write_text, ensure_dir
from trinho.errors import NotFound, TrinhoError
from trinho.notes.journal import behind_seen
from trinho.proposals.format import STATUSES, ProposalStatus
from trinho.proposals.store import get_proposal
from trinho.workspace import Workspace

RUN_ID_RE = re.compile(r"^(\d{1,4})-W(\d{2})(?:\.([2-9]|[1-9]\d+))?$")
"""`2026-W48`, `2026-W48.2` for a second run that week; years 2-999 are written as Python
writes them (`100-W09`)."""
JOURNAL = "journal.json"
BEFORE = "MEMORY.before.md"
BEFORE_DIFF = "MEMORY.before.diff.json"
"""An older run's before copy, compacted: the edits from the next run's before copy to it."""
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
class ProposalEntry:
    """What became of one held change: its proposal (None: the owner had already rejected the
    same change, so it was not asked again), the change's content hash, and the status then."""

    proposal_id: str | None
    content_hash: str
    status: ProposalStatus

    def to_json(self) -> dict[str, Any]:
        return {
            "proposal_id": self.proposal_id,
            "content_hash": self.content_hash,
            "status": self.status,
        }

    @classmethod
    def from_json(cls, data: object, where: fields.Where) -> Self:
        table = fields.as_object(data, where)
        return cls(
            proposal_id=fields.maybe(table, "proposal_id", str, where),
            content_hash=fields.typed(table, "content_hash", str, where),
            status=cast(ProposalStatus, fields.choice(table, "status", STATUSES, where)),
        )


@dataclass(frozen=True)
class UndoEntry:
    """One `--undo` of the run: when, and the name the text it replaced is kept under."""

    at: datetime
    kept: str | None

    def to_json(self) -> dict[str, Any]:
        return {"at": self.at.isoformat(), "kept": self.kept}

    @classmethod
    def from_json(cls, data: object, where: fields.Where) -> Self:
        table = fields.as_object(data, where)
        return cls(
            at=fields.moment(table, "at", where),
            kept=fields.maybe(table, "kept", str, where),
        )


@dataclass(frozen=True)
class Journal:
    run_id: str
    state: RunState
    started_at: datetime
    updated_at: datetime
    held: tuple[Change, ...] = ()
    """The held changes, saved before MEMORY.md is replaced."""
    applied_sha: str | None = None
    proposals: tuple[ProposalEntry, ...] = ()
    """For each held change, in order, what became of it in the proposals queue."""
    error: str | None = None
    undone: tuple[UndoEntry, ...] = ()
    had_memory: bool = True
    """Whether MEMORY.md existed when the run replaced it: an undo removes it when not."""
    auto: tuple[Change, ...] = ()
    """The changes that applied by themselves, saved with the held ones: a run finished after
    a crash reports them too."""
    read_until: datetime | None = None
    """The end of the span the run read (its start, to the minute; earlier when a budget left
    material unread): the next run reads from there. Journals written before it existed end
    their span at `started_at`."""

    @property
    def cutoff(self) -> datetime:
        return self.read_until or self.started_at

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "run_id": self.run_id,
            "state": self.state,
            "started_at": self.started_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
            "held": [change.to_dict() for change in self.held],
            "applied_sha": self.applied_sha,
            "proposals": [entry.to_json() for entry in self.proposals],
            "error": self.error,
            "undone": [entry.to_json() for entry in self.undone],
            "had_memory": self.had_memory,
        }
        if self.auto:
            data["auto"] = [change.to_dict() for change in self.auto]
        if self.read_until is not None:
            data["read_until"] = self.read_until.isoformat()
        return data

    @classmethod
    def from_json(cls, data: object, where: fields.Where) -> Self:
        table = fields.as_object(data, where)
        return cls(
            run_id=validate_run_id(fields.typed(table, "run_id", str, where)),
            state=cast(RunState, fields.choice(table, "state", RUN_STATES, where)),
            started_at=fields.moment(table, "started_at", where),
            updated_at=fields.moment(table, "updated_at", where),
            held=tuple(
                _held(item, f"{where}: held[{n}]")
                for n, item in enumerate(fields.items(table, "held", where))
            ),
            applied_sha=fields.maybe(table, "applied_sha", str, where),
            proposals=tuple(
                ProposalEntry.from_json(item, f"{where}: proposals[{n}]")
                for n, item in enumerate(fields.items(table, "proposals", where))
            ),
            error=fields.maybe(table, "error", str, where),
            undone=tuple(
                UndoEntry.from_json(item, f"{where}: undone[{n}]")
                for n, item in enumerate(fields.items(table, "undone", where))
            ),
            had_memory=fields.flag(table, "had_memory", True, where),
            auto=tuple(
                _held(item, f"{where}: auto[{n}]")
                for n, item in enumerate(fields.items(table, "auto", where))
            ),
            read_until=fields.maybe_moment(table, "read_until", where),
        )


def _held(data: object, where: str) -> Change:
    try:
        return Change.from_dict(dict(fields.as_object(data, where)))
    except (ValueError, KeyError, TypeError) as exc:
        raise TrinhoError.keyed("error.run.bad_held", where=where, detail=exc) from None


def read_journal(ws: Workspace, run_id: str) -> Journal | None:
    path = run_dir(ws, run_id) / JOURNAL
    if not path.exists():
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except ValueError as exc:
        raise TrinhoError.keyed("error.run.bad_journal", path=path, error=str(exc)) from None
    return parse_journal(text, path)


def journal_text(journal: Journal) -> str:
    """`journal.json`'s text, the same from every backend."""
    return json.dumps(journal.to_json(), ensure_ascii=False, indent=1) + "\n"


def parse_journal(text: str, where: fields.Where) -> Journal:
    """A journal from its text, or one keyed line naming where it was read."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise TrinhoError.keyed("error.run.bad_journal", path=where, error=str(exc)) from None
    return Journal.from_json(data, where)


def write_journal(ws: Workspace, journal: Journal) -> Journal:
    folder = run_dir(ws, journal.run_id)
    ensure_dir(folder)
    atomic_write_text(folder / JOURNAL, journal_text(journal))
    return journal


def advance(ws: Workspace, journal: Journal, state: RunState, **changes: Any) -> Journal:
    """Record the next state (and any other field) atomically: a step the lifecycle allows
    (`check_step`), else nothing is written."""
    check_step(journal.state, state, journal.run_id)
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
    if not force and not made_ahead(ws, last, journal):
        return Slot(last, done=journal)
    # forced, or made while the clock read ahead: the week the clock now reads is not done
    return Slot(f"{week}.{run_sequence(last) + 1}")


def made_ahead(ws: Workspace, run_id: str, journal: Journal) -> bool:
    """Whether the run was made while the clock read ahead of the clock now: it started after
    now, the clock was seen behind its start once it had run (a note saved then, a run made
    then: `trinho.notes.journal.seen_behind`), or a run made since read past it. Its week,
    reached again by the corrected clock, is condensed again, with what was saved since."""
    started = utc(journal.started_at)
    if started > utc(ws.now()):
        return True
    seen = behind_seen(ws).items()
    if any(floor >= utc(journal.cutoff) and reading < started for floor, reading in seen):
        return True  # the clock was seen behind this run's start after the run
    furthest = previous_cutoff(ws, run_id)
    return furthest is not None and utc(furthest) > utc(journal.cutoff)


def previous_cutoff(ws: Workspace, run_id: str) -> datetime | None:
    """Where the run other than `run_id` that read furthest and wrote MEMORY.md stopped
    reading; None when there is none (the first run). Runs that failed or were skipped read
    nothing that counts, and an undone run's reading is undone with it: the next run reads its
    span again.

    Furthest by cutoff, not by run id: a clock that read ahead and was put right gives later
    runs older ids than the run made ahead, and spans are ordered by what was read
    (`trinho.condense.run.run_span`), so the latest reading is the furthest cutoff."""
    standing = [j for _, j in _latest_first(ws, run_id) if j.state in WRITTEN and not j.undone]
    for journal in sorted(standing, key=lambda j: utc(j.cutoff), reverse=True):
        if not rewrite_waits(ws, journal):  # its reading has not stood: read its span again
            return journal.cutoff
    return None


def _latest_first(ws: Workspace, run_id: str) -> Iterator[tuple[str, Journal]]:
    """Every other run's readable journal, latest run id first: the walks back to the last
    standing run stop there, so they cost the runs since it, not all of history."""
    root = runs_root(ws)
    if not root.is_dir():
        return
    ids = sorted(
        (c.name for c in root.iterdir() if c.is_dir() and RUN_ID_RE.fullmatch(c.name)),
        key=run_order,
        reverse=True,
    )
    for other in ids:
        if other != run_id and (journal := read_journal(ws, other)) is not None:
            yield other, journal


def rewrite_waits(ws: Workspace, journal: Journal) -> bool:
    """Whether the run's rewrite was held whole (`suspicious`) and the owner has not approved
    it: pending, rejected, stale, or never asked (the same change was rejected before). Such a
    run changed nothing in MEMORY.md, so its week's notes are in no standing change: the next
    run's span reaches back over it to the cutoff of the last run whose changes stand, and that
    run makes the waiting proposal stale (`superseded_rewrites`), so no note is read by two
    standing runs."""
    whole = [n for n, change in enumerate(journal.held) if change.cls == "suspicious"]
    if not whole:
        return False
    for n in whole:
        if n >= len(journal.proposals):
            return True
        entry = journal.proposals[n]
        if entry.proposal_id is None:
            return True
        try:
            status = get_proposal(ws, entry.proposal_id).status
        except TrinhoError:
            return True
        if status != "approved":
            return True
    return False


def superseded_rewrites(ws: Workspace, run_id: str) -> frozenset[str]:
    """The ids of the runs since the last standing one whose whole rewrite still waits: run
    `run_id` read their spans again, so their proposals must no longer be approved. Older ones
    were superseded by that standing run already."""
    found = set()
    for other, journal in _latest_first(ws, run_id):
        if journal.state not in WRITTEN or journal.undone:
            continue
        if not rewrite_waits(ws, journal):
            break
        found.add(other)
    return frozenset(found)


def run_order(run_id: str) -> tuple[int, int, int]:
    m = RUN_ID_RE.fullmatch(run_id)
    assert m is not None
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 1)


def origin_of(run_id: str) -> str:
    return ORIGIN + run_id


def undone_origin(ws: Workspace, origin: str) -> str | None:
    """The run id when `origin` names a condensation run that was undone, else None (another
    origin, a run id that is not one, a run with no journal left)."""
    run_id = origin.removeprefix(ORIGIN)
    if run_id == origin or not RUN_ID_RE.fullmatch(run_id):
        return None
    journal = read_journal(ws, run_id)
    return run_id if journal is not None and journal.undone else None


def require_run(ws: Workspace, run_id: str) -> Path:
    folder = run_dir(ws, run_id)
    if not folder.is_dir():
        raise NotFound.keyed("error.run.not_found", id=run_id, folder=runs_root(ws))
    return folder


def later_runs(ws: Workspace, run_id: str) -> list[str]:
    """The runs after `run_id` that wrote MEMORY.md and stand (not undone), oldest first: each
    read on from where the one before stopped."""
    root = runs_root(ws)
    if not root.is_dir():
        return []
    ids = sorted(
        (c.name for c in root.iterdir() if c.is_dir() and RUN_ID_RE.fullmatch(c.name)),
        key=run_order,
    )
    found = []
    for other in ids:
        if run_order(other) <= run_order(run_id):
            continue
        journal = read_journal(ws, other)
        if journal is not None and journal.state in WRITTEN and not journal.undone:
            found.append(other)
    return found


def given_back_start(ws: Workspace) -> datetime | None:
    """Where the next run reads from when no run that wrote MEMORY.md stands (each was undone,
    or its rewrite waits held whole: `rewrite_waits`): the start of the first such run's 7-day
    window (its span, given back); None when there is no such run."""
    root = runs_root(ws)
    if not root.is_dir():
        return None
    starts = []
    for child in root.iterdir():
        if child.is_dir() and RUN_ID_RE.fullmatch(child.name):
            journal = read_journal(ws, child.name)
            if journal is not None and (
                journal.undone or (journal.state in WRITTEN and rewrite_waits(ws, journal))
            ):
                starts.append(utc(journal.started_at))
    if not starts:
        return None
    first_day = ws.local_date(min(starts)) - timedelta(days=6)
    return resolve_in_history(first_day, time(0), ws.zone_history, ws.tz)


def _line_edits(base: str, text: str) -> list[list[Any]]:
    """The edits that turn `base` into `text`, line by line: [start, end, new lines]."""
    a, b = base.split("\n"), text.split("\n")
    edits: list[list[Any]] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            edits.append([i1, i2, b[j1:j2]])
    return edits


def _apply_edits(base: str, edits: list[list[Any]]) -> str:
    lines = base.split("\n")
    for start, end, new in reversed(edits):
        lines[start:end] = new
    return "\n".join(lines)


def read_before(ws: Workspace, run_id: str) -> str | None:
    """The MEMORY.md run `run_id` replaced: its full copy, or rebuilt from its compacted edits
    and the copy of the run they were made against; None when the run kept none."""
    folder = run_dir(ws, run_id)
    full = folder / BEFORE
    if full.exists():
        return full.read_text(encoding="utf-8")
    compact = folder / BEFORE_DIFF
    if not compact.exists():
        return None
    data = json.loads(compact.read_text(encoding="utf-8"))
    base = read_before(ws, str(data["base"]))
    if base is None or sha_of(base) != data["base_sha"]:
        raise TrinhoError.keyed("error.run.before_missing", path=compact, id=run_id)
    return _apply_edits(base, data["edits"])


def has_before(ws: Workspace, run_id: str) -> bool:
    folder = run_dir(ws, run_id)
    return (folder / BEFORE).exists() or (folder / BEFORE_DIFF).exists()


def sha_of(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def save_before(ws: Workspace, run_id: str, text: str) -> None:
    """Keep `text` as run `run_id`'s before copy, in full, and compact the previous full copy
    into edits against it. A copy compacted against this run's earlier attempt (a rerun under
    the same id, MEMORY.md edited by hand meanwhile) is rebuilt first and compacted again."""
    root = runs_root(ws)
    leaning = [
        other
        for other in (c.name for c in root.iterdir() if c.is_dir() and RUN_ID_RE.fullmatch(c.name))
        if other != run_id and _diff_base(ws, other) == run_id
    ]
    kept = {other: read_before(ws, other) for other in leaning}
    atomic_write_text(run_dir(ws, run_id) / BEFORE, text)
    previous = [
        other
        for other in (c.name for c in root.iterdir() if c.is_dir() and RUN_ID_RE.fullmatch(c.name))
        if run_order(other) < run_order(run_id) and (run_dir(ws, other) / BEFORE).exists()
    ]
    for other in previous:
        kept.setdefault(other, (run_dir(ws, other) / BEFORE).read_text(encoding="utf-8"))
    for other, old in kept.items():
        if old is None:
            continue
        data = {"base": run_id, "base_sha": sha_of(text), "edits": _line_edits(text, old)}
        folder = run_dir(ws, other)
        atomic_write_text(folder / BEFORE_DIFF, json.dumps(data, ensure_ascii=False) + "\n")
        (folder / BEFORE).unlink(missing_ok=True)


def _diff_base(ws: Workspace, run_id: str) -> str | None:
    compact = run_dir(ws, run_id) / BEFORE_DIFF
    if not compact.exists():
        return None
    try:
        return str(json.loads(compact.read_text(encoding="utf-8"))["base"])
    except (ValueError, KeyError, TypeError):
        return None
