"""The way in and the way out: a file workspace into the database as one owner, and an
owner's records back out as files, byte for byte (`trinho import workspace`, `trinho export`).

What moves: the daily note files (`memory/DAY.md`, OpenClaw's `memory/DAY-slug.md`), MEMORY.md,
every user's facts (`users/USER/facts/KEY.md`), the proposals (`memory_proposals/ID.json`), the
transcripts (`conversations/DAY.jsonl`) and `memory/archive.md`.
An import is one transaction: all of it or none. A file the database would give back otherwise
than it was (a fact file edited by hand, an offset other than the owner's zone) is kept
verbatim beside its rows until trinho next writes that record, so an export returns exactly
what was imported. Everything else in the workspace (`.trinho/`, an empty transcript, any file
trinho does not write) does not move, and the import says which files it left (docs/scale.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from trinho.condense.store.runs import RUN_ID_RE
from trinho.config.files import render_config
from trinho.config.schema import CONFIG_PATH, Config
from trinho.durable import atomic_write_text, ensure_dir
from trinho.errors import TrinhoError
from trinho.facts.format import parse_fact, render_fact
from trinho.models.ledger import LEDGER_PATH
from trinho.openclaw.markers import day_of_name
from trinho.pg.archive import PgArchive
from trinho.pg.connect import Database
from trinho.pg.inbox import PgInbox
from trinho.pg.journals import PgJournals
from trinho.pg.ledger import PgLedger
from trinho.pg.outbox import PgOutbox
from trinho.pg.owners import add_owner_in, owner_zone
from trinho.pg.search import reindex
from trinho.pg.store import PgRecords, proposal_json
from trinho.pg.tooling import PROPOSALS_DIR
from trinho.pg.transcripts import PgTranscripts, transcript_name
from trinho.proposals.format import Proposal
from trinho.schedule.run import STATE_FILE
from trinho.textnorm import decode, validate_slug
from trinho.workspace import (
    ARCHIVE_FILE,
    CLOCK_BACK_FILE,
    CLOCK_BEHIND_FILE,
    INTERNAL_DIR,
    MEMORY_FILE,
    NOTES_DIR,
    READ_FLOOR_FILE,
    Workspace,
    system_clock,
)

if TYPE_CHECKING:
    import psycopg

RUNS_DIR = "runs"
OUTBOX_DIR = "outbox"
INBOX_FILE = "inbox/telegram.jsonl"
"""Under `.trinho/`: the runs' folders, the outbox's entries, the Telegram inbox's log."""
OWNER_FILES = (
    READ_FLOOR_FILE,
    f"{INTERNAL_DIR}/{STATE_FILE}",
    CLOCK_BEHIND_FILE,
    CLOCK_BACK_FILE,
)
"""Internal files kept whole in `owner_files`: the notes' read floor, the scheduler's state,
when the clock was seen behind the read floor and whether the owner was told it moved back."""
USERS_DIR = "users"
"""Where an export writes facts and proposals: the workspace defaults (`[paths]`)."""


@dataclass(frozen=True)
class Transfer:
    """What moved: the workspace-relative files, and (on import) the files left behind."""

    owner: str
    files: list[str]
    left: list[str] = field(default_factory=list)


def _records(db: Database, owner: str, timezone: str, user: str = "owner") -> PgRecords:
    return PgRecords(db, owner, clock=system_clock, timezone=timezone, user=user)


def _has_records(records: PgRecords) -> bool:
    with records.db.owner_tx(records.owner) as conn:
        row = conn.execute(
            "SELECT EXISTS (SELECT 1 FROM note_files WHERE owner_id = %(o)s)"
            " OR EXISTS (SELECT 1 FROM memory_versions WHERE owner_id = %(o)s)"
            " OR EXISTS (SELECT 1 FROM facts WHERE owner_id = %(o)s)"
            " OR EXISTS (SELECT 1 FROM proposals WHERE owner_id = %(o)s)"
            " OR EXISTS (SELECT 1 FROM transcript_lines WHERE owner_id = %(o)s)"
            " OR EXISTS (SELECT 1 FROM archive_sections WHERE owner_id = %(o)s)"
            " OR EXISTS (SELECT 1 FROM usage_entries WHERE owner_id = %(o)s)"
            " OR EXISTS (SELECT 1 FROM run_files WHERE owner_id = %(o)s)"
            " OR EXISTS (SELECT 1 FROM outbox_entries WHERE owner_id = %(o)s)"
            " OR EXISTS (SELECT 1 FROM inbox_events WHERE owner_id = %(o)s)",
            {"o": records.owner},
        ).fetchone()
    return bool(row and row[0])


