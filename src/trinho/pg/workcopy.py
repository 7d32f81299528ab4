"""A file job for one owner of the database: their records checked out as a workspace, the
file code run on it unchanged, and what it changed checked back in one transaction.

The condensation (and every other job that works on a workspace) is one implementation, the
file one, with its journal, gate and undo; on PostgreSQL it runs on a working copy. The check-in
is all or nothing: each changed file is compared, under the lock its store takes, with what the
database holds now, and written only when the database still holds what was checked out (an
append-only file, the usage ledger, takes what was appended on both sides). Anything else is a
`Moved` refusal and nothing is written: the job checks out again and runs again, so a note, an
approval or a MEMORY.md written meanwhile is never overwritten. A worker killed before the
check-in leaves the database as it was; one killed after it finds its run done on the rerun.

What a working copy holds is what `trinho export` writes, the owner's zone in its config, each
acknowledged note's instant in the notes' journals.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar, cast

import tomlkit

from trinho.condense.store.runs import JOURNAL, run_order
from trinho.config import CONFIG_PATH, Config
from trinho.errors import TrinhoError
from trinho.facts.format import parse_fact, render_fact
from trinho.models.ledger import LEDGER_PATH
from trinho.notes.journal import JOURNAL_DIR, Acknowledged, parse_instants, render_journal_line
from trinho.openclaw.markers import day_of_name
from trinho.pg.archive import PgArchive
from trinho.pg.connect import Database, retry_lost
from trinho.pg.journals import PgJournals
from trinho.pg.ledger import PgLedger
from trinho.pg.lines import text_lines
from trinho.pg.locks import xact_lock
from trinho.pg.outbox import PgOutbox
from trinho.pg.owners import owner_zone
from trinho.pg.search import replace_path_docs
from trinho.pg.store import Clock, PgRecords, proposal_json
from trinho.pg.tooling import PROPOSALS_DIR
from trinho.pg.transcripts import PgTranscripts, transcript_name
from trinho.pg.transfer import (
    OUTBOX_DIR,
    OWNER_FILES,
    RUNS_DIR,
    USERS_DIR,
    owner_files,
)
from trinho.proposals.format import Proposal
from trinho.search.documents import note_docs
from trinho.textnorm import decode
from trinho.workspace import (
    ARCHIVE_FILE,
    CONVERSATIONS_DIR,
    INTERNAL_DIR,
    MEMORY_FILE,
    NOTES_DIR,
    READ_FLOOR_FILE,
    Workspace,
)

if TYPE_CHECKING:
    import psycopg

T = TypeVar("T")

DERIVED = (
    f"{INTERNAL_DIR}/locks/",
    f"{INTERNAL_DIR}/index.sqlite",
    f"{INTERNAL_DIR}/{JOURNAL_DIR}/",
    f"{INTERNAL_DIR}/zones.jsonl",
    CONFIG_PATH,
)
"""Paths a working copy makes for itself (locks, the search index, the notes' journals' states
and kept instants, the config): never checked in. `.locks/` folders are not either."""
CHECKED_IN = OWNER_FILES
"""Internal files under a derived folder that are checked in all the same."""
COPIES_ENV = "TRINHO_COPIES"
COPY_PREFIX = "trinho-copy-"
ATTEMPTS = 3
"""How often a job checks out and runs again when the database moved under it."""


class Moved(TrinhoError):
    """The database changed a file the job changed too, after it was checked out."""


@dataclass(frozen=True)
class Checkout:
    """An owner's records as a workspace at `root`, and the text of every file as written."""

    owner: str
    zone: str
    root: Path
    base: Mapping[str, str]
    memory_version: int


def journal_day(rel: str) -> date | None:
    """The day whose notes' journal `rel` is (`.trinho/notes-journal/DAY.jsonl`), else None."""
    prefix = f"{INTERNAL_DIR}/{JOURNAL_DIR}/"
    if not (rel.startswith(prefix) and rel.endswith(".jsonl")):
        return None
    try:
        return date.fromisoformat(rel.removeprefix(prefix).removesuffix(".jsonl"))
    except ValueError:
        return None


def tracked(rel: str) -> bool:
    """Whether a working copy's file is one of the owner's records (pure). A notes' journal
    is: what a job appends to it is a note the job saved, acknowledged with its instant."""
    if rel in CHECKED_IN or journal_day(rel) is not None:
        return True
    parts = rel.split("/")
    if any(part == ".locks" for part in parts):
        return False
    return not any(rel == d or rel.startswith(d) for d in DERIVED)


