"""docs/operating.md, followed step by step on a server of its own: its SQL as the server's
superuser, its shell steps through bash with `trinho` on the PATH (the test server's address in
place of `db.example:5432`, temporary folders in place of /etc, /var/backups and /var/tmp),
its unit files read and their commands asked for `--help`; and the claims of its PgBouncer
section held against the code."""

from __future__ import annotations

import configparser
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from support.pg_fixtures import own_cluster
from support.pgserver import Cluster

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "docs" / "operating.md").read_text(encoding="utf-8")
STEP = re.compile(r"<!-- operating: (sql|sh|unit [\w@.-]+) -->\n```\w+\n(.*?)```", re.S)
TRINHO = Path(sys.executable).with_name("trinho")


def steps(kind: str) -> list[str]:
    return [body for tag, body in STEP.findall(GUIDE) if tag == kind]


def units() -> dict[str, str]:
    return {tag.split()[1]: body for tag, body in STEP.findall(GUIDE) if tag.startswith("unit ")}


@pytest.fixture(scope="module")
def server() -> Iterator[Cluster]:
    """A server of this test's alone: the guide creates roles, which are the whole server's."""
    with own_cluster() as cluster:
        yield cluster


def _here(text: str, cluster: Cluster, tmp: Path) -> str:
    for far, near in (
        ("db.example:5432", f"{cluster.host}:{cluster.port}"),
        ("/etc/trinho", str(tmp / "etc" / "trinho")),
        ("/var/backups", str(tmp / "backups")),
        ("/var/tmp", str(tmp / "var")),
        ("--username=postgres", f"--username={cluster.superuser}"),
    ):
        text = text.replace(far, near)
    return text


def test_the_guide_sets_up_and_runs_a_deployment_step_by_step(
    server: Cluster, tmp_path: Path
) -> None:
    with psycopg.connect(server.url("postgres"), autocommit=True) as conn:
        for statement in filter(str.strip, steps("sql")[0].split(";\n")):
            conn.execute(statement)
    (tmp_path / "backups").mkdir()
    (tmp_path / "var").mkdir()
    assert server.binaries is not None
    env = {
        "PATH": os.pathsep.join([str(TRINHO.parent), str(server.binaries), "/usr/bin", "/bin"]),
        "HOME": str(tmp_path),
        "LANG": "C.UTF-8",
        "PGHOST": server.host,
        "PGPORT": str(server.port),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    script = "set -euo pipefail\n" + "\n".join(
        _here(step, server, tmp_path) for step in steps("sh")
    )
    done = subprocess.run(
        ["bash", "-c", script], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Ghi chú đầu tiên" in done.stdout  # found, then read back from the restored copy
    assert done.stdout.count("Ghi chú đầu tiên") >= 3
    admin = server.url("trinho", "trinho_admin")
    with psycopg.connect(admin) as conn:
        owners = {row[0] for row in conn.execute("SELECT owner_id FROM owners")}
        grants = conn.execute(
            "SELECT has_table_privilege('trinho_app', 'owners', 'SELECT'),"
            " has_table_privilege('trinho_app', 'owner_directory', 'SELECT'),"
            " has_table_privilege('trinho_app', 'owners', 'INSERT')"
        ).fetchone()
    assert owners == {"lan"}  # minh moved away
    assert grants == (False, True, False)
    moved = server.url("trinho_restored", "trinho_admin")
    with psycopg.connect(moved) as conn:
        conn.execute("SELECT set_config('trinho.owner', 'minh-moved', true)")
        assert conn.execute("SELECT count(*) FROM owners WHERE owner_id = 'minh-moved'").fetchone()
        conn.rollback()


@pytest.mark.parametrize("name", sorted(units()))
def test_each_unit_runs_a_trinho_command_that_exists_as_the_services_role(name: str) -> None:
    unit = configparser.ConfigParser(interpolation=None, strict=False)
    unit.read_string(units()[name])
    service = unit["Service"]
    assert service["User"] == "trinho" and service["Restart"] == "always"
    assert service["Environment"] == "TRINHO_HOME=/etc/trinho"
    assert "trinho_admin" not in units()[name]  # no service holds the operator's role
    argv = shlex.split(service["ExecStart"].replace("%H", "host").replace("%i", "1"))
    assert argv[0] == "/opt/trinho/bin/trinho"
    asked = subprocess.run(
        [str(TRINHO), *argv[1:], "--help"], capture_output=True, text=True, timeout=120
    )
    assert asked.returncode == 0, asked.stderr


def test_what_the_pgbouncer_section_says_holds_in_the_code() -> None:
    """Transaction-local owner, no server-side prepared statements, and session-level advisory
    locks only where the guide says (the bot and the delivery of the outbox and inbox)."""
    pg = ROOT / "src" / "trinho" / "pg"
    connect = (pg / "connect.py").read_text(encoding="utf-8")
    assert "set_config('trinho.owner', %s, true)" in connect
    assert '"prepare_threshold": None' in connect
    holders = sorted(
        path.name
        for path in pg.glob("*.py")
        if "session_lock(" in path.read_text(encoding="utf-8") and path.name != "locks.py"
    )
    assert holders == ["inbox.py", "outbox.py", "telegram.py"]
    assert "pool_mode = transaction" in GUIDE and "connect to PostgreSQL directly" in GUIDE