def _read(ws: Workspace, path: Path) -> str:
    text = decode(path.read_bytes(), ws.shown(path))
    if "\x00" in text:  # PostgreSQL's text holds no NUL
        raise TrinhoError.keyed("error.import.nul", path=ws.shown(path))
    return text


def import_workspace(db: Database, ws: Workspace, owner: str) -> Transfer:
    """Copy the workspace's records into the database as `owner` (registered with the
    workspace's zone when new), in one transaction; refused when the owner has records."""
    known = owner_zone(db, owner)
    zone = known or ws.config.timezone
    records = _records(db, owner, zone, ws.config.owner)
    transcripts = PgTranscripts(db, owner, clock=system_clock, timezone=zone)
    archive = PgArchive(db, owner)
    if _has_records(records):
        raise TrinhoError.keyed("error.owner.not_empty", owner=owner)
    moved: list[str] = []
    with db.owner_tx(owner) as conn:
        if known is None:
            add_owner_in(conn, owner, zone)
        moved.extend(_import_notes(conn, ws, owner))
        if ws.memory_file.is_file():
            conn.execute(
                "INSERT INTO memory_versions (owner_id, version, body, run, written_at)"
                " VALUES (%s, 1, %s, 'import', now())",
                (owner, _read(ws, ws.memory_file)),
            )
            moved.append(MEMORY_FILE)
        users = ws.path(ws.config.users_dir)
        for facts_dir in sorted(users.glob("*/facts")) if users.is_dir() else []:
            user = validate_slug(facts_dir.parent.name, "user id")
            for path in sorted(facts_dir.glob("*.md")):
                text = _read(ws, path)
                fact = parse_fact(text, ws.shown(path), expected_key=path.stem)
                records._write_fact(conn, user, fact)
                again = records._fact(conn, user, fact.key)
                if again is None or render_fact(again) != text:
                    records._write_fact(conn, user, fact, verbatim=text)
                moved.append(ws.shown(path))
        root = ws.proposals_root
        for path in sorted(root.glob("*.json")) if root.is_dir() else []:
            if path.name.startswith("."):
                continue
            text = _read(ws, path)
            proposal = Proposal.from_json(json.loads(text), ws.shown(path))
            records._write_proposal(conn, proposal)
            if proposal_json(records._one(conn, proposal.id, lock=False)) != text:
                records._write_proposal(conn, proposal, verbatim=text)
            moved.append(ws.shown(path))
        moved.extend(_import_transcripts(conn, ws, transcripts))
        if ws.archive_file.is_file():
            archive.put_file(conn, _read(ws, ws.archive_file))
            moved.append(ARCHIVE_FILE)
        internal, refused = _import_internal(conn, db, ws, owner, zone)
    reindex(records)
    transcripts.reindex()
    archive.reindex()
    return Transfer(owner, moved + internal, _left(ws, moved) + refused)


def _import_internal(
    conn: psycopg.Connection, db: Database, ws: Workspace, owner: str, zone: str
) -> tuple[list[str], list[str]]:
    """The usage ledger, the runs' files, the outbox and the inbox, as their files say: the
    files moved, and the outbox files that hold no entry (the file outbox sets them aside)."""
    moved: list[str] = []
    refused: list[str] = []
    ledger = ws.root / LEDGER_PATH
    if ledger.is_file() and (text := _read(ws, ledger)):
        PgLedger(db, owner).put_file(conn, text)
        moved.append(LEDGER_PATH)
    journals = PgJournals(db, owner, clock=system_clock, timezone=zone)
    runs = ws.internal / RUNS_DIR
    for path in sorted(runs.glob("*/*")) if runs.is_dir() else []:
        if path.is_file() and RUN_ID_RE.fullmatch(path.parent.name):
            journals.put_in(conn, path.parent.name, path.name, _read(ws, path))
            moved.append(ws.relative(path))
    outbox = PgOutbox(db, owner, clock=system_clock, timezone=zone)
    for path in sorted((ws.internal / OUTBOX_DIR).glob("*.json")):
        try:
            outbox.put_in(conn, path.stem, _read(ws, path))
            moved.append(ws.relative(path))
        except TrinhoError:
            refused.append(ws.relative(path))
    inbox = ws.internal / INBOX_FILE
    if inbox.is_file() and (text := _read(ws, inbox)):
        PgInbox(db, owner, clock=system_clock).put_file(conn, text)
        moved.append(ws.relative(inbox))
    for rel in OWNER_FILES:
        if (ws.root / rel).is_file():
            conn.execute(
                "INSERT INTO owner_files (owner_id, name, body) VALUES (%s, %s, %s)",
                (owner, rel, _read(ws, ws.root / rel)),
            )
            moved.append(rel)
    return moved, refused


