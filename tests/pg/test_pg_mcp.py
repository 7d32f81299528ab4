"""MCP over HTTP for many owners: `trinho mcp --http` on a PostgreSQL store, each request's
bearer token an owner's. Owner A's token, tried on every tool, resource and prompt the server
lists, never reads nor changes owner B's memory; no tool decides a proposal; an unknown,
wrong or revoked token is refused alike; the table keeps no token in clear."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import psycopg
import pytest
from mcp.client.streamable_http import streamable_http_client

from conftest import START, TZ
from mcp import Client, MCPError
from support.pg_fixtures import new_owner
from support.pgserver import Urls
from trinho.cli import main
from trinho.errors import TrinhoError
from trinho.pg.connect import Database
from trinho.pg.store import PgRecords
from trinho.pg.tokens import issue_token, revoke_token, token_owner_id, verify_token
from trinho.tools.service import Actor, call

TRINHO = str(Path(sys.executable).parent / "trinho")
TIMEOUT = 60.0
SECRET_NOTE = "Bmật khẩu két sắt là 4711"
SECRET_MEMORY = "- 2026-11-20: Bchỉ B biết chuyện này"
SECRET_FACT = "Bthành phố bí mật"
B_WORDS = ("4711", "Bchỉ", "Bthành", "két sắt")


def _records(db: Database, owner: str) -> PgRecords:
    return PgRecords(db, owner, clock=lambda: START, timezone=TZ)


def _snapshot(records: PgRecords) -> dict[str, Any]:
    """Everything of an owner's memory a tool could read or change."""
    return {
        "notes": records.note_files(),
        "memory": records.memory_text(),
        "facts": [fact.key for fact in records.list_facts().facts],
        "history": [
            [(v.value, v.valid_from, v.valid_to) for v in fact.versions()]
            for fact in records.list_facts().facts
        ],
        "proposals": [(p.id, p.status) for p in records.proposals()],
    }


def _fill_b(db: Database, owner: str) -> None:
    records = _records(db, owner)
    records.save_note(SECRET_NOTE)
    records.write_memory(f"# Memory\n{SECRET_MEMORY}\n")
    records.save_fact("city", SECRET_FACT, basis="user")
    proposed = records.save_fact("city", "Bnơi khác", basis="user", actor="job", origin="job:x")
    assert proposed.outcome == "proposed"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def _serving(url: str, home: Path) -> Iterator[int]:
    """`trinho mcp --http` on the database at `url`, on a free loopback port."""
    port = _free_port()
    log = home.parent / "mcp-owners.log"
    env = {**os.environ, "TRINHO_DATABASE_URL": url, "TRINHO_HOME": str(home)}
    env.pop("TRINHO_OWNER", None)
    with log.open("wb") as errors:
        proc = subprocess.Popen(
            [TRINHO, "mcp", "--http", "--port", str(port)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errors,
            env=env,
        )
    try:
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(log.read_text()) from None
                time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def served(
    pg_urls: Urls, pg_admin: Database, cli_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[int, str, str]]:
    """A server for every owner of the session's database, and two owners' tokens."""
    monkeypatch.delenv("TRINHO_DATABASE_URL", raising=False)
    assert main(["init", "--tz", TZ]) == 0
    with _serving(pg_urls.admin, Path(cli_env["TRINHO_HOME"])) as port:
        yield port, new_owner(pg_admin, TZ), new_owner(pg_admin, TZ)


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}


def _post(
    port: int, token: str | None, body: Any = INITIALIZE, session: str | None = None
) -> tuple[int, bytes, str | None]:
    """One request; its status, body, and the session id it was given (or, refused, the
    WWW-Authenticate it was answered with)."""
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    if session is not None:
        headers["mcp-session-id"] = session
        headers["mcp-protocol-version"] = "2025-06-18"
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/mcp", json.dumps(body).encode(), headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            return response.status, response.read(), response.headers.get("mcp-session-id")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), exc.headers.get("www-authenticate")


