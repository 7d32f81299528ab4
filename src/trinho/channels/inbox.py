"""The durable inbound queue: every owner message is on disk before Telegram forgets it.

Telegram drops an update for good once a later offset is asked for. So the channel appends
each fetched message to `.trinho/inbox/telegram.jsonl` (fsync'd) before it asks for the next
offset, and answers from that file: the reply text is appended before it is sent (so a
restart sends it instead of asking the model again), each sent part is appended with its
message id, and a failed send is appended with its next attempt time (the outbox's backoff).
A restart replays every message not marked done, oldest first.

The file is a log of events; `fold` turns it into one `InboxItem` per update, and `next_item`
decides what to work on. Both are pure; `Inbox` does the I/O. `MemoryInbox` keeps the same
log in memory: the same code path with nothing durable, for measuring what the file costs.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from trinho.channels.outbox import backoff_delay
from trinho.durable import append_recorded, atomic_write_text, read_regular, try_file_lock
from trinho.workspace import Workspace

log = logging.getLogger("trinho.channels.inbox")

REPLY_BASE_DELAY = timedelta(seconds=2)
REPLY_MAX_DELAY = timedelta(minutes=10)
COMPACT_AFTER = 500
"""Done items kept in the file before it is rewritten with only what is still open."""


@dataclass(frozen=True)
class InboxItem:
    """One owner message and where its answer stands."""

    update_id: int
    text: str
    received_at: datetime
    reply: str | None = None
    sent: tuple[int, ...] = ()
    """Message ids of the reply's parts sent so far, in order."""
    attempts: int = 0
    next_attempt_at: datetime | None = None
    last_error: str | None = None
    done: bool = False

    @property
    def ref(self) -> str:
        """The transcript reference of this message: a replayed turn is recorded once."""
        return f"telegram:{self.update_id}"


@dataclass(frozen=True)
class InboxState:
    items: tuple[InboxItem, ...]
    """Every item, by update id."""
    next_offset: int | None
    """The offset to ask Telegram for: one past the last update ever seen (None: none yet)."""


def fold(events: Iterable[Mapping[str, Any]]) -> InboxState:
    """The items an event log describes. Unknown or malformed events are skipped."""
    items: dict[int, InboxItem] = {}
    offset: int | None = None
    for event in events:
        try:
            uid = int(event["update_id"])
            kind = event["kind"]
            if kind == "seen":
                offset = max(offset or 0, uid + 1)
                continue
            if kind == "update":
                offset = max(offset or 0, uid + 1)
                items.setdefault(
                    uid,
                    InboxItem(uid, str(event["text"]), datetime.fromisoformat(event["at"])),
                )
                continue
            item = items.get(uid)
            if item is not None:
                items[uid] = _apply(item, kind, event)
        except (KeyError, TypeError, ValueError):
            continue
    return InboxState(tuple(items[uid] for uid in sorted(items)), offset)


def _apply(item: InboxItem, kind: str, event: Mapping[str, Any]) -> InboxItem:
    if kind == "reply":
        return replace(item, reply=str(event["text"]))
    if kind == "sent":
        return replace(item, sent=(*item.sent, int(event["message_id"])))
    if kind == "failed":
        return replace(
            item,
            attempts=int(event["attempts"]),
            next_attempt_at=datetime.fromisoformat(event["next_at"]),
            last_error=str(event["error"]),
        )
    if kind == "done":
        return replace(item, done=True)
    return item


def next_item(
    items: Sequence[InboxItem], now: datetime
) -> tuple[InboxItem | None, datetime | None]:
    """The item to work on now, or None and when the next one becomes due.

    Oldest first, and strictly in order: a reply waiting for a retry holds back the later
    ones, so the owner reads the answers in the order of the questions.
    """
    for item in items:
        if item.done:
            continue
        if item.next_attempt_at is None or item.next_attempt_at <= now:
            return item, None
        return None, item.next_attempt_at
    return None, None


def retry_at(attempts: int, now: datetime, retry_after: float | None = None) -> datetime:
    """When to send a failed reply again: the backoff, or later if Telegram asked for it."""
    delay = backoff_delay(attempts, REPLY_BASE_DELAY, REPLY_MAX_DELAY)
    if retry_after is not None:
        delay = max(delay, timedelta(seconds=retry_after))
    return now + delay


