"""Every surface under hostile files, as a class: every tool (both profiles), every review-page
route and every MCP request, with a name too long for the file system (ENAMETOOLONG), a file
this user may not read (EACCES, as a non-root user), a full disk (ENOSPC, a small tmpfs), a
FIFO, a folder and a file over the read limit where a note, MEMORY.md and a proposal should be. Each
answers one keyed line that never names the workspace's absolute path, and never raises.

Tests run as root here (CI too): the non-root user is `nobody` in a forked child (os.setuid),
the full disk a tmpfs mounted for the test; a machine where neither is possible skips them
with the reason.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.routing import Route
from starlette.testclient import TestClient

from conftest import TZ, FixedClock
from mcp import Client, MCPError
from trinho.boundary import public_error, scrub, shown_path
from trinho.cli import main
from trinho.config import McpConfig
from trinho.context.run import build_context
from trinho.durable import MAX_READ_BYTES
from trinho.i18n import LOCALES, catalog
from trinho.mcp import server as mcp_server
from trinho.tools import service as tools
from trinho.tools.service import Actor
from trinho.web.app import web_app
from trinho.web.auth import Guard, cookie_name
from trinho.web.guard import HostCheck, allowed_hosts, request_allowed
from trinho.workspace import Workspace, init_workspace

NOBODY = 65534
BASE = "http://127.0.0.1:8766"
CHAT = Actor("chat")
LONG = "memory/" + "a" * 300 + ".md"
CONDITIONS = ("too_long", "denied", "no_space", "fifo", "folder", "oversized")


def as_nobody(action: Callable[[], Any]) -> Any:
    """`action()` run in a forked child as uid/gid 65534 (nobody); its JSON-able result."""
    if os.geteuid() != 0:
        pytest.skip("becoming another user needs root (CI runs the tests as root)")
    for locale in LOCALES:  # the interpreter's own files are root's: load what it reads first
        catalog(locale)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through the pipe
        os.close(read_end)
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            out = json.dumps({"ok": action()})
        except BaseException:
            out = json.dumps({"raised": traceback.format_exc()})
        with os.fdopen(write_end, "w") as pipe:
            pipe.write(out)
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    result = json.loads(data)
    if "raised" in result:
        raise AssertionError(result["raised"])
    return result["ok"]


@contextlib.contextmanager
def small_disk(size: str = "2m") -> Iterator[Path]:
    """A tmpfs of `size` mounted for the block (root only)."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root (CI runs the tests as root)")
    point = Path(tempfile.mkdtemp(prefix="trinho-disk-", dir="/tmp"))
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(point)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        point.rmdir()
        pytest.skip(f"mount -t tmpfs failed here: {done.stderr.decode().strip()}")
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], check=True)
        point.rmdir()