def _arguments(tool: types.Tool, b_day: str) -> list[dict[str, Any]]:
    """Calls of `tool` aimed at owner B's memory, as far as its arguments can aim."""
    by_tool: dict[str, list[dict[str, Any]]] = {
        "memory_save": [{"text": "A ghi chú của A"}],
        "user_memory_save": [
            {"key": "city", "value": "A Huế", "basis": "user"},
            {"key": "city", "value": "A Đà Nẵng", "basis": "inferred"},
        ],
        "memory_search": [
            {"query": "mật khẩu két sắt 4711"},
            {"query": "Bchỉ biết chuyện", "kinds": ["memory", "fact", "note"]},
        ],
        "memory_get": [
            {"path": f"memory/{b_day}.md"},
            {"path": "MEMORY.md"},
            {"path": "users/owner/facts/city.md"},
            {"path": ".trinho/config.toml"},
            {"path": "../x"},
        ],
        "memory_proposals": [{}, {"include_decided": True}],
    }
    return by_tool[tool.name]


def _text_of(result: Any) -> str:
    return json.dumps(result.model_dump(mode="json"), ensure_ascii=False)


async def _every_request(port: int, token: str, b_day: str, b_key: str) -> list[str]:
    """Every tool (with arguments aimed at B), resource, template and prompt, as `token`'s
    owner; each answer's text."""
    seen: list[str] = []
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=TIMEOUT) as http,
        Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)) as client,
    ):
        tools = (await client.list_tools()).tools
        assert [tool.name for tool in tools] == [
            "memory_save",
            "user_memory_save",
            "memory_search",
            "memory_get",
            "memory_proposals",
        ]
        for tool in tools:
            for args in _arguments(tool, b_day):
                seen.append(_text_of(await client.call_tool(tool.name, args)))
        for name in ("approve", "reject", "memory_approve"):
            refused = await client.call_tool(name, {"id": "x"})
            assert refused.is_error
            seen.append(_text_of(refused))
        resources = (await client.list_resources()).resources
        assert {str(r.uri) for r in resources} == {
            "trinho://memory",
            "trinho://facts",
            "trinho://notes/today",
        }
        uris = [str(r.uri) for r in resources]
        templates = (await client.list_resource_templates()).resource_templates
        assert {t.uri_template for t in templates} == {
            "trinho://notes/{date}",
            "trinho://facts/{key}/history",
        }
        uris += [f"trinho://notes/{b_day}", f"trinho://facts/{b_key}/history"]
        for uri in uris:
            try:
                seen.append(_text_of(await client.read_resource(uri)))
            except MCPError as exc:  # A has no such fact: refused, saying nothing of B's
                seen.append(str(exc))
        for prompt in (await client.list_prompts()).prompts:
            seen.append(_text_of(await client.get_prompt(prompt.name)))
    return seen


def test_an_owners_token_reaches_only_that_owners_memory_on_every_tool_resource_and_prompt(
    served: tuple[int, str, str], pg_admin: Database
) -> None:
    port, a, b = served
    _fill_b(pg_admin, b)
    _records(pg_admin, a).save_note("A đã có một ghi chú")
    token_a = issue_token(pg_admin, a)
    b_records = _records(pg_admin, b)
    before = _snapshot(b_records)
    b_day = b_records.today().isoformat()

    seen = anyio.run(_every_request, port, token_a, b_day, "city")

    for text in seen:
        for word in B_WORDS:
            assert word not in text, (word, text)
    assert _snapshot(b_records) == before
    assert all(status == "pending" for _, status in before["proposals"])
    a_records = _records(pg_admin, a)
    assert SECRET_NOTE not in a_records.note_text(a_records.today())
    assert "A ghi chú của A" in a_records.note_text(a_records.today())
    assert a_records.load_fact("city") is not None
    assert all(p.status == "pending" for p in a_records.proposals())
    assert any("A đã có một ghi chú" in text for text in seen)  # A's own memory is served