def changed_files(
    base: Mapping[str, str], after: Mapping[str, str]
) -> dict[str, tuple[str | None, str | None]]:
    """Each tracked file the job wrote, added or removed: (text checked out, text now) (pure)."""
    changed: dict[str, tuple[str | None, str | None]] = {}
    for rel in sorted(set(base) | set(after)):
        if tracked(rel) and base.get(rel) != after.get(rel):
            changed[rel] = (base.get(rel), after.get(rel))
    return changed


def run_written(changed: Mapping[str, object]) -> str | None:
    """The condensation run whose journal the job wrote (the latest, if several): the run a
    new MEMORY.md version is written by (pure)."""
    prefix = f"{INTERNAL_DIR}/{RUNS_DIR}/"
    runs = [
        rel.removeprefix(prefix).split("/")[0]
        for rel in changed
        if rel.startswith(prefix) and rel.endswith(f"/{JOURNAL}")
    ]
    return max(runs, key=run_order) if runs else None


def appended(base: str, current: str, after: str) -> str | None:
    """What the job appended to an append-only file, when both it and the database only
    appended to what was checked out, else None (pure)."""
    if not (after.startswith(base) and current.startswith(base)):
        return None
    if base and not base.endswith("\n"):
        return None
    return after[len(base) :]


def read_files(root: Path) -> dict[str, str]:
    """Every tracked file under `root`, by its workspace-relative path, as written: a `\r`
    is text the database holds, not a newline to translate."""
    found: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and tracked(rel):
            found[rel] = decode(path.read_bytes(), rel)  # a file a job wrote, not UTF-8: one line
    return found


def _config_text(config_text: str | None, zone: str) -> str:
    """The deployment's config with the owner's zone: a job reads as the owner's workspace."""
    document = tomlkit.parse(config_text or "")
    owner = document.get("owner")
    if owner is None:
        owner = tomlkit.table()
        document["owner"] = owner
    cast(dict[str, object], owner)["timezone"] = zone
    return tomlkit.dumps(document)


def journal_since(floor: str | None) -> date | None:
    """The first day whose notes' journal a checkout writes: a run reads from its read floor on
    (the day before it, for the zones behind UTC), so older journals are never read again and
    a checkout does not grow with years of notes (pure). None: no run yet, every day."""
    try:
        instant = datetime.fromisoformat(floor.strip()) if floor else None
    except ValueError:
        return None
    return (instant - timedelta(days=1)).date() if instant else None


def _journals(records: PgRecords, floor: str | None) -> dict[str, str]:
    """The acknowledged notes of each day a run may still read, as that day's notes' journal,
    instants included: the days from the read floor's on, and any day with a note saved while
    the clock read behind the floor (it counts at the floor: `PgRecords.save_note`). Both
    found through indexes (the days, then each day's notes by key), so a checkout reads the
    days a run may read, not every note the owner ever saved (migration 0012)."""
    since = journal_since(floor) or date.min
    counts = datetime.combine(since, datetime.min.time(), UTC)
    with records.db.owner_tx(records.owner) as conn:
        rows = conn.execute(
            "SELECT day, hhmm, note, saved_at FROM note_acks WHERE owner_id = %s"
            " AND day = ANY(ARRAY(SELECT DISTINCT day FROM note_acks WHERE owner_id = %s"
            " AND (day >= %s OR saved_at >= %s))) ORDER BY day, seq",
            (records.owner, records.owner, since, counts),
        ).fetchall()
    files: dict[str, str] = {}
    for day, hhmm, note, saved_at in rows:
        rel = f"{INTERNAL_DIR}/{JOURNAL_DIR}/{day.isoformat()}.jsonl"
        files[rel] = files.get(rel, "") + render_journal_line(Acknowledged(hhmm, note), saved_at)
    return files


