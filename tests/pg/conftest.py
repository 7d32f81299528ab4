"""The pg tests' fixtures: one throwaway PostgreSQL server per test process (pgserver.py),
one migrated database it shares, and a new owner for each test."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from conftest import TZ, FixedClock
from pg.pgserver import Cluster, Urls, bindir, migrated_database, running_cluster
from trinho.workspace import Workspace

if TYPE_CHECKING:
    from trinho.pg.connect import Database
    from trinho.pg.protocol import Records


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


@pytest.fixture
def owner(pg_admin: Database) -> str:
    """A new owner in the session's database, unique to this test."""
    from trinho.pg.owners import add_owner

    name = f"o-{uuid.uuid4().hex[:12]}"
    add_owner(pg_admin, name)
    return name


@pytest.fixture(params=["files", "pg"])
def records(request: pytest.FixtureRequest, workspace: Workspace, clock: FixedClock) -> Records:
    """One owner's records on each backend in turn, behind the same Protocol, on the same
    clock and zone: the file workspace as it is, and the database as the application role."""
    from trinho.pg.protocol import FileRecords
    from trinho.pg.store import PgRecords

    if request.param == "files":
        return FileRecords(workspace)
    app: Database = request.getfixturevalue("pg_app")
    owner: str = request.getfixturevalue("owner")
    return PgRecords(app, owner, clock=clock, timezone=TZ)