def test_b_sees_its_own_memory_with_its_own_token(
    served: tuple[int, str, str], pg_admin: Database
) -> None:
    port, _, b = served
    _fill_b(pg_admin, b)
    token_b = issue_token(pg_admin, b)
    day = _records(pg_admin, b).today().isoformat()

    async def go() -> list[str]:
        headers = {"Authorization": f"Bearer {token_b}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=TIMEOUT) as http,
            Client(
                streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)
            ) as client,
        ):
            found = await client.call_tool("memory_search", {"query": "két sắt 4711"})
            got = await client.call_tool("memory_get", {"path": f"memory/{day}.md"})
            memory = await client.read_resource("trinho://memory")
            return [_text_of(found), _text_of(got), _text_of(memory)]

    found, got, memory = anyio.run(go)
    assert "4711" in found and "4711" in got and "Bchỉ" in memory


def test_unknown_wrong_and_revoked_tokens_are_refused_alike(
    served: tuple[int, str, str], pg_admin: Database
) -> None:
    port, a, b = served
    token_a = issue_token(pg_admin, a)
    assert _post(port, token_a)[0] == 200
    secret = token_a.split(".", 1)[1]
    refused = [
        _post(port, None),
        _post(port, "nonsense"),
        _post(port, f"{b}.{secret}"),  # A's secret under B's name: B has no token
        _post(port, f"nobody-here.{secret}"),
        _post(port, token_a[:-1] + ("x" if token_a[-1] != "x" else "y")),
    ]
    assert revoke_token(pg_admin, a)
    refused.append(_post(port, token_a))
    fresh = issue_token(pg_admin, b)
    assert _post(port, fresh)[0] == 200
    issue_token(pg_admin, b)  # a new token replaces the one before
    refused.append(_post(port, fresh))
    assert {status for status, _, _ in refused} == {401}
    assert len({body for _, body, _ in refused}) == 1
    assert len({header for _, _, header in refused}) == 1


def test_a_session_opened_with_one_owners_token_is_no_other_owners(
    served: tuple[int, str, str], pg_admin: Database
) -> None:
    port, a, b = served
    _fill_b(pg_admin, b)
    token_a, token_b = issue_token(pg_admin, a), issue_token(pg_admin, b)
    status, _, session = _post(port, token_b)
    assert status == 200 and session is not None
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert _post(port, token_b, initialized, session)[0] == 202
    read = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "resources/read",
        "params": {"uri": "trinho://memory"},
    }
    assert b"Bch" in _post(port, token_b, read, session)[1]  # B's own session reads B's
    status, body, _ = _post(port, token_a, read, session)
    assert status == 404 and b"Bch" not in body
    assert _post(port, None, read, session)[0] == 401


def test_a_token_is_stored_as_its_hash_only(pg_admin: Database, pg_urls: Urls) -> None:
    owner = new_owner(pg_admin)
    token = issue_token(pg_admin, owner)
    assert token_owner_id(token) == owner
    with psycopg.connect(pg_urls.admin) as conn:
        conn.execute("SELECT set_config('trinho.owner', %s, true)", (owner,))
        rows = conn.execute("SELECT owner_tokens::text, token_sha256 FROM owner_tokens").fetchall()
    assert len(rows) == 1
    whole, stored = rows[0]
    assert bytes(stored) == hashlib.sha256(token.encode()).digest()
    secret = token.split(".", 1)[1]
    assert secret not in whole and token not in whole
    assert verify_token(pg_admin, token) == owner


