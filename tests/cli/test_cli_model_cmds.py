"""`trinho model check` and `trinho usage`, end to end through the CLI entry point, on the
file workspace and on a PostgreSQL owner alike (`cli_backend`)."""

from __future__ import annotations

import json
import socket

import pytest

from support.backends import CliBackend
from support.fake_model_server import FakeServer, Reply, error_body, llamacpp_error, openai_reply
from trinho.cli import main
from trinho.clock import parse_now
from trinho.models.ledger import LEDGER_PATH, UsageRecord, record_line
from trinho.workspace import CONFIG_PATH


def answers(text: str = "ok", prompt: int = 11, completion: int = 7) -> tuple[Reply, Reply]:
    """What a check's two requests get from a server that keeps the system message: the same
    answer, the second request counted 300 prompt tokens more for its system message."""
    return (
        Reply(openai_reply(text, prompt=prompt, completion=completion)),
        Reply(openai_reply(text, prompt=prompt + 300, completion=completion)),
    )


@pytest.fixture
def ready(cli_backend: CliBackend, monkeypatch: pytest.MonkeyPatch) -> CliBackend:
    """An initialised workspace (and on PostgreSQL its owner) with no model configured."""
    for var in (
        "OLLAMA_HOST",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
        "TRINHO_MODEL",
        "TRINHO_BASE_URL",
    ):
        monkeypatch.delenv(var, raising=False)
    return cli_backend


