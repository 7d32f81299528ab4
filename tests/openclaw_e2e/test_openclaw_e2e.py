"""trinho as OpenClaw's memory, against the real OpenClaw (npm `openclaw`, the version pinned in
openclaw-plugin/package-lock.json): setup, the plugin in the memory slot, the tools called
through the gateway's `POST /tools/invoke` with no model, then the plugin removed and OpenClaw's
own memory finding what trinho saved.

Runs only where `TRINHO_OPENCLAW` names the `openclaw` command (Node 24 first on PATH):
`.ci/openclaw-e2e` installs both from npm and runs this file. Everything OpenClaw writes goes
under the test's temporary HOME.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

OPENCLAW = os.environ.get("TRINHO_OPENCLAW", "")
PLUGIN = Path(__file__).parents[2] / "openclaw-plugin"
TRINHO = str(Path(sys.executable).parent / "trinho")
TOKEN = "trinho-e2e-token"
NOTE = "Mẹ hẹn khám răng thứ Sáu 9 giờ"
SAVED = "Cuối tuần đi Đà Lạt với Lan, nhớ mang áo khoác"

pytestmark = pytest.mark.skipif(
    not OPENCLAW, reason="needs the real OpenClaw: TRINHO_OPENCLAW (see .ci/openclaw-e2e)"
)


class OpenClaw:
    """The openclaw command with its own HOME, and a gateway it started."""

    def __init__(self, home: Path, workspace: Path) -> None:
        self.home = home
        self.workspace = workspace
        # trinho on the PATH, as the install in docs/openclaw.md assumes.
        path = f"{Path(TRINHO).parent}{os.pathsep}{os.environ.get('PATH', '')}"
        self.env = {**os.environ, "HOME": str(home), "OPENCLAW_HOME": str(home), "PATH": path}
        for name in ("OPENCLAW_CONFIG_PATH", "OPENCLAW_STATE_DIR", "OPENCLAW_PROFILE"):
            self.env.pop(name, None)
        self.port = free_port()
        self.gateway: subprocess.Popen[bytes] | None = None

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [OPENCLAW, *args], env=self.env, capture_output=True, text=True, timeout=600
        )
        if check and done.returncode != 0:
            raise AssertionError(f"openclaw {' '.join(args)}: {done.stdout}\n{done.stderr}")
        return done

    def config(self) -> dict[str, Any]:
        path = self.home / ".openclaw" / "openclaw.json"
        return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]

    def lint(self) -> subprocess.Popen[str]:
        """`openclaw doctor --lint`, started (it takes most of a minute): `findings` reads it."""
        return subprocess.Popen(
            [OPENCLAW, "doctor", "--lint"], env=self.env, stdout=subprocess.PIPE, text=True
        )

    def start(self, log: Path) -> None:
        args = ["gateway", "run", "--port", str(self.port), "--bind", "loopback"]
        args += ["--auth", "token", "--token", TOKEN]
        with log.open("wb") as out:
            self.gateway = subprocess.Popen(
                [OPENCLAW, *args], env=self.env, stdout=out, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            assert self.gateway.poll() is None, log.read_text(errors="replace")
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/", timeout=5).close()
                return
            except urllib.error.HTTPError:
                return  # it answers
            except OSError:
                time.sleep(1)
        raise AssertionError("the gateway did not start: " + log.read_text(errors="replace"))

    def stop(self) -> None:
        if self.gateway is not None and self.gateway.poll() is None:
            self.gateway.terminate()
            try:
                self.gateway.wait(60)
            except subprocess.TimeoutExpired:
                self.gateway.kill()
                self.gateway.wait()

    def invoke(self, tool: str, args: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """POST /tools/invoke: (HTTP status, body)."""
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/tools/invoke",
            data=json.dumps({"tool": tool, "args": args}).encode(),
            headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=120) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"{}")

    def details(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        status, body = self.invoke(tool, args)
        assert status == 200 and body["ok"], body
        content = body["result"]["content"]
        assert (
            content[0]["type"] == "text"
            and json.loads(content[0]["text"]) == (body["result"]["details"])
        )
        return body["result"]["details"]  # type: ignore[no-any-return]


def findings(lint: subprocess.Popen[str]) -> set[tuple[str, str]]:
    """A lint's findings, as (check, path)."""
    out, _ = lint.communicate(timeout=600)
    report = json.loads(out[out.index("{") :])
    return {(f["checkId"], f.get("path", "")) for f in report["findings"]}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def openclaw(tmp_path: Path) -> Iterator[OpenClaw]:
    home = tmp_path / "home"
    home.mkdir()
    claw = OpenClaw(home, tmp_path / "workspace")
    try:
        yield claw
    finally:
        claw.stop()