def compacted(events: Sequence[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The log with only what the open items need, once `COMPACT_AFTER` items are done (None:
    keep it as it is). Every event of an open item stays, its reply and retries too, and one
    `seen` keeps the offset, so the folded state is the same but for the done items."""
    state = fold(events)
    if sum(item.done for item in state.items) < COMPACT_AFTER:
        return None
    open_ids = {item.update_id for item in state.items if not item.done}
    kept = [e for e in events if e.get("update_id") in open_ids]
    if state.next_offset is not None:
        kept.insert(0, {"kind": "seen", "update_id": state.next_offset - 1})
    return kept


class MemoryInbox:
    """The inbox's log kept in memory: nothing survives the process."""

    def __init__(self, now: Callable[[], datetime]) -> None:
        self.now = now
        self._events: list[dict[str, Any]] = []
        self._done_since_compact = 0

    def hold(self) -> contextlib.AbstractContextManager[bool]:
        """Whether this process may poll and answer (one process per inbox)."""
        return contextlib.nullcontext(True)

    def _append(self, events: list[dict[str, Any]]) -> None:
        self._events.extend(events)

    def _load(self) -> list[dict[str, Any]]:
        return list(self._events)

    def state(self) -> InboxState:
        return fold(self._load())

    def compact(self) -> None:
        kept = compacted(self._events)
        if kept is not None:
            self._events = kept

    def add(self, updates: Sequence[tuple[int, str | None]]) -> None:
        """Record fetched updates: (update id, owner text or None for anything else).

        One append for the whole batch, made before the next offset is asked for.
        """
        at = self.now().isoformat()
        events: list[dict[str, Any]] = [
            {"kind": "seen", "update_id": uid}
            if text is None
            else {"kind": "update", "update_id": uid, "text": text, "at": at}
            for uid, text in updates
        ]
        if events:
            self._append(events)

    def record_reply(self, item: InboxItem, text: str) -> None:
        self._append([{"kind": "reply", "update_id": item.update_id, "text": text}])

    def record_sent(self, item: InboxItem, message_id: int) -> None:
        self._append([{"kind": "sent", "update_id": item.update_id, "message_id": message_id}])

    def record_failed(self, item: InboxItem, error: str, retry_after: float | None) -> None:
        attempts = item.attempts + 1
        moment = retry_at(attempts, self.now(), retry_after)
        self._append(
            [
                {
                    "kind": "failed",
                    "update_id": item.update_id,
                    "attempts": attempts,
                    "next_at": moment.isoformat(),
                    "error": error,
                }
            ]
        )

    def record_done(self, item: InboxItem) -> None:
        """Mark `item` answered; every `COMPACT_AFTER` of them, compact the log, so that what
        each poll and each answer reads stays bounded by the open work, not by every message
        since the service started."""
        self._append([{"kind": "done", "update_id": item.update_id}])
        self._done_since_compact += 1
        if self._done_since_compact >= COMPACT_AFTER:
            self._done_since_compact = 0
            self.compact()


class Inbox(MemoryInbox):
    """The inbox of one workspace: `.trinho/inbox/telegram.jsonl`, fsync'd appends."""

    def __init__(self, ws: Workspace) -> None:
        super().__init__(ws.now)
        self.ws = ws
        self.path: Path = ws.internal / "inbox" / "telegram.jsonl"

    def hold(self) -> contextlib.AbstractContextManager[bool]:
        """The inbox's owner lock, taken without waiting: a second `trinho serve` on the same
        workspace neither polls (Telegram would answer 409) nor answers the same messages."""
        return try_file_lock(self.ws.internal / "locks" / "inbox.owner.lock")

    def _append(self, events: list[dict[str, Any]]) -> None:
        data = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events).encode("utf-8")
        with self.ws.lock(self.path):
            append_recorded(self.path, data, self.ws.intent_path(self.path))

    def _load(self) -> list[dict[str, Any]]:
        with self.ws.lock(self.path):
            return self._read()

    def _read(self) -> list[dict[str, Any]]:
        try:
            data = read_regular(self.path)
        except FileNotFoundError:
            return []
        events: list[dict[str, Any]] = []
        # Split at "\n" only: a message may hold U+2028, U+2029 or U+0085, which
        # `json.dumps(ensure_ascii=False)` writes raw and `str.splitlines` would split at.
        for number, line in enumerate(data.decode("utf-8", "replace").split("\n"), 1):
            try:
                event = json.loads(line)
            except ValueError:
                event = None
            if isinstance(event, dict):
                events.append(event)
            elif line.strip():
                log.warning(
                    "inbox line skipped",
                    extra={"fields": {"event": "inbox.bad_line", "line": number}},
                )
        return events

    def compact(self) -> None:
        """Rewrite the file with only the open items once many are done (at start, and every
        `COMPACT_AFTER` answers)."""
        with self.ws.lock(self.path):
            events = self._read()
            kept = compacted(events)
            if kept is None:
                return
            text = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in kept)
            atomic_write_text(self.path, text)
        log.info(
            "inbox compacted",
            extra={
                "fields": {"event": "inbox.compacted", "before": len(events), "after": len(kept)}
            },
        )
