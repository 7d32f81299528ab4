"""The server restarted in the middle of a write: a note saved, a transcript turn recorded, a
fact proposal approved. At every statement of the write's transaction in turn, and just
before its commit, the test's own server is stopped at once (`pg_ctl restart -m immediate`,
as a crash would stop it) and started again: the call fails, nothing of it is written,
nothing committed before is lost, and the same call retried succeeds, once.

A server of its own (`durable`: every commit in the WAL before it is acknowledged), so the
restarts break no other test's connections."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest

from conftest import TZ, FixedClock
from support.pgserver import Cluster, Urls, bindir, migrated_database, running_cluster
from trinho.errors import TrinhoError
from trinho.pg.connect import Database
from trinho.pg.owners import add_owner
from trinho.pg.search import search
from trinho.pg.store import PgRecords
from trinho.pg.transcripts import PgTranscripts

pytestmark = pytest.mark.slow  # each test restarts a server of its own mid-write


class Statements:
    """Counts the statements of each transaction a store runs, and stops the server at the
    one `at` names (the commit counts as one more)."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.seen = 0
        self.at: int | None = None

    def arm(self, at: int | None) -> None:
        self.seen, self.at = 0, at

    def step(self) -> None:
        self.seen += 1
        if self.seen == self.at:
            self.at = None
            self.cluster.restart()


class _Cursor:
    def __init__(self, cur: psycopg.Cursor[Any], statements: Statements) -> None:
        self._cur = cur
        self._statements = statements

    def __enter__(self) -> _Cursor:
        return self

    def __exit__(self, *exc: object) -> None:
        self._cur.close()

    def executemany(self, query: Any, params: Any) -> None:
        self._statements.step()
        self._cur.executemany(query, params)


class _Connection:
    def __init__(self, conn: psycopg.Connection, statements: Statements) -> None:
        self._conn = conn
        self._statements = statements

    def execute(self, query: Any, params: Any = None) -> psycopg.Cursor[Any]:
        self._statements.step()
        return self._conn.execute(query, params)

    def cursor(self) -> _Cursor:
        return _Cursor(self._conn.cursor(), self._statements)


class RestartingDatabase(Database):
    """The store's own `Database`, each owner transaction's statements counted."""

    def __init__(self, url: str, statements: Statements) -> None:
        super().__init__(url, max_size=1)
        self.statements = statements

    @contextlib.contextmanager
    def owner_tx(self, owner: str) -> Iterator[Any]:
        with self.pool.connection() as conn, conn.transaction():
            conn.execute("SELECT set_config('trinho.owner', %s, true)", (owner,))
            yield _Connection(conn, self.statements)
            self.statements.step()  # the commit


@pytest.fixture(scope="module")
def fault_cluster() -> Iterator[Cluster]:
    binaries = bindir()
    if binaries is None:
        if os.environ.get("CI"):
            pytest.fail("CI: PostgreSQL's initdb is not installed (.ci/run installs postgresql)")
        pytest.skip("PostgreSQL binaries not installed (apt-get install postgresql)")
    with running_cluster(binaries, durable=True) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def fault_urls(fault_cluster: Cluster) -> Urls:
    return migrated_database(fault_cluster)


@pytest.fixture(scope="module")
def statements(fault_cluster: Cluster) -> Statements:
    return Statements(fault_cluster)


@pytest.fixture(scope="module")
def faulty(fault_urls: Urls, statements: Statements) -> Iterator[RestartingDatabase]:
    db = RestartingDatabase(fault_urls.app, statements)
    try:
        yield db
    finally:
        db.close()


def _new_owner(urls: Urls) -> str:
    name = f"f-{uuid.uuid4().hex[:12]}"
    with Database(urls.admin, max_size=1) as admin:
        add_owner(admin, name)
    return name


def _statements_of(statements: Statements, call: Callable[[], object]) -> int:
    statements.arm(None)
    call()
    return statements.seen


def _restarted_at(statements: Statements, at: int, call: Callable[..., object], *args: str) -> None:
    statements.arm(at)
    with pytest.raises(psycopg.OperationalError):
        call(*args)
    assert statements.at is None  # the server was restarted in this call, at that point
    statements.arm(None)


