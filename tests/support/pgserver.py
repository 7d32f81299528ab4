"""A throwaway PostgreSQL cluster for the pg tests: `initdb` + `pg_ctl` in a temp folder, on a
free local port, one per test process (the session fixture `pg_cluster` in conftest.py),
stopped at the end.

PostgreSQL refuses to run as root, so as root (CI's `.ci/run`) the cluster belongs to the
`postgres` system user Debian's package makes, and the server runs through `runuser`. Without
the binaries the tests are skipped, except under CI=true, where a missing server fails.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass

MIGRATION_IDS = [
    *sorted(
        path.stem for path in (Path(__file__).parents[2] / "src/trinho/pg/migrations").glob("*.sql")
    ),
    "queue",
]
"""What a migration of an empty database applies, in order: each migration, then the queue."""
ADMIN_ROLE = "trinho_admin"
"""The operator's role: it owns the database and its tables (it runs the migrations) and is
no superuser, so forced row-level security holds it too."""
APP_ROLE = "trinho_app"
"""The application role: it logs in, owns no table and is no superuser, so row-level security
applies to it as to a deployed service."""


def bindir() -> Path | None:
    """Debian's newest `/usr/lib/postgresql/N/bin`, else the folder of `initdb` on PATH."""
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parent.parent.name)
    )
    if found:
        return found[-1].parent
    on_path = shutil.which("initdb")
    return Path(on_path).parent if on_path else None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass(frozen=True)
class Cluster:
    host: str
    port: int
    superuser: str
    data: Path | None = None
    binaries: Path | None = None
    run_as: tuple[str, ...] = ()
    options: str = ""
    """The server's command-line options (`pg_ctl -o`), to start it again as it was."""

    def restart(self) -> None:
        """Stop the server at once, as a crash would (`-m immediate`: no checkpoint, every
        connection cut), and start it again; it recovers from its WAL before it answers."""
        assert self.data is not None and self.binaries is not None
        log = str(self.data.parent / "server.log")  # not a pipe: the server outlives the call
        pg_ctl = [*self.run_as, str(self.binaries / "pg_ctl"), "-D", str(self.data), "-l", log]
        subprocess.run([*pg_ctl, "-m", "immediate", "-w", "restart"], check=True,
                       capture_output=True)  # fmt: skip

    @contextlib.contextmanager
    def down(self) -> Iterator[None]:
        """The server stopped at once for the block, as a crash would stop it, and started
        again after it."""
        assert self.data is not None and self.binaries is not None
        pg_ctl = [*self.run_as, str(self.binaries / "pg_ctl"), "-D", str(self.data)]
        subprocess.run([*pg_ctl, "-m", "immediate", "-w", "stop"], check=True, capture_output=True)
        try:
            yield
        finally:
            log = str(self.data.parent / "server.log")
            subprocess.run([*pg_ctl, "-l", log, "-o", self.options, "-w", "start"], check=True,
                           capture_output=True)  # fmt: skip

    def url(self, dbname: str, user: str | None = None) -> str:
        return f"postgresql://{user or self.superuser}@{self.host}:{self.port}/{dbname}"

    def role(self, name: str) -> None:
        """A login role that is no superuser and bypasses no row-level security (once)."""
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            found = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (name,)).fetchone()
            if found is None:
                conn.execute(f"CREATE ROLE {name} LOGIN NOSUPERUSER NOBYPASSRLS")

    def create_database(self, prefix: str = "t") -> str:
        """A new empty database, named uniquely, owned by the operator's role; its URL as
        that role."""
        import psycopg

        self.role(ADMIN_ROLE)
        name = f"{prefix}_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}" OWNER {ADMIN_ROLE}')
        return self.url(name, ADMIN_ROLE)


@dataclass(frozen=True)
class Urls:
    """One migrated database: `admin` owns its tables (migrations, the operator's registry),
    `app` is the application role, which row-level security holds."""

    admin: str
    app: str


def migrated_database(cluster: Cluster) -> Urls:
    """A new database with the schema applied and the application role granted its tables."""
    from trinho.pg.migrate import grant_app_role, migrate

    admin = cluster.create_database("trinho")
    migrate(admin)
    cluster.role(APP_ROLE)
    grant_app_role(admin, APP_ROLE)
    return Urls(admin, cluster.url(admin.rsplit("/", 1)[1], APP_ROLE))


@contextlib.contextmanager
def running_cluster(binaries: Path, *, durable: bool = False) -> Iterator[Cluster]:
    """initdb and start a server in a temp folder on a free port; stopped and removed after.
    As root, the folder and the server are the `postgres` user's (`runuser`). `durable`
    keeps every commit in the WAL before it is acknowledged (synchronous_commit on), so a
    server stopped at once loses no committed transaction: the fault tests' server. Without
    it, fsync and synchronous commits are off, for speed."""
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
        f"-c synchronous_commit={'on' if durable else 'off'} -c full_page_writes=off "
        "-c shared_buffers=16MB -c max_connections=40"
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
        yield Cluster("127.0.0.1", port, user, data, binaries, tuple(run_as), options)
    finally:
        subprocess.run(
            [*run_as, str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
            check=False,
            capture_output=True,
        )
        shutil.rmtree(folder, ignore_errors=True)
