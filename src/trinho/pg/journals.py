"""Condensation runs' files in PostgreSQL: `journal.json` and what sits beside it.

The file store replaces a run's `journal.json` atomically at every step; here each step is
one committed upsert of the same text (`trinho.condense.store.runs.journal_text`), read back
by the same parser, so a run cut off anywhere finds the last step it recorded, whole. The
before copies and the report are kept under their file names, so an export writes the run's
folder as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from trinho.condense.rules.lifecycle import check_step
from trinho.condense.store.runs import (
    JOURNAL,
    RUN_ID_RE,
    Journal,
    RunState,
    journal_text,
    parse_journal,
    run_sequence,
    validate_run_id,
)
from trinho.pg.connect import Database, check_owner

if TYPE_CHECKING:
    import psycopg

Clock = Callable[[], datetime]
RUNS_PLACE = ".trinho/runs"
"""Where a run's files are named from in an error, as in the workspace."""


class PgJournals:
    def __init__(self, db: Database, owner: str, *, clock: Clock, timezone: str) -> None:
        self.db = db
        self.owner = check_owner(owner)
        self._clock = clock
        self.tz = ZoneInfo(timezone)

    def read(self, run_id: str) -> Journal | None:
        text = self.file_text(run_id, JOURNAL)
        if text is None:
            return None
        return parse_journal(text, f"{RUNS_PLACE}/{run_id}/{JOURNAL}")

    def write(self, journal: Journal) -> Journal:
        """The run's state, replaced whole in one transaction."""
        self.put_file(journal.run_id, JOURNAL, journal_text(journal))
        return journal

    def advance(self, journal: Journal, state: RunState, **changes: Any) -> Journal:
        """Record the next state (and any other field), as `runs.advance`: a step the
        lifecycle allows, else nothing is written."""
        check_step(journal.state, state, journal.run_id)
        now = self._clock().astimezone(self.tz)
        return self.write(replace(journal, state=state, updated_at=now, **changes))

    def week_runs(self, week: str) -> list[str]:
        """The ids of this week's runs that have a journal or a file, in order."""
        found = [r for r in self.run_ids() if r.split(".")[0] == week]
        return sorted(found, key=run_sequence)

    def run_ids(self) -> list[str]:
        with self.db.owner_tx(self.owner) as conn:
            rows = conn.execute(
                "SELECT DISTINCT run_id FROM run_files WHERE owner_id = %s", (self.owner,)
            ).fetchall()
        return sorted(row[0] for row in rows if RUN_ID_RE.fullmatch(row[0]))

    def file_text(self, run_id: str, name: str) -> str | None:
        with self.db.owner_tx(self.owner) as conn:
            row = conn.execute(
                "SELECT body FROM run_files WHERE owner_id = %s AND run_id = %s AND name = %s",
                (self.owner, validate_run_id(run_id), name),
            ).fetchone()
        return row[0] if row else None

    def put_file(self, run_id: str, name: str, text: str) -> None:
        """One of the run's files, replaced whole (committed when this returns)."""
        with self.db.owner_tx(self.owner) as conn:
            self.put_in(conn, run_id, name, text)

    def put_in(self, conn: psycopg.Connection, run_id: str, name: str, text: str) -> None:
        """`put_file` in the caller's transaction (an import)."""
        conn.execute(
            "INSERT INTO run_files (owner_id, run_id, name, body) VALUES (%s, %s, %s, %s)"
            " ON CONFLICT (owner_id, run_id, name) DO UPDATE SET body = excluded.body",
            (self.owner, validate_run_id(run_id), name, text),
        )

    def files(self) -> dict[str, str]:
        """Every run's files by their path under `.trinho/runs/`, for an export."""
        with self.db.owner_tx(self.owner) as conn:
            rows = conn.execute(
                "SELECT run_id, name, body FROM run_files WHERE owner_id = %s"
                " ORDER BY run_id, name",
                (self.owner,),
            ).fetchall()
        return {f"{run_id}/{name}": body for run_id, name, body in rows}
