"""The PostgreSQL fixtures, for every test (a plugin of tests/conftest.py): one throwaway
server per test process (pgserver.py), started only when a test asks for it, one migrated
database it shares, and a new owner for each test. The two backends in turn, for the feature
tests, are in backends.py."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from support.pgserver import Cluster, Urls, bindir, migrated_database, running_cluster

if TYPE_CHECKING:
    from trinho.pg.connect import Database
    from trinho.pg.jobs import Deployment
    from trinho.workspace import Workspace

Clock = Callable[[], datetime]


@contextmanager
def own_cluster() -> Iterator[Cluster]:
    """A server of the caller's own; skipped without the binaries, except under CI=true."""
    binaries = bindir()
    if binaries is None:
        if os.environ.get("CI"):
            pytest.fail("CI: PostgreSQL's initdb is not installed (.ci/run installs postgresql)")
        pytest.skip("PostgreSQL binaries not installed (apt-get install postgresql)")
    with running_cluster(binaries) as cluster:
        yield cluster


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """A server for this test process."""
    with own_cluster() as cluster:
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
    monkeypatch.setenv("TRINHO_DATABASE_URL", urls.app)  # the workers' role, as deployed
    with Database(urls.admin) as db:
        yield db


@pytest.fixture
def owner(pg_admin: Database) -> str:
    """A new owner in the session's database, unique to this test."""
    return new_owner(pg_admin)


def owners_from(db: Database, ws: Workspace, tmp_path: Path, count: int) -> list[str]:
    """`count` new owners of `db` (the operator's), each a copy of the workspace as it is now."""
    from trinho.pg.owners import add_owner
    from trinho.pg.transfer import import_workspace
    from trinho.workspace import open_workspace

    made = []
    for _ in range(count):
        owner = f"o-{uuid.uuid4().hex[:12]}"
        add_owner(db, owner, ws.config.timezone)
        copy = tmp_path / owner
        shutil.copytree(ws.root, copy)
        import_workspace(db, open_workspace(copy, ws._clock), owner)
        made.append(owner)
    return made


def worker_deployment(url: str, ws: Workspace, clock: Clock) -> Deployment:
    """The workers' deployment over `url` (the application role's, as deployed): the
    workspace's config and a model that condenses the Vietnamese week well."""
    from support.condense_weeks import two_roles, vi_good_rewrite
    from trinho.pg.jobs import Deployment

    text = (ws.internal / "config.toml").read_text(encoding="utf-8")
    return Deployment(url, ws.config, text, clock=clock, model=two_roles(vi_good_rewrite()))
