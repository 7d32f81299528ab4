"""What only the PostgreSQL stores have: MEMORY.md's versions and the check that a run writes
over the version it read; each acknowledged note with the instant it was saved; the database
URL's precedence; owners kept apart, and writers at once losing nothing."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, date, datetime
from typing import Any

import pytest

from conftest import TZ, FixedClock
from support.outbox_script import notification
from support.pgserver import Urls
from trinho.condense.rules.archive import archive_section
from trinho.condense.store.runs import Journal
from trinho.errors import TrinhoError
from trinho.models.ledger import UsageRecord
from trinho.pg.archive import PgArchive
from trinho.pg.connect import Database, database_url
from trinho.pg.inbox import PgInbox
from trinho.pg.journals import PgJournals
from trinho.pg.ledger import PgLedger
from trinho.pg.outbox import PgOutbox
from trinho.pg.owners import add_owner
from trinho.pg.store import PgRecords
from trinho.pg.transcripts import PgTranscripts

DAY = date(2026, 11, 29)


def _record(at: datetime, n: int, **more: Any) -> UsageRecord:
    return UsageRecord(at, "rewrite", "scripted", 100 * n, 10 * n, **more)


@pytest.fixture
def pg(pg_app: Database, owner: str, clock: FixedClock) -> PgRecords:
    return PgRecords(pg_app, owner, clock=clock, timezone=TZ)


def test_memory_keeps_every_version_and_a_run_never_writes_over_a_newer_one(
    pg: PgRecords,
) -> None:
    assert pg.memory_version() is None
    assert pg.write_memory("# Memory\n", expected=0) == 1
    assert pg.write_memory("# Memory\n- 2026-11-29: a\n", run="run-1", expected=1) == 2
    with pytest.raises(TrinhoError) as caught:
        pg.write_memory("# stale rewrite\n", run="run-0", expected=1)
    assert caught.value.key == "error.store.memory_moved"
    latest = pg.memory_version()
    assert latest is not None and (latest.version, latest.run) == (2, "run-1")
    assert pg.memory_text() == "# Memory\n- 2026-11-29: a\n"


def test_each_acknowledged_note_keeps_the_instant_it_was_saved(
    pg: PgRecords, clock: FixedClock
) -> None:
    pg.save_note("one")
    clock.advance(seconds=30)
    pg.save_note("two\nlines")
    day = clock.now.date()
    saved = pg.acknowledged(day)
    assert [(hhmm, text) for hhmm, text, _ in saved] == [("14:05", "one"), ("14:05", "two\nlines")]
    assert saved[1][2] - saved[0][2] == (clock.now - datetime(2026, 11, 29, 7, 5, tzinfo=UTC))
    assert pg.note_entries(day) == [("14:05", "one"), ("14:05", "two\nlines")]


def test_the_environment_names_the_database_before_the_config() -> None:
    url = "postgresql://a@127.0.0.1/x"
    assert database_url({}, None) is None
    assert database_url({}, url) == url
    assert database_url({"TRINHO_DATABASE_URL": "postgres://b@h/y"}, url) == "postgres://b@h/y"
    with pytest.raises(TrinhoError) as caught:
        database_url({"TRINHO_DATABASE_URL": "sqlite:///x"}, url)
    assert caught.value.key == "error.store.bad_url" and "TRINHO_DATABASE_URL" in str(caught.value)


def test_concurrent_writers_of_one_day_lose_nothing_and_number_lines_apart(
    pg: PgRecords,
) -> None:
    from concurrent.futures import ThreadPoolExecutor

    texts = [f"note {n}" for n in range(60)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        saved = list(pool.map(pg.save_note, texts))
    day = saved[0].date
    entries = pg.note_entries(day)
    assert sorted(text for _, text in entries) == sorted(texts)
    assert sorted(s.line_number for s in saved) == list(range(1, 61))
    lines = pg.note_text(day).split("\n")
    assert all(lines[s.line_number - 1] == s.line for s in saved)
    assert len(pg.acknowledged(day)) == 60


def test_one_owners_store_cannot_reach_another_owners_records(
    pg_app: Database, pg_admin: Database, owner: str, clock: FixedClock
) -> None:
    from trinho.pg.owners import add_owner

    add_owner(pg_admin, owner + "-b")
    mine = PgRecords(pg_app, owner, clock=clock, timezone=TZ)
    theirs = PgRecords(pg_app, owner + "-b", clock=clock, timezone=TZ)
    theirs.save_note("their note")
    theirs.write_memory("# theirs\n")
    theirs.save_fact("city", "Huế")
    proposed = theirs.save_fact("city", "Vinh", basis="inferred")
    assert proposed.proposal is not None
    day = clock.now.date()
    assert (mine.note_text(day), mine.memory_text(), mine.load_fact("city")) == ("", "", None)
    assert mine.proposals() == [] and mine.fact_keys() == [] and mine.note_files() == {}
    with pytest.raises(TrinhoError) as caught:
        mine.approve(proposed.proposal.id, "owner")
    assert caught.value.key == "error.proposal.not_found"
    with pytest.raises(TrinhoError):
        mine.reject(proposed.proposal.id, "owner")
    assert [p.status for p in theirs.proposals()] == ["pending"]


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
        PgOutbox(pg_app, who, clock=clock, timezone=TZ).enqueue(notification("digest:x"))
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