def trinho(workspace: Path, *args: str) -> str:
    done = subprocess.run(
        [TRINHO, "--workspace", str(workspace), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def test_trinho_is_openclaws_memory(openclaw: OpenClaw, tmp_path: Path) -> None:
    ws = openclaw.workspace
    openclaw.run("setup", "--baseline", "--workspace", str(ws))
    openclaw.run("config", "set", "memory.search.provider", "none")
    seeded = {p.name for p in ws.iterdir()}
    assert {"AGENTS.md", "BOOTSTRAP.md", ".git"} <= seeded and "memory" not in seeded
    before = findings(openclaw.lint())

    # The plugin as a clone of the repository has it (no node_modules), installed as the
    # docs say; it takes the memory slot.
    source = tmp_path / "plugin"
    source.mkdir()
    for name in ("package.json", "openclaw.plugin.json", "dist"):
        copy = shutil.copytree if (PLUGIN / name).is_dir() else shutil.copy
        copy(PLUGIN / name, source / name)
    openclaw.run("plugins", "install", "--force", "--accept-capabilities", str(source))
    openclaw.run("config", "set", "plugins.entries.trinho.config.dreaming.enabled", "false")
    plugins = openclaw.config()["plugins"]
    assert plugins["slots"]["memory"] == "trinho" and plugins["entries"]["trinho"]["enabled"]
    after = openclaw.lint()  # beside the gateway: both only read the config

    openclaw.start(tmp_path / "gateway.log")
    empty = openclaw.details("memory_search", {"query": "kham rang"})
    assert empty == {"results": []}  # trinho's answer, not memory-core's (no provider, debug)
    assert not (ws / "memory").exists() and (ws / "BOOTSTRAP.md").is_file()

    # A note trinho saved is found with the diacritics left out, and read back.
    trinho(ws, "note", NOTE)
    found = openclaw.details("memory_search", {"query": "kham rang", "maxResults": 100})
    hit = found["results"][0]
    assert hit["snippet"] == NOTE and hit["source"] == "memory"
    assert list(hit) == ["path", "startLine", "endLine", "score", "snippet", "source"]
    got = openclaw.details("memory_get", {"path": hit["path"], "from": hit["startLine"]})
    assert got["status"] == "ok" and got["path"] == hit["path"] and got["from"] == 1
    assert got["lines"] == 1 and got["text"].endswith(NOTE) and "truncated" not in got
    missing = openclaw.details("memory_get", {"path": "memory/1999-01-01.md"})
    assert missing == {"status": "not_found", "path": "memory/1999-01-01.md", "text": ""}
    refused = openclaw.details("memory_get", {"path": "../outside.md"})
    assert refused["status"] == "error" and refused["code"] == "MEMORY_PATH_NOT_ALLOWED"
    # A workspace file that is no memory file: OpenClaw's own memory_get refuses it too.
    (ws / "private").mkdir()
    (ws / "private" / "creds.txt").write_text("token=e2e-secret\n", encoding="utf-8")
    for other in ("AGENTS.md", "private/creds.txt"):
        not_memory = openclaw.details("memory_get", {"path": other})
        assert not_memory["status"] == "error" and not_memory["text"] == ""
        assert not_memory["code"] == "MEMORY_PATH_NOT_ALLOWED"
        assert "e2e-secret" not in json.dumps(not_memory)
    sessions = openclaw.details("memory_search", {"query": "x", "corpus": "sessions"})
    assert sessions["results"] == [] and sessions["disabled"] and sessions["unavailable"]
    assert sessions["warning"] and sessions["action"]
    status, bad = openclaw.invoke("memory_save", {"txt": "x"})
    assert status == 400 and "text: required" in bad["error"]["message"]

    # memory_save and user_memory_save write through trinho.
    saved = openclaw.details("memory_save", {"text": SAVED})
    assert saved["saved"].endswith(SAVED) and saved["path"].startswith("memory/")
    fact = openclaw.details(
        "user_memory_save", {"key": "home_city", "value": "Đà Nẵng", "basis": "user"}
    )
    assert fact["outcome"] == "created"
    assert openclaw.details("memory_search", {"query": "da lat ao khoac"})["results"]
    openclaw.stop()
    assert findings(after) <= before  # doctor finds nothing new with the plugin in the slot

    # The owner's git sees the notes, never trinho's own state.
    status_lines = subprocess.run(
        ["git", "-C", str(ws), "status", "--porcelain", "--untracked-files=all"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    untracked = {line[3:] for line in status_lines if line}
    assert untracked and all(not p.startswith((".trinho/", "users/")) for p in untracked)
    assert (ws / "BOOTSTRAP.md").is_file()

    # Removing the plugin gives OpenClaw its own memory back, and it finds what trinho saved.
    openclaw.run("plugins", "uninstall", "trinho", "--force")
    assert openclaw.config()["plugins"].get("slots", {}).get("memory") in (None, "memory-core")
    openclaw.run("memory", "index", "--force")
    out = openclaw.run("memory", "search", "Đà Lạt", "--json").stdout
    own = json.loads(out[out.index("{") :])
    assert any(SAVED in r["snippet"] and r["path"] == saved["path"] for r in own["results"])
    assert (ws / "BOOTSTRAP.md").is_file()


def install_plugin(openclaw: OpenClaw, tmp_path: Path, **config: object) -> None:
    """A fresh OpenClaw workspace with the plugin in the memory slot, as the docs install it,
    `config` set in its entry, and the gateway's `openclaw health` pointed at the test port."""
    openclaw.run("setup", "--baseline", "--workspace", str(openclaw.workspace))
    openclaw.run("config", "set", "memory.search.provider", "none")
    source = tmp_path / "plugin"
    source.mkdir()
    for name in ("package.json", "openclaw.plugin.json", "dist"):
        copy = shutil.copytree if (PLUGIN / name).is_dir() else shutil.copy
        copy(PLUGIN / name, source / name)
    openclaw.run("plugins", "install", "--force", "--accept-capabilities", str(source))
    openclaw.run("config", "set", "plugins.entries.trinho.config.dreaming.enabled", "false")
    for key, value in config.items():
        openclaw.run("config", "set", f"plugins.entries.trinho.config.{key}", json.dumps(value))
    for key, value in {"port": openclaw.port, "auth.mode": "token", "auth.token": TOKEN}.items():
        openclaw.run("config", "set", f"gateway.{key}", json.dumps(value))


def without_trinho(path: str) -> str:
    """PATH with every folder holding a `trinho` command left out."""
    kept = [d for d in path.split(os.pathsep) if d and not (Path(d) / "trinho").exists()]
    return os.pathsep.join(kept)


def gone(pid: int) -> bool:
    """The process has ended (a zombie not yet reaped has ended too)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    return "\nState:\tZ" in status


def test_a_missing_trinho_is_said_by_the_tools_and_by_health(
    openclaw: OpenClaw, tmp_path: Path
) -> None:
    install_plugin(openclaw, tmp_path)
    openclaw.env["PATH"] = without_trinho(openclaw.env["PATH"])
    openclaw.start(tmp_path / "gateway.log")
    for tool, args in (("memory_search", {"query": "x"}), ("memory_save", {"text": "x"})):
        status, body = openclaw.invoke(tool, args)
        assert status == 400 and not body["ok"], body  # never "404 Tool not available"
        message = body["error"]["message"]
        assert "`trinho` was not found" in message and "config.command" in message
    health = openclaw.run("health", "--json").stdout
    errors = json.loads(health[health.index("{") :])["plugins"]["errors"]
    assert any(e["id"] == "trinho" and "was not found" in e["error"] for e in errors)
    assert "was not found" in (tmp_path / "gateway.log").read_text(errors="replace")


def test_a_hung_trinho_is_ended_with_its_process_group_at_the_timeout(
    openclaw: OpenClaw, tmp_path: Path
) -> None:
    # A shell wrapper whose first `call --serve` hangs in a child of its own; after that it
    # runs trinho.
    hung = tmp_path / "hung.pid"
    wrapper = tmp_path / "trinho-wrapper"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = call ] && [ ! -e {hung} ]; then\n'
        f"  sleep 600 & echo $! > {hung}; wait\n"
        "fi\n"
        f'exec {TRINHO} "$@"\n',
        encoding="utf-8",
    )
    wrapper.chmod(0o755)
    install_plugin(openclaw, tmp_path, command=str(wrapper), timeoutSeconds=3)
    openclaw.start(tmp_path / "gateway.log")
    status, body = openclaw.invoke("memory_search", {"query": "kham rang"})
    assert status == 400, body
    message = body["error"]["message"]
    assert "timeout" in message and "process group" in message and "exit null" not in message
    deadline = time.monotonic() + 60
    while not gone(int(hung.read_text())) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert gone(int(hung.read_text()))  # the wrapper's child, not only the wrapper
    # The next call starts trinho again, and it answers.
    trinho(openclaw.workspace, "note", NOTE)
    found = openclaw.details("memory_search", {"query": "kham rang"})
    assert found["results"][0]["snippet"] == NOTE


def test_a_shadowed_slot_is_said_by_health(openclaw: OpenClaw, tmp_path: Path) -> None:
    # The dreaming line left out: memory-core loads beside trinho and shadows its tools.
    install_plugin(openclaw, tmp_path)
    openclaw.run("config", "set", "plugins.entries.trinho.config.dreaming.enabled", "true")
    openclaw.start(tmp_path / "gateway.log")
    health = openclaw.run("health", "--json").stdout
    errors = json.loads(health[health.index("{") :])["plugins"]["errors"]
    said = [e["error"] for e in errors if e["id"] == "trinho"]
    assert said and "shadow" in said[0] and "dreaming.enabled false" in said[0]


def test_openclaw_memory_is_answered_by_trinho_while_it_holds_the_slot(
    openclaw: OpenClaw, tmp_path: Path
) -> None:
    install_plugin(openclaw, tmp_path)
    trinho(openclaw.workspace, "note", NOTE)
    out = openclaw.run("memory", "search", "kham rang", "--json").stdout
    hits = json.loads(out[out.index("[{") :])
    assert hits[0]["text"] == NOTE  # trinho's answer: diacritics left out of the query
    assert "Search index" in openclaw.run("memory", "status").stdout
    assert "Search index" in openclaw.run("memory", "index", "--force").stdout


class FakeModel:
    """An OpenAI-compatible model server (`/v1/chat/completions`, streamed or not) that answers
    an agent turn with the tool calls it is given, one per request, then a last text: the
    agent's real tools then run in OpenClaw, hooks and all, with no model. `results` keeps the
    tool results the agent read."""

    def __init__(self, calls: list[tuple[str, dict[str, Any]]]) -> None:
        self.calls = calls
        self.results: list[str] = []
        model = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self._send(200, {"object": "list", "data": [{"id": "fake", "object": "model"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                done = [m for m in body["messages"] if m.get("role") == "tool"]
                model.results = [_text(m.get("content")) for m in done]
                step = len(done)
                if step < len(model.calls):
                    name, args = model.calls[step]
                    delta: dict[str, Any] = {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": f"call_{step}",
                                "type": "function",
                                "function": {"name": name, "arguments": json.dumps(args)},
                            }
                        ],
                    }
                    finish = "tool_calls"
                else:
                    delta, finish = {"role": "assistant", "content": "Done."}, "stop"
                if not body.get("stream"):
                    message = {k: v for k, v in delta.items()}
                    for call in message.get("tool_calls", []):
                        call.pop("index")
                    self._send(200, _completion(message, finish))
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for chunk in (_chunk(delta, None), _chunk({}, finish)):
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

            def _send(self, status: int, data: dict[str, Any]) -> None:
                raw = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _text(content: object) -> str:
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content)


def _usage() -> dict[str, int]:
    return {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}


def _chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    data: dict[str, Any] = {"id": "fake", "object": "chat.completion.chunk", "created": 0}
    data.update(model="fake", choices=[choice])
    if finish is not None:
        data["usage"] = _usage()
    return data


def _completion(message: dict[str, Any], finish: str) -> dict[str, Any]:
    choice = {"index": 0, "message": message, "finish_reason": finish}
    data: dict[str, Any] = {"id": "fake", "object": "chat.completion", "created": 0}
    data.update(model="fake", choices=[choice], usage=_usage())
    return data


def use_fake_model(openclaw: OpenClaw, url: str) -> None:
    """Point the default agent at the fake model server, in OpenClaw's own config."""
    path = openclaw.home / ".openclaw" / "openclaw.json"
    config = openclaw.config()
    model = {
        "id": "fake",
        "name": "fake",
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 64000,
        "maxTokens": 4096,
    }
    provider = {"baseUrl": url, "apiKey": "fake", "api": "openai-completions", "models": [model]}
    config.setdefault("models", {}).setdefault("providers", {})["fake"] = provider
    agents = config.setdefault("agents", {}).setdefault("defaults", {})
    agents["model"] = {"primary": "fake/fake"}
    path.write_text(json.dumps(config, indent=2), encoding="utf-8")


def test_the_agents_own_writes_of_memory_go_through_trinho(
    openclaw: OpenClaw, tmp_path: Path
) -> None:
    """An agent turn whose model calls OpenClaw's own write and edit tools on MEMORY.md (a
    scripted model server: no real model): no owner line leaves without a proposal, a dated
    entry of today is kept, and the agent reads what happened as the tools' answers; a write
    elsewhere is OpenClaw's as before; a line a shell deletes comes back as a proposal.
    memory_get through the gateway stays on memory files."""
    ws = openclaw.workspace
    install_plugin(openclaw, tmp_path)
    sister = "- 2026-01-02: Minh's sister Lan teaches piano"
    prose = "Viết tay: đừng xoá dòng này"
    tea = "- 2026-01-03: Minh likes green tea"
    owner = f"# Memory\n{sister}\n{prose}\n{tea}\n"
    (ws / "MEMORY.md").write_text(owner, encoding="utf-8")
    today = date.today().isoformat()  # trinho's day: the machine's zone, as OpenClaw's here
    added = f"- {today}: Minh bought a piano"
    calls: list[tuple[str, dict[str, Any]]] = [
        # write: the whole new file, one owner line dropped and one entry added
        ("write", {"path": "MEMORY.md", "content": owner.replace(prose + "\n", "") + added + "\n"}),
        # edit: an owner entry removed and another changed, by the absolute path
        (
            "edit",
            {
                "path": str(ws / "MEMORY.md"),
                "edits": [
                    {"oldText": sister + "\n", "newText": ""},
                    {"oldText": "Minh likes green tea", "newText": "Minh likes black tea"},
                ],
            },
        ),
        ("write", {"path": "users/owner/facts/home-city.md", "content": "Huế"}),
        ("write", {"path": "notes/todo.md", "content": "- buy milk\n"}),
        # a shell the plugin cannot stop: what it removed is put back and proposed
        ("exec", {"command": f"sed -i '/green tea/d' '{ws / 'MEMORY.md'}'"}),
    ]
    model = FakeModel(calls)
    try:
        use_fake_model(openclaw, model.url)
        turn = openclaw.run(
            "agent", "--local", "--agent", "main", "--message", "Tidy up MEMORY.md", "--json"
        )
    finally:
        model.close()
    assert len(model.results) == len(calls), (turn.stdout, turn.stderr)
    wrote, edited, fact = model.results[:3]
    assert "waiting for the owner" in wrote.lower() and prose in wrote and "memory_save" in wrote
    assert "proposal" in edited and sister in edited
    assert "user_memory_save" in fact
    lines = (ws / "MEMORY.md").read_text(encoding="utf-8").split("\n")
    assert added in lines
    assert all(line in lines for line in owner.rstrip("\n").split("\n"))
    assert not any("black tea" in line for line in lines)
    assert not (ws / "users" / "owner" / "facts" / "home-city.md").exists()
    assert (ws / "notes" / "todo.md").read_text(encoding="utf-8") == "- buy milk\n"
    # Every owner line that would have gone is a pending proposal from the agent.
    listed = json.loads(trinho(ws, "proposals", "--json"))
    olds = {p["change"]["old"] for p in listed if p["origin"] == "agent:main"}
    assert {prose, sister, tea} <= olds
    kinds = {p["change"]["class"] for p in listed if p["change"]["old"] == tea}
    assert kinds == {"edited", "removed"}, listed  # the edit, then the shell's deletion

    # memory_get serves memory files only, with OpenClaw's own code.
    openclaw.start(tmp_path / "gateway.log")
    (ws / "id_rsa").write_text("-----BEGIN e2e-secret-----\n", encoding="utf-8")
    (ws / "memory").mkdir(exist_ok=True)
    (ws / "memory" / "keys.txt").write_text("e2e-secret\n", encoding="utf-8")
    for path in ("id_rsa", "memory/keys.txt", "notes/todo.md", "SOUL.md"):
        got = openclaw.details("memory_get", {"path": path})
        assert got["status"] == "error" and got["code"] == "MEMORY_PATH_NOT_ALLOWED", got
        assert "e2e-secret" not in json.dumps(got) and got["text"] == ""
    assert openclaw.details("memory_get", {"path": "MEMORY.md"})["status"] == "ok"