def _import_notes(conn: psycopg.Connection, ws: Workspace, owner: str) -> list[str]:
    moved = []
    for path in sorted(ws.notes_dir.glob("*.md")) if ws.notes_dir.is_dir() else []:
        if day_of_name(path.name) is None or not path.is_file():
            continue
        name = f"{NOTES_DIR}/{path.name}"
        conn.execute(
            "INSERT INTO note_files (owner_id, name, body) VALUES (%s, %s, %s)",
            (owner, name, _read(ws, path)),
        )
        moved.append(name)
    return moved


def _import_transcripts(
    conn: psycopg.Connection, ws: Workspace, transcripts: PgTranscripts
) -> list[str]:
    """Each day's transcript as its lines; an empty one holds no line, and is left."""
    moved = []
    folder = ws.conversations_dir
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        try:
            day = date.fromisoformat(path.stem)
        except ValueError:
            continue
        text = _read(ws, path)
        if path.is_file() and text and path.name == f"{day.isoformat()}.jsonl":
            transcripts.put_file(conn, day, text)
            moved.append(transcript_name(day))
    return moved


def _left(ws: Workspace, moved: list[str]) -> list[str]:
    """The workspace's files that did not move; hidden ones (`.trinho/`, lock files) aside."""
    taken = set(moved)
    left = []
    for path in sorted(ws.root.rglob("*")):
        parts = path.relative_to(ws.root).parts
        rel = "/".join(parts)
        if path.is_file() and not any(p.startswith(".") for p in parts) and rel not in taken:
            left.append(rel)
    return left


def export_owner(db: Database, owner: str, folder: Path) -> Transfer:
    """Write the owner's records as files into `folder` (new or empty): a workspace, with a
    config in the owner's time zone, that a file install opens and `trinho import workspace`
    reads, even for an owner who has no records yet."""
    zone = owner_zone(db, owner)
    if zone is None:
        raise TrinhoError.keyed("error.owner.unknown", owner=owner)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise TrinhoError.keyed("error.export.not_empty", folder=folder)
    files = owner_files(db, owner, zone)
    written = {CONFIG_PATH: render_config(Config(timezone=zone))} | files  # a workspace, always
    for rel, text in sorted(written.items()):
        path = folder / rel
        ensure_dir(path.parent)
        atomic_write_text(path, text)
    return Transfer(owner, sorted(files))


def owner_files(db: Database, owner: str, zone: str) -> dict[str, str]:
    """Every file an export writes, by its workspace-relative path."""
    records = _records(db, owner, zone)
    files: dict[str, str] = dict(records.note_files())
    memory = records.memory_version()
    if memory is not None and memory.text is not None:
        files[MEMORY_FILE] = memory.text
    for user, key in records.fact_keys():
        text = records.fact_file_text(user, key)
        if text is not None:
            files[f"{USERS_DIR}/{user}/facts/{key}.md"] = text
    for proposal in records.proposals():
        files[f"{PROPOSALS_DIR}/{proposal.id}.json"] = records.proposal_file_text(proposal.id)
    transcripts = PgTranscripts(db, owner, clock=system_clock, timezone=zone)
    for day in transcripts.days():
        files[transcript_name(day)] = transcripts.day_text(day)
    archive = PgArchive(db, owner)
    if archive.exists():
        files[ARCHIVE_FILE] = archive.archived_text()
    files.update(_internal_files(db, owner, zone))
    return files


def _internal_files(db: Database, owner: str, zone: str) -> dict[str, str]:
    """The ledger, the runs' files, the outbox and the inbox, by their workspace paths."""
    files: dict[str, str] = {}
    ledger = PgLedger(db, owner).file_text()
    if ledger:
        files[LEDGER_PATH] = ledger
    journals = PgJournals(db, owner, clock=system_clock, timezone=zone)
    for rel, text in journals.files().items():
        files[f"{INTERNAL_DIR}/{RUNS_DIR}/{rel}"] = text
    outbox = PgOutbox(db, owner, clock=system_clock, timezone=zone)
    for name, text in outbox.files().items():
        files[f"{INTERNAL_DIR}/{OUTBOX_DIR}/{name}"] = text
    inbox = PgInbox(db, owner, clock=system_clock).file_text()
    if inbox:
        files[f"{INTERNAL_DIR}/{INBOX_FILE}"] = inbox
    with db.owner_tx(owner) as conn:
        rows = conn.execute(
            "SELECT name, body FROM owner_files WHERE owner_id = %s", (owner,)
        ).fetchall()
    files.update(dict(rows))
    return files
