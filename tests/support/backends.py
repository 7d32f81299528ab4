"""The one backend fixture of the feature tests: a test that takes `backend` (or `records`, or
`cli_backend` for the CLI) runs once on the file workspace and once on PostgreSQL, through
the same facades, on the same clock and zone.

`files` is the test's workspace as it is. `pg` is a new owner of the session's database
(support/pg_fixtures.py starts one local server per test process), reached as the
application role, so row-level security holds as in a deployment. Without PostgreSQL's
binaries the `pg` case is skipped, and fails under CI=true (`pg_cluster`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import pytest

from conftest import TZ, FixedClock
from support.pg_fixtures import new_owner
from support.pgserver import Urls
from trinho.workspace import Workspace, init_workspace

if TYPE_CHECKING:
    from support.stores import (
        ArchiveStore,
        InboxLog,
        OutboxStore,
        RunJournals,
        Transcripts,
        UsageLedger,
    )
    from trinho.pg.connect import Database
    from trinho.records.protocol import Records

BACKENDS = ["files", "pg"]
Kind = Literal["files", "pg"]


@dataclass(frozen=True)
class Backend:
    """One owner's stores on one backend: each method gives the store a feature test uses,
    the file store's class for `files`, the database's for `pg`."""

    kind: Kind
    workspace: Workspace
    clock: FixedClock
    db: Database | None = None
    owner: str | None = None

    def _pg(self) -> tuple[Database, str]:
        assert self.db is not None and self.owner is not None
        return self.db, self.owner

    def records(self) -> Records:
        """Notes, MEMORY.md, facts, proposals and search; an approval applies every built-in
        proposal kind, as the product wires them."""
        from trinho.pg.store import PgRecords
        from trinho.records.protocol import FileRecords
        from trinho.review.appliers import APPLIERS

        if self.kind == "files":
            return FileRecords(self.workspace, APPLIERS)
        return PgRecords(*self._pg(), clock=self.clock, timezone=TZ)

    def transcripts(self) -> Transcripts:
        from support.stores import FileTranscripts
        from trinho.pg.transcripts import PgTranscripts

        if self.kind == "files":
            return FileTranscripts(self.workspace)
        return PgTranscripts(*self._pg(), clock=self.clock, timezone=TZ)

    def ledger(self) -> UsageLedger:
        from support.stores import FileLedger
        from trinho.pg.ledger import PgLedger

        return FileLedger(self.workspace) if self.kind == "files" else PgLedger(*self._pg())

    def journals(self) -> RunJournals:
        from support.stores import FileJournals
        from trinho.pg.journals import PgJournals

        if self.kind == "files":
            return FileJournals(self.workspace)
        return PgJournals(*self._pg(), clock=self.clock, timezone=TZ)

    def outbox(self) -> OutboxStore:
        from trinho.channels.outbox import Outbox
        from trinho.pg.outbox import PgOutbox

        if self.kind == "files":
            return Outbox(self.workspace)
        return PgOutbox(*self._pg(), clock=self.clock, timezone=TZ)

    def inbox(self) -> InboxLog:
        from trinho.channels.inbox import Inbox
        from trinho.pg.inbox import PgInbox

        if self.kind == "files":
            return Inbox(self.workspace)
        return PgInbox(*self._pg(), clock=self.clock)

    def put_transcript(self, day: date, text: str) -> None:
        """The day's transcript as these exact characters, as if written by hand."""
        from trinho.pg.transcripts import PgTranscripts

        if self.kind == "files":
            path = self.workspace.conversation_path(day)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8", newline="")
            return
        store = PgTranscripts(*self._pg(), clock=self.clock, timezone=TZ)
        with store.db.owner_tx(store.owner) as conn:
            store.put_file(conn, day, text)

    def transcript_text(self, day: date) -> str:
        """The day's transcript's characters as they are held."""
        from trinho.pg.transcripts import PgTranscripts

        if self.kind == "files":
            return self.workspace.conversation_path(day).read_bytes().decode("utf-8")
        return PgTranscripts(*self._pg(), clock=self.clock, timezone=TZ).day_text(day)

    def put_archive(self, text: str) -> None:
        """memory/archive.md as these exact characters, as if written by hand."""
        from trinho.pg.archive import PgArchive

        if self.kind == "files":
            self.workspace.archive_file.write_text(text, encoding="utf-8", newline="")
            return
        store = PgArchive(*self._pg())
        with store.db.owner_tx(store.owner) as conn:
            store.put_file(conn, text)

    def archive(self) -> ArchiveStore:
        from support.stores import FileArchive
        from trinho.pg.archive import PgArchive

        return FileArchive(self.workspace) if self.kind == "files" else PgArchive(*self._pg())


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, workspace: Workspace, clock: FixedClock) -> Backend:
    """The owner's stores on each backend in turn: the test's workspace, then a new owner of
    the session's database in the same zone, as the application role."""
    if request.param == "files":
        return Backend("files", workspace, clock)
    admin: Database = request.getfixturevalue("pg_admin")
    app: Database = request.getfixturevalue("pg_app")
    return Backend("pg", workspace, clock, app, new_owner(admin, TZ))


