"""The PostgreSQL fixtures, for every test (a plugin of tests/conftest.py): one throwaway
server per test process (pgserver.py), started only when a test asks for it, one migrated
database it shares, a new owner for each test, and the two backends in turn behind the
`Records` Protocol (`records`) and behind the CLI (`cli_backend`)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import pytest

from conftest import TZ, FixedClock
from support.pgserver import Cluster, Urls, bindir, migrated_database, running_cluster
from trinho.workspace import Workspace

if TYPE_CHECKING:
    from trinho.pg.connect import Database
    from trinho.records.protocol import Records


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """A server for this test process; skipped without the binaries, except under CI=true."""
    binaries = bindir()
    if binaries is None:
        if os.environ.get("CI"):
            pytest.fail("CI: PostgreSQL's initdb is not installed (.ci/run installs postgresql)")
        pytest.skip("PostgreSQL binaries not installed (apt-get install postgresql)")
    with running_cluster(binaries) as cluster:
        yield cluster


@pytest.fixture(scope="session")
def pg_urls(pg_cluster: Cluster) -> Urls:
    """The session's database: tests share it, each with owners of its own."""
    return migrated_database(pg_cluster)


@pytest.fixture(scope="session")
def pg_admin(pg_urls: Urls) -> Iterator[Database]:
    from trinho.pg.connect import Database

    with Database(pg_urls.admin) as db:
        yield db


@pytest.fixture(scope="session")
def pg_app(pg_urls: Urls) -> Iterator[Database]:
    from trinho.pg.connect import Database

    with Database(pg_urls.app) as db:
        yield db


def new_owner(db: Database, timezone: str = "UTC") -> str:
    """A new owner in `db`, named uniquely."""
    from trinho.pg.owners import add_owner

    name = f"o-{uuid.uuid4().hex[:12]}"
    add_owner(db, name, timezone)
    return name


@pytest.fixture
def own_database(pg_cluster: Cluster, monkeypatch: pytest.MonkeyPatch) -> Iterator[Database]:
    """A new migrated database of this test's alone (no owner yet), as TRINHO_DATABASE_URL:
    for what acts on every owner of a database (the queue's plan, the workers)."""
    from trinho.pg.connect import Database

    urls = migrated_database(pg_cluster)
    monkeypatch.setenv("TRINHO_DATABASE_URL", urls.admin)
    with Database(urls.admin) as db:
        yield db


@pytest.fixture
def owner(pg_admin: Database) -> str:
    """A new owner in the session's database, unique to this test."""
    return new_owner(pg_admin)


@pytest.fixture(params=["files", "pg"])
def records(request: pytest.FixtureRequest, workspace: Workspace, clock: FixedClock) -> Records:
    """One owner's records on each backend in turn, behind the same Protocol, on the same
    clock and zone: the file workspace as it is, and the database as the application role."""
    from trinho.pg.store import PgRecords
    from trinho.records.protocol import FileRecords

    if request.param == "files":
        return FileRecords(workspace)
    app: Database = request.getfixturevalue("pg_app")
    owner: str = request.getfixturevalue("owner")
    return PgRecords(app, owner, clock=clock, timezone=TZ)


@dataclass(frozen=True)
class CliBackend:
    """Where the CLI under test keeps the owner's memory: `home` is the workspace (its config
    and, for `files`, the memory itself); `owner` is the database's owner and `url` its
    database (None for files)."""

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


@pytest.fixture(params=["files", "pg"])
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
    monkeypatch.setenv("TRINHO_DATABASE_URL", urls.admin)
    monkeypatch.setenv("TRINHO_OWNER", name)
    return CliBackend("pg", home, name, urls.admin)
