"""The usage ledger in PostgreSQL: one row per model call, its ledger line's exact text.

The file store appends a locked, fsync'd line per call; here one committed insert, numbered
under the ledger's lock. Reading parses each line with the file store's own parser
(`trinho.models.ledger.parse_record`), so sums and budgets are the same pure functions over
the same records, and a line that is not a record counts for nothing, as in the file.
"""

from __future__ import annotations

from trinho.models.ledger import Ledger, UsageRecord, parse_record, record_line
from trinho.pg.connect import Database, check_owner
from trinho.pg.locks import xact_lock


class PgLedger:
    def __init__(self, db: Database, owner: str) -> None:
        self.db = db
        self.owner = check_owner(owner)

    def append(self, record: UsageRecord) -> None:
        """One record, committed before the call returns."""
        self.append_lines([record_line(record)])

    def append_lines(self, lines: list[str]) -> None:
        """Ledger lines as they are (an import's too), in order, in one transaction."""
        with self.db.owner_tx(self.owner) as conn:
            xact_lock(conn, self.owner, "ledger")
            row = conn.execute(
                "SELECT coalesce(max(seq), 0) FROM usage_entries WHERE owner_id = %s",
                (self.owner,),
            ).fetchone()
            start: int = row[0] if row else 0
            rows = []
            for n, line in enumerate(lines, start + 1):
                record = parse_record(line)
                at, run = (record.at, record.run) if record else (None, None)
                rows.append((self.owner, n, at, run, line))
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO usage_entries (owner_id, seq, at, run, body)"
                    " VALUES (%s, %s, %s, %s, %s)",
                    rows,
                )

    def lines(self) -> list[str]:
        with self.db.owner_tx(self.owner) as conn:
            rows = conn.execute(
                "SELECT body FROM usage_entries WHERE owner_id = %s ORDER BY seq", (self.owner,)
            ).fetchall()
        return [row[0] for row in rows]

    def read(self) -> Ledger:
        """Every record in order, and how many lines were not records."""
        records: list[UsageRecord] = []
        skipped = 0
        for line in self.lines():
            record = parse_record(line)
            if record is None:
                skipped += 1 if line.strip() else 0
            else:
                records.append(record)
        return Ledger(tuple(records), skipped)
