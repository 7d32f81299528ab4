"""The everyday commands on a PostgreSQL store of many owners: `--owner` (or TRINHO_OWNER)
chooses whose memory, and with it one can never read, search or decide another owner's
notes, facts or proposals; without it a store of several owners is refused in one line; a
command not built on PostgreSQL refuses rather than use the files beside the database."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from conftest import TZ, snapshot
from support.pg_fixtures import new_owner
from support.pgserver import Cluster, Urls
from trinho.cli import main
from trinho.pg.connect import Database


class Cli:
    """`trinho` in this process: the exit code, stdout and stderr of one command."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys

    def __call__(self, *args: str) -> tuple[int, str, str]:
        code = main(list(args))
        out, err = self.capsys.readouterr()
        return code, out, err

    def json(self, *args: str) -> Any:
        code, out, err = self(*args, "--json")
        assert code == 0, err
        return json.loads(out)

    def refused(self, *args: str) -> str:
        """The one line a refused command says; it printed nothing on stdout."""
        code, out, err = self(*args)
        assert code != 0 and out == "", (code, out)
        assert err.count("\n") == 1 and err.startswith("trinho: error: "), err
        assert "Traceback" not in err
        return err


@pytest.fixture
def cli(
    cli_env: dict[str, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Cli:
    """An initialised workspace (its config only: no [store] url) and no database named yet."""
    monkeypatch.delenv("TRINHO_DATABASE_URL", raising=False)
    monkeypatch.delenv("TRINHO_OWNER", raising=False)
    assert main(["init", "--tz", TZ]) == 0
    capsys.readouterr()
    return Cli(capsys)


@pytest.fixture
def shared(pg_urls: Urls, monkeypatch: pytest.MonkeyPatch) -> str:
    """The session's database, many owners in it, named by TRINHO_DATABASE_URL."""
    monkeypatch.setenv("TRINHO_DATABASE_URL", pg_urls.admin)
    return pg_urls.admin


def test_with_one_owner_named_another_owners_memory_is_never_read_searched_or_decided(
    cli: Cli, shared: str, pg_admin: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    an, binh = new_owner(pg_admin, TZ), new_owner(pg_admin, TZ)
    b = ("--owner", binh)
    assert cli("note", "bí mật của Bình ở Đà Nẵng", *b)[0] == 0
    assert cli("fact", "set", "secret-city", "Đà Nẵng", *b)[0] == 0
    theirs = cli.json("fact", "set", "pet", "mèo", "--as", "job", *b)["proposal_id"]
    other = cli.json("fact", "set", "pet-name", "Mướp", "--as", "job", *b)["proposal_id"]
    monkeypatch.setenv("TRINHO_OWNER", binh)  # the flag wins over the environment
    a = ("--owner", an)
    assert cli("note", "chợ sáng", *a)[0] == 0

    assert [e["text"] for e in cli.json("notes", *a)["entries"]] == ["chợ sáng"]
    assert cli.json("search", "bí mật", *a) == []
    assert cli.json("search", "da nang", *a) == []
    assert "no fact 'secret-city'" in cli.refused("fact", "get", "secret-city", *a)
    assert "no fact 'secret-city'" in cli.refused("fact", "history", "secret-city", *a)
    assert cli.json("facts", *a)["facts"] == []
    prompt = json.dumps(cli.json("context", *a), ensure_ascii=False)
    assert "chợ sáng" in prompt and "Đà Nẵng" not in prompt and "Bình" not in prompt
    assert cli.json("proposals", "--all", *a) == []
    for command in (("proposals",), ("approve",), ("reject",)):
        for given in (theirs, theirs[:6]):
            err = cli.refused(*command, given, *a)
            assert f"no proposal '{given}'" in err, err
    assert "no proposal" in cli.refused("reject", other, "no", *a)
    day = "memory/2026-11-29.md"  # the commands on a working copy: B's day is not A's
    assert "Bình" not in cli.json("get", day, *a)["text"]
    assert "no such file" in cli.refused("get", "users/owner/facts/secret-city.md", *a)
    assert cli.json("condense", "--dry-run", *a)["run_id"] == "2026-W48"
    assert cli.json("usage", *a)["calls"] == 0
    assert cli.json("jobs", "run", *a)["runs"] == []

    assert cli.json("fact", "set", "secret-city", "Huế", *a)["outcome"] == "created"
    mine = ("--owner", binh)
    assert cli.json("fact", "get", "secret-city", *mine)["value"] == "Đà Nẵng"
    queue = cli.json("proposals", *mine)
    assert {(p["id"], p["status"]) for p in queue} == {(theirs, "pending"), (other, "pending")}
    assert [h["text"] for h in cli.json("search", "da nang", "--kind", "note", *mine)] == [
        "bí mật của Bình ở Đà Nẵng"
    ]
    monkeypatch.setenv("TRINHO_OWNER", an)
    assert cli.json("notes")["entries"][0]["text"] == "chợ sáng"
    assert cli.json("approve", theirs, *mine)["status"] == "approved"


def test_owner_before_the_command_chooses_whose_memory_as_after_it(
    cli: Cli, shared: str, pg_admin: Database, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    an, binh = new_owner(pg_admin, TZ), new_owner(pg_admin, TZ)
    assert cli("--owner", an, "note", "chợ sáng")[0] == 0
    assert cli("note", "--owner", binh, "họp lúc chín giờ")[0] == 0
    monkeypatch.setenv("TRINHO_OWNER", binh)  # the flag, before or after, wins over it
    assert [e["text"] for e in cli.json("--owner", an, "notes")["entries"]] == ["chợ sáng"]
    assert [e["text"] for e in cli.json("notes", "--owner", an)["entries"]] == ["chợ sáng"]
    assert [e["text"] for e in cli.json("notes")["entries"]] == ["họp lúc chín giờ"]
    after = cli.json("--owner", an, "notes", "--owner", binh)["entries"]  # the nearer wins
    assert [e["text"] for e in after] == ["họp lúc chín giờ"]
    assert cli.json("--owner", an, "search", "cho sang") != []
    assert cli.json("--owner", an, "export", str(tmp_path / "an"))["owner"] == an
    assert "chợ sáng" in "".join(p.read_text() for p in (tmp_path / "an").rglob("*.md"))
    monkeypatch.delenv("TRINHO_OWNER")
    assert "Missing option '--owner'" in cli("export", str(tmp_path / "none"))[2]
    assert "there is no owner 'nobody-here'" in cli.refused("--owner", "nobody-here", "notes")


def test_without_an_owner_a_store_of_several_is_refused_and_of_one_is_that_one(
    cli: Cli, own_database: Database
) -> None:
    assert "holds nobody's memory yet" in cli.refused("note", "x")
    alone = new_owner(own_database, "UTC")
    assert cli.json("note", "sáng nay trời mưa")["time"] == "07:05"  # in the owner's zone
    assert len(cli.json("notes", "--owner", alone, "--date", "2026-11-29")["entries"]) == 1
    second = new_owner(own_database, TZ)
    for args in (
        ("note", "x"),
        ("notes",),
        ("search", "mưa"),
        ("fact", "set", "k", "v"),
        ("fact", "get", "k"),
        ("fact", "history", "k"),
        ("facts",),
        ("context",),
        ("proposals",),
        ("approve", "0123456789"),
        ("reject", "0123456789"),
        ("condense", "--dry-run"),
        ("jobs", "run"),
        ("jobs", "list"),
        ("usage",),
        ("get", "MEMORY.md"),
        ("import", "conversations", "turns.jsonl"),
        ("chat", "--message", "chào"),
        ("model", "check"),
    ):
        err = cli.refused(*args)
        assert "holds the memory of 2 people" in err and "--owner ID" in err, err
    assert cli.json("notes", "--owner", second)["entries"] == []
    assert cli.json("facts", "--owner", alone)["facts"] == []
    err = cli.refused("notes", "--owner", "nobody")
    assert "there is no owner 'nobody'" in err
    assert "owner id" in cli.refused("notes", "--owner", "Not A Slug")


@pytest.mark.parametrize(
    "args",
    [
        ("mcp", "--init-token"),
    ],
)
def test_a_command_not_built_on_postgresql_refuses_and_touches_no_file(
    cli: Cli, shared: str, args: tuple[str, ...], cli_env: dict[str, str]
) -> None:
    home = Path(cli_env["TRINHO_HOME"])
    before = snapshot(home)
    err = cli.refused(*args)
    assert "works on a file workspace only" in err, err
    assert snapshot(home) == before


def test_a_batch_search_and_an_explained_one_work_on_one_owner_of_the_database(
    cli: Cli, shared: str, pg_admin: Database, tmp_path: Path
) -> None:
    batch = tmp_path / "q.jsonl"
    batch.write_text('{"query": "di cho"}\n{"query": "ca"}\n')
    owner, other = new_owner(pg_admin, TZ), new_owner(pg_admin, TZ)
    assert cli("note", "đi chợ mua cá", "--owner", owner)[0] == 0
    assert cli("note", "đi chợ mua rau", "--owner", other)[0] == 0
    code, out, _ = cli("search", "--batch", str(batch), "--owner", owner)
    assert code == 0
    answers = [json.loads(line) for line in out.splitlines()]
    assert [[h["text"] for h in hits] for hits in answers] == [["đi chợ mua cá"], ["đi chợ mua cá"]]
    explained = cli.json("search", "di cho", "--explain", "--owner", owner)
    assert [h["text"] for h in explained["hits"]] == ["đi chợ mua cá"]
    assert explained["entities"] == [] and "why" in explained["hits"][0]


def test_the_database_named_in_the_config_is_used_as_the_environment_is(
    cli: Cli, pg_urls: Urls, pg_admin: Database, cli_env: dict[str, str]
) -> None:
    config = Path(cli_env["TRINHO_HOME"]) / ".trinho/config.toml"
    config.write_text(config.read_text() + f'\n[store]\nurl = "{pg_urls.admin}"\n')
    owner = new_owner(pg_admin, TZ)
    assert cli.json("note", "từ cấu hình", "--owner", owner)["line_number"] == 1
    assert not (Path(cli_env["TRINHO_HOME"]) / "memory/2026-11-29.md").exists()
    assert "works on a file workspace only" in cli.refused("mcp", "--init-token")


def test_an_owner_named_for_a_file_workspace_is_refused(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, cli_env: dict[str, str]
) -> None:
    home = Path(cli_env["TRINHO_HOME"])
    before = snapshot(home)
    assert "one person's files" in cli.refused("note", "x", "--owner", "an")
    monkeypatch.setenv("TRINHO_OWNER", "an")
    assert "TRINHO_OWNER" in cli.refused("facts")
    assert snapshot(home) == before


@pytest.mark.parametrize(
    "command",
    [("owners", "add", "an"), ("owners", "remove", "OWNER"), ("owners", "telegram", "OWNER", "7"),
     ("owners", "token", "OWNER")],
)  # fmt: skip
def test_the_services_role_may_not_change_the_registry_and_is_told_whose_command_it_is(
    cli: Cli,
    pg_urls: Urls,
    pg_admin: Database,
    monkeypatch: pytest.MonkeyPatch,
    command: tuple[str, ...],
) -> None:
    owner = new_owner(pg_admin, TZ)
    monkeypatch.setenv("TRINHO_DATABASE_URL", pg_urls.app)
    said = cli.refused(*(owner if word == "OWNER" else word for word in command))
    assert "the operator's" in said and "Traceback" not in said


def test_a_role_that_cannot_read_the_owners_registry_is_told_so(
    cli: Cli, pg_cluster: Cluster, pg_urls: Urls, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A role granted the owners' tables but not the registry's directory (a deployment whose
    grants predate it and were not given again) is told what it lacks, in one line."""
    import psycopg
    from psycopg import sql

    from trinho.pg.migrate import OWNER_TABLES

    name = f"partial_{uuid.uuid4().hex[:10]}"
    pg_cluster.role(name)
    database = pg_urls.admin.rsplit("/", 1)[1]
    with psycopg.connect(pg_urls.admin, autocommit=True) as conn:
        conn.execute(
            sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(
                sql.Identifier(database), sql.Identifier(name)
            )
        )
        for table in OWNER_TABLES:
            conn.execute(
                sql.SQL("GRANT SELECT ON {} TO {}").format(
                    sql.Identifier(table), sql.Identifier(name)
                )
            )
    monkeypatch.setenv("TRINHO_DATABASE_URL", pg_cluster.url(database, name))
    assert "cannot read the registry" in cli.refused("notes", "--owner", "an")


def test_the_index_of_an_owner_in_the_database_is_counted_and_made_again_whole(
    cli: Cli, shared: str, pg_admin: Database
) -> None:
    owner = new_owner(pg_admin, TZ)
    o = ("--owner", owner)
    assert cli("note", "đi chợ mua cá", *o)[0] == 0
    counted = cli.json("index", *o)
    assert counted == {"rebuilt": False, "changed": 0, "documents": 1, "embedded": 0}
    assert cli.json("index", "--rebuild", *o)["documents"] == 1
    assert [h["text"] for h in cli.json("search", "di cho", *o)] == ["đi chợ mua cá"]


def test_a_tool_called_from_the_cli_works_on_the_named_owners_records_only(
    cli: Cli, shared: str, pg_admin: Database
) -> None:
    an, binh = new_owner(pg_admin, TZ), new_owner(pg_admin, TZ)
    saved = cli("call", "memory_save", "--args", '{"text": "bí mật của An"}', "--owner", an)
    assert saved[0] == 0 and json.loads(saved[1])["is_error"] is False
    query = '{"query": "bí mật"}'
    mine = json.loads(cli("call", "memory_search", "--args", query, "--owner", an)[1])
    theirs = json.loads(cli("call", "memory_search", "--args", query, "--owner", binh)[1])
    assert "bí mật của An" in mine["text"] and "bí mật của An" not in theirs["text"]
    with pytest.raises(SystemExit) as exited:  # a tool error exits 1 after its line
        main(["call", "approve", "--args", "{}", "--owner", an])
    assert exited.value.code == 1
    assert "unknown tool 'approve'" in cli.capsys.readouterr().out  # no tool approves