def test_a_note_saved_while_the_server_restarts_is_all_or_nothing_and_saved_once_on_retry(
    faulty: RestartingDatabase, fault_urls: Urls, statements: Statements
) -> None:
    clock = FixedClock()
    sample = PgRecords(faulty, _new_owner(fault_urls), clock=clock, timezone=TZ)
    points = _statements_of(statements, lambda: sample.save_note("mua gạo"))
    assert points > 3
    for at in range(1, points + 1):
        records = PgRecords(faulty, _new_owner(fault_urls), clock=clock, timezone=TZ)
        records.save_note("mua gạo")
        day = clock.now.date()
        before = records.note_text(day)
        _restarted_at(statements, at, records.save_note, "đi Huế thăm bà")
        assert records.note_text(day) == before, at
        assert len(records.acknowledged(day)) == 1
        assert search(records, "hue") == []
        saved = records.save_note("đi Huế thăm bà")
        assert records.note_text(day) == before + saved.line + "\n"
        acknowledged = [text for _, text, _ in records.acknowledged(day)]
        assert acknowledged == ["mua gạo", "đi Huế thăm bà"]
        assert [hit.text for hit in search(records, "hue")] == ["đi Huế thăm bà"]


def test_a_turn_recorded_while_the_server_restarts_is_all_or_nothing_and_recorded_once(
    faulty: RestartingDatabase, fault_urls: Urls, statements: Statements
) -> None:
    clock = FixedClock()
    day = clock.now.date()
    sample = PgTranscripts(faulty, _new_owner(fault_urls), clock=clock, timezone=TZ)
    points = _statements_of(statements, lambda: sample.record_turn("user", "chào"))
    assert points > 3
    for at in range(1, points + 1):
        owner = _new_owner(fault_urls)
        turns = PgTranscripts(faulty, owner, clock=clock, timezone=TZ)
        turns.record_turn("user", "chào", ref="telegram:1")
        before = turns.day_text(day)
        _restarted_at(statements, at, turns.record_turn, "assistant", "Chào bạn")
        assert turns.day_text(day) == before, at
        assert turns.record_turn("assistant", "Chào bạn").line == 2
        said = [(s.turn.role, s.turn.text, s.line) for s in turns.read_day(day)]
        assert said == [("user", "chào", 1), ("assistant", "Chào bạn", 2)]
        records = PgRecords(faulty, owner, clock=clock, timezone=TZ)
        assert [hit.line for hit in search(records, "chao ban")][:1] == [2]


def _proposed(records: PgRecords) -> str:
    records.save_fact("city", "Huế", basis="user")
    proposed = records.save_fact("city", "Hà Nội", basis="inferred", origin="agent:main")
    assert proposed.proposal is not None
    return proposed.proposal.id


def test_an_approval_while_the_server_restarts_is_all_or_nothing_and_decided_once(
    faulty: RestartingDatabase, fault_urls: Urls, statements: Statements
) -> None:
    clock = FixedClock()
    sample = PgRecords(faulty, _new_owner(fault_urls), clock=clock, timezone=TZ)
    sample_id = _proposed(sample)
    points = _statements_of(statements, lambda: sample.approve(sample_id, "owner"))
    assert points > 5
    for at in range(1, points + 1):
        records = PgRecords(faulty, _new_owner(fault_urls), clock=clock, timezone=TZ)
        proposal_id = _proposed(records)
        _restarted_at(statements, at, records.approve, proposal_id, "owner")
        [pending] = records.proposals()
        assert (pending.status, pending.decided_by) == ("pending", None), at
        fact = records.load_fact("city")
        assert fact is not None and fact.head is not None and fact.head.value == "Huế"
        assert fact.history == ()
        decided, result = records.approve(proposal_id, "owner")
        assert (decided.status, result.ok) == ("approved", True)
        fact = records.load_fact("city")
        assert fact is not None and fact.head is not None
        assert (fact.head.value, fact.head.source) == ("Hà Nội", f"proposal:{proposal_id}")
        assert [v.value for v in fact.history] == ["Huế"]
        with pytest.raises(TrinhoError) as twice:
            records.approve(proposal_id, "owner")
        assert twice.value.key == "error.proposal.decided_by"
