"""`trinho serve` as a real process: Telegram and the model over HTTP on 127.0.0.1, then SIGTERM.

Nothing is lost at the stop: the owner's message and the reply are in the transcript, the note
the model saved is on disk, and an announcement that could not be sent yet is still pending.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import START, TZ
from fake_bot_api import FakeBotApi
from fake_model_server import FakeServer, Reply, openai_reply
from trinho.channels import Notification, Outbox
from trinho.notes import read_notes
from trinho.transcripts import read_day
from trinho.workspace import init_workspace, open_workspace

OWNER = 77
SERVE = "import sys; from trinho.cli import main; sys.exit(main())"


@pytest.fixture
def api() -> Iterator[FakeBotApi]:
    with FakeBotApi() as server:
        yield server


def test_serve_answers_the_owner_and_stops_cleanly_on_sigterm(
    api: FakeBotApi, tmp_path: Path
) -> None:
    save = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "memory_save", "arguments": '{"text": "Mai đi Đà Lạt"}'},
    }
    model = FakeServer(Reply(openai_reply(None, [save])), Reply(openai_reply("Đã ghi nhớ.")))
    root = tmp_path / "ws"
    ws = init_workspace(root, timezone=TZ).workspace
    with model:
        config = root / ".trinho" / "config.toml"
        config.write_text(
            config.read_text("utf-8")
            + f'\n[model]\nname = "ollama:test"\nbase_url = "{model.url}/v1"\n'
            + f'\n[telegram]\ntoken = "123456:TEST-token"\nowner_id = {OWNER}\n'
            + f'base_url = "{api.base_url}"\n',
            "utf-8",
        )
        Outbox(ws).enqueue(Notification("digest:2026-11-29", "Nightly jobs", "nothing"))
        api.fail("sendMessage", 1, status=502)
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("TRINHO_", "OPENAI_", "ANTHROPIC_", "OLLAMA_"))
        }
        env.update({"TRINHO_HOME": str(root), "TRINHO_NOW": START.isoformat()})
        proc = subprocess.Popen(
            [sys.executable, "-c", SERVE, "serve"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            api.wait_for(
                lambda: proc.poll() is not None or any(c.method == "getUpdates" for c in api.calls),
                timeout=60,
            )
            assert proc.poll() is None, proc.communicate()
            api.wait_for(lambda: any(c.status == 502 for c in api.calls), timeout=60)
            api.say("nhớ giùm: mai đi Đà Lạt", user_id=OWNER, chat_id=OWNER)
            api.wait_for(
                lambda: any(c.params["text"] == "Đã ghi nhớ." for c in api.ok_calls("sendMessage")),
                timeout=60,
            )
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert proc.returncode == 0, err
    assert out == ""
    events = [json.loads(line) for line in err.splitlines()]
    names = [e.get("event") for e in events]
    assert names[0] == "serve.start"
    assert {"serve.signal", "serve.stopping", "serve.stopped"} <= set(names)
    stopped = next(e for e in events if e.get("event") == "serve.stopped")
    assert stopped["pending_announcements"] == ["digest:2026-11-29"]
    ws = open_workspace(root)
    day = START.date()
    assert [(s.turn.role, s.turn.text) for s in read_day(ws, day)] == [
        ("user", "nhớ giùm: mai đi Đà Lạt"),
        ("assistant", "Đã ghi nhớ."),
    ]
    assert [e.text for e in read_notes(ws, day).entries] == ["Mai đi Đà Lạt"]
    (entry,) = Outbox(ws).entries()
    assert (entry.status, entry.attempts, entry.in_flight) == ("pending", 1, False)
    assert len(model.requests) == 2
