"""The outbox in PostgreSQL: each notification announced once, across retries and restarts.

The file store's protocol, row for row (`trinho.channels.outbox`): the first version of an
id wins (an insert that does nothing when the key is there); before a send the attempt is
committed (`in_flight`, attempts + 1, the next retry time), after it the outcome; an entry
found `in_flight` is sent again when due, titled as a possible repeat. An entry's delivery
holds a session lock on it, so two workers never send the same one at once. Each entry's
text is the file store's JSON, so an export writes its file as it was.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from trinho.channels.base import Channel, Notification, notification_key
from trinho.channels.outbox import (
    BASE_DELAY,
    MAX_DELAY,
    Delivery,
    DeliveryReport,
    EnqueueResult,
    OutboxEntry,
    attempt,
    entry_text,
)
from trinho.errors import TrinhoError
from trinho.pg.connect import Database, check_owner
from trinho.pg.locks import session_lock, xact_lock

if TYPE_CHECKING:
    import psycopg

Clock = Callable[[], datetime]
OUTBOX_PLACE = ".trinho/outbox"


class PgOutbox:
    def __init__(
        self,
        db: Database,
        owner: str,
        *,
        clock: Clock,
        timezone: str,
        locale: str = "en",
        base_delay: timedelta = BASE_DELAY,
        max_delay: timedelta = MAX_DELAY,
    ) -> None:
        self.db = db
        self.owner = check_owner(owner)
        self._clock = clock
        self.tz = ZoneInfo(timezone)
        self.locale = locale
        self.base_delay = base_delay
        self.max_delay = max_delay

    def now(self) -> datetime:
        return self._clock().astimezone(self.tz)

    def _parse(self, key: str, text: str) -> OutboxEntry:
        where = f"{OUTBOX_PLACE}/{key}.json"
        try:
            return OutboxEntry.from_json(json.loads(text), where)
        except (ValueError, KeyError, TypeError) as exc:
            raise TrinhoError.keyed("error.outbox.invalid", path=where, error=str(exc)) from None

    def _write(self, entry: OutboxEntry) -> None:
        with self.db.owner_tx(self.owner) as conn:
            conn.execute(
                "UPDATE outbox_entries SET body = %s WHERE owner_id = %s AND key = %s",
                (entry_text(entry), self.owner, entry.notification.key),
            )

    def enqueue(self, notification: Notification) -> EnqueueResult:
        """Add a notification unless one with the same id is there already (sent or not)."""
        key = notification.key
        with self.db.owner_tx(self.owner) as conn:
            xact_lock(conn, self.owner, "outbox", key)
            row = conn.execute(
                "SELECT body FROM outbox_entries WHERE owner_id = %s AND key = %s",
                (self.owner, key),
            ).fetchone()
            if row is not None:
                return EnqueueResult(self._parse(key, row[0]), created=False)
            entry = OutboxEntry(notification, status="pending", enqueued_at=self.now())
            conn.execute(
                "INSERT INTO outbox_entries (owner_id, key, enqueued_at, body)"
                " VALUES (%s, %s, %s, %s)",
                (self.owner, key, entry.enqueued_at, entry_text(entry)),
            )
        return EnqueueResult(entry, created=True)

    def _get(self, key: str) -> OutboxEntry | None:
        with self.db.owner_tx(self.owner) as conn:
            row = conn.execute(
                "SELECT body FROM outbox_entries WHERE owner_id = %s AND key = %s",
                (self.owner, key),
            ).fetchone()
        return None if row is None else self._parse(key, row[0])

    def get(self, notification_id: str) -> OutboxEntry | None:
        return self._get(notification_key(notification_id))

    def find(self, key: str) -> Notification | None:
        """The notification with this key, for button callbacks."""
        if len(key) != 16 or any(c not in "0123456789abcdef" for c in key):
            return None
        entry = self._get(key)
        return None if entry is None else entry.notification

    def entries(self) -> list[OutboxEntry]:
        """Every entry, oldest first."""
        with self.db.owner_tx(self.owner) as conn:
            rows = conn.execute(
                "SELECT key, body FROM outbox_entries WHERE owner_id = %s ORDER BY key",
                (self.owner,),
            ).fetchall()
        found = [self._parse(key, body) for key, body in rows]
        return sorted(found, key=lambda e: (e.enqueued_at, e.notification.id))

    def pending(self) -> list[OutboxEntry]:
        return [entry for entry in self.entries() if entry.status == "pending"]

    def next_due(self) -> datetime | None:
        times = [e.next_attempt_at or e.enqueued_at for e in self.pending()]
        return min(times) if times else None

    def put_in(self, conn: psycopg.Connection, key: str, text: str) -> None:
        """An entry's file text as it is (an import), in the caller's transaction; refused in
        one line when it is no entry, which the file outbox would set aside."""
        entry = self._parse(key, text)
        conn.execute(
            "INSERT INTO outbox_entries (owner_id, key, enqueued_at, body) VALUES (%s, %s, %s, %s)",
            (self.owner, key, entry.enqueued_at, text),
        )

    def files(self) -> dict[str, str]:
        """Every entry's file text by its file name, for an export."""
        with self.db.owner_tx(self.owner) as conn:
            rows = conn.execute(
                "SELECT key, body FROM outbox_entries WHERE owner_id = %s ORDER BY key",
                (self.owner,),
            ).fetchall()
        return {f"{key}.json": body for key, body in rows}

    def deliver(self, channel: Channel) -> DeliveryReport:
        """Send every due pending entry once, as the file outbox does; never sleeps."""
        tally = Delivery()
        with self.db.owner_tx(self.owner) as conn:
            keys = [
                row[0]
                for row in conn.execute(
                    "SELECT key FROM outbox_entries WHERE owner_id = %s ORDER BY key",
                    (self.owner,),
                ).fetchall()
            ]
        for key in keys:
            with session_lock(self.db, self.owner, "outbox-send", key):
                entry = self._get(key)
                if entry is not None:
                    attempt(
                        entry,
                        channel,
                        tally,
                        now=self.now,
                        locale=self.locale,
                        write=self._write,
                        delays=(self.base_delay, self.max_delay),
                    )
        return tally.report()