def test_the_application_role_reads_a_token_only_with_its_owner_set_and_writes_none(
    pg_admin: Database, pg_urls: Urls
) -> None:
    owner = new_owner(pg_admin)
    issue_token(pg_admin, owner)
    with psycopg.connect(pg_urls.app) as conn:
        assert conn.execute("SELECT count(*) FROM owner_tokens").fetchone() == (0,)
        conn.execute("SELECT set_config('trinho.owner', %s, true)", (owner,))
        assert conn.execute("SELECT count(*) FROM owner_tokens").fetchone() == (1,)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("UPDATE owner_tokens SET token_sha256 = %s", (bytes(32),))
    with Database(pg_urls.app) as app:
        assert verify_token(app, issue_token(pg_admin, owner)) == owner


def test_tokens_for_unknown_owners_are_refused_in_one_line(pg_admin: Database) -> None:
    with pytest.raises(TrinhoError) as caught:
        issue_token(pg_admin, "nobody-here")
    assert caught.value.key == "error.owner.unknown"
    with pytest.raises(TrinhoError):
        revoke_token(pg_admin, "nobody-here")
    assert token_owner_id("no-dot-here") is None
    assert token_owner_id("Bad Id.secret") is None
    assert verify_token(pg_admin, "nobody-here.secret") is None


def test_the_operator_issues_and_revokes_a_token_from_the_cli(
    pg_urls: Urls,
    pg_admin: Database,
    cli_env: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    owner = new_owner(pg_admin)
    monkeypatch.setenv("TRINHO_DATABASE_URL", pg_urls.admin)
    assert main(["owners", "token", owner, "--json"]) == 0
    issued = json.loads(capsys.readouterr().out)
    assert issued["owner"] == owner and verify_token(pg_admin, issued["token"]) == owner
    assert main(["owners", "token", owner]) == 0
    second = capsys.readouterr().out
    assert owner in second and issued["token"] not in second
    assert verify_token(pg_admin, issued["token"]) is None
    assert main(["owners", "token", owner, "--revoke"]) == 0
    assert "Revoked" in capsys.readouterr().out
    assert main(["owners", "token", owner, "--revoke", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"owner": owner, "revoked": False}
    assert main(["owners", "token", "nobody-here"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nobody-here" in err


def test_the_tools_on_a_database_owner_give_the_files_shapes(pg_admin: Database) -> None:
    owner = new_owner(pg_admin, TZ)
    records = _records(pg_admin, owner)
    chat = Actor("chat")
    saved = call(records, "memory_save", {"text": "Mẹ hẹn khám răng"}, chat)
    assert saved.data is not None and saved.data["path"] == f"memory/{START.date()}.md"
    got = call(records, "memory_get", {"path": saved.data["path"]}, chat)
    assert got.data == {
        "path": saved.data["path"],
        "from_line": 1,
        "to_line": 1,
        "total_lines": 1,
        "text": saved.data["saved"],
    }
    assert call(records, "memory_get", {"path": saved.data["path"], "from_line": 3}, chat).is_error
    hits = call(records, "memory_search", {"query": "kham rang"}, chat).data
    assert hits is not None and [h["text"] for h in hits["hits"]] == ["Mẹ hẹn khám răng"]
    internal = call(records, "memory_get", {"path": ".trinho/config.toml"}, chat)
    assert internal.text == (
        "memory_get: '.trinho/config.toml' is internal state, not memory; read MEMORY.md, "
        "memory/, conversations/ or the paths memory_search gives"
    )
    missing = call(records, "memory_get", {"path": "memory/2020-01-01.md"}, chat)
    assert missing.is_error and "2020-01-01" in missing.text
    job = call(
        records, "user_memory_save", {"key": "city", "value": "Huế", "basis": "user"}, Actor("job")
    )
    assert job.data is not None and job.data["outcome"] == "proposed"
    listed = call(records, "memory_proposals", {}, chat).data
    assert listed is not None and listed["count"] == 1
    oc = call(records, "memory_get", {"path": "MEMORY.md"}, chat, "openclaw").data
    assert oc == {"status": "not_found", "path": "MEMORY.md", "text": ""}
