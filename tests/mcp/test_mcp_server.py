"""The MCP server: in-memory client, a stdio subprocess, and HTTP with a bearer token."""

from __future__ import annotations

import contextlib
import json
import os
import select
import socket
import subprocess
import sys
import time
import tomllib
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any, TextIO

import anyio
import httpx2
import mcp_types as types
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp.client.streamable_http import streamable_http_client

from mcp import Client, MCPError
from trinho import facts
from trinho.cli import main
from trinho.config import McpConfig
from trinho.config.files import edit_config
from trinho.durable import inject
from trinho.errors import TrinhoError
from trinho.mcp import server as mcp_server
from trinho.notes.store import read_notes
from trinho.tools.service import Actor
from trinho.workspace import CONFIG_PATH, Workspace, open_workspace

TRINHO = str(Path(sys.executable).parent / "trinho")
TIMEOUT = 60.0


def run_client(
    ws: Workspace, actor: Actor, body: Any, mode: str = "auto", profile: str | None = None
) -> Any:
    async def go() -> Any:
        async with Client(mcp_server.build_server(ws, actor, profile), mode=mode) as client:
            return await body(client)

    return anyio.run(go)


def test_tools_are_listed_with_their_hints(workspace: Workspace) -> None:
    async def body(client: Client) -> types.ListToolsResult:
        return await client.list_tools()

    listed = {tool.name: tool for tool in run_client(workspace, Actor(), body).tools}
    assert list(listed) == [
        "memory_save",
        "user_memory_save",
        "memory_search",
        "memory_get",
        "memory_proposals",
    ]
    save = listed["memory_save"].annotations
    assert save is not None
    assert save.read_only_hint is False and save.destructive_hint is False
    for name in ("memory_search", "memory_get", "memory_proposals"):
        hints = listed[name].annotations
        assert hints is not None and hints.read_only_hint is True
    assert listed["memory_save"].input_schema["required"] == ["text"]


def openclaw_config(workspace: Workspace) -> Workspace:
    config = workspace.root / CONFIG_PATH
    config.write_text(config.read_text() + '\n[tools]\nprofile = "openclaw"\n')
    return open_workspace(workspace.root)


def search_and_get(client: Client) -> Any:
    async def go() -> tuple[types.ListToolsResult, types.CallToolResult, types.CallToolResult]:
        listed = await client.list_tools()
        found = await client.call_tool("memory_search", {"query": "nha si", "minScore": 0})
        missing = await client.call_tool("memory_get", {"path": "memory/1999-01-01.md"})
        return listed, found, missing

    return go()


@pytest.mark.parametrize("how", ["flag", "config"])
def test_the_openclaw_profile_over_mcp(workspace: Workspace, how: str) -> None:
    ws = openclaw_config(workspace) if how == "config" else workspace
    ws.note_path(ws.today()).write_text("- 08:00 Hẹn nha sĩ thứ Sáu\n", encoding="utf-8")
    profile = "openclaw" if how == "flag" else None
    listed, found, missing = run_client(ws, Actor(), search_and_get, profile=profile)
    schemas = {tool.name: tool.input_schema for tool in listed.tools}
    assert list(schemas["memory_search"]["properties"]) == [
        "query",
        "maxResults",
        "minScore",
        "corpus",
    ]
    assert list(schemas["memory_get"]["properties"]) == ["path", "from", "lines", "corpus"]
    assert not found.is_error
    results = found.structured_content["results"]
    assert [list(r) for r in results] == [
        ["path", "startLine", "endLine", "score", "snippet", "source"]
    ]
    assert results[0]["source"] == "memory" and results[0]["startLine"] == 1
    assert not missing.is_error
    assert missing.structured_content == {
        "status": "not_found",
        "path": "memory/1999-01-01.md",
        "text": "",
    }


def test_a_profile_given_wins_over_the_config(workspace: Workspace) -> None:
    ws = openclaw_config(workspace)

    async def body(client: Client) -> types.ListToolsResult:
        return await client.list_tools()

    listed = run_client(ws, Actor(), body, profile="default")
    search = next(tool for tool in listed.tools if tool.name == "memory_search")
    assert "limit" in search.input_schema["properties"]
    assert "maxResults" not in search.input_schema["properties"]


