"""The pg tests' fixtures: one throwaway PostgreSQL server per test process (pgserver.py),
one migrated database it shares, and a new owner for each test."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from conftest import TZ, FixedClock
from pg.pgserver import Cluster, Urls, bindir, free_port, migrated_database
from trinho.workspace import Workspace

if TYPE_CHECKING:
    from trinho.pg.connect import Database
    from trinho.pg.protocol import Records


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    binaries = bindir()
    if binaries is None:
        if os.environ.get("CI"):
            pytest.fail("CI: PostgreSQL's initdb is not installed (.ci/run installs postgresql)")
        pytest.skip("PostgreSQL binaries not installed (apt-get install postgresql)")
    as_root = os.geteuid() == 0
    run_as = ["runuser", "-u", "postgres", "--"] if as_root else []
    user = "postgres" if as_root else pwd.getpwuid(os.geteuid()).pw_name
    folder = Path(tempfile.mkdtemp(prefix="trinho-pg-"))
    data = folder / "data"
    if as_root:
        shutil.chown(folder, "postgres", "postgres")
    port = free_port()
    log = folder / "server.log"
    subprocess.run(
        [
            *run_as,
            str(binaries / "initdb"),
            "-D",
            str(data),
            "-U",
            user,
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--no-locale",
            "--no-sync",
        ],
        check=True,
        capture_output=True,
    )
    options = (
        f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off "
        "-c synchronous_commit=off -c full_page_writes=off -c shared_buffers=16MB "
        "-c max_connections=40"
    )
    subprocess.run(
        [
            *run_as,
            str(binaries / "pg_ctl"),
            "-D",
            str(data),
            "-l",
            str(log),
            "-o",
            options,
            "-w",
            "start",
        ],
        check=True,
        capture_output=True,
    )
    try:
        yield Cluster("127.0.0.1", port, user)
    finally:
        subprocess.run(
            [*run_as, str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
            check=False,
            capture_output=True,
        )
        shutil.rmtree(folder, ignore_errors=True)


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
