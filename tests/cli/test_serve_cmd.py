"""`trinho serve` as a real process: Telegram and the model over HTTP on 127.0.0.1, then SIGTERM.

Nothing is lost at the stop: the owner's message and the reply are in the transcript, the note
the model saved is on disk, and an announcement that could not be sent yet is still pending.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import START, TZ
from support.fake_bot_api import FakeBotApi
from support.fake_model_server import FakeServer, Reply, openai_reply
from support.serve_process import (
    SERVE,
    EchoModel,
    answers,
    reaped,
    run_until_answered,
    sigterm_while_building,
    terminated,
)
from trinho.channels import Notification, Outbox
from trinho.conversations.store import read_day
from trinho.notes.store import read_notes
from trinho.workspace import Workspace, init_workspace, open_workspace

pytestmark = pytest.mark.slow  # each test runs `trinho serve` as a process for seconds

OWNER = 77


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
        with reaped(proc):
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
            out, err = terminated(proc)
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
    assert len(model.posts) == 2


def test_sigterm_while_starting_exits_0_with_json_lines(api: FakeBotApi, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    configure(root, "http://127.0.0.1:9", api)
    with reaped(serve(root, EARLY_SIGTERM)) as proc:
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out == ""
    events = [json.loads(line) for line in err.splitlines()]
    assert [e["event"] for e in events] == ["serve.signal", "serve.stopping", "serve.stopped"]
    assert events[0]["signal"] == "SIGTERM"
    assert api.calls == []


# -- faults: SIGKILL and SIGTERM with owner messages queued ------------------------------------


def configure(root: Path, model_url: str, api: FakeBotApi) -> Workspace:
    ws = init_workspace(root, timezone=TZ).workspace
    config = root / ".trinho" / "config.toml"
    config.write_text(
        config.read_text("utf-8")
        + f'\n[model]\nname = "ollama:test"\nbase_url = "{model_url}/v1"\n'
        + f'\n[telegram]\ntoken = "123456:TEST-token"\nowner_id = {OWNER}\n'
        + f'base_url = "{api.base_url}"\n',
        "utf-8",
    )
    return ws


EARLY_SIGTERM = sigterm_while_building("trinho.serve.service", "build_service")
"""`trinho serve` receiving SIGTERM as it builds its parts, before anything runs."""


def serve(root: Path, code: str = SERVE) -> subprocess.Popen[str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("TRINHO_", "OPENAI_", "ANTHROPIC_", "OLLAMA_"))
    }
    env.update({"TRINHO_HOME": str(root), "TRINHO_NOW": START.isoformat()})
    return subprocess.Popen(
        [sys.executable, "-c", code, "serve"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def assert_answered_once_in_order(api: FakeBotApi, root: Path, count: int) -> None:
    expected = [f"re: msg-{n}" for n in range(1, count + 1)]
    assert answers(api) == expected
    turns = [(s.turn.role, s.turn.text) for s in read_day(open_workspace(root), START.date())]
    assert turns == [
        pair
        for n in range(1, count + 1)
        for pair in (("user", f"msg-{n}"), ("assistant", f"re: msg-{n}"))
    ]


def restarted(root: Path, model: EchoModel) -> subprocess.Popen[str]:
    """`serve` on the workspace again, the process the model kills when told to."""
    proc = serve(root)
    model.victim = proc
    return proc


def test_sigkill_with_ten_messages_queued_loses_none(api: FakeBotApi, tmp_path: Path) -> None:
    model = EchoModel()
    root = tmp_path / "ws"
    with model:
        configure(root, model.url, api)
        for n in range(1, 11):
            api.say(f"msg-{n}", user_id=OWNER, chat_id=OWNER)
        model.kill_at = {2}
        assert run_until_answered(api, lambda: restarted(root, model), 10) == 1
    assert api.updates == []  # all confirmed: Telegram has forgotten them
    assert_answered_once_in_order(api, root, 10)


def test_repeated_sigkills_during_a_burst_lose_nothing_and_answer_once(
    api: FakeBotApi, tmp_path: Path
) -> None:
    model = EchoModel()
    root = tmp_path / "ws"
    sends = itertools.count(1)
    kill_sends = {3, 9, 15}
    victim: list[subprocess.Popen[str]] = []

    def before(method: str, params: dict[str, Any]) -> bool:
        """Kill the service when a reply reaches Telegram, before Telegram takes it."""
        if method != "sendMessage" or next(sends) not in kill_sends or model.victim is None:
            return False
        model.victim.kill()
        model.victim.wait()
        victim.append(model.victim)
        return True

    with model:
        configure(root, model.url, api)
        for n in range(1, 31):
            api.say(f"msg-{n}", user_id=OWNER, chat_id=OWNER)
        model.kill_at = {5, 12, 20}
        api.before = before
        assert run_until_answered(api, lambda: restarted(root, model), 30) == 6
    assert len(victim) == 3
    assert_answered_once_in_order(api, root, 30)


def test_sigterm_with_a_long_queue_exits_0_and_keeps_the_queue(
    api: FakeBotApi, tmp_path: Path
) -> None:
    model = EchoModel()
    root = tmp_path / "ws"
    with model:
        configure(root, model.url, api)
        for n in range(1, 21):
            api.say(f"msg-{n}", user_id=OWNER, chat_id=OWNER)
        with reaped(serve(root)) as proc:
            api.wait_for(lambda: len(answers(api)) >= 2, 60)
            out, err = terminated(proc)
        assert proc.returncode == 0, err
        assert out == ""
        names = [json.loads(line)["event"] for line in err.splitlines()]
        assert names[-1] == "serve.stopped"
        done = len(answers(api))
        assert done < 20
        model.kill_at = set()
        assert run_until_answered(api, lambda: restarted(root, model), 20) == 0
    assert_answered_once_in_order(api, root, 20)