def checkout(db: Database, owner: str, folder: Path, config_text: str | None) -> Checkout:
    """Write the owner's records into `folder` (new or empty) as a workspace."""
    zone = owner_zone(db, owner)
    if zone is None:
        raise TrinhoError.keyed("error.owner.unknown", owner=owner)
    records = PgRecords(db, owner, clock=datetime.now, timezone=zone)
    with db.joined(owner):  # every store's read in one transaction
        files = owner_files(db, owner, zone)
        latest = records.memory_version()
        journals = _journals(records, files.get(READ_FLOOR_FILE))
    derived = {CONFIG_PATH: _config_text(config_text, zone), **journals}
    for rel, text in sorted({**files, **derived}.items()):
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))  # as read back; a copy to throw away
    return Checkout(owner, zone, folder, read_files(folder), latest.version if latest else 0)


def open_checkout(done: Checkout, config: Config, clock: Clock) -> Workspace:
    """The working copy as a workspace: the deployment's settings in the owner's zone."""
    return Workspace(done.root.resolve(), replace(config, timezone=done.zone), clock)


def checkin(db: Database, done: Checkout, *, run: str | None = None) -> list[str]:
    """Write what the job changed, in one transaction; the paths written. Refused with
    `Moved`, writing nothing, when the database changed one of them since the checkout, and
    in one line, writing nothing, when one holds a NUL the database cannot store."""
    changed = changed_files(done.base, read_files(done.root))
    if not changed:
        return []
    for rel, (_, after) in changed.items():
        if after is not None and "\x00" in after:  # PostgreSQL's text holds no NUL
            raise TrinhoError.keyed("error.workcopy.nul", path=rel)
    records = PgRecords(db, done.owner, clock=datetime.now, timezone=done.zone)
    run = run or run_written(changed)
    with db.owner_tx(done.owner) as conn:
        xact_lock(conn, done.owner, "workcopy")
        for rel, (before, after) in changed.items():
            _check_in(conn, records, done, rel, before, after, run)
    return list(changed)


def _moved(rel: str) -> Moved:
    return Moved.keyed("error.workcopy.moved", path=rel)


def _check_in(
    conn: psycopg.Connection,
    records: PgRecords,
    done: Checkout,
    rel: str,
    before: str | None,
    after: str | None,
    run: str | None,
) -> None:
    owner = done.owner
    if rel == MEMORY_FILE:
        _memory(conn, records, done, after, run)
    elif rel == ARCHIVE_FILE and after is not None:
        _archive(conn, records.db, owner, rel, before or "", after)
    elif rel == LEDGER_PATH and after is not None:
        _ledger(conn, records.db, owner, rel, before or "", after)
    elif rel.startswith(f"{PROPOSALS_DIR}/") and rel.endswith(".json") and after is not None:
        _proposal(conn, records, rel, before, after)
    elif rel.startswith(f"{USERS_DIR}/") and "/facts/" in rel and after is not None:
        _fact(conn, records, rel, before, after)
    elif rel.startswith(f"{INTERNAL_DIR}/{RUNS_DIR}/"):
        _run_file(conn, records, done.zone, rel, before, after)
    elif rel.startswith(f"{INTERNAL_DIR}/{OUTBOX_DIR}/") and rel.endswith(".json"):
        _outbox(conn, records, done.zone, rel, before, after)
    elif (note_day := _note_day(rel)) is not None and after is not None:
        _note(conn, owner, note_day, rel, before, after)
    elif (day := _transcript_day(rel)) is not None and after is not None:
        _transcript(conn, records, done.zone, day, rel, before or "", after)
    elif (day := journal_day(rel)) is not None:
        _acknowledged(conn, owner, day, before or "", after)
    elif rel in CHECKED_IN and after is not None:
        _small_file(conn, owner, rel, before, after)
    else:
        raise TrinhoError.keyed("error.workcopy.unknown", path=rel)


def _memory(
    conn: psycopg.Connection, records: PgRecords, done: Checkout, text: str | None, run: str | None
) -> None:
    latest, _ = records.memory_in(conn)  # its lock held
    if latest != done.memory_version:
        raise _moved(MEMORY_FILE)
    records.write_memory_in(conn, text, run, expected=latest)


def _archive(
    conn: psycopg.Connection, db: Database, owner: str, rel: str, before: str, after: str
) -> None:
    archive = PgArchive(db, owner)
    xact_lock(conn, owner, "archive")
    current = archive._text(conn)
    if current != before:
        raise _moved(rel)
    if after.startswith(before):
        archive._write(conn, [after[len(before) :]], after)
        return
    conn.execute("DELETE FROM archive_sections WHERE owner_id = %s", (owner,))
    archive._write(conn, [after], after)


