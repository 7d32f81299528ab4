"""The usage ledger in PostgreSQL: one row per model call, its ledger line's exact text.

The file store appends a locked, fsync'd line per call; here one committed insert, numbered
under the ledger's lock. Reading parses each line with the file store's own parser
(`trinho.models.ledger.parse_record`), so sums and budgets are the same pure functions over
the same records, and a line that is not a record counts for nothing, as in the file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trinho.models.ledger import Ledger, UsageRecord, parse_record, record_line
from trinho.pg.connect import Database, check_owner
from trinho.pg.lines import lines_text, text_lines
from trinho.pg.locks import xact_lock

if TYPE_CHECKING:
    import psycopg


class PgLedger:
    def __init__(self, db: Database, owner: str) -> None:
        self.db = db
        self.owner = check_owner(owner)

    def append(self, record: UsageRecord) -> None:
        """One record, committed before the call returns."""
        self.append_lines([record_line(record)])

    def append_lines(self, lines: list[str]) -> None:
        """Ledger lines, in order, in one transaction; a last line left without its newline
        is ended first, as the file's append does."""
        with self.db.owner_tx(self.owner) as conn:
            xact_lock(conn, self.owner, "ledger")
            self.append_in(conn, lines)

    def append_in(self, conn: psycopg.Connection, lines: list[str]) -> None:
        """`append_lines` in the caller's transaction, which holds the ledger's lock."""
        row = conn.execute(
            "SELECT coalesce(max(seq), 0) FROM usage_entries WHERE owner_id = %s",
            (self.owner,),
        ).fetchone()
        last: int = row[0] if row else 0
        conn.execute(
            "UPDATE usage_entries SET newline = true WHERE owner_id = %s AND seq = %s"
            " AND NOT newline",
            (self.owner, last),
        )
        self._insert(conn, last, [(line, True) for line in lines])

    def _insert(self, conn: psycopg.Connection, last: int, rows: list[tuple[str, bool]]) -> None:
        values = []
        for n, (line, newline) in enumerate(rows, last + 1):
            record = parse_record(line)
            at, run = (record.at, record.run) if record else (None, None)
            values.append((self.owner, n, at, run, line, newline))
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO usage_entries (owner_id, seq, at, run, body, newline)"
                " VALUES (%s, %s, %s, %s, %s, %s)",
                values,
            )

    def put_file(self, conn: psycopg.Connection, text: str) -> None:
        """The ledger file's exact text as its lines (an import), in the caller's transaction."""
        self._insert(conn, 0, text_lines(text))

    def _rows(self, conn: psycopg.Connection) -> list[tuple[str, bool]]:
        rows = conn.execute(
            "SELECT body, newline FROM usage_entries WHERE owner_id = %s ORDER BY seq",
            (self.owner,),
        ).fetchall()
        return [(body, newline) for body, newline in rows]

    def file_text(self) -> str:
        """The ledger as its file says it ("" when there is none)."""
        with self.db.owner_tx(self.owner) as conn:
            return self.text_in(conn)

    def text_in(self, conn: psycopg.Connection) -> str:
        """`file_text` in the caller's transaction."""
        return lines_text(self._rows(conn))

    def read(self) -> Ledger:
        """Every record in order, and how many lines were not records."""
        records: list[UsageRecord] = []
        skipped = 0
        with self.db.owner_tx(self.owner) as conn:
            rows = self._rows(conn)
        for line, _ in rows:
            record = parse_record(line)
            if record is not None:
                records.append(record)
            elif line.strip():
                skipped += 1
        return Ledger(tuple(records), skipped)
