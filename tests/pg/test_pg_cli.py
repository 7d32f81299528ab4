"""The operator's commands end to end, through the real `trinho` command: owners, store
migrate, import workspace, export; one keyed line and a non-zero exit for a bad request."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pg.pgserver import Cluster

TRINHO = str(Path(sys.executable).parent / "trinho")


@pytest.fixture
def env(pg_cluster: Cluster, cli_env: dict[str, str]) -> dict[str, str]:
    """A new empty database named by TRINHO_DATABASE_URL, and a workspace of the owner's."""
    import os

    return {**os.environ, **cli_env, "TRINHO_DATABASE_URL": pg_cluster.create_database("cli")}


def trinho(env: dict[str, str], *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([TRINHO, *args], env=env, capture_output=True, text=True, check=False)
    assert (done.returncode == 0) == ok, done.stderr
    return done


def test_an_operator_migrates_adds_owners_imports_and_exports(
    env: dict[str, str], tmp_path: Path
) -> None:
    first = json.loads(trinho(env, "store", "migrate", "--json").stdout)
    assert first == {"applied": ["0001.schema"], "granted": None}
    assert "up to date" in trinho(env, "store", "migrate").stdout
    trinho(env, "init", "--tz", "Asia/Ho_Chi_Minh")
    trinho(env, "note", "đi chợ mua cá")
    trinho(env, "fact", "set", "city", "Huế")
    (Path(env["TRINHO_HOME"]) / "MEMORY.md").write_text("# Memory\n- 2026-11-22: likes phở\n")
    moved = json.loads(trinho(env, "import", "workspace", env["TRINHO_HOME"], "--owner", "an",
                              "--json").stdout)  # fmt: skip
    assert moved["owner"] == "an" and "MEMORY.md" in moved["files"]
    assert "users/owner/facts/city.md" in moved["files"]
    trinho(env, "owners", "add", "binh", "--tz", "UTC")
    listed = json.loads(trinho(env, "owners", "list", "--json").stdout)
    assert listed == [
        {"owner": "an", "timezone": "Asia/Ho_Chi_Minh"},
        {"owner": "binh", "timezone": "UTC"},
    ]
    out = tmp_path / "an-export"
    exported = json.loads(trinho(env, "export", "--owner", "an", str(out), "--json").stdout)
    assert exported["files"] == sorted(moved["files"])
    home = Path(env["TRINHO_HOME"])
    for rel in moved["files"]:
        assert (out / rel).read_bytes() == (home / rel).read_bytes(), rel
    removed = trinho(env, "owners", "remove", "an")
    assert "an" in removed.stdout
    assert [o["owner"] for o in json.loads(trinho(env, "owners", "list", "--json").stdout)] == [
        "binh"
    ]


@pytest.mark.parametrize(
    ("args", "key_text"),
    [
        (("owners", "remove", "nobody"), "there is no owner 'nobody'"),
        (("owners", "add", "Not A Slug"), "owner id"),
        (("export", "--owner", "nobody", "out"), "there is no owner 'nobody'"),
    ],
)
def test_a_bad_request_is_one_line_and_a_non_zero_exit(
    env: dict[str, str], args: tuple[str, ...], key_text: str
) -> None:
    trinho(env, "store", "migrate")
    done = trinho(env, *args, ok=False)
    assert key_text in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_the_owner_can_come_from_trinho_owner(env: dict[str, str], tmp_path: Path) -> None:
    trinho(env, "store", "migrate")
    trinho(env, "owners", "add", "chi")
    done = trinho({**env, "TRINHO_OWNER": "chi"}, "export", str(tmp_path / "x"), "--json")
    assert json.loads(done.stdout)["owner"] == "chi"


def test_without_a_database_the_operators_commands_say_how_to_name_one(
    cli_env: dict[str, str],
) -> None:
    import os

    env = {k: v for k, v in os.environ.items() if k != "TRINHO_DATABASE_URL"} | cli_env
    done = trinho(env, "owners", "list", ok=False)
    assert "TRINHO_DATABASE_URL" in done.stderr and "Traceback" not in done.stderr
    bad = trinho({**env, "TRINHO_DATABASE_URL": "mysql://x"}, "owners", "list", ok=False)
    assert "postgresql://" in bad.stderr


def test_an_unreachable_database_is_one_line(cli_env: dict[str, str]) -> None:
    import os

    url = "postgresql://nobody@127.0.0.1:1/none?connect_timeout=1"
    done = trinho({**os.environ, **cli_env, "TRINHO_DATABASE_URL": url}, "owners", "list",
                  ok=False)  # fmt: skip
    assert "cannot reach the database" in done.stderr and "Traceback" not in done.stderr
