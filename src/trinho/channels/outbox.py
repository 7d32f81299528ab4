"""The persisted outbox: each notification is announced once, across retries and restarts.

One JSON file per notification under `.trinho/outbox/`, replaced atomically. Delivery of an
entry holds that entry's lock, so two processes never send the same one at the same time.

The crash window between a successful send and the durable "sent" mark is closed this way:
before sending, the attempt is recorded (`in_flight`, attempts + 1, the next retry time).
After the send, the result is recorded. A restart that finds `in_flight` still set cannot
know whether the owner got the message; it sends it again when the retry is due. We choose
a rare duplicate over a lost announcement: an unseen held change would wait forever, while a
repeated message is harmless because every button is bound to a proposal's content hash and
the queue refuses a second decision; a resend that may be a repeat says so in its title (the
buttons are the same). Once "sent" is recorded, the entry is never sent again.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal, Self, cast

from trinho import fields
from trinho.channels.base import Channel, Notification, SentReceipt, notification_key
from trinho.durable import atomic_write_text, ensure_dir, fsync_dir
from trinho.errors import TrinhoError
from trinho.i18n import t
from trinho.workspace import Workspace

DeliveryStatus = Literal["pending", "sent"]
DELIVERY_STATUSES: tuple[DeliveryStatus, ...] = ("pending", "sent")

log = logging.getLogger("trinho.channels.outbox")

BASE_DELAY = timedelta(seconds=30)
MAX_DELAY = timedelta(hours=1)


@dataclass(frozen=True)
class OutboxEntry:
    """A notification and where its delivery stands."""

    notification: Notification
    status: DeliveryStatus
    enqueued_at: datetime
    attempts: int = 0
    next_attempt_at: datetime | None = None
    in_flight: bool = False
    last_error: str | None = None
    sent_at: datetime | None = None
    receipt: SentReceipt | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "notification": self.notification.to_json(),
            "status": self.status,
            "enqueued_at": self.enqueued_at.isoformat(),
            "attempts": self.attempts,
            "next_attempt_at": fields.iso(self.next_attempt_at),
            "in_flight": self.in_flight,
            "last_error": self.last_error,
            "sent_at": fields.iso(self.sent_at),
            "receipt": None
            if self.receipt is None
            else {"channel": self.receipt.channel, "ref": self.receipt.ref},
        }

    @classmethod
    def from_json(cls, data: object, where: fields.Where) -> Self:
        table = fields.as_object(data, where)
        status = fields.choice(table, "status", DELIVERY_STATUSES, where)
        return cls(
            notification=Notification.from_json(
                table.get("notification"), f"{where}: notification"
            ),
            status=cast(DeliveryStatus, status),
            enqueued_at=fields.moment(table, "enqueued_at", where),
            attempts=fields.maybe(table, "attempts", int, where) or 0,
            next_attempt_at=fields.maybe_moment(table, "next_attempt_at", where),
            in_flight=fields.flag(table, "in_flight", False, where),
            last_error=fields.maybe(table, "last_error", str, where),
            sent_at=fields.maybe_moment(table, "sent_at", where),
            receipt=_receipt(table.get("receipt"), f"{where}: receipt"),
        )


def _receipt(data: object, where: str) -> SentReceipt | None:
    if data is None:
        return None
    table = fields.as_object(data, where)
    channel = fields.typed(table, "channel", str, where)
    return SentReceipt(channel=channel, ref=fields.typed(table, "ref", str, where))


def entry_text(entry: OutboxEntry) -> str:
    """An entry as its file holds it (the PostgreSQL outbox stores the same text)."""
    return json.dumps(entry.to_json(), ensure_ascii=False, indent=1) + "\n"


def backoff_delay(
    attempts: int, base: timedelta = BASE_DELAY, cap: timedelta = MAX_DELAY
) -> timedelta:
    """How long to wait after the `attempts`-th failed attempt: doubling, capped."""
    if attempts <= 0:
        return timedelta(0)
    return min(cap, base * (1 << min(attempts - 1, 30)))


def is_due(entry: OutboxEntry, now: datetime) -> bool:
    """A pending entry is due when it was never tried or its retry time has come."""
    if entry.status != "pending":
        return False
    return entry.next_attempt_at is None or entry.next_attempt_at <= now


@dataclass(frozen=True)
class EnqueueResult:
    entry: OutboxEntry
    created: bool


@dataclass(frozen=True)
class DeliveryReport:
    """What one `deliver` call did: ids sent, ids that failed (with the error), ids waiting."""

    sent: tuple[str, ...] = ()
    failed: tuple[tuple[str, str], ...] = ()
    waiting: tuple[str, ...] = ()
    in_doubt: tuple[str, ...] = ()
    """Sent again because an earlier attempt was cut off before its outcome was recorded."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "sent": list(self.sent),
            "failed": [{"id": nid, "error": err} for nid, err in self.failed],
            "waiting": list(self.waiting),
            "in_doubt": list(self.in_doubt),
        }


@dataclass
class Delivery:
    """What one `deliver` did so far, entry by entry."""

    sent: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)
    in_doubt: list[str] = field(default_factory=list)

    def report(self) -> DeliveryReport:
        return DeliveryReport(
            tuple(self.sent), tuple(self.failed), tuple(self.waiting), tuple(self.in_doubt)
        )


