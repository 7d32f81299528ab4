"""`trinho chat -m` on the file workspace and on a PostgreSQL owner alike (`cli_backend`): on
the database each turn runs on a working copy of the owner's records and is checked in when it
ends, the conversation's history carried to the next turn."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fake_model_server import FakeServer, Reply, openai_reply
from pg.fixtures import CliBackend
from trinho.cli import main


def js(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    code = main([*args, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_a_chat_saves_its_note_and_turns_and_carries_its_history_on_both_backends(
    cli_backend: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for var in ("TRINHO_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "OLLAMA_HOST"):
        monkeypatch.delenv(var, raising=False)
    save = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "memory_save", "arguments": '{"text": "Mua hoa cho mẹ"}'},
    }
    replies = [openai_reply(None, [save]), openai_reply("Đã nhớ."), openai_reply("Hoa sen.")]
    with FakeServer(*(Reply(r) for r in replies)) as server:
        config = cli_backend.home / ".trinho" / "config.toml"
        config.write_text(
            config.read_text() + f'\n[model]\nname = "ollama:test"\nbase_url = "{server.url}/v1"\n'
        )
        data = js(capsys, "chat", "-m", "nhớ mua hoa cho mẹ", "-m", "hoa gì?")
        last = server.posts[-1].body["messages"]
    assert [t["reply"] for t in data["turns"]] == ["Đã nhớ.", "Hoa sen."]
    assert data["turns"][0]["tools"] == [{"name": "memory_save", "error": False}]
    assert any("nhớ mua hoa cho mẹ" in str(m.get("content")) for m in last)  # the history
    assert [e["text"] for e in js(capsys, "notes")["entries"]] == ["Mua hoa cho mẹ"]
    text = js(capsys, "get", "conversations/2026-11-29.jsonl")["text"]
    said = [json.loads(line)["text"] for line in text.splitlines()]
    assert said == ["nhớ mua hoa cho mẹ", "Đã nhớ.", "hoa gì?", "Hoa sen."]
