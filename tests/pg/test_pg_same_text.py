"""What the PostgreSQL stores hold is the text the file would: a transcript, the usage
ledger (a torn last line too), a run's journal, an outbox entry and the inbox, byte for byte,
so an export gives back the files; any turns read back alike on both. The stores' behaviour
runs on both backends from the feature folders (the `backend` fixture)."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import TZ, FixedClock
from support.outbox_script import ScriptedChannel, notification
from support.stores import FileJournals, FileLedger, FileTranscripts
from trinho.channels.inbox import Inbox
from trinho.channels.outbox import Outbox
from trinho.condense.store.runs import Journal, journal_text
from trinho.errors import TrinhoError
from trinho.models.ledger import LEDGER_PATH, UsageRecord, record_line
from trinho.pg.connect import Database
from trinho.pg.inbox import PgInbox
from trinho.pg.journals import PgJournals
from trinho.pg.ledger import PgLedger
from trinho.pg.outbox import PgOutbox
from trinho.pg.owners import add_owner
from trinho.pg.transcripts import PgTranscripts
from trinho.workspace import Workspace, init_workspace


def _record(at: datetime, n: int, **more: Any) -> UsageRecord:
    return UsageRecord(at, "rewrite", "scripted", 100 * n, 10 * n, **more)


_LETTERS = list('aăđê ơ\n\r\t"\\{}\u2028\x85\x00ạ')
_TURN_TEXT = st.text(alphabet=st.sampled_from(_LETTERS), max_size=20)


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    turns=st.lists(
        st.tuples(
            st.sampled_from(["user", "assistant", " Lan "]),
            _TURN_TEXT,
            st.integers(0, 20 * 60),
            st.none() | st.sampled_from(["telegram:1", "x"]),
        ),
        max_size=6,
    ),
)
def test_any_turns_read_back_alike_and_the_text_is_the_files(
    turns: list[tuple[str, str, int, str | None]],
    pg_app: Database,
    pg_admin: Database,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The property: whatever turns are recorded, at whatever minutes, both backends file
    them under the same days and lines, read them back the same, and hold the same text."""
    clock = FixedClock()
    ws = init_workspace(tmp_path_factory.mktemp("ws") / "ws", timezone=TZ, clock=clock).workspace
    owner = f"t-{uuid.uuid4().hex[:12]}"
    add_owner(pg_admin, owner)
    files, pg = FileTranscripts(ws), PgTranscripts(pg_app, owner, clock=clock, timezone=TZ)
    for role, text, minutes, ref in turns:
        clock.advance(minutes=minutes)
        stored = [s.record_turn(role, text, ref=ref) for s in (files, pg)]
        assert stored[0] == stored[1]
    assert pg.days() == sorted(
        date.fromisoformat(p.stem) for p in (ws.root / "conversations").glob("*.jsonl")
    )
    for day in pg.days():
        assert files.read_day(day) == pg.read_day(day)
        path = ws.conversation_path(day)
        assert pg.day_text(day) == path.read_bytes().decode("utf-8")


@pytest.mark.parametrize("tail", ["", '{"at": "2026-11-2', "   "])
def test_the_ledger_text_is_the_files_a_torn_last_line_too(
    pg_app: Database, owner: str, workspace: Workspace, clock: FixedClock, tail: str
) -> None:
    files, pg = FileLedger(workspace), PgLedger(pg_app, owner)
    path = workspace.root / LEDGER_PATH
    path.write_text(record_line(_record(clock.now, 1)) + "\n" + tail, encoding="utf-8")
    with pg.db.owner_tx(pg.owner) as conn:
        pg.put_file(conn, path.read_text(encoding="utf-8"))
    for store in (files, pg):
        store.append(_record(clock.now, 2, run="r"))
    assert pg.file_text() == path.read_text(encoding="utf-8")
    assert pg.read() == files.read()
    assert pg.read().skipped == (1 if tail.strip() else 0)


def test_the_journal_text_is_the_files(
    pg_app: Database, owner: str, workspace: Workspace, clock: FixedClock
) -> None:
    journal = Journal("2026-W48", "proposed", clock.now, clock.now, error="đã xong")
    FileJournals(workspace).write(journal)
    pg = PgJournals(pg_app, owner, clock=clock, timezone=TZ)
    pg.write(journal)
    path = workspace.internal / "runs" / "2026-W48" / "journal.json"
    assert pg.files() == {"2026-W48/journal.json": path.read_text(encoding="utf-8")}
    assert journal_text(journal) == path.read_text(encoding="utf-8")
    pg.put_file("2026-W49", "journal.json", "{broken")
    with pytest.raises(TrinhoError) as caught:
        pg.read("2026-W49")
    assert caught.value.key == "error.run.bad_journal"


def test_an_outbox_entry_is_the_files_text(
    pg_app: Database, owner: str, workspace: Workspace, clock: FixedClock
) -> None:
    files, pg = Outbox(workspace), PgOutbox(pg_app, owner, clock=clock, timezone=TZ)
    for box in (files, pg):
        box.enqueue(notification("condense:2026-W48"))
        box.deliver(ScriptedChannel(["ok"]))
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in files.root.glob("*.json")}
    assert pg.files() == on_disk


def test_the_inbox_text_is_the_files(
    pg_app: Database, owner: str, workspace: Workspace, clock: FixedClock
) -> None:
    files, pg = Inbox(workspace), PgInbox(pg_app, owner, clock=clock)
    for box in (files, pg):
        box.add([(1, "chào\u2029"), (2, None)])
        box.record_reply(box.state().items[0], "Chào")
    assert pg.file_text() == files.path.read_text(encoding="utf-8")