def attempt(
    entry: OutboxEntry,
    channel: Channel,
    tally: Delivery,
    *,
    now: Callable[[], datetime],
    locale: str,
    write: Callable[[OutboxEntry], None],
    delays: tuple[timedelta, timedelta],
) -> None:
    """Send one pending entry if it is due, with the caller's lock on it held: claimed first
    (in flight, its next attempt backed off) and written, so a crash during the send leaves it
    known to be in doubt and its next attempt says it may repeat; then marked sent, or failed
    with the error; a sent entry is left as it is. Both outboxes, files and PostgreSQL, deliver
    through this."""
    if entry.status == "sent":
        return
    nid = entry.notification.id
    moment = now()
    if not is_due(entry, moment):
        tally.waiting.append(nid)
        return
    if entry.in_flight:
        tally.in_doubt.append(nid)
    attempts = entry.attempts + 1
    entry = replace(
        entry,
        attempts=attempts,
        in_flight=True,
        next_attempt_at=moment + backoff_delay(attempts, *delays),
    )
    write(entry)
    shown = entry.notification
    if nid in tally.in_doubt:
        shown = replace(shown, title=t(locale, "channel.maybe_repeat", title=shown.title))
    try:
        receipt = channel.send(shown)
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
        write(replace(entry, in_flight=False, last_error=error))
        tally.failed.append((nid, error))
        return
    sent = replace(
        entry, status="sent", in_flight=False, next_attempt_at=None, sent_at=now(), receipt=receipt
    )
    write(sent)
    tally.sent.append(nid)


class Outbox:
    """The outbox of one workspace (`.trinho/outbox/`)."""

    def __init__(
        self,
        ws: Workspace,
        *,
        base_delay: timedelta = BASE_DELAY,
        max_delay: timedelta = MAX_DELAY,
    ) -> None:
        self.ws = ws
        self.root = ws.internal / "outbox"
        self.base_delay = base_delay
        self.max_delay = max_delay

    def _path(self, key: str) -> Path:
        return self.root / f"{key}.json"

    def _read(self, path: Path) -> OutboxEntry | None:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            raise TrinhoError.keyed("error.outbox.unreadable", path=path, error=str(exc)) from None
        try:
            return OutboxEntry.from_json(json.loads(text), path)
        except (ValueError, KeyError, TypeError) as exc:
            raise TrinhoError.keyed("error.outbox.invalid", path=path, error=str(exc)) from None

    def _write(self, entry: OutboxEntry) -> None:
        atomic_write_text(self._path(entry.notification.key), entry_text(entry))

    def enqueue(self, notification: Notification) -> EnqueueResult:
        """Add a notification unless one with the same id is already there (sent or not).

        The first version of an id wins: a retried or re-run job never announces twice.
        """
        path = self._path(notification.key)
        with self.ws.lock(path):
            existing = self._read(path)
            if existing is not None:
                return EnqueueResult(existing, created=False)
            entry = OutboxEntry(notification, status="pending", enqueued_at=self.ws.now())
            self._write(entry)
            return EnqueueResult(entry, created=True)

    def get(self, notification_id: str) -> OutboxEntry | None:
        return self._read(self._path(notification_key(notification_id)))

    def find(self, key: str) -> Notification | None:
        """The notification with this key (see `notification_key`), for button callbacks."""
        if len(key) != 16 or any(c not in "0123456789abcdef" for c in key):
            return None
        entry = self._read(self._path(key))
        return None if entry is None else entry.notification

    def _read_or_set_aside(self, path: Path) -> OutboxEntry | None:
        """The entry, or None when the file is broken: it is moved to `broken/` with one log
        line, so one bad file neither stops the others nor is reported again."""
        try:
            return self._read(path)
        except TrinhoError as exc:
            aside = self.root / "broken" / path.name
            ensure_dir(aside.parent)
            try:
                os.replace(path, aside)
            except FileNotFoundError:
                return None
            fsync_dir(self.root)
            log.error(
                "outbox entry set aside",
                extra={
                    "fields": {"event": "outbox.set_aside", "path": str(aside), "error": str(exc)}
                },
            )
            return None

    def entries(self) -> list[OutboxEntry]:
        """Every readable entry, oldest first (a broken file is set aside)."""
        if not self.root.is_dir():
            return []
        found = [self._read_or_set_aside(path) for path in sorted(self.root.glob("*.json"))]
        return sorted(
            (entry for entry in found if entry is not None),
            key=lambda e: (e.enqueued_at, e.notification.id),
        )

    def pending(self) -> list[OutboxEntry]:
        return [entry for entry in self.entries() if entry.status == "pending"]

    def next_due(self) -> datetime | None:
        """When the next pending entry may be tried (None: nothing pending)."""
        times = [e.next_attempt_at or e.enqueued_at for e in self.pending()]
        return min(times) if times else None

    def deliver(self, channel: Channel) -> DeliveryReport:
        """Send every due pending entry once; failures are retried later with backoff.

        Never sleeps: a failed entry gets its next attempt time, and the caller (the service
        loop, or the next run) calls `deliver` again.
        """
        tally = Delivery()
        if not self.root.is_dir():
            return DeliveryReport()
        for path in sorted(self.root.glob("*.json")):
            with self.ws.lock(path):
                entry = self._read_or_set_aside(path)
                if entry is not None:
                    attempt(
                        entry,
                        channel,
                        tally,
                        now=self.ws.now,
                        locale=self.ws.locale,
                        write=self._write,
                        delays=(self.base_delay, self.max_delay),
                    )
        return tally.report()