def test_an_unknown_profile_in_the_config_is_refused(workspace: Workspace) -> None:
    config = workspace.root / CONFIG_PATH
    config.write_text(config.read_text() + '\n[tools]\nprofile = "hermes"\n')
    with pytest.raises(TrinhoError, match=r"\[tools\] profile must be one of default, openclaw"):
        open_workspace(workspace.root)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_memory_save_through_mcp_writes_the_note(workspace: Workspace, mode: str) -> None:
    async def body(client: Client) -> tuple[types.CallToolResult, types.CallToolResult]:
        good = await client.call_tool("memory_save", {"text": "Đặt bàn tối thứ Bảy"})
        bad = await client.call_tool("memory_save", {"text": 3})
        return good, bad

    good, bad = run_client(workspace, Actor("chat", "claude"), body, mode)
    assert not good.is_error
    assert good.structured_content["saved"] == "- 14:05 Đặt bàn tối thứ Bảy"
    assert isinstance(good.content[0], types.TextContent)
    assert bad.is_error
    assert isinstance(bad.content[0], types.TextContent)
    assert "text: must be a string, got 3" in bad.content[0].text
    assert [e.text for e in read_notes(workspace, workspace.today()).entries] == [
        "Đặt bàn tối thứ Bảy"
    ]


def test_resources_memory_facts_and_todays_notes(workspace: Workspace) -> None:
    workspace.memory_file.write_text("# MEMORY\n- 2026-11-22: Thích trà\n", encoding="utf-8")
    workspace.note_path(workspace.today()).write_text("- 08:00 chạy bộ\n", encoding="utf-8")
    facts.save_fact(workspace, "home_city", "Đà Nẵng", valid_from=date(2026, 1, 5))

    async def body(client: Client) -> dict[str, str]:
        listed = await client.list_resources()
        texts: dict[str, str] = {}
        for resource in listed.resources:
            read = await client.read_resource(resource.uri)
            content = read.contents[0]
            assert isinstance(content, types.TextResourceContents)
            texts[str(resource.uri)] = content.text
        with pytest.raises(MCPError, match="unknown resource"):
            await client.read_resource("trinho://secrets")
        return texts

    texts = run_client(workspace, Actor(), body)
    assert texts == {
        "trinho://memory": "# MEMORY\n- 2026-11-22: Thích trà\n",
        "trinho://facts": "home_city: Đà Nẵng (user, since 2026-01-05)",
        "trinho://notes/today": "- 08:00 chạy bộ\n",
    }


class Lines:
    """Reads JSON-RPC lines from a server's stdout, failing after a timeout."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.buffer = b""
        self.seen: list[dict[str, Any]] = []

    def response(self, request_id: int) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT
        assert self.proc.stdout is not None
        while time.monotonic() < deadline:
            while b"\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\n", 1)
                message = json.loads(line)  # anything but JSON-RPC on stdout fails here
                assert message["jsonrpc"] == "2.0"
                self.seen.append(message)
                if message.get("id") == request_id:
                    return dict(message)
            ready, _, _ = select.select([self.proc.stdout], [], [], 1.0)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:
                    break
                self.buffer += chunk
        raise AssertionError(f"no response to request {request_id}; saw {self.seen}")


def send(proc: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()


def test_resources_and_tool_texts_show_control_characters_without_acting_on_them(
    workspace: Workspace,
) -> None:
    """An MCP client may print a resource or a tool result on a terminal."""
    evil = "x\x1b]0;pwned\x07\x9b2J\u202e y"
    workspace.memory_file.write_text(f"# MEMORY\n- 2026-11-22: {evil}\n", encoding="utf-8")
    workspace.note_path(workspace.today()).write_text(f"- 08:00 {evil}\n", encoding="utf-8")

    async def body(client: Client) -> list[str]:
        texts = []
        for resource in (await client.list_resources()).resources:
            content = (await client.read_resource(resource.uri)).contents[0]
            assert isinstance(content, types.TextResourceContents)
            texts.append(content.text)
        for args in ({"path": "MEMORY.md"}, {"path": f"memory/{evil}.md"}):
            result = await client.call_tool("memory_get", args)
            block = result.content[0]
            assert isinstance(block, types.TextContent)
            texts.append(block.text)
        return texts

    texts = run_client(workspace, Actor(), body)
    unsafe = set("\x1b\x07\x9b\u202e")
    assert [set(text) & unsafe for text in texts] == [set()] * len(texts)
    assert "x\\x1b]0;pwned" in texts[0]


def test_stdio_subprocess_initialize_list_and_call(cli_env: dict[str, str]) -> None:
    assert main(["init", "--tz", "Asia/Ho_Chi_Minh"]) == 0
    proc = subprocess.Popen(
        [TRINHO, "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **cli_env},
    )
    try:
        lines = Lines(proc)
        send(
            proc,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "test", "version": "1"},
                },
            },
        )
        init = lines.response(1)
        assert init["result"]["serverInfo"]["name"] == "trinho"
        assert "tools" in init["result"]["capabilities"]
        send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        names = [tool["name"] for tool in lines.response(2)["result"]["tools"]]
        assert "memory_save" in names
        send(
            proc,
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {"name": "memory_save", "arguments": {"text": "qua stdio"}},
            },
        )
        called = lines.response(3)["result"]
        assert called["isError"] is False
        assert called["structuredContent"]["saved"] == "- 14:05 qua stdio"
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()
        proc.stderr.close()
    ws = open_workspace(cli_env["TRINHO_HOME"])
    note = ws.note_path(ws.today()).read_text(encoding="utf-8")
    assert note == "- 14:05 qua stdio\n"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def server_log(cli_env: dict[str, str]) -> Path:
    """Where the `http_server` fixture's server writes its stderr (its JSON log lines)."""
    return Path(cli_env["TRINHO_HOME"]).parent / "mcp-stderr.log"


