"""The durable inbound queue in PostgreSQL: the file inbox's event log, one row per event.

The same log and the same pure rules (`trinho.channels.inbox`: `fold`, `next_item`,
`compacted`); only the I/O differs. A batch of events is one transaction (the file store's
one fsync'd append), a compaction one transaction that replaces the log, and the one process
that may poll holds a session lock on the inbox (the file store's owner lock), released when
its connection ends, so a crashed service never keeps it.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

from trinho.channels.inbox import MemoryInbox, compacted
from trinho.pg.connect import Database, check_owner
from trinho.pg.lines import lines_text, text_lines
from trinho.pg.locks import session_lock, xact_lock

if TYPE_CHECKING:
    import psycopg

log = logging.getLogger("trinho.pg.inbox")

Clock = Callable[[], datetime]
CHANNEL = "telegram"


def parse_events(lines: list[str]) -> list[dict[str, Any]]:
    """The log's events; a line that is not a JSON object is skipped, as in the file."""
    events: list[dict[str, Any]] = []
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


class PgInbox(MemoryInbox):
    def __init__(self, db: Database, owner: str, *, clock: Clock, channel: str = CHANNEL) -> None:
        super().__init__(clock)
        self.db = db
        self.owner = check_owner(owner)
        self.channel = channel

    @contextlib.contextmanager
    def _holding(self) -> Iterator[bool]:
        with session_lock(self.db, self.owner, "inbox", self.channel, wait=False) as held:
            yield held

    def hold(self) -> contextlib.AbstractContextManager[bool]:
        """Whether this process may poll and answer: one process per owner's inbox."""
        return self._holding()

    def _append(self, events: list[dict[str, Any]]) -> None:
        self.append_lines([json.dumps(e, ensure_ascii=False) for e in events])

    def append_lines(self, lines: list[str]) -> None:
        """Event lines, in order, in one transaction; a last line left without its newline
        is ended first, as the file's append does."""
        with self.db.owner_tx(self.owner) as conn:
            xact_lock(conn, self.owner, "inbox", self.channel)
            row = conn.execute(
                "SELECT coalesce(max(seq), 0) FROM inbox_events WHERE owner_id = %s"
                " AND channel = %s",
                (self.owner, self.channel),
            ).fetchone()
            last: int = row[0] if row else 0
            conn.execute(
                "UPDATE inbox_events SET newline = true WHERE owner_id = %s AND channel = %s"
                " AND seq = %s AND NOT newline",
                (self.owner, self.channel, last),
            )
            self._insert(conn, last, [(line, True) for line in lines])

    def _insert(self, conn: psycopg.Connection, last: int, rows: list[tuple[str, bool]]) -> None:
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO inbox_events (owner_id, channel, seq, body, newline)"
                " VALUES (%s, %s, %s, %s, %s)",
                [(self.owner, self.channel, n, b, nl) for n, (b, nl) in enumerate(rows, last + 1)],
            )

    def put_file(self, conn: psycopg.Connection, text: str) -> None:
        """The inbox file's exact text as its lines (an import), in the caller's transaction."""
        self._insert(conn, 0, text_lines(text))

    def _rows(self) -> list[tuple[str, bool]]:
        with self.db.owner_tx(self.owner) as conn:
            rows = conn.execute(
                "SELECT body, newline FROM inbox_events WHERE owner_id = %s AND channel = %s"
                " ORDER BY seq",
                (self.owner, self.channel),
            ).fetchall()
        return [(body, newline) for body, newline in rows]

    def lines(self) -> list[str]:
        return [body for body, _ in self._rows()]

    def file_text(self) -> str:
        """The log as its file says it ("" when there is none)."""
        return lines_text(self._rows())

    def _load(self) -> list[dict[str, Any]]:
        return parse_events(self.lines())

    def compact(self) -> None:
        """Replace the log with only the open items once many are done, in one transaction."""
        with self.db.owner_tx(self.owner) as conn:
            xact_lock(conn, self.owner, "inbox", self.channel)
            rows = conn.execute(
                "SELECT body FROM inbox_events WHERE owner_id = %s AND channel = %s ORDER BY seq",
                (self.owner, self.channel),
            ).fetchall()
            events = parse_events([row[0] for row in rows])
            kept = compacted(events)
            if kept is None:
                return
            conn.execute(
                "DELETE FROM inbox_events WHERE owner_id = %s AND channel = %s",
                (self.owner, self.channel),
            )
            self._insert(conn, 0, [(json.dumps(e, ensure_ascii=False), True) for e in kept])
        log.info(
            "inbox compacted",
            extra={
                "fields": {"event": "inbox.compacted", "before": len(events), "after": len(kept)}
            },
        )