@pytest.fixture
def records(backend: Backend) -> Records:
    """`backend`'s records: notes, MEMORY.md, facts, proposals and search."""
    return backend.records()


@dataclass(frozen=True)
class Pair:
    """Both backends at once, for a property that compares them example by example."""

    files: Backend
    pg: Backend

    def __iter__(self) -> Iterator[Backend]:
        return iter((self.files, self.pg))


@pytest.fixture
def both_backends(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Callable[[], Pair]]:
    """A maker of fresh pairs (a new workspace and a new owner, on one new clock): a property
    test calls it once per example, as a function-scoped fixture would not be."""
    admin: Database = request.getfixturevalue("pg_admin")
    app: Database = request.getfixturevalue("pg_app")

    def make() -> Pair:
        clock = FixedClock()
        root = tmp_path_factory.mktemp("ws") / "ws"
        ws = init_workspace(root, timezone=TZ, clock=clock).workspace
        return Pair(
            Backend("files", ws, clock), Backend("pg", ws, clock, app, new_owner(admin, TZ))
        )

    yield make


@dataclass(frozen=True)
class CliBackend:
    """Where the CLI under test keeps the owner's memory: `home` is the workspace (its config
    and, for `files`, the memory itself); `owner` is the database's owner and `url` its
    database as the operator's role (None for files); the commands themselves run as the
    application role, as a deployment's services do."""

    kind: Literal["files", "pg"]
    home: Path
    owner: str | None
    url: str | None = None

    @contextmanager
    def view(self) -> Iterator[Path]:
        """The owner's memory as a workspace folder, to read and to write as a test of the
        file store does: `home` itself for files; on PostgreSQL a working copy of the owner's
        records, checked in by the product's own check-in when the block ends (a test that
        only reads leaves nothing to check in)."""
        if self.owner is None:
            yield self.home
            return
        from trinho.pg.connect import Database
        from trinho.pg.workcopy import checkin, working_copy

        assert self.url is not None
        with Database(self.url) as db, working_copy(db, self.owner, None) as done:
            yield done.root
            checkin(db, done)

    def read(self, rel: str) -> str:
        """One of the owner's files as the file store would hold it."""
        with self.view() as root:
            return (root / rel).read_text(encoding="utf-8")

    def exists(self, rel: str) -> bool:
        """Whether the owner has that file (on PostgreSQL: in a checkout of the records)."""
        with self.view() as root:
            return (root / rel).exists()

    def write(self, rel: str, text: str) -> None:
        """Write one of the owner's files as the owner would by hand."""
        with self.view() as root:
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")


@pytest.fixture(params=BACKENDS)
def cli_backend(
    request: pytest.FixtureRequest,
    cli_env: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> CliBackend:
    """The CLI's everyday commands on each backend in turn: an initialised file workspace in
    Asia/Ho_Chi_Minh; then the same workspace's config with TRINHO_DATABASE_URL naming the
    session's database and TRINHO_OWNER a new owner of it in the same zone, so the same
    commands give the same answers on both."""
    from trinho.cli import main

    monkeypatch.delenv("TRINHO_DATABASE_URL", raising=False)
    monkeypatch.delenv("TRINHO_OWNER", raising=False)
    assert main(["init", "--tz", TZ]) == 0
    capsys.readouterr()
    home = Path(cli_env["TRINHO_HOME"])
    if request.param == "files":
        return CliBackend("files", home, None)
    urls: Urls = request.getfixturevalue("pg_urls")
    name = new_owner(request.getfixturevalue("pg_admin"), TZ)
    monkeypatch.setenv("TRINHO_DATABASE_URL", urls.app)  # the services' role, as deployed
    monkeypatch.setenv("TRINHO_OWNER", name)
    return CliBackend("pg", home, name, urls.admin)