@pytest.fixture
def http_server(cli_env: dict[str, str]) -> Iterator[tuple[int, str]]:
    """`trinho mcp --http` on a free loopback port with a fresh token; stopped afterwards."""
    with serving(cli_env) as server:
        yield server


@contextlib.contextmanager
def serving(cli_env: dict[str, str], *args: str) -> Iterator[tuple[int, str]]:
    """`trinho mcp --http ARGS` on a free port with a fresh token; stopped afterwards."""
    assert main(["init", "--tz", "Asia/Ho_Chi_Minh"]) == 0
    token, created = mcp_server.init_token(open_workspace(cli_env["TRINHO_HOME"]))
    assert created
    port = free_port()
    with server_log(cli_env).open("wb") as errors:
        proc = subprocess.Popen(
            [TRINHO, "mcp", "--http", "--port", str(port), *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errors,
            env={**os.environ, **cli_env},
        )
    try:
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(server_log(cli_env).read_text()) from None
                time.sleep(0.1)
        yield port, token
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def post_initialize(
    port: int, token: str | None, extra: dict[str, str] | None = None, body: Any = None
) -> tuple[int, str]:
    body = (
        body
        if body is not None
        else {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"},
            },
        }
    )
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    headers.update(extra or {})
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/mcp", json.dumps(body).encode(), headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_http_refuses_requests_without_the_token(
    http_server: tuple[int, str], cli_env: dict[str, str]
) -> None:
    port, token = http_server
    status, body = post_initialize(port, None)
    assert status == 401
    assert "invalid_token" in body
    wrong = token[:-1] + ("x" if token[-1] != "x" else "y")
    status, _ = post_initialize(port, wrong)
    assert status == 401
    status, body = post_initialize(port, token)
    assert status == 200
    assert '"serverInfo"' in body and '"trinho"' in body
    lines = [json.loads(line) for line in server_log(cli_env).read_text().splitlines()]
    refused = [line for line in lines if line["msg"].startswith("mcp: refused")]
    assert [line["msg"] for line in refused] == [
        "mcp: refused POST /mcp from 127.0.0.1: HTTP 401"
    ] * 2
    assert all(line["level"] == "info" for line in refused)
    started = [line for line in lines if line["msg"].startswith("trinho MCP server on")]
    assert [line["level"] for line in started] == ["info"]
    assert (
        token not in server_log(cli_env).read_text()
        and wrong not in server_log(cli_env).read_text()
    )


@pytest.mark.parametrize(
    "extra",
    [
        {"Host": "evil.example"},
        {"Host": "evil.example:8765"},
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Origin": "http://127.0.0.1:9999"},
        {"Host": "127.0.0.1:9999"},
        {"Host": "127.0.0.1"},
    ],
)
def test_http_refuses_a_foreign_host_or_origin_even_with_the_token(
    http_server: tuple[int, str], extra: dict[str, str]
) -> None:
    """A web page the owner visits cannot reach the server by DNS rebinding or a cross-site
    request: the token alone is not enough."""
    port, token = http_server
    status, _ = post_initialize(port, token, extra)
    assert status in (403, 421)
    assert post_initialize(port, token, {"Origin": f"http://127.0.0.1:{port}"})[0] == 200