def test_model_check_says_what_answered_and_records_the_call(
    ready: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeServer(*answers(prompt=12, completion=1)) as srv:
        monkeypatch.setenv("TRINHO_MODEL", "ollama:qwen3:8b")
        monkeypatch.setenv("OLLAMA_HOST", srv.url)
        assert main(["model", "check"]) == 0
    first, *rest = capsys.readouterr().out.splitlines()
    assert first.startswith(f"ollama:qwen3:8b (served-model) answered from {srv.url}/v1 in ")
    assert first.endswith("(13 tokens): ok")
    assert rest[0] == "the system message arrives: 312 prompt tokens with it, 12 without"
    ledger = ready.read(LEDGER_PATH)
    if ready.kind == "pg":  # the owner's ledger, nothing written beside the database
        assert not (ready.home / LEDGER_PATH).exists()
    records = [json.loads(line) for line in ledger.splitlines()]
    assert [(r["purpose"], r["model"], r["input_tokens"]) for r in records] == [
        ("check", "ollama:qwen3:8b", 12),
        ("check", "ollama:qwen3:8b", 312),
    ]


def test_model_check_json(
    ready: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeServer(*answers()) as srv:
        monkeypatch.setenv("TRINHO_MODEL", "ollama:qwen3:8b")
        monkeypatch.setenv("OLLAMA_HOST", srv.url)
        assert main(["model", "check", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is True and data["model"] == "ollama:qwen3:8b"
    assert data["base_url"] == f"{srv.url}/v1" and data["reply"] == "ok"
    assert data["usage"] == {"input_tokens": 11, "output_tokens": 7}
    assert (data["listed_models"], data["warnings"], data["timeout"]) == (None, [], 600.0)
    assert data["system_message"] == {"input_tokens_with": 311, "input_tokens_without": 11}
    # no tokenizer, no context told: the estimate is calibrated by the answers' usage
    assert data["context_tokens"] is None and data["token_estimate"]["source"] == "usage"
    assert data["token_estimate"]["factor"] < 1
    assert [(seen.method, seen.path) for seen in srv.requests if seen.path.startswith("/v1")] == [
        ("GET", "/v1/models"),
        ("POST", "/v1/chat/completions"),
        ("POST", "/v1/chat/completions"),
    ]


def check_against(
    srv: FakeServer,
    name: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    *args: str,
) -> tuple[int, str, str]:
    """`trinho model check` against `srv`, named by TRINHO_BASE_URL: exit code, out, err."""
    monkeypatch.setenv("TRINHO_MODEL", name)
    monkeypatch.setenv("TRINHO_BASE_URL", f"{srv.url}/v1")
    code = main(["model", "check", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        (openai_reply("", completion=0), "the model answered nothing (no text, 0 tokens out"),
        (openai_reply("  \n", completion=2), "2 tokens out, stop reason stop)"),
        (
            {**openai_reply(None), "choices": [{"index": 0, "finish_reason": "length",
                                                 "message": {"role": "assistant", "content": ""}}]},
            "answered nothing within the check's 32 tokens (a thinking model",
        ),
    ],
)  # fmt: skip
def test_model_check_fails_when_the_model_answers_nothing(
    ready: CliBackend,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    reply: dict[str, object],
    words: str,
) -> None:
    with FakeServer(Reply(reply)) as srv:
        for args in ((), ("--json",)):
            code, out, err = check_against(srv, "llamacpp:qwen", monkeypatch, capsys, *args)
            assert (code, out) == (1, "")
            assert err.startswith("trinho: error: model llamacpp:qwen: ") and words in err
            assert err.count("\n") == 1


def test_model_check_says_which_model_llama_cpp_serves_whatever_name_is_asked(
    ready: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    served = "/models/Qwen3-8B-Q4_K_M.gguf"
    with FakeServer(
        Reply(openai_reply("ok")), models=[served], any_model=True, llamacpp=True
    ) as srv:
        code, out, err = check_against(srv, "llamacpp:qwen3:8b", monkeypatch, capsys)
        assert code == 0
        assert out.startswith(f"llamacpp:qwen3:8b (served-model) answered from {srv.url}/v1 in ")
        assert err == (
            f"warning: {srv.url}/v1 serves one model, '{served}', whatever name is asked: the "
            "answer came from it, not from 'qwen3:8b' (name it in TRINHO_MODEL or [model] name)\n"
        )
        code, out, err = check_against(srv, "llamacpp:qwen3:8b", monkeypatch, capsys, "--json")
    data = json.loads(out)
    assert (code, err, data["ok"], data["listed_models"]) == (0, "", True, [served])
    (warning,) = data["warnings"]
    assert warning.startswith(f"warning: {srv.url}/v1 serves one model, '{served}'")


@pytest.mark.parametrize(
    ("name", "listed"),
    [("ollama:qwen3:8b", ["gemma3:4b", "qwen3:8b"]), ("ollama:qwen3", ["qwen3:latest"])],
)
def test_model_check_says_nothing_more_when_the_server_lists_the_model(
    ready: CliBackend,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    listed: list[str],
) -> None:
    with FakeServer(*answers(), models=listed, any_model=True) as srv:
        code, out, err = check_against(srv, name, monkeypatch, capsys)
    assert (code, err) == (0, "")
    assert out.startswith(f"{name} (served-model) answered")


def test_model_check_warns_when_a_server_answers_for_a_model_it_does_not_list(
    ready: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeServer(*answers(), models=["a", "b"], any_model=True) as srv:
        code, _, err = check_against(srv, "lmstudio:c", monkeypatch, capsys)
    assert code == 0
    assert (
        err
        == f"warning: {srv.url}/v1 does not list 'c' among its models ('a', 'b'), yet it answered\n"
    )


def test_model_check_names_what_a_server_serves_when_the_model_is_unknown(
    ready: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    listed = [f"Qwen/Qwen3-{n}B" for n in (1, 4, 8, 14, 32, 72)]
    with FakeServer(Reply(openai_reply("never")), models=listed) as srv:
        code, out, err = check_against(srv, "vllm:qwen3", monkeypatch, capsys)
    assert (code, out, err.count("\n")) == (1, "", 1)
    assert err == (
        f"trinho: error: model vllm:qwen3: unknown model 'qwen3' at {srv.url}/v1 (404): The model "
        "`qwen3` does not exist.; it serves 'Qwen/Qwen3-1B', 'Qwen/Qwen3-4B', 'Qwen/Qwen3-8B', "
        "'Qwen/Qwen3-14B', 'Qwen/Qwen3-32B', … (+1): name one in TRINHO_MODEL or [model] name\n"
    )


def test_a_failed_check_is_in_the_ledger_and_in_trinho_usage(
    ready: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeServer(*answers(prompt=12, completion=1)) as srv:
        assert check_against(srv, "llamacpp:m", monkeypatch, capsys)[0] == 0
    code, _, err = check_against(srv, "llamacpp:m", monkeypatch, capsys)  # the server is gone
    assert code == 1 and "cannot reach" in err and "(TRINHO_BASE_URL names this address)" in err
    assert main(["usage", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["calls"], data["failed_calls"], data["total_tokens"]) == (3, 1, 326)
    assert data["by_failure"] == {"unreachable": 1}
    assert data["by_model"]["llamacpp:m"]["failed_calls"] == 1
    assert main(["usage"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "3 calls, 326 tokens (324 in, 2 out)",
        "  1 of them failed: unreachable 1",
        "By purpose:",
        "  check: 3 calls (1 failed), 326 tokens",
        "By model:",
        "  llamacpp:m: 3 calls (1 failed), 326 tokens",
    ]


def test_a_servers_multi_line_error_is_one_line_in_a_vietnamese_workspace(
    ready: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = ready.home / CONFIG_PATH
    config.write_text(config.read_text("utf-8").replace('locale = "en"', 'locale = "vi"'))
    dump = (
        "1 validation error for ChatCompletionRequest\nmessages.0.content\n"
        "  Input should be a valid string [type=string_type, input_value=None]\n"
    )
    with FakeServer(llamacpp_error(dump)) as srv:
        code, out, err = check_against(srv, "llamacpp:m", monkeypatch, capsys)
    assert (code, out, len(srv.posts)) == (1, "", 1)
    assert err == (
        f"trinho: error: mô hình llamacpp:m: {srv.url}/v1 từ chối yêu cầu (500): "
        "messages.0.content: Input should be a valid string\n"
    )


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
    ready: CliBackend,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    env: dict[str, str],
    words: str,
) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value.replace("PORT", str(_closed_port())))
    monkeypatch.setenv("TRINHO_HOME", str(ready.home))
    assert main(["model", "check"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("trinho: error: ")
    assert words in captured.err
    assert captured.err.count("\n") == 1


def test_model_check_names_an_unknown_model(
    ready: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeServer(Reply(error_body('model "nope" not found, try pulling it first'), 404)) as srv:
        monkeypatch.setenv("TRINHO_MODEL", "ollama:nope")
        monkeypatch.setenv("OLLAMA_HOST", srv.url)
        assert main(["model", "check"]) == 1
    err = capsys.readouterr().err
    assert "unknown model 'nope'" in err and "try pulling it first" in err


def _seed(backend: CliBackend) -> None:
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
    backend.write(LEDGER_PATH, "".join(record_line(r) + "\n" for r in rows) + "garbage\n")


def test_usage_sums_the_ledger(ready: CliBackend, capsys: pytest.CaptureFixture[str]) -> None:
    _seed(ready)
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
        "failed_calls": 0,
    }
    assert (data["failed_calls"], data["by_failure"]) == (0, {})
    assert data["cached_input_tokens"] == 120
    assert data["by_model"]["ollama:b"]["calls"] == 1
    assert data["skipped_lines"] == 1 and data["since"] is None
    assert main(["usage", "--since", "2026-11-28", "--json"]) == 0
    since = json.loads(capsys.readouterr().out)
    assert (since["calls"], since["total_tokens"], since["since"]) == (2, 365, "2026-11-28")
    assert main(["usage", "--since", "2026-11-28"]) == 0
    human = capsys.readouterr().out
    assert human.startswith("2 calls, 365 tokens (350 in, 15 out) since 2026-11-28")
    assert "  screen: 1 call, 310 tokens" in human
    assert "\n  of the input, 120 tokens came from a prompt cache\n" in human
    assert main(["usage", "--since", "2026-11-29"]) == 0
    assert "prompt cache" not in capsys.readouterr().out


def test_usage_empty_and_bad_since(ready: CliBackend, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["usage"]) == 0
    assert capsys.readouterr().out.strip() == "No model calls recorded"
    assert main(["usage", "--since", "last week"]) == 1
    err = capsys.readouterr().err
    assert "--since" in err and "YYYY-MM-DD" in err
