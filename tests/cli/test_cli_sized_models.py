"""trinho against a strict fake llama.cpp: a 1,024-token context, a tokenizer, slots that say
when the server is still computing, a chat format that drops the system message; on the
file workspace and on a PostgreSQL owner alike (`cli_backend`)."""

from __future__ import annotations

import io
import json
import sys

import pytest

from support.backends import CliBackend
from support.fake_model_server import FakeServer, Reply, fake_prompt_tokens, openai_reply
from trinho.cli import main
from trinho.conversations.store import read_turns
from trinho.workspace import CONFIG_PATH, open_workspace

LONG = (
    "Hôm nay tôi đi chợ Đồng Xuân mua rau, thịt và trái cây; chiều đón Mai ở trường, tối "
    "gọi cho mẹ ở Huế. "
) * 3


@pytest.fixture
def llama(cli_backend: CliBackend, monkeypatch: pytest.MonkeyPatch) -> CliBackend:
    for var in ("OLLAMA_HOST", "OPENAI_API_KEY", "OPENAI_BASE_URL", "TRINHO_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("TRINHO_MODEL", "llamacpp:m")
    return cli_backend


def configure(backend: CliBackend, section: str) -> None:
    config = backend.home / CONFIG_PATH
    config.write_text(config.read_text() + "\n" + section + "\n")


def serve(monkeypatch: pytest.MonkeyPatch, srv: FakeServer) -> None:
    monkeypatch.setenv("TRINHO_BASE_URL", f"{srv.url}/v1")


def chats(srv: FakeServer) -> list[dict[str, object]]:
    return [s.body for s in srv.posts if s.path.endswith("/chat/completions")]


def test_ten_turns_on_a_1024_token_server_never_outgrow_its_context(
    llama: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(llama, "[condense]\ncontext_tokens = 1024")
    with FakeServer(
        Reply(openai_reply("Đã ghi nhận. " * 6)), context_tokens=1024, llamacpp=True
    ) as srv:
        serve(monkeypatch, srv)
        args = [a for n in range(10) for a in ("-m", f"{n}: {LONG}")]
        assert main(["chat", *args]) == 0
    out = capsys.readouterr().out
    assert out.count("Đã ghi nhận.") >= 10
    bodies = chats(srv)
    assert len(bodies) == 10
    for body in bodies:  # each fits with its answer: no refusal, no answer cut by the context
        assert fake_prompt_tokens(body) + int(body["max_tokens"]) <= 1024  # type: ignore[call-overload]
    histories = [len(b["messages"]) - 2 for b in bodies]  # type: ignore[arg-type]
    assert histories[0] == 0 and max(histories) >= 2  # the latest turns go along...
    assert max(histories) < 18  # ...the oldest left
    with llama.view() as root:
        ws = open_workspace(root)
        turns = [s.turn for s in read_turns(ws, ws.today(), ws.today())]
    assert sum(t.role == "user" for t in turns) == 10  # all of them stay in the transcript


def test_a_refusal_for_length_is_asked_once_more_with_no_history(
    llama: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(llama, "[condense]\ncontext_tokens = 8192")  # the owner says more than it has
    with FakeServer(Reply(openai_reply("Vâng.")), context_tokens=3000, llamacpp=True) as srv:
        serve(monkeypatch, srv)
        assert (
            main(["chat", "-m", LONG * 2, "-m", LONG * 2, "-m", LONG * 2, "-m", "Còn gì nữa?"]) == 0
        )
    assert capsys.readouterr().out.count("Vâng.") == 4
    refused = [s for s in srv.posts if s.path.endswith("/chat/completions")]
    counts = [fake_prompt_tokens(s.body) for s in refused]
    assert any(c > 3000 for c in counts)  # refused, as llama.cpp refuses
    last = refused[-1].body
    assert fake_prompt_tokens(last) <= 3000 and len(last["messages"]) == 2


def test_a_reply_cut_at_the_length_limit_is_marked_as_cut(
    llama: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(llama, "[condense]\ncontext_tokens = 1024\n[model]\nmax_output_tokens = 256")
    with FakeServer(
        Reply(openai_reply("rất dài " * 400)), context_tokens=1024, llamacpp=True
    ) as srv:
        serve(monkeypatch, srv)
        assert main(["chat", "--json", "-m", "Kể chuyện đi"]) == 0
    (turn,) = json.loads(capsys.readouterr().out)["turns"]
    assert turn["cut"] is True
    assert turn["reply"].endswith("[the reply was cut at the length limit]")


def test_the_first_reply_is_shown_when_a_later_turn_fails(
    llama: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(llama, "[condense]\ncontext_tokens = 1024")
    with FakeServer(Reply(openai_reply("Chào bạn.")), context_tokens=1024, llamacpp=True) as srv:
        serve(monkeypatch, srv)
        assert main(["chat", "-m", "Chào", "-m", LONG * 8]) == 1
    captured = capsys.readouterr()
    assert captured.out == "Chào bạn.\n"
    assert "does not fit the model's context even without the earlier turns" in captured.err
    assert "[condense] context_tokens" in captured.err and captured.err.count("\n") == 1


def test_an_interactive_session_goes_on_after_an_overflow(
    llama: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(llama, "[condense]\ncontext_tokens = 1024")
    with FakeServer(Reply(openai_reply("Chào bạn.")), context_tokens=1024, llamacpp=True) as srv:
        serve(monkeypatch, srv)
        monkeypatch.setattr(sys, "stdin", io.StringIO(f"{LONG * 8}\nChào\n\n"))
        assert main(["chat"]) == 0
    captured = capsys.readouterr()
    assert "Chào bạn." in captured.out
    assert "does not fit the model's context" in captured.err


def test_model_check_fails_on_a_server_that_drops_the_system_message(
    llama: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeServer(Reply(openai_reply("ok")), drop_system=True) as srv:
        serve(monkeypatch, srv)
        assert main(["model", "check"]) == 1
    err = capsys.readouterr().err
    assert "drops the system message" in err and "--chat_format chatml" in err
    assert "not gemma" in err and err.count("\n") == 1


def test_model_check_tells_the_context_the_tokenizer_and_the_settings(
    llama: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeServer(Reply(openai_reply("ok")), context_tokens=1024, llamacpp=True) as srv:
        serve(monkeypatch, srv)
        assert main(["model", "check"]) == 0
        out = capsys.readouterr().out
        assert main(["model", "check", "--json"]) == 0
    assert "the system message arrives" in out
    assert "the server's context: 1024 tokens" in out
    assert "[condense] context_tokens = 1024" in out and "at most 921" in out
    assert "token counts: the server's own tokenizer" in out
    data = json.loads(capsys.readouterr().out)
    assert data["context_tokens"] == 1024 and data["token_estimate"]["source"] == "server"
    with_system = data["system_message"]["input_tokens_with"]
    assert with_system > data["system_message"]["input_tokens_without"] + 100


def test_a_timeout_on_a_server_still_computing_says_so(
    llama: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(llama, "[model]\ntimeout = 0.5")
    with FakeServer(Reply(openai_reply("ok"), delay=30), llamacpp=True) as srv:
        serve(monkeypatch, srv)
        assert main(["chat", "-m", "Chào"]) == 1
        assert srv.busy  # the abandoned answer is still being computed
    err = capsys.readouterr().err
    assert "the server is still computing it" in err and "[model] timeout" in err
    assert err.count("\n") == 1
