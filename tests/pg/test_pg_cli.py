"""The operator's commands end to end: owners, store migrate, import workspace, export; one
keyed line and a non-zero exit for a bad request (in this process through `trinho.cli.main`,
as the CLI tests do, and once through the real `trinho` command)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.pgserver import MIGRATION_IDS, Cluster, Urls
from trinho.cli import main
from trinho.pg.connect import Database

TRINHO = str(Path(sys.executable).parent / "trinho")


@pytest.fixture
def url(pg_cluster: Cluster, cli_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> str:
    """A new empty database named by TRINHO_DATABASE_URL, and the owner's workspace."""
    made = pg_cluster.create_database("cli")
    monkeypatch.setenv("TRINHO_DATABASE_URL", made)
    monkeypatch.delenv("TRINHO_OWNER", raising=False)
    return made


def trinho(capsys: pytest.CaptureFixture[str], *args: str, ok: bool = True) -> tuple[str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    assert (code == 0) == ok, err
    return out, err


def test_an_operator_migrates_adds_owners_imports_and_exports(
    url: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = json.loads(trinho(capsys, "store", "migrate", "--json")[0])
    assert first == {"applied": MIGRATION_IDS, "granted": None}
    assert "up to date" in trinho(capsys, "store", "migrate")[0]
    home = Path(os.environ["TRINHO_HOME"])
    with monkeypatch.context() as files:  # the workspace to import, made on its own files
        files.delenv("TRINHO_DATABASE_URL")
        trinho(capsys, "init", "--tz", "Asia/Ho_Chi_Minh")
        trinho(capsys, "note", "đi chợ mua cá")
        trinho(capsys, "fact", "set", "city", "Huế")
    (home / "MEMORY.md").write_text("# Memory\n- 2026-11-22: likes phở\n")
    moved = json.loads(
        trinho(capsys, "import", "workspace", str(home), "--owner", "an", "--json")[0]
    )
    assert moved["owner"] == "an" and "MEMORY.md" in moved["files"]
    assert "users/owner/facts/city.md" in moved["files"]
    trinho(capsys, "owners", "add", "binh", "--tz", "UTC")
    listed = json.loads(trinho(capsys, "owners", "list", "--json")[0])
    assert listed == [
        {"owner": "an", "timezone": "Asia/Ho_Chi_Minh", "telegram_user_id": None},
        {"owner": "binh", "timezone": "UTC", "telegram_user_id": None},
    ]
    out = tmp_path / "an-export"
    exported = json.loads(trinho(capsys, "export", "--owner", "an", str(out), "--json")[0])
    assert exported["files"] == sorted(moved["files"])
    for rel in moved["files"]:
        assert (out / rel).read_bytes() == (home / rel).read_bytes(), rel
    assert "an" in trinho(capsys, "owners", "remove", "an")[0]
    remaining = json.loads(trinho(capsys, "owners", "list", "--json")[0])
    assert [o["owner"] for o in remaining] == ["binh"]


@pytest.mark.parametrize(
    ("args", "key_text"),
    [
        (("owners", "remove", "nobody"), "there is no owner 'nobody'"),
        (("owners", "add", "Not A Slug"), "owner id"),
        (("export", "--owner", "nobody", "out"), "there is no owner 'nobody'"),
    ],
)
def test_a_bad_request_is_one_line_and_a_non_zero_exit(
    url: str, capsys: pytest.CaptureFixture[str], args: tuple[str, ...], key_text: str
) -> None:
    trinho(capsys, "store", "migrate")
    _, err = trinho(capsys, *args, ok=False)
    assert key_text in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_the_owner_can_come_from_trinho_owner(
    url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    trinho(capsys, "store", "migrate")
    trinho(capsys, "owners", "add", "chi")
    monkeypatch.setenv("TRINHO_OWNER", "chi")
    done = trinho(capsys, "export", str(tmp_path / "x"), "--json")[0]
    assert json.loads(done)["owner"] == "chi"


def test_without_a_database_the_operators_commands_say_how_to_name_one(
    cli_env: dict[str, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TRINHO_DATABASE_URL", raising=False)
    _, err = trinho(capsys, "owners", "list", ok=False)
    assert "TRINHO_DATABASE_URL" in err and "Traceback" not in err
    monkeypatch.setenv("TRINHO_DATABASE_URL", "mysql://x")
    _, bad = trinho(capsys, "owners", "list", ok=False)
    assert "postgresql://" in bad


def test_the_real_command_says_an_unreachable_database_in_one_line(
    cli_env: dict[str, str],
) -> None:
    url = "postgresql://nobody@127.0.0.1:1/none?connect_timeout=1"
    env = {**os.environ, **cli_env, "TRINHO_DATABASE_URL": url}
    done = subprocess.run(
        [TRINHO, "owners", "list"], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode != 0
    assert "the database server at 127.0.0.1:1 cannot be reached" in done.stderr
    assert "[store] url" not in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_an_unmigrated_database_is_named_with_the_command_that_migrates_it(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for args in (["--owner", "an", "notes"], ["notes", "--owner", "an"], ["owners", "list"]):
        err = trinho(capsys, *args, ok=False)[1]
        assert "has no trinho schema yet" in err and "`trinho store migrate`" in err, args
        assert len(err.strip().splitlines()) == 1 and "UndefinedTable" not in err


def test_migrations_are_refused_to_the_application_role_in_one_line(
    url: str,
    pg_cluster: Cluster,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from support.pgserver import APP_ROLE

    pg_cluster.role(APP_ROLE)
    as_app = pg_cluster.url(url.rsplit("/", 1)[1], APP_ROLE)
    with monkeypatch.context() as app:
        app.setenv("TRINHO_DATABASE_URL", as_app)
        err = trinho(capsys, "store", "migrate", ok=False)[1]  # an empty database
        assert f"{APP_ROLE} may not" in err and len(err.strip().splitlines()) == 1
    trinho(capsys, "store", "migrate", "--grant", APP_ROLE)
    with monkeypatch.context() as app:
        app.setenv("TRINHO_DATABASE_URL", as_app)
        err = trinho(capsys, "store", "migrate", ok=False)[1]  # a migrated one
        assert f"owns the schema (trinho_admin), not as {APP_ROLE}" in err
        assert len(err.strip().splitlines()) == 1
    assert "up to date" in trinho(capsys, "store", "migrate")[0]


def test_a_refused_check_in_prints_its_error_alone_not_a_success_beside_it(
    url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command on a working copy prints nothing on stdout until its copy is checked in:
    when the database moved under it (here the scheduler's state, written by another process
    while `jobs run` worked), the one error line is all it says, and the next run says what
    it did."""
    from trinho.pg import workcopy
    from trinho.pg.jobs import STATE_NAME

    with monkeypatch.context() as files:
        files.delenv("TRINHO_DATABASE_URL")
        trinho(capsys, "init", "--tz", "Asia/Ho_Chi_Minh")
    trinho(capsys, "store", "migrate")
    trinho(capsys, "owners", "add", "an", "--tz", "Asia/Ho_Chi_Minh")
    real = workcopy.checkin

    def meanwhile(db: Database, done: workcopy.Checkout, **kwargs: str | None) -> list[str]:
        """Another pass's state, the same schedule written apart, lands first."""
        state = json.loads((done.root / STATE_NAME).read_text(encoding="utf-8"))
        with db.owner_tx("an") as conn:
            conn.execute(
                "INSERT INTO owner_files VALUES ('an', %s, %s)", (STATE_NAME, json.dumps(state))
            )
        return real(db, done, **kwargs)

    with monkeypatch.context() as racing:
        racing.setattr(workcopy, "checkin", meanwhile)
        out, err = trinho(capsys, "jobs", "run", "--json", "--owner", "an", ok=False)
    assert out == ""
    assert err.count("\n") == 1 and STATE_NAME in err, err
    done = json.loads(trinho(capsys, "jobs", "run", "--json", "--owner", "an")[0])
    assert "runs" in done


def test_an_error_about_a_working_copys_file_names_the_owners_file_not_the_copy(
    url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The owner's scheduler state, broken: the one line names `.trinho/scheduler.json` as
    the owner's records hold it, never the temporary folder the command worked in."""
    from trinho.pg.connect import Database
    from trinho.pg.jobs import STATE_NAME
    from trinho.pg.workcopy import COPY_PREFIX

    with monkeypatch.context() as files:
        files.delenv("TRINHO_DATABASE_URL")
        trinho(capsys, "init", "--tz", "Asia/Ho_Chi_Minh")
    trinho(capsys, "store", "migrate")
    trinho(capsys, "owners", "add", "an", "--tz", "Asia/Ho_Chi_Minh")
    with Database(url) as db, db.owner_tx("an") as conn:
        conn.execute("INSERT INTO owner_files VALUES ('an', %s, '{}')", (STATE_NAME,))
    _, err = trinho(capsys, "jobs", "run", "--owner", "an", ok=False)
    assert err.startswith(f"trinho: error: {STATE_NAME}: not a valid scheduler state"), err
    assert COPY_PREFIX not in err and "/tmp" not in err and "/dev/shm" not in err


def test_a_kept_call_process_on_a_database_opens_one_pool_however_many_calls(
    cli_env: dict[str, str],
    pg_urls: Urls,
    pg_admin: Database,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`trinho call --serve` on a database (the OpenClaw plugin's kept process): the owner's
    records and their pool are made once for the workspace, not once a call, so a gateway that
    runs for days does not take a connection a call from the server."""
    from click.testing import CliRunner

    from support.pg_fixtures import new_owner
    from trinho.cli import cli
    from trinho.pg import connect

    made: list[str] = []

    class Counted(connect.Database):
        def __init__(self, url: str, *, max_size: int = 4) -> None:
            made.append(url)
            super().__init__(url, max_size=max_size)

    monkeypatch.setattr(connect, "Database", Counted)
    assert CliRunner().invoke(cli, ["init"]).exit_code == 0
    monkeypatch.setenv("TRINHO_DATABASE_URL", pg_urls.app)
    monkeypatch.setenv("TRINHO_OWNER", new_owner(pg_admin))
    home = cli_env["TRINHO_HOME"]
    calls = [
        {"id": n, "workspace": home, "tool": "memory_save", "params": {"text": f"ghi chú {n}"}}
        for n in range(12)
    ]
    result = CliRunner().invoke(
        cli, ["call", "--serve"], input="\n".join(json.dumps(c) for c in calls) + "\n"
    )
    answers = [json.loads(line) for line in result.output.splitlines()]
    assert [a["id"] for a in answers] == list(range(12))
    assert all("error" not in a and not a["is_error"] for a in answers), answers
    assert len(made) == 1
