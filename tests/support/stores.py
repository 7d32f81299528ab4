"""The other stores' promises as the tests state them, one narrow Protocol each, and the file
stores seen through them.

Transcripts, the usage ledger, condensation runs' journals, the outbox, the inbox and
`memory/archive.md`: what the `backend` fixture (tests/support/backends.py) runs on both
backends, the same calls with the same outcomes. The file side is each file store as it is,
unchanged; `Outbox` and `Inbox` are their own file side. The PostgreSQL side is
`trinho.pg.transcripts`, `.ledger`, `.journals`, `.outbox`, `.inbox` and `.archive`. No
production code types against these (it works through `trinho.records.protocol.Records` and
each store's own class), so they live with the tests.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Sequence
from datetime import date, datetime
from typing import Any, Protocol

from trinho.channels.base import Channel, Notification
from trinho.channels.inbox import InboxItem, InboxState
from trinho.channels.outbox import DeliveryReport, EnqueueResult, OutboxEntry
from trinho.condense.store import runs
from trinho.condense.store.runs import Journal, RunState
from trinho.conversations import store as conversations
from trinho.conversations.store import ImportReport, StoredTurn, Turn
from trinho.memory import store as memory
from trinho.models import ledger
from trinho.models.ledger import Ledger, UsageRecord
from trinho.workspace import Workspace


class Transcripts(Protocol):
    def record_turn(
        self, role: str, text: str, at: datetime | None = None, ref: str | None = None
    ) -> StoredTurn: ...

    def read_day(self, day: date) -> list[StoredTurn]: ...

    def import_turns(
        self, turns: Iterable[Turn], progress: Callable[[int], None] | None = None
    ) -> ImportReport: ...


class UsageLedger(Protocol):
    def append(self, record: UsageRecord) -> None: ...

    def read(self) -> Ledger: ...


class RunJournals(Protocol):
    def read(self, run_id: str) -> Journal | None: ...

    def write(self, journal: Journal) -> Journal: ...

    def advance(self, journal: Journal, state: RunState, **changes: Any) -> Journal: ...

    def week_runs(self, week: str) -> list[str]: ...


class OutboxStore(Protocol):
    def enqueue(self, notification: Notification) -> EnqueueResult: ...

    def get(self, notification_id: str) -> OutboxEntry | None: ...

    def find(self, key: str) -> Notification | None: ...

    def entries(self) -> list[OutboxEntry]: ...

    def next_due(self) -> datetime | None: ...

    def deliver(self, channel: Channel) -> DeliveryReport: ...


class InboxLog(Protocol):
    def hold(self) -> contextlib.AbstractContextManager[bool]: ...

    def state(self) -> InboxState: ...

    def add(self, updates: Sequence[tuple[int, str | None]]) -> None: ...

    def record_reply(self, item: InboxItem, text: str) -> None: ...

    def record_sent(self, item: InboxItem, message_id: int) -> None: ...

    def record_failed(self, item: InboxItem, error: str, retry_after: float | None) -> None: ...

    def record_done(self, item: InboxItem) -> None: ...

    def compact(self) -> None: ...


class ArchiveStore(Protocol):
    def archive(self, section: str) -> bool: ...

    def rewrite(self, change: Callable[[str], str]) -> bool: ...

    def archived_text(self) -> str: ...


class FileTranscripts:
    def __init__(self, ws: Workspace) -> None:
        self.ws = ws

    def record_turn(
        self, role: str, text: str, at: datetime | None = None, ref: str | None = None
    ) -> StoredTurn:
        return conversations.record_turn(self.ws, role, text, at, ref)

    def read_day(self, day: date) -> list[StoredTurn]:
        return conversations.read_day(self.ws, day)

    def import_turns(
        self, turns: Iterable[Turn], progress: Callable[[int], None] | None = None
    ) -> ImportReport:
        return conversations.import_turns(self.ws, turns, progress)


class FileLedger:
    def __init__(self, ws: Workspace) -> None:
        self.ws = ws

    def append(self, record: UsageRecord) -> None:
        ledger.append_usage(self.ws, record)

    def read(self) -> Ledger:
        return ledger.read_ledger(self.ws)


class FileJournals:
    def __init__(self, ws: Workspace) -> None:
        self.ws = ws

    def read(self, run_id: str) -> Journal | None:
        return runs.read_journal(self.ws, run_id)

    def write(self, journal: Journal) -> Journal:
        return runs.write_journal(self.ws, journal)

    def advance(self, journal: Journal, state: RunState, **changes: Any) -> Journal:
        return runs.advance(self.ws, journal, state, **changes)

    def week_runs(self, week: str) -> list[str]:
        return runs.week_runs(self.ws, week)


class FileArchive:
    def __init__(self, ws: Workspace) -> None:
        self.ws = ws

    def archive(self, section: str) -> bool:
        return memory.archive(self.ws, section)

    def rewrite(self, change: Callable[[str], str]) -> bool:
        return memory.rewrite_archive(self.ws, change)

    def archived_text(self) -> str:
        return memory.archived_text(self.ws)
