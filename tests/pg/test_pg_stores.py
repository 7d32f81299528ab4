"""The other stores on both backends (trinho.pg.seams): transcripts, the usage ledger, run
journals, the outbox, the inbox and memory/archive.md. The same calls give the same outcomes,
and the database holds the text the file would."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import TZ, FixedClock
from support.pgserver import Urls
from trinho.channels import inbox as inbox_module
from trinho.channels.base import ChannelError, Notification, NotificationItem, SentReceipt
from trinho.channels.inbox import Inbox
from trinho.channels.outbox import Outbox
from trinho.condense.rules.archive import archive_section
from trinho.condense.store.runs import Journal, ProposalEntry, journal_text
from trinho.conversations.store import make_turn, turn_line
from trinho.errors import TrinhoError
from trinho.i18n import t
from trinho.models.ledger import LEDGER_PATH, UsageRecord, record_line, summarize
from trinho.pg.archive import PgArchive
from trinho.pg.connect import Database
from trinho.pg.inbox import PgInbox
from trinho.pg.journals import PgJournals
from trinho.pg.ledger import PgLedger
from trinho.pg.outbox import PgOutbox
from trinho.pg.owners import add_owner
from trinho.pg.seams import (
    ArchiveStore,
    FileArchive,
    FileJournals,
    FileLedger,
    FileTranscripts,
    InboxLog,
    OutboxStore,
    RunJournals,
    Transcripts,
    UsageLedger,
)
from trinho.pg.transcripts import PgTranscripts
from trinho.workspace import Workspace, init_workspace

DAY = date(2026, 11, 29)
BACKENDS = ["files", "pg"]


def _pg(request: pytest.FixtureRequest) -> tuple[Database, str]:
    return request.getfixturevalue("pg_app"), request.getfixturevalue("owner")


@pytest.fixture(params=BACKENDS)
def transcripts(request: pytest.FixtureRequest, workspace: Workspace, clock: FixedClock) -> Any:
    if request.param == "files":
        return FileTranscripts(workspace)
    return PgTranscripts(*_pg(request), clock=clock, timezone=TZ)


@pytest.fixture(params=BACKENDS)
def usage(request: pytest.FixtureRequest, workspace: Workspace) -> UsageLedger:
    return FileLedger(workspace) if request.param == "files" else PgLedger(*_pg(request))


@pytest.fixture(params=BACKENDS)
def journals(request: pytest.FixtureRequest, workspace: Workspace, clock: FixedClock) -> Any:
    if request.param == "files":
        return FileJournals(workspace)
    return PgJournals(*_pg(request), clock=clock, timezone=TZ)


@pytest.fixture(params=BACKENDS)
def outbox(request: pytest.FixtureRequest, workspace: Workspace, clock: FixedClock) -> Any:
    if request.param == "files":
        return Outbox(workspace)
    return PgOutbox(*_pg(request), clock=clock, timezone=TZ)


@pytest.fixture(params=BACKENDS)
def inbox(request: pytest.FixtureRequest, workspace: Workspace, clock: FixedClock) -> InboxLog:
    if request.param == "files":
        return Inbox(workspace)
    return PgInbox(*_pg(request), clock=clock)


@pytest.fixture(params=BACKENDS)
def archive(request: pytest.FixtureRequest, workspace: Workspace) -> ArchiveStore:
    return FileArchive(workspace) if request.param == "files" else PgArchive(*_pg(request))


# ---- transcripts --------------------------------------------------------------------------


def test_turns_are_filed_under_the_owners_day_with_their_line(
    transcripts: Transcripts, clock: FixedClock
) -> None:
    first = transcripts.record_turn("user", "đi chợ\nmua cá", ref="telegram:4")
    second = transcripts.record_turn("assistant", "Vâng\u2028ạ")
    late = datetime.fromisoformat("2026-11-29T20:30:00+00:00")  # the 30th in Hồ Chí Minh
    third = transcripts.record_turn("user", "late", at=late)
    assert (first.path, first.line, second.line) == ("conversations/2026-11-29.jsonl", 1, 2)
    assert (third.path, third.line) == ("conversations/2026-11-30.jsonl", 1)
    day = transcripts.read_day(DAY)
    assert [(s.turn.role, s.turn.text, s.turn.ref, s.line) for s in day] == [
        ("user", "đi chợ\nmua cá", "telegram:4", 1),
        ("assistant", "Vâng\u2028ạ", None, 2),
    ]
    assert transcripts.read_day(date(2026, 11, 28)) == []


@pytest.mark.parametrize(
    ("role", "text", "key"),
    [(" ", "x", "error.turn.bad_role"), ("a\nb", "x", "error.turn.role_lines")],
)
def test_a_bad_turn_is_refused_and_nothing_is_written(
    transcripts: Transcripts, role: str, text: str, key: str
) -> None:
    with pytest.raises(TrinhoError) as caught:
        transcripts.record_turn(role, text)
    assert caught.value.key == key
    assert transcripts.read_day(DAY) == []


def test_an_import_of_turns_run_again_adds_nothing(transcripts: Transcripts) -> None:
    at = datetime.fromisoformat("2026-11-29T09:00:00+07:00")
    turns = [
        make_turn("user", "chào", at, "telegram:1", "t"),
        make_turn("assistant", "Chào bạn", at + timedelta(minutes=1), None, "t"),
        make_turn("user", "chào", at, "telegram:1", "t"),  # twice in the file
        make_turn("user", "mai", at + timedelta(days=1), None, "t"),
    ]
    seen: list[int] = []
    first = transcripts.import_turns(turns, seen.append)
    assert (first.imported, first.skipped, first.days, seen) == (3, 1, 2, [3, 1])
    again = transcripts.import_turns(turns)
    assert (again.imported, again.skipped) == (0, 4)
    assert [s.turn.text for s in transcripts.read_day(DAY)] == ["chào", "Chào bạn"]


def _seed_transcript(store: Transcripts, text: str) -> None:
    if isinstance(store, PgTranscripts):
        with store.db.owner_tx(store.owner) as conn:
            store.put_file(conn, DAY, text)
    else:
        assert isinstance(store, FileTranscripts)
        store.ws.conversation_path(DAY).parent.mkdir(parents=True, exist_ok=True)
        store.ws.conversation_path(DAY).write_text(text, encoding="utf-8", newline="")


def _day_text(store: Transcripts) -> str:
    if isinstance(store, PgTranscripts):
        return store.day_text(DAY)
    assert isinstance(store, FileTranscripts)
    return store.ws.conversation_path(DAY).read_bytes().decode("utf-8")


KEPT = '{"at": "2026-11-29T09:00:00+07:00", "role": "user", "text": "kept"}'


@pytest.mark.parametrize(
    ("tail", "line"),
    [(KEPT, 3), ('{"at": "2026-11-2', 2), ("   ", 3), ("", 2)],
    ids=["a-turn-without-newline", "torn", "blank", "none"],
)
def test_a_last_line_without_its_newline_is_kept_or_cut_as_the_file_store_does(
    transcripts: Transcripts, tail: str, line: int
) -> None:
    _seed_transcript(transcripts, KEPT + "\n" + tail)
    stored = transcripts.record_turn("assistant", "next")
    assert stored.line == line
    assert [s.turn.text for s in transcripts.read_day(DAY)][-1] == "next"
    assert _day_text(transcripts).endswith(turn_line(stored.turn) + "\n")


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


# ---- the usage ledger ---------------------------------------------------------------------


def _record(at: datetime, n: int, **more: Any) -> UsageRecord:
    return UsageRecord(at, "rewrite", "scripted", 100 * n, 10 * n, **more)


def test_the_ledger_reads_back_every_call_in_order_and_sums_alike(
    usage: UsageLedger, clock: FixedClock
) -> None:
    assert usage.read().records == ()
    records = [
        _record(clock.now, 1, run="2026-W48"),
        _record(clock.now + timedelta(minutes=1), 2, failure="timeout"),
        _record(clock.now + timedelta(days=1), 3, cached_input_tokens=5),
    ]
    for record in records:
        usage.append(record)
    read = usage.read()
    assert read.records == tuple(records) and read.skipped == 0
    totals = summarize(read.records, run="2026-W48").total
    assert (totals.calls, totals.total_tokens) == (1, 110)


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


# ---- run journals -------------------------------------------------------------------------


def test_a_journal_is_replaced_whole_at_each_step_and_reads_back(
    journals: RunJournals, clock: FixedClock
) -> None:
    now = clock.now
    assert journals.read("2026-W48") is None
    first = journals.write(Journal("2026-W48", "running", now, now))
    clock.advance(minutes=3)
    entry = ProposalEntry("abcdef0123", "h" * 64, "pending")
    applied = journals.advance(first, "applied", applied_sha="s", proposals=(entry,))
    journals.write(Journal("2026-W48.2", "failed", now, now, error="model: timeout"))
    journals.write(Journal("2026-W47", "done", now, now))
    assert journals.read("2026-W48") == applied
    assert applied.updated_at == clock.now and applied.state == "applied"
    assert journals.week_runs("2026-W48") == ["2026-W48", "2026-W48.2"]
    with pytest.raises(TrinhoError) as caught:
        journals.read("2026-48")
    assert caught.value.key == "error.run.bad_id"


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


# ---- the outbox ---------------------------------------------------------------------------


class Crash(BaseException):
    """The process dies here: nothing after it runs."""


class ScriptedChannel:
    """Each send follows the script: ok, fail, or crash after the owner got it."""

    name = "scripted"

    def __init__(self, script: list[str]) -> None:
        self.script = list(script)
        self.titles: list[str] = []

    def send(self, notification: Notification) -> SentReceipt:
        step = self.script.pop(0) if self.script else "ok"
        if step == "fail":
            raise ChannelError("502 Bad Gateway")
        self.titles.append(notification.title)
        if step == "crash":
            raise Crash
        return SentReceipt(self.name, f"msg-{len(self.titles)}")

    def close(self) -> None:
        pass


def _notification(nid: str, items: int = 1) -> Notification:
    return Notification(
        nid,
        "Weekly condensation",
        f"{items} held",
        tuple(NotificationItem(f"p{i}", f"h{i}", "edited", "- x", None, "r") for i in range(items)),
    )


def test_the_outbox_announces_each_notification_once_across_failures_and_a_crash(
    outbox: OutboxStore, clock: FixedClock
) -> None:
    first = outbox.enqueue(_notification("condense:2026-W48", items=2))
    again = outbox.enqueue(_notification("condense:2026-W48", items=5))
    assert first.created and not again.created and len(again.entry.notification.items) == 2
    outbox.enqueue(_notification("digest:2026-11-29"))
    first_id, second_id = sorted(
        ["condense:2026-W48", "digest:2026-11-29"], key=lambda nid: _notification(nid).key
    )
    channel = ScriptedChannel(["fail", "crash"])
    with pytest.raises(Crash):
        outbox.deliver(channel)  # the first fails, the second reaches the owner, then dies
    clock.advance(seconds=20)
    assert outbox.deliver(channel).waiting == (first_id, second_id)
    clock.advance(seconds=15)
    report = outbox.deliver(channel)
    assert (report.sent, report.in_doubt) == ((first_id, second_id), (second_id,))
    title = "Weekly condensation"
    assert channel.titles == [title, title, t("en", "channel.maybe_repeat", title=title)]
    assert outbox.deliver(channel).sent == ()
    entries = outbox.entries()
    assert [e.status for e in entries] == ["sent", "sent"]
    key = entries[0].notification.key
    found = outbox.find(key)
    assert found is not None and found.id == entries[0].notification.id
    assert outbox.find("nothing") is None and outbox.next_due() is None


def test_an_outbox_entry_is_the_files_text(
    pg_app: Database, owner: str, workspace: Workspace, clock: FixedClock
) -> None:
    files, pg = Outbox(workspace), PgOutbox(pg_app, owner, clock=clock, timezone=TZ)
    for box in (files, pg):
        box.enqueue(_notification("condense:2026-W48"))
        box.deliver(ScriptedChannel(["ok"]))
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in files.root.glob("*.json")}
    assert pg.files() == on_disk


# ---- the inbox ----------------------------------------------------------------------------


def test_the_inbox_folds_the_same_log_on_both(inbox: InboxLog, clock: FixedClock) -> None:
    inbox.add([(3, None), (4, "chào"), (5, "hỏi")])
    first, second = inbox.state().items
    inbox.record_reply(first, "Chào bạn")
    inbox.record_sent(inbox.state().items[0], 10)
    inbox.record_done(inbox.state().items[0])
    inbox.record_failed(second, "502", 30.0)
    state = inbox.state()
    assert state.next_offset == 6
    done, waiting = state.items
    assert (done.reply, done.sent, done.done) == ("Chào bạn", (10,), True)
    assert (waiting.attempts, waiting.last_error) == (1, "502")
    assert waiting.next_attempt_at == clock.now + timedelta(seconds=30)


def test_the_inbox_text_is_the_files(
    pg_app: Database, owner: str, workspace: Workspace, clock: FixedClock
) -> None:
    files, pg = Inbox(workspace), PgInbox(pg_app, owner, clock=clock)
    for box in (files, pg):
        box.add([(1, "chào\u2029"), (2, None)])
        box.record_reply(box.state().items[0], "Chào")
    assert pg.file_text() == files.path.read_text(encoding="utf-8")


def test_one_process_holds_the_inbox(inbox: InboxLog) -> None:
    with inbox.hold() as mine:
        assert mine
        with inbox.hold() as second:
            assert not second
    with inbox.hold() as again:
        assert again


def test_a_compacted_inbox_keeps_only_the_open_items(
    inbox: InboxLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(inbox_module, "COMPACT_AFTER", 2)
    inbox.add([(1, "a"), (2, "b"), (3, "c")])
    for item in inbox.state().items[:2]:
        inbox.record_done(item)
    state = inbox.state()
    assert [i.update_id for i in state.items] == [3] and state.next_offset == 4


# ---- memory/archive.md --------------------------------------------------------------------


def _seed_archive(store: ArchiveStore, text: str) -> None:
    if isinstance(store, PgArchive):
        with store.db.owner_tx(store.owner) as conn:
            store.put_file(conn, text)
    else:
        assert isinstance(store, FileArchive)
        store.ws.archive_file.write_text(text, encoding="utf-8", newline="")


def test_a_section_is_archived_once_and_a_rewrite_can_empty_it(archive: ArchiveStore) -> None:
    section = archive_section("2026-W48", ["- 2026-01-02: phở"])
    assert archive.rewrite(lambda text: "x") is False
    assert archive.archive(section) and not archive.archive(section)
    other = archive_section("2026-W49", ["- 2026-01-09: bún"])
    assert archive.archive(other)
    assert archive.archived_text() == section + "\n" + other
    assert archive.rewrite(lambda text: text) is False
    assert archive.rewrite(lambda text: "")
    assert archive.archived_text() == ""


_ARCHIVE_TEXT = st.text(alphabet=st.sampled_from(list("ab #-\n\rđ")), max_size=20)
_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("archive"), st.sampled_from(["2026-W01", "2026-W02"]), _ARCHIVE_TEXT),
        st.tuples(st.just("rewrite"), st.sampled_from(["", "drop-first"]), st.just("")),
    ),
    max_size=6,
)


def _change(how: str) -> Callable[[str], str]:
    return (lambda text: "") if how == "" else (lambda text: text.split("\n", 1)[-1])


@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hand=st.none() | _ARCHIVE_TEXT, ops=_OPS)
def test_any_archive_history_ends_in_the_same_text_on_both(
    hand: str | None,
    ops: list[tuple[str, str, str]],
    pg_app: Database,
    pg_admin: Database,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The rule of the gaps between sections, and of a heading archived once: any file
    written by hand first, then any sections and rewrites, give the same outcomes and text."""
    ws = init_workspace(tmp_path_factory.mktemp("ws") / "ws", timezone=TZ).workspace
    owner = f"a-{uuid.uuid4().hex[:12]}"
    add_owner(pg_admin, owner)
    both: list[ArchiveStore] = [FileArchive(ws), PgArchive(pg_app, owner)]
    if hand:
        for store in both:
            _seed_archive(store, hand)
    for op, run, lines in ops:
        if op == "archive":
            section = archive_section(run, [line for line in lines.split("\n") if line])
            assert both[0].archive(section) == both[1].archive(section)
        else:
            assert both[0].rewrite(_change(run)) == both[1].rewrite(_change(run))
        assert both[0].archived_text() == both[1].archived_text()
    on_disk = ws.archive_file.read_bytes() if ws.archive_file.exists() else b""
    assert both[1].archived_text().encode("utf-8") == on_disk