def _ledger(
    conn: psycopg.Connection, db: Database, owner: str, rel: str, before: str, after: str
) -> None:
    ledger = PgLedger(db, owner)
    xact_lock(conn, owner, "ledger")
    added = appended(before, ledger.text_in(conn), after)
    if added is None:
        raise _moved(rel)
    ledger.append_in(conn, [line for line, _ in text_lines(added)])


def _proposal(
    conn: psycopg.Connection, records: PgRecords, rel: str, before: str | None, after: str
) -> None:
    proposal = Proposal.from_json(json.loads(after), rel)
    xact_lock(conn, records.owner, "proposals")
    conn.execute(
        "SELECT 1 FROM proposals WHERE owner_id = %s AND id = %s FOR UPDATE",
        (records.owner, proposal.id),
    )
    if records.proposal_text_in(conn, proposal.id) != before:
        raise _moved(rel)
    written = proposal_json(proposal)
    conn.execute(  # replaced whole: the row holds what the file now says, every field
        "DELETE FROM proposals WHERE owner_id = %s AND id = %s", (records.owner, proposal.id)
    )
    records._write_proposal(conn, proposal, verbatim=None if written == after else after)


def _fact(
    conn: psycopg.Connection, records: PgRecords, rel: str, before: str | None, after: str
) -> None:
    _, user, _, name = rel.split("/", 3)
    key = name.removesuffix(".md")
    fact = parse_fact(after, rel, expected_key=key)
    xact_lock(conn, records.owner, "fact", user, key)
    if records.fact_text_in(conn, user, key) != before:
        raise _moved(rel)
    records._write_fact(conn, user, fact, verbatim=None if render_fact(fact) == after else after)


def _run_file(
    conn: psycopg.Connection,
    records: PgRecords,
    zone: str,
    rel: str,
    before: str | None,
    after: str | None,
) -> None:
    owner = records.owner
    run_id, name = rel.removeprefix(f"{INTERNAL_DIR}/{RUNS_DIR}/").split("/", 1)
    row = conn.execute(
        "SELECT body FROM run_files WHERE owner_id = %s AND run_id = %s AND name = %s FOR UPDATE",
        (owner, run_id, name),
    ).fetchone()
    if (row[0] if row else None) != before:
        raise _moved(rel)
    if after is None:
        conn.execute(
            "DELETE FROM run_files WHERE owner_id = %s AND run_id = %s AND name = %s",
            (owner, run_id, name),
        )
        return
    journals = PgJournals(records.db, owner, clock=datetime.now, timezone=zone)
    journals.put_in(conn, run_id, name, after)


def _outbox(
    conn: psycopg.Connection,
    records: PgRecords,
    zone: str,
    rel: str,
    before: str | None,
    after: str | None,
) -> None:
    key = rel.removeprefix(f"{INTERNAL_DIR}/{OUTBOX_DIR}/").removesuffix(".json")
    owner = records.owner
    xact_lock(conn, owner, "outbox", key)
    row = conn.execute(
        "SELECT body FROM outbox_entries WHERE owner_id = %s AND key = %s", (owner, key)
    ).fetchone()
    if (row[0] if row else None) != before:
        raise _moved(rel)
    conn.execute("DELETE FROM outbox_entries WHERE owner_id = %s AND key = %s", (owner, key))
    if after is not None:
        PgOutbox(records.db, owner, clock=datetime.now, timezone=zone).put_in(conn, key, after)


def _note_day(rel: str) -> date | None:
    """The day of a daily note file (`memory/DAY.md`, OpenClaw's `memory/DAY-slug.md`)."""
    folder, _, name = rel.rpartition("/")
    found = day_of_name(name) if folder == NOTES_DIR else None
    return found[0] if found is not None else None


def _note(
    conn: psycopg.Connection, owner: str, day: date, rel: str, before: str | None, after: str
) -> None:
    _replace_body(conn, "note_files", owner, rel, before, after)
    replace_path_docs(conn, owner, rel, note_docs(rel, day, after))  # a slugged file too


def _transcript_day(rel: str) -> date | None:
    try:
        day = date.fromisoformat(rel.removeprefix(f"{CONVERSATIONS_DIR}/").removesuffix(".jsonl"))
    except ValueError:
        return None
    return day if rel == transcript_name(day) else None