def test_http_beyond_loopback_answers_only_the_names_it_is_told(
    cli_env: dict[str, str],
) -> None:
    """Bound to every interface, the server answers its loopback names at its port and
    nothing else (no `[mcp] allowed_hosts` here), even with the token."""
    with serving(cli_env, "--host", "0.0.0.0") as (port, token):
        assert post_initialize(port, token)[0] == 200
        for host in ("evil.example", f"evil.example:{port}", f"box.lan:{port}", f"0.0.0.0:{port}"):
            assert post_initialize(port, token, {"Host": host})[0] == 421, host
        origin = {"Origin": f"http://evil.example:{port}"}
        assert post_initialize(port, token, origin)[0] == 403


def test_http_allowed_hosts_are_served(cli_env: dict[str, str]) -> None:
    assert main(["init", "--tz", "Asia/Ho_Chi_Minh"]) == 0
    ws = open_workspace(cli_env["TRINHO_HOME"])
    ws.config = replace(ws.config, mcp=McpConfig(allowed_hosts=("box.lan",)))
    from starlette.testclient import TestClient

    app = mcp_server.http_app(ws, Actor("chat"), "t" * 20, "0.0.0.0", 8765)
    with TestClient(app, base_url="http://box.lan:8765") as client:
        status = client.post("/mcp", json={}, headers={"Authorization": "Bearer " + "t" * 20})
        assert status.status_code not in (403, 421)
        assert client.post("/mcp", json={}, headers={"Host": "nas.lan:8765"}).status_code == 421


def test_a_json_rpc_batch_gets_one_line(http_server: tuple[int, str]) -> None:
    port, token = http_server
    status, body = post_initialize(
        port, token, body=[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]
    )
    assert status == 400
    assert json.loads(body) == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": -32600,
            "message": "JSON-RPC batches are not supported: send one request at a time",
        },
    }
    assert post_initialize(port, token)[0] == 200  # and the next request is served


def test_a_json_rpc_batch_over_stdio_gets_one_line(cli_env: dict[str, str]) -> None:
    assert main(["init"]) == 0
    lines = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        [{"jsonrpc": "2.0", "id": 2, "method": "ping"}],
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
    ]
    proc = subprocess.Popen(
        [TRINHO, "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **cli_env},
    )
    try:
        assert proc.stdin is not None
        for line in lines:  # the stdin stays open until every answer is read
            proc.stdin.write(json.dumps(line).encode() + b"\n")
        proc.stdin.flush()
        reader = Lines(proc)
        assert reader.response(3)["result"] == {}
    finally:
        proc.kill()
        proc.communicate()  # waits, and closes both pipes
    assert [a.get("id") for a in reader.seen] == [1, None, 3]
    assert reader.seen[1]["error"] == {
        "code": -32600,
        "message": "JSON-RPC batches are not supported: send one request at a time",
    }


def test_http_serves_the_sdk_client_with_the_token(
    http_server: tuple[int, str], cli_env: dict[str, str]
) -> None:
    port, token = http_server

    async def go() -> types.CallToolResult:
        headers = {"Authorization": f"Bearer {token}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=TIMEOUT) as http,
            Client(
                streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)
            ) as client,
        ):
            return await client.call_tool("memory_save", {"text": "qua HTTP"})

    result = anyio.run(go)
    assert not result.is_error
    ws = open_workspace(cli_env["TRINHO_HOME"])
    assert read_notes(ws, ws.today()).entries[-1].text == "qua HTTP"


