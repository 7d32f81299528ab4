"""`trinho.Memory`, the embedding entry point, and the README's agent loop run for real."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

import trinho
from conftest import TZ, FixedClock
from trinho.notes.store import read_notes
from trinho.workspace import CONFIG_PATH

ROOT = Path(__file__).resolve().parents[1]


def test_memory_opens_gives_context_tools_and_dispatches(tmp_path: Path, clock: FixedClock) -> None:
    memory = trinho.Memory(tmp_path / "ws", create=True, timezone=TZ, locale="vi", clock=clock)
    assert memory.tools("anthropic")[0]["name"] == "memory_save"
    assert memory.tools() == trinho.tools.service.export("openai")
    before = memory.context()
    assert isinstance(before, trinho.Context)
    assert before.preamble == ""
    result = memory.call("memory_save", {"text": "Bé Na thích màu xanh"})
    assert isinstance(result, trinho.ToolResult) and not result.is_error
    job = memory.call("memory_save", '{"text": "Job: đã dọn hộp thư"}', actor="job")
    assert not job.is_error
    bad = memory.call("memory_save", {"text": ""}, actor=trinho.Actor("job", "nightly"))
    assert bad.is_error
    after = memory.context()
    assert after.system == before.system
    assert "## Ghi chú hôm nay (2026-11-29)" in after.preamble
    assert "Bé Na thích màu xanh" in after.preamble
    reopened = trinho.Memory(tmp_path / "ws", clock=clock)
    assert reopened.context() == after


def test_call_never_raises_even_for_an_unknown_actor(tmp_path: Path, clock: FixedClock) -> None:
    memory = trinho.Memory(tmp_path, create=True, timezone=TZ, clock=clock)
    result = memory.call("memory_save", {"text": "x"}, actor="robot")  # type: ignore[arg-type]
    assert result.is_error
    assert "actor kind must be 'chat' or 'job'" in result.text
    assert not memory.workspace.note_path(memory.workspace.today()).exists()


def test_memory_speaks_the_profile_asked_or_configured(tmp_path: Path, clock: FixedClock) -> None:
    memory = trinho.Memory(tmp_path / "ws", create=True, timezone=TZ, clock=clock)
    assert memory.tools("mcp", profile="openclaw") == trinho.tools.service.export("mcp", "openclaw")
    missing = {"path": "memory/1999-01-01.md"}
    got = memory.call("memory_get", missing, profile="openclaw").data
    assert got == {"status": "not_found", **missing, "text": ""}
    assert memory.call("memory_get", missing).is_error  # trinho's own: no such file
    config = memory.workspace.root / CONFIG_PATH
    config.write_text(config.read_text() + '\n[tools]\nprofile = "openclaw"\n')
    configured = trinho.Memory(tmp_path / "ws", clock=clock)
    assert configured.tools("mcp") == trinho.tools.service.export("mcp", "openclaw")
    assert configured.call("memory_get", missing).data == {
        "status": "not_found",
        **missing,
        "text": "",
    }
    assert configured.tools("mcp", profile="default") == trinho.tools.service.export("mcp")
    assert configured.call("memory_get", missing, profile="default").is_error
    unknown = memory.call("memory_get", missing, profile="hermes")  # type: ignore[arg-type]
    assert unknown.is_error and "unknown tool profile 'hermes'" in unknown.text


def test_opening_a_missing_workspace_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(trinho.TrinhoError, match="no workspace at"):
        trinho.Memory(tmp_path / "nowhere")


def test_import_stays_light() -> None:
    code = (
        "import sys, trinho; "
        "print([m for m in ('mcp', 'pydantic', 'starlette', 'jsonschema') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def readme_agent_loop() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    loop = next(block for block in blocks if "chat.completions.create" in block)
    return str(loop)


def test_readme_agent_loop_is_short_and_compiles() -> None:
    code = readme_agent_loop()
    compile(code, "README.md", "exec")
    assert len([line for line in code.splitlines() if line.strip()]) <= 16


class FakeOpenAI(BaseHTTPRequestHandler):
    """/v1/chat/completions: first a memory_save tool call, then a plain answer."""

    requests: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        FakeOpenAI.requests.append(body)
        if body["messages"][-1]["role"] == "tool":
            message: dict[str, Any] = {"role": "assistant", "content": "Đã nhớ."}
            finish = "stop"
        else:
            arguments = json.dumps({"text": "Mai đi khám răng lúc 9 giờ"}, ensure_ascii=False)
            call = {"name": "memory_save", "arguments": arguments}
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "call_1", "type": "function", "function": call}],
            }
            finish = "tool_calls"
        reply = {
            "id": f"chatcmpl-{len(FakeOpenAI.requests)}",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


@pytest.fixture
def fake_openai() -> Iterator[str]:
    FakeOpenAI.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeOpenAI)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_readme_agent_loop_runs_against_a_local_openai_server(
    tmp_path: Path,
    fake_openai: str,
    cli_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("openai")
    trinho.init_workspace(tmp_path / "assistant", timezone=TZ)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("OPENAI_BASE_URL", fake_openai)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    said = iter(["Nhớ giúp tôi: mai đi khám răng lúc 9 giờ"])

    def fake_input(prompt: str) -> str:
        try:
            return next(said)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr("builtins.input", fake_input)
    with pytest.raises(EOFError):
        exec(readme_agent_loop(), {"__name__": "readme"})
    assert capsys.readouterr().out == "Đã nhớ.\n"
    ws = trinho.open_workspace(tmp_path / "assistant")
    assert [e.text for e in read_notes(ws, ws.today()).entries] == ["Mai đi khám răng lúc 9 giờ"]
    first, second = FakeOpenAI.requests
    assert first["messages"][0]["role"] == "system"
    assert first["tools"] == trinho.tools.service.export("openai")
    assert second["messages"][-1]["tool_call_id"] == "call_1"
    assert json.loads(second["messages"][-1]["content"])["saved"].endswith("9 giờ")