def _transcript(
    conn: psycopg.Connection,
    records: PgRecords,
    zone: str,
    day: date,
    rel: str,
    before: str,
    after: str,
) -> None:
    transcripts = PgTranscripts(records.db, records.owner, clock=datetime.now, timezone=zone)
    xact_lock(conn, records.owner, "transcript", day.isoformat())
    added = appended(before, transcripts.text_in(conn, day), after)
    if added is None:
        raise _moved(rel)
    transcripts.append_text_in(conn, day, added)


def _acknowledged(
    conn: psycopg.Connection, owner: str, day: date, before: str, after: str | None
) -> None:
    """The notes a job saved, from what it appended to the day's journal, acknowledged with
    the instants they count at. A journal retired (removed, or kept as instants) changes
    nothing: the database keeps every acknowledgement."""
    if after is None or not after.startswith(before):
        return
    added = parse_instants(after[len(before) :])
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO note_acks (owner_id, day, seq, hhmm, note, saved_at)"
            " SELECT %s, %s, coalesce(max(seq), 0) + 1, %s, %s, %s FROM note_acks"
            " WHERE owner_id = %s AND day = %s",
            [(owner, day, e.time, e.text, at, owner, day) for e, at in added],
        )


def _small_file(
    conn: psycopg.Connection, owner: str, rel: str, before: str | None, after: str
) -> None:
    _replace_body(conn, "owner_files", owner, rel, before, after)


def _replace_body(
    conn: psycopg.Connection,
    table: Literal["note_files", "owner_files"],
    owner: str,
    rel: str,
    before: str | None,
    after: str,
) -> None:
    """One file's body replaced, refused when the database no longer holds what was checked out."""
    row = conn.execute(
        f"SELECT body FROM {table} WHERE owner_id = %s AND name = %s FOR UPDATE",  # a Literal
        (owner, rel),
    ).fetchone()
    if (row[0] if row else None) != before:
        raise _moved(rel)
    conn.execute(
        f"INSERT INTO {table} (owner_id, name, body) VALUES (%s, %s, %s)"
        " ON CONFLICT (owner_id, name) DO UPDATE SET body = excluded.body",
        (owner, rel, after),
    )


def copies_dir(env: Mapping[str, str] = os.environ) -> str | None:
    """Where working copies go: TRINHO_COPIES, else a memory-backed /dev/shm when there is
    one (a copy is written and thrown away within a job), else the temp folder."""
    given = env.get(COPIES_ENV)
    if given:
        return given
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def copy_pid(name: str) -> int | None:
    """The process a working copy's folder name says made it (pure); None when not one."""
    if not name.startswith(COPY_PREFIX):
        return None
    head = name.removeprefix(COPY_PREFIX).split("-", 1)[0]
    return int(head) if head.isdigit() else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_copies(folder: Path | None = None) -> list[str]:
    """Remove the working copies whose process is gone (a worker killed in a job: in
    /dev/shm they would hold memory until the machine restarts); the names removed."""
    root = folder or Path(copies_dir() or tempfile.gettempdir())
    removed = []
    for child in sorted(root.iterdir()) if root.is_dir() else []:
        pid = copy_pid(child.name)
        if pid is not None and child.is_dir() and not _alive(pid):
            shutil.rmtree(child, ignore_errors=True)
            removed.append(child.name)
    return removed


@contextmanager
def working_copy(db: Database, owner: str, config_text: str | None) -> Iterator[Checkout]:
    """A checkout in a temporary folder, removed when the block ends. The folder is named by
    this process, so one left by a killed process is removed by the next (`sweep_copies`)."""
    prefix = f"{COPY_PREFIX}{os.getpid()}-{owner}-"
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=copies_dir()))
    try:
        yield checkout(db, owner, folder, config_text)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run_on_copy(
    db: Database,
    owner: str,
    config: Config,
    config_text: str | None,
    job: Callable[[Workspace], T],
    *,
    clock: Clock,
) -> T:
    """Run `job` on a working copy of the owner's records and check in what it wrote; when
    the database moved under it, again from a new checkout (at most `ATTEMPTS` times)."""
    attempt = 1
    while True:
        with working_copy(db, owner, config_text) as done:
            result = job(open_checkout(done, config, clock))
            try:  # a connection a restart cut before the commit: once more, on a new one
                retry_lost(db.url, lambda: checkin(db, done))
            except Moved:
                if attempt == ATTEMPTS:
                    raise
                attempt += 1
                continue
            return result
