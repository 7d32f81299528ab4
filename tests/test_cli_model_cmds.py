"""`trinho model check` and `trinho usage`, end to end through the CLI entry point."""

from __future__ import annotations

import json
import socket

import pytest

from fake_model_server import FakeServer, Reply, error_body, openai_reply
from trinho.cli import main
from trinho.models.usage import LEDGER_PATH, UsageRecord, record_line
from trinho.workspace import open_workspace, parse_now


@pytest.fixture
def ready(
    cli_env: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> dict[str, str]:
    for var in (
        "OLLAMA_HOST",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
        "TRINHO_MODEL",
    ):
        monkeypatch.delenv(var, raising=False)
    assert main(["init", "--tz", "Asia/Ho_Chi_Minh"]) == 0
    capsys.readouterr()
    return cli_env


def test_model_check_says_what_answered_and_records_the_call(
    ready: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeServer(Reply(openai_reply("ok", prompt=12, completion=1))) as srv:
        monkeypatch.setenv("TRINHO_MODEL", "ollama:qwen3:8b")
        monkeypatch.setenv("OLLAMA_HOST", srv.url)
        assert main(["model", "check"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"ollama:qwen3:8b (served-model) answered from {srv.url}/v1 in ")
    assert out.rstrip().endswith("(13 tokens): ok")
    ledger = (open_workspace(ready["TRINHO_HOME"]).root / LEDGER_PATH).read_text()
    record = json.loads(ledger)
    assert (record["purpose"], record["model"], record["input_tokens"]) == (
        "check",
        "ollama:qwen3:8b",
        12,
    )


def test_model_check_json(
    ready: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeServer(Reply(openai_reply("ok"))) as srv:
        monkeypatch.setenv("TRINHO_MODEL", "ollama:qwen3:8b")
        monkeypatch.setenv("OLLAMA_HOST", srv.url)
        assert main(["model", "check", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is True and data["model"] == "ollama:qwen3:8b"
    assert data["base_url"] == f"{srv.url}/v1" and data["reply"] == "ok"
    assert data["usage"] == {"input_tokens": 11, "output_tokens": 7}


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize(
    ("env", "words"),
    [
        ({}, "error: no model configured: set TRINHO_MODEL"),
        ({"TRINHO_MODEL": "anthropic:claude-sonnet-4-5"}, "no API key: set ANTHROPIC_API_KEY"),
        ({"TRINHO_MODEL": "openai:gpt-4.1-mini"}, "no API key: set OPENAI_API_KEY"),
        ({"TRINHO_MODEL": "gpt-4"}, "is not PROVIDER:MODEL"),
        ({"TRINHO_MODEL": "ollama:m", "OLLAMA_HOST": "127.0.0.1:PORT"}, "cannot reach"),
    ],
)
def test_model_check_says_exactly_what_is_missing_in_one_line(
    ready: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    env: dict[str, str],
    words: str,
) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value.replace("PORT", str(_closed_port())))
    monkeypatch.setenv("TRINHO_HOME", ready["TRINHO_HOME"])
    assert main(["model", "check"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("trinho: error: ")
    assert words in captured.err
    assert captured.err.count("\n") == 1


def test_model_check_names_an_unknown_model(
    ready: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeServer(Reply(error_body('model "nope" not found, try pulling it first'), 404)) as srv:
        monkeypatch.setenv("TRINHO_MODEL", "ollama:nope")
        monkeypatch.setenv("OLLAMA_HOST", srv.url)
        assert main(["model", "check"]) == 1
    err = capsys.readouterr().err
    assert "unknown model 'nope'" in err and "try pulling it first" in err


def _seed(home: str) -> None:
    ws = open_workspace(home)
    path = ws.root / LEDGER_PATH
    rows = [
        UsageRecord(parse_now("2026-11-20T09:00:00+07:00"), "rewrite", "openai:a", 1000, 200),
        UsageRecord(
            parse_now("2026-11-28T23:30:00+07:00"),
            "screen",
            "openai:a",
            300,
            10,
            cached_input_tokens=120,
        ),
        UsageRecord(parse_now("2026-11-29T08:00:00+07:00"), "chat", "ollama:b", 50, 5),
    ]
    path.write_text("".join(record_line(r) + "\n" for r in rows) + "garbage\n", encoding="utf-8")


def test_usage_sums_the_ledger(ready: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    _seed(ready["TRINHO_HOME"])
    assert main(["usage", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["calls"], data["input_tokens"], data["output_tokens"]) == (3, 1350, 215)
    assert data["total_tokens"] == 1565
    assert data["by_purpose"]["screen"] == {
        "calls": 1,
        "input_tokens": 300,
        "output_tokens": 10,
        "total_tokens": 310,
        "cached_input_tokens": 120,
    }
    assert data["cached_input_tokens"] == 120
    assert data["by_model"]["ollama:b"]["calls"] == 1
    assert data["skipped_lines"] == 1 and data["since"] is None
    assert main(["usage", "--since", "2026-11-28", "--json"]) == 0
    since = json.loads(capsys.readouterr().out)
    assert (since["calls"], since["total_tokens"], since["since"]) == (2, 365, "2026-11-28")
    assert main(["usage", "--since", "2026-11-28"]) == 0
    human = capsys.readouterr().out
    assert human.startswith("2 calls, 365 tokens (350 in, 15 out) since 2026-11-28")
    assert "  screen: 1 calls, 310 tokens" in human
    assert "\n  of the input, 120 tokens came from a prompt cache\n" in human
    assert main(["usage", "--since", "2026-11-29"]) == 0
    assert "prompt cache" not in capsys.readouterr().out


def test_usage_empty_and_bad_since(
    ready: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["usage"]) == 0
    assert capsys.readouterr().out.strip() == "No model calls recorded"
    assert main(["usage", "--since", "last week"]) == 1
    err = capsys.readouterr().err
    assert "--since" in err and "YYYY-MM-DD" in err