def test_http_without_a_configured_token_says_how_to_make_one(
    cli_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init"]) == 0
    capsys.readouterr()
    assert main(["mcp", "--http"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("trinho: error: `trinho mcp --http` needs a bearer token")
    assert "trinho mcp --init-token" in err


def test_init_token_keeps_the_config_and_runs_once(
    cli_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", "--locale", "vi"]) == 0
    path = Path(cli_env["TRINHO_HOME"]) / CONFIG_PATH
    before = path.read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["mcp", "--init-token", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["created"] is True
    after = path.read_text(encoding="utf-8")
    assert after.startswith(before)
    assert path.stat().st_mode & 0o077 == 0
    assert open_workspace(path.parent.parent).config.mcp.token == first["token"]
    assert main(["mcp", "--init-token", "--json"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert second == {**first, "created": False}
    assert path.read_text(encoding="utf-8") == after


@pytest.mark.durability
def test_the_token_is_never_written_into_a_file_others_can_read(workspace: Workspace) -> None:
    config = workspace.root / CONFIG_PATH
    config.chmod(0o644)
    modes: list[int] = []

    def watching_write(path: Path) -> None:
        """The file that holds the token before it replaces the config: the temp file."""
        modes.extend(tmp.stat().st_mode & 0o777 for tmp in path.parent.glob(f".{path.name}.*"))

    with inject("before_fsync", watching_write):
        mcp_server.init_token(workspace)
    assert modes == [0o600]
    assert config.stat().st_mode & 0o777 == 0o600


def test_a_short_token_is_refused(workspace: Workspace) -> None:
    config = workspace.root / CONFIG_PATH
    config.write_text(
        config.read_text(encoding="utf-8") + '\n[mcp]\ntoken = "short"\n', encoding="utf-8"
    )
    with pytest.raises(TrinhoError, match=r"\[mcp\] token must be a string of at least 16"):
        open_workspace(workspace.root)


toml_values = st.one_of(
    st.integers(-(10**6), 10**6),
    st.booleans(),
    st.text(st.characters(exclude_categories=("Cs", "Cc")), max_size=20),
    st.just("[mcp]"),
)
tables = st.dictionaries(
    st.from_regex(r"[a-z][a-z_]{0,10}", fullmatch=True).filter(lambda n: n != "mcp"),
    st.dictionaries(st.from_regex(r"[a-z][a-z_]{0,10}", fullmatch=True), toml_values, max_size=3),
    max_size=3,
)


def render_toml(data: dict[str, dict[str, Any]]) -> str:
    out = []
    for table, values in data.items():
        out.append(f"[{table}]")
        out.extend(
            f"{key} = {json.dumps(value, ensure_ascii=False)}" for key, value in values.items()
        )
        out.append("")
    return "\n".join(out)


mcp_headers = st.sampled_from(["[mcp]", "[ mcp ]", '["mcp"]', "[mcp]  # MCP server", "  [mcp]"])


@given(tables, st.booleans(), mcp_headers, st.booleans())
def test_adding_a_token_keeps_every_other_setting(
    data: dict[str, dict[str, Any]], with_mcp_table: bool, header: str, trailing_newline: bool
) -> None:
    text = render_toml(data)
    if with_mcp_table:
        text += f"{header}\nport_hint = 1\n"
    if not trailing_newline:
        text = text.rstrip("\n")
    updated = tomllib.loads(edit_config(text, "mcp", {"token": "t" * 43}))
    assert updated.pop("mcp") == {"token": "t" * 43, **({"port_hint": 1} if with_mcp_table else {})}
    assert {k: v for k, v in updated.items()} == {
        k: v for k, v in tomllib.loads(text).items() if k != "mcp"
    }


def test_an_inline_mcp_table_gets_the_token_and_keeps_the_rest(
    cli_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The one TOML editor (tomlkit) writes into whatever form the owner gave [mcp]."""
    assert main(["init"]) == 0
    path = Path(cli_env["TRINHO_HOME"]) / CONFIG_PATH
    before = path.read_text(encoding="utf-8")
    path.write_text("mcp = {port = 9000}  # mine\n" + before, encoding="utf-8")
    capsys.readouterr()
    assert main(["mcp", "--init-token"]) == 0
    after = path.read_text(encoding="utf-8")
    data = tomllib.loads(after)
    assert data["mcp"]["port"] == 9000 and len(data["mcp"]["token"]) >= 32
    assert after.endswith(before) and "# mine" in after


def test_the_actor_is_passed_through(workspace: Workspace) -> None:
    args = {"key": "home_city", "value": "Huế", "basis": "user"}

    async def body(client: Client) -> types.CallToolResult:
        return await client.call_tool("user_memory_save", args)

    as_job = run_client(workspace, Actor("job", "nightly"), body)
    assert as_job.structured_content["outcome"] == "proposed"
    assert facts.load_fact(workspace, "home_city") is None
    as_chat = run_client(workspace, Actor("chat", "main"), body)
    assert as_chat.structured_content["outcome"] == "created"


def test_without_the_extra_the_command_says_what_to_install(
    cli_env: dict[str, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["init"]) == 0
    capsys.readouterr()
    monkeypatch.setitem(sys.modules, "mcp", None)
    assert main(["mcp"]) == 1
    assert capsys.readouterr().err == (
        "trinho: error: the MCP server needs the `mcp` extra (mcp is not installed): "
        "pip install 'trinho[mcp]'\n"
    )


def test_conformance_with_the_official_client(workspace: Workspace, clock: Any) -> None:
    """List and call everything: tools (results against their output schemas), resources,
    templates and prompts."""
    import jsonschema

    facts.save_fact(workspace, "home_city", "Đà Nẵng", valid_from=date(2026, 1, 5))
    facts.save_fact(workspace, "home_city", "Hà Nội", valid_from=date(2026, 11, 1))
    calls = {
        "memory_save": {"text": "Khám răng thứ Sáu"},
        "user_memory_save": {"key": "home_city", "value": "Huế", "basis": "inferred"},
        "memory_search": {"query": "kham rang"},
        "memory_get": {"path": "memory/2026-11-29.md"},
        "memory_proposals": {},
    }

    async def body(client: Client) -> dict[str, Any]:
        tools = (await client.list_tools()).tools
        results = {t.name: await client.call_tool(t.name, calls[t.name]) for t in tools}
        templates = (await client.list_resource_templates()).resource_templates
        day = await client.read_resource("trinho://notes/2026-11-29")
        history = await client.read_resource("trinho://facts/home_city/history")
        with pytest.raises(MCPError, match="no fact"):
            await client.read_resource("trinho://facts/nothing/history")
        prompts = (await client.list_prompts()).prompts
        texts = {}
        for prompt in prompts:
            got = await client.get_prompt(prompt.name)
            content = got.messages[0].content
            assert isinstance(content, types.TextContent)
            texts[prompt.name] = content.text
        return {
            "tools": tools,
            "results": results,
            "templates": [t.uri_template for t in templates],
            "day": day.contents[0],
            "history": history.contents[0],
            "prompts": texts,
        }

    got = run_client(workspace, Actor(), body)
    for tool in got["tools"]:
        assert tool.output_schema is not None, tool.name
        result = got["results"][tool.name]
        assert not result.is_error, result.content
        jsonschema.Draft202012Validator.check_schema(tool.output_schema)
        jsonschema.validate(result.structured_content, tool.output_schema)
    assert got["templates"] == ["trinho://notes/{date}", "trinho://facts/{key}/history"]
    assert isinstance(got["day"], types.TextResourceContents)
    assert got["day"].text == "- 14:05 Khám răng thứ Sáu\n"
    assert isinstance(got["history"], types.TextResourceContents)
    assert got["history"].text.splitlines() == [
        "2026-01-05 to 2026-11-01: Đà Nẵng (user, from chat)",
        "2026-11-01 to now: Hà Nội (user, from chat)",
    ]
    prompts = got["prompts"]
    assert list(prompts) == ["next_turn_context", "waiting_for_owner", "week_in_review"]
    assert "Hà Nội" in prompts["next_turn_context"]
    assert "Huế" in prompts["waiting_for_owner"]
    assert "## 2026-11-29\n- 14:05 Khám răng thứ Sáu" in prompts["week_in_review"]


def test_a_missing_workspace_fails_initialize_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the official client over stdio: the reason, not "Connection closed"."""
    from mcp.client.stdio import stdio_client

    from mcp import ClientSession, StdioServerParameters

    missing = tmp_path / "nowhere"
    params = StdioServerParameters(
        command=TRINHO, args=["mcp"], env={**os.environ, "TRINHO_HOME": str(missing)}
    )

    async def go(errlog: TextIO) -> str:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            with pytest.raises(MCPError) as caught:
                await session.initialize()
            return str(caught.value)

    with (tmp_path / "stderr").open("w") as errlog:
        message = anyio.run(go, errlog)
    assert f"no workspace at {missing}" in message


def test_a_refusal_answers_requests_and_ignores_the_rest() -> None:
    request = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {}})
    answer = mcp_server.refusal(request, "no workspace at /x\x1b[2J")
    assert answer is not None
    assert json.loads(answer) == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {
            "code": mcp_server.WORKSPACE_UNAVAILABLE,
            "message": "no workspace at /x\\x1b[2J",
        },
    }
    assert mcp_server.refusal('{"jsonrpc": "2.0", "method": "notifications/x"}', "r") is None
    assert mcp_server.refusal("not json", "r") is None