# ---- owners and writers at once -----------------------------------------------------------


def test_one_owners_stores_see_nothing_of_anothers(
    pg_app: Database, pg_admin: Database, owner: str, clock: FixedClock
) -> None:
    other = owner + "-b"
    add_owner(pg_admin, other)
    for who in [owner]:
        PgTranscripts(pg_app, who, clock=clock, timezone=TZ).record_turn("user", "bí mật")
        PgLedger(pg_app, who).append(_record(clock.now, 1))
        PgJournals(pg_app, who, clock=clock, timezone=TZ).write(
            Journal("2026-W48", "done", clock.now, clock.now)
        )
        PgOutbox(pg_app, who, clock=clock, timezone=TZ).enqueue(_notification("digest:x"))
        PgInbox(pg_app, who, clock=clock).add([(1, "bí mật")])
        PgArchive(pg_app, who).archive(archive_section("2026-W48", ["- bí mật"]))
    assert PgTranscripts(pg_app, other, clock=clock, timezone=TZ).days() == []
    assert PgLedger(pg_app, other).read().records == ()
    assert PgJournals(pg_app, other, clock=clock, timezone=TZ).run_ids() == []
    outbox = PgOutbox(pg_app, other, clock=clock, timezone=TZ)
    assert outbox.entries() == [] and outbox.get("digest:x") is None
    assert PgInbox(pg_app, other, clock=clock).state().items == ()
    assert PgArchive(pg_app, other).archived_text() == ""
    mine, theirs = PgInbox(pg_app, owner, clock=clock), PgInbox(pg_app, other, clock=clock)
    with mine.hold() as held, theirs.hold() as held_too:
        assert held and held_too  # each owner's inbox is held by its own process


def test_writers_at_once_lose_no_turn_and_no_call(
    pg_urls: Urls, owner: str, clock: FixedClock
) -> None:
    """Four writers recording fifteen turns and fifteen model calls each, on one day: every
    one is there, numbered once."""
    with Database(pg_urls.app, max_size=4) as db:
        turns = PgTranscripts(db, owner, clock=clock, timezone=TZ)
        usage = PgLedger(db, owner)

        def write(n: int) -> None:
            for i in range(15):
                turns.record_turn("user", f"w{n}-{i}")
                usage.append(_record(clock.now, n * 100 + i))

        with ThreadPoolExecutor(4) as pool:
            list(pool.map(write, range(4)))
        day = turns.read_day(DAY)
        calls = usage.read().records
    assert [s.line for s in day] == list(range(1, 61))
    said = sorted(f"w{n}-{i}" for n in range(4) for i in range(15))
    assert sorted(s.turn.text for s in day) == said
    spent = sorted(100 * (n * 100 + i) for n in range(4) for i in range(15))
    assert sorted(c.input_tokens for c in calls) == spent