def fill(folder: Path) -> None:
    """Write into `folder` until the disk is full."""
    with (folder / "filler").open("wb", buffering=0) as out:
        with contextlib.suppress(OSError):
            while True:
                out.write(b"\0" * 65536)
        with contextlib.suppress(OSError):
            while True:
                out.write(b"\0")


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A folder under /tmp that another user may traverse (pytest's tmp_path is 0700)."""
    folder = Path(tempfile.mkdtemp(prefix="trinho-h-", dir="/tmp"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def make_workspace(root: Path, clock: FixedClock) -> Workspace:
    ws = init_workspace(root / "ws", timezone=TZ, clock=clock).workspace
    ws.memory_file.write_text("# Memory\n- 2026-11-01: Lives in Ha Noi\n", encoding="utf-8")
    ws.note_path(ws.today()).write_text("- 09:00 met Lan\n", encoding="utf-8")
    ws.proposals_root.mkdir(parents=True, exist_ok=True)
    (ws.proposals_root / "broken.json").write_text("{}", encoding="utf-8")
    return ws


def hostile_files(ws: Workspace) -> list[Path]:
    """The files a condition is applied to: today's note, MEMORY.md, a proposal."""
    return [ws.note_path(ws.today()), ws.memory_file, ws.proposals_root / "broken.json"]


def apply(condition: str, ws: Workspace) -> None:
    for path in hostile_files(ws):
        if condition == "fifo":
            path.unlink()
            os.mkfifo(path)
        elif condition == "folder":
            path.unlink()
            path.mkdir()
        elif condition == "oversized":
            with path.open("r+b") as handle:
                handle.truncate(MAX_READ_BYTES + 1)
        elif condition == "denied":
            shutil.chown(path, "root", "root")
            path.chmod(0o600)
    if condition == "denied":
        others = [p for p in ws.root.rglob("*") if p not in hostile_files(ws)]
        for path in [ws.root, *others]:
            os.chown(path, NOBODY, NOBODY, follow_symlinks=False)


TOOL_ARGS: dict[str, dict[str, dict[str, Any]]] = {
    "default": {
        "memory_save": {"text": "bought rice"},
        "user_memory_save": {"key": "city", "value": "Hue", "basis": "user"},
        "memory_proposals": {"include_decided": True},
        "memory_search": {"query": "Lan Ha Noi"},
        "memory_get": {"path": "PATH"},
    },
    "openclaw": {
        "memory_save": {"text": "bought rice"},
        "user_memory_save": {"key": "city", "value": "Hue", "basis": "user"},
        "memory_proposals": {},
        "memory_search": {"query": "Lan Ha Noi"},
        "memory_get": {"path": "PATH"},
    },
}


def route_calls(path_arg: str) -> list[tuple[str, str, dict[str, str] | None]]:
    """One request for every route of the review page (method, URL, form or None)."""
    return [
        ("GET", "/login?code=CODE", None),
        ("POST", "/login", {"code": "x", "token": "y"}),
        ("GET", "/", None),
        ("POST", "/proposals/broken/approve", {}),
        ("POST", "/proposals/broken/reject", {"reason": "no"}),
        ("GET", "/runs", None),
        ("GET", "/runs/bad-run", None),
        ("GET", "/bulk", None),
        ("POST", "/bulk", {"item": "broken:0"}),
        ("GET", "/reject-all", None),
        ("POST", "/reject-all", {"item": "broken:0"}),
        ("GET", "/receipts/gone", None),
        ("POST", "/receipts/gone/take-back", {}),
        ("GET", f"/source?ref={path_arg}%23L1", None),
        ("GET", "/turn?path=conversations/2026-11-29.jsonl", None),
        ("GET", "/runs/bad-run/undo", None),
        ("POST", "/runs/bad-run/undo", {}),
        ("GET", f"/file?path={path_arg}", None),
        ("GET", "/file", None),
        ("GET", "/facts", None),
        ("GET", "/search?q=Lan", None),
    ]


MCP_RESOURCES = ("trinho://memory", "trinho://facts", "trinho://notes/today")
MCP_PROMPTS = ("next_turn_context", "waiting_for_owner", "week_in_review")


def exercise(ws: Workspace, path_arg: str) -> list[dict[str, Any]]:
    """Call every tool, route and MCP request once; what each answered."""
    seen: list[dict[str, Any]] = []
    for profile, calls in TOOL_ARGS.items():
        for name, args in calls.items():
            given = {k: (path_arg if v == "PATH" else v) for k, v in args.items()}
            result = tools.call(ws, name, given, CHAT, profile)
            seen.append(
                {
                    "surface": f"tool {profile}/{name}",
                    "text": result.text,
                    "error": result.is_error,
                    "status": 0,
                }
            )
    guard = Guard(ws.now)
    client = TestClient(
        web_app(ws, guard, "127.0.0.1", 8766, None), base_url="http://127.0.0.1:8766"
    )
    client.get(f"/login?code={guard.code}", follow_redirects=False)
    [session] = guard.sessions.values()
    csrf = session.csrf
    for method, url, form in route_calls(path_arg):
        url = url.replace("CODE", "wrong")
        if form is None:
            response = client.request(method, url, follow_redirects=False)
        else:
            response = client.request(
                method, url, data={**form, "csrf": csrf}, follow_redirects=False
            )
        body = response.text
        if response.status_code == 303:  # the notice is on the page it sends to
            body = client.get(response.headers["location"]).text
        seen.append(
            {
                "surface": f"route {method} {url}",
                "text": body,
                "error": response.status_code >= 400,
                "status": response.status_code,
            }
        )

    async def mcp_calls() -> None:
        async with Client(mcp_server.build_server(ws, CHAT)) as mcp:
            for uri in MCP_RESOURCES:
                try:
                    read = await mcp.read_resource(uri)
                    text, error = json.dumps(read.model_dump(mode="json")), False
                except MCPError as exc:
                    text, error = str(exc), True
                seen.append({"surface": f"mcp {uri}", "text": text, "error": error, "status": 0})
            for name in MCP_PROMPTS:
                try:
                    got = await mcp.get_prompt(name)
                    text, error = json.dumps(got.model_dump(mode="json")), False
                except MCPError as exc:
                    text, error = str(exc), True
                seen.append({"surface": f"mcp {name}", "text": text, "error": error, "status": 0})

    anyio.run(mcp_calls)
    return seen


def check(ws: Workspace, seen: list[dict[str, Any]]) -> None:
    roots = {str(ws.root), os.path.realpath(ws.root)}
    for answer in seen:
        where, text = answer["surface"], answer["text"]
        assert not any(root in text for root in roots), (where, text[:300])
        assert "Traceback" not in text, where
        assert answer["status"] < 500 or 'class="notice"' in text, (where, text[:300])
        if answer["error"] and answer["surface"].startswith(("tool", "mcp")):
            assert "\n" not in text, (where, text)


def expect_errors(seen: list[dict[str, Any]], surfaces: tuple[str, ...]) -> None:
    """Each surface failed: an error answer, or (OpenClaw's memory_get) a result whose status
    says the read failed, as OpenClaw answers it."""
    by_surface = {answer["surface"]: answer for answer in seen}
    for surface in surfaces:
        answer = by_surface[surface]
        failed = answer["error"] or (
            surface == "tool openclaw/memory_get"
            and json.loads(answer["text"]).get("status") == "error"
        )
        assert failed, (surface, answer["text"][:300])


def test_the_table_covers_every_tool_and_route(workspace: Workspace) -> None:
    for profile in tools.PROFILES:
        assert set(TOOL_ARGS[profile]) == {t.name for t in tools.profile_tools(profile)}
    app = web_app(workspace, Guard(workspace.now), "127.0.0.1", 8766, None)
    assert isinstance(app, HostCheck)
    routes = {
        (method, route.path)
        for route in app.app.routes  # type: ignore[attr-defined]
        if isinstance(route, Route)
        for method in (route.methods or set()) - {"HEAD"}
    }
    called = {
        (
            method,
            re.sub(
                r"/(broken|bad-run|gone)(?=/|$)",
                lambda m: {"broken": "/{pid}", "bad-run": "/{run}", "gone": "/{rid}"}[m.group(1)],
                url.split("?")[0],
            ),
        )
        for method, url, _ in route_calls("x")
    }
    assert routes == called


@pytest.mark.parametrize("condition", CONDITIONS)
def test_every_surface_answers_one_line_without_the_workspace_path(
    condition: str, open_dir: Path, clock: FixedClock
) -> None:
    note = "memory/2026-11-29.md"
    if condition == "no_space":
        with small_disk() as disk:
            ws = make_workspace(disk, clock)
            fill(disk)
            seen = exercise(ws, note)
            check(ws, seen)
            expect_errors(seen, ("tool default/memory_save", "tool openclaw/memory_save"))
            saved = [a for a in seen if a["surface"] == "tool default/memory_save"]
            assert "no space left on the disk" in saved[0]["text"]
        return
    ws = make_workspace(open_dir, clock)
    apply(condition, ws)
    path_arg = LONG if condition == "too_long" else note
    if condition == "denied":
        seen = as_nobody(lambda: exercise(ws, path_arg))
    else:
        seen = exercise(ws, path_arg)
    check(ws, seen)
    get_tools = ("tool default/memory_get", "tool openclaw/memory_get")
    if condition == "too_long":
        expect_errors(seen, get_tools)
        by = {a["surface"]: a for a in seen}
        assert by[f"route GET /file?path={LONG}"]["status"] == 400
        return
    # OpenClaw's memory_get answers a name that is no regular file as a missing one: empty
    kept = get_tools if condition not in ("fifo", "folder") else get_tools[:1]
    expect_errors(seen, (*kept, "tool default/memory_save", "mcp trinho://notes/today"))
    by = {a["surface"]: a for a in seen}
    assert "memory/2026-11-29.md" in by["tool default/memory_save"]["text"]
    # the rest of the workspace still answers: the facts, the runs, the queue
    assert not by["tool default/user_memory_save"]["error"]
    assert by["route GET /runs"]["status"] == 200 and by["route GET /"]["status"] == 200
    assert by["route POST /bulk"]["status"] == 303
    assert "invalid proposal id" in by["route POST /bulk"]["text"]


def test_an_unreadable_note_is_left_out_of_search_and_context_with_a_notice(
    open_dir: Path, clock: FixedClock
) -> None:
    ws = make_workspace(open_dir, clock)
    yesterday = ws.note_path(ws.today().replace(day=28))
    yesterday.write_text("- 10:00 Lan visited\n", encoding="utf-8")
    apply("denied", ws)  # today's note, MEMORY.md and a proposal: root's, 0600
    os.chown(ws.memory_file, NOBODY, NOBODY)  # MEMORY.md is the memory itself: readable here
    other = ws.root / "memory" / "2026-11-27.md"
    other.write_text("- 08:00 Lan called\n", encoding="utf-8")
    os.chown(other, NOBODY, NOBODY)

    def read_all() -> dict[str, Any]:
        hits = tools.call(ws, "memory_search", {"query": "Lan"}, CHAT)
        listed = tools.call(ws, "memory_proposals", {}, CHAT)
        context = build_context(ws, "owner")
        return {"hits": hits.data, "listed": listed.data, "preamble": context.preamble}

    got = as_nobody(read_all)
    assert {h["path"] for h in got["hits"]["hits"]} >= {
        "memory/2026-11-27.md",
        "memory/2026-11-28.md",
    }
    assert got["listed"]["unreadable"] == 1
    assert "memory/2026-11-29.md is left out of this context: " in got["preamble"]
    assert "Lan visited" in got["preamble"] and str(ws.root) not in got["preamble"]


def test_an_oversized_yesterday_leaves_that_day_out_of_every_turn(
    workspace: Workspace,
) -> None:
    yesterday = workspace.note_path(workspace.today().replace(day=28))
    yesterday.parent.mkdir(parents=True, exist_ok=True)
    with yesterday.open("wb") as handle:
        handle.truncate(MAX_READ_BYTES + 1)
    workspace.note_path(workspace.today()).write_text("- 09:00 met Lan\n", encoding="utf-8")
    context = build_context(workspace, "owner")
    assert "memory/2026-11-28.md is left out of this context: " in context.preamble
    assert "met Lan" in context.preamble


@pytest.mark.parametrize(
    "command", [["search", "Lan"], ["index", "--rebuild"], ["context"], ["note", "rice"]]
)
def test_the_cli_under_a_full_disk_says_one_line(
    command: list[str],
    clock: FixedClock,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with small_disk("1m") as disk:
        ws = make_workspace(disk, clock)
        for index in (ws.root / ".trinho").glob("index*"):
            index.unlink()
        config = ws.root / ".trinho" / "config.toml"
        with config.open("a", encoding="utf-8") as tail:  # over budget: context writes a warning
            tail.write("\n[context]\nmemory_tokens = 1\n")
        fill(disk)
        monkeypatch.setenv("TRINHO_HOME", str(ws.root))
        monkeypatch.setenv("TRINHO_NOW", "2026-11-29T14:05:00+07:00")
        code = main(command)
        out = capsys.readouterr()
    assert code == 1
    assert out.err.count("\n") == 1 and out.err.startswith("trinho: error: ")
    assert "no space left on the disk" in out.err and str(disk) not in out.err


def test_public_error_names_paths_relative_and_cuts_long_ones(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    inside = OSError(errno.ENAMETOOLONG, "File name too long", str(root / ("a" * 300)))
    shown = str(public_error(inside, root))
    assert str(root) not in shown and "too long for the file system" in shown and len(shown) < 200
    denied = str(public_error(PermissionError(errno.EACCES, "Permission denied", "/etc/x"), root))
    assert denied.startswith("x: permission denied")
    assert scrub(f"{root}/memory/a.md and {root}", root) == "memory/a.md and ."
    assert shown_path(root / "MEMORY.md", root) == "MEMORY.md"
    assert "ValueError" in str(public_error(ValueError(f"bad {root}/x\nsecond"), root))
    assert "\n" not in str(public_error(ValueError("a\nb"), root))


def test_the_review_cookie_is_named_by_port_and_refused_to_other_sites(
    workspace: Workspace,
) -> None:
    guard = Guard(workspace.now)
    c = TestClient(
        web_app(workspace, guard, "127.0.0.1", 8766, None), base_url="http://127.0.0.1:8766"
    )
    r = c.get(f"/login?code={guard.code}", follow_redirects=False)
    assert r.headers["set-cookie"].startswith(f"{cookie_name(8766)}=")
    assert c.get("/").status_code == 200
    assert c.get("/", headers={"sec-fetch-site": "same-origin"}).status_code == 200
    assert c.get("/", headers={"sec-fetch-site": "none"}).status_code == 200
    for site in ("same-site", "cross-site"):
        assert c.get("/", headers={"sec-fetch-site": site}).status_code == 403
        assert c.post("/proposals/x/reject", headers={"sec-fetch-site": site}).status_code == 403
    fresh = Guard(workspace.now)  # the login link may be opened from anywhere: it is the key
    login = TestClient(web_app(workspace, fresh, "127.0.0.1", 8766, None), base_url=BASE)
    r2 = login.get(
        f"/login?code={fresh.code}",
        headers={"sec-fetch-site": "cross-site"},
        follow_redirects=False,
    )
    assert r2.status_code == 303 and fresh.code_used
    sid = r.headers["set-cookie"].split(";")[0].split("=", 1)[1]
    other = TestClient(
        web_app(workspace, guard, "127.0.0.1", 9999, None), base_url="http://127.0.0.1:9999"
    )
    other.cookies.set(cookie_name(8766), sid)
    assert other.get("/").status_code == 401  # the page on another port takes no session


def test_web_and_mcp_share_the_host_policy(workspace: Workspace) -> None:
    web = web_app(workspace, Guard(workspace.now), "0.0.0.0", 8766, "t" * 20)
    assert isinstance(web, HostCheck)
    assert web.hosts == frozenset({"127.0.0.1:8766", "localhost:8766", "[::1]:8766"})
    workspace.config = replace(
        workspace.config, mcp=McpConfig(allowed_hosts=("box.lan", "nas:9000"))
    )
    app = mcp_server.http_app(workspace, CHAT, "t" * 20, "0.0.0.0", 8765)
    [check_mw] = [m for m in app.user_middleware if m.cls is HostCheck]  # type: ignore[comparison-overlap]
    assert check_mw.kwargs["hosts"] == frozenset(
        {"127.0.0.1:8765", "localhost:8765", "[::1]:8765", "box.lan:8765", "nas:9000"}
    )


def test_a_service_without_the_web_extra_never_imports_it(cli_env: dict[str, str]) -> None:
    """`trinho serve` on a `[telegram]`-only install: starlette and uvicorn are not needed
    unless `[web] enabled` or `[mcp] http`, and then their absence is one line."""
    assert main(["init"]) == 0
    code = (
        "import sys\n"
        "for name in ('starlette', 'uvicorn', 'python_multipart', 'mcp'):\n"
        "    sys.modules[name] = None\n"
        "from trinho.serve.service import mcp_parts\n"
        "from trinho.workspace import open_workspace\n"
        "ws = open_workspace(sys.argv[1])\n"
        "assert mcp_parts(ws) == ()\n"
        "from dataclasses import replace\n"
        "from trinho.config import WebConfig\n"
        "ws.config = replace(ws.config, web=WebConfig(enabled=True))\n"
        "from trinho.errors import TrinhoError\n"
        "try:\n"
        "    mcp_parts(ws)\n"
        "except TrinhoError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, cli_env["TRINHO_HOME"]],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout == (
        "[web] enabled = true needs the `web` extra (starlette is not installed): "
        "pip install 'trinho[web]'\n"
    )


def test_init_token_never_shows_the_token_to_another_user(open_dir: Path) -> None:
    """A second user polls the folders while the token is written into eight fresh configs:
    it opens every file it sees, and never reads a token."""
    if os.geteuid() != 0:
        pytest.skip("a second user needs root (CI runs the tests as root)")
    folders = [open_dir / f"oc{n}" for n in range(8)]
    for folder in folders:
        folder.mkdir()
        folder.chmod(0o755)
    stop = open_dir / "stop"
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the polling user, reporting through the pipe
        os.close(read_end)
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)
        leaks, refused, polls = 0, 0, 0
        while not stop.exists():
            polls += 1
            for folder in folders:
                for path in [*folder.glob(".trinho/*"), *folder.glob(".trinho/.*")]:
                    try:
                        data = path.read_bytes()
                    except PermissionError:
                        refused += 1
                    except OSError:
                        continue
                    else:
                        leaks += b"token" in data
        with os.fdopen(write_end, "w") as pipe:
            pipe.write(json.dumps([leaks, refused, polls]))
        os._exit(0)
    os.close(write_end)
    from trinho.workspace import open_workspace

    try:
        for folder in folders:
            (folder / "MEMORY.md").write_text("# Memory\n", encoding="utf-8")
            token, created = mcp_server.init_token(open_workspace(folder))
            assert created and token
            config = folder / ".trinho" / "config.toml"
            assert config.stat().st_mode & 0o777 == 0o600
    finally:
        stop.touch()
        with os.fdopen(read_end) as pipe:
            leaks, refused, polls = json.loads(pipe.read())
        os.waitpid(pid, 0)
    assert leaks == 0
    assert refused > 0 and polls > 0  # it did poll, and was refused the configs


def test_init_makes_the_config_readable_by_its_owner_only(workspace: Workspace) -> None:
    assert (workspace.root / ".trinho" / "config.toml").stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize(
    ("config", "said"),
    [
        ('[web]\nenabled = true\nallowed_hosts = "box.lan"\n', "[web] allowed_hosts must be"),
        ('[web]\nenabled = true\nport = "abc"\n', "abc"),
    ],
)
def test_a_bad_setting_at_serve_start_is_one_line(
    cli_env: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    config: str,
    said: str,
) -> None:
    """Whatever fails while `trinho serve` starts its parts is one line and exit 1, before
    anything runs (the checking of each value is the config's own)."""
    root, ours = logging.getLogger(), logging.getLogger("trinho")
    monkeypatch.setattr(root, "handlers", [])  # serve logs to this test's stderr: not after it
    for logger in (root, ours):
        monkeypatch.setattr(logger, "setLevel", lambda level: None)
    assert main(["init"]) == 0
    path = Path(cli_env["TRINHO_HOME"]) / ".trinho" / "config.toml"
    path.write_text(path.read_text(encoding="utf-8") + "\n" + config, encoding="utf-8")
    capsys.readouterr()
    assert main(["serve"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("trinho: error: ") and said in err
    assert "Traceback" not in err


@given(
    bind=st.sampled_from(["127.0.0.1", "0.0.0.0", "::", "192.168.1.5", "::1", "localhost"]),
    port=st.integers(1, 65535),
    other=st.integers(1, 65535),
    name=st.text(st.sampled_from("abcxyz.-:[]0123456789"), max_size=30),
    extra=st.lists(st.sampled_from(["box.lan", "nas:9000", "[fe80::1]"]), max_size=3),
)
def test_the_host_policy_answers_exactly_its_names_at_its_port(
    bind: str, port: int, other: int, name: str, extra: list[str]
) -> None:
    hosts = allowed_hosts(bind, port, tuple(extra))
    assert all(h.rsplit(":", 1)[1].isdigit() for h in hosts)  # every name has its port
    for loop in ("127.0.0.1", "localhost", "[::1]"):
        assert request_allowed(hosts, f"{loop}:{port}", None)
        assert request_allowed(hosts, f"{loop}:{port}", f"http://{loop}:{port}")
        if other != port:
            assert not request_allowed(hosts, f"{loop}:{other}", None)
            assert not request_allowed(hosts, f"{loop}:{port}", f"http://{loop}:{other}")
        assert not request_allowed(hosts, loop, None)  # no port is no match
    assert not request_allowed(hosts, f"0.0.0.0:{port}", None)
    assert not request_allowed(hosts, f"[::]:{port}", None)
    listed = {
        "box.lan": f"box.lan:{port}",
        "nas:9000": "nas:9000",
        "[fe80::1]": f"[fe80::1]:{port}",
    }
    expected = {f"{n}:{port}" for n in ("127.0.0.1", "localhost", "[::1]")}
    expected |= {listed[e] for e in extra}
    if bind not in ("0.0.0.0", "::"):
        expected.add(f"[{bind}]:{port}" if ":" in bind else f"{bind}:{port}")
    assert hosts == expected
    assert request_allowed(hosts, name, None) == (name.lower() in expected)
    assert not request_allowed(hosts, f"{loop}:{port}", "null")
