"""`trinho jobs list|run` and `trinho chat -m` through the CLI, the model over real HTTP, on the
file workspace and on a PostgreSQL owner alike (`cli_backend`): on the database each command
runs on a working copy of the owner's records, checked in when it ends."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Sequence

import pytest

from support.backends import CliBackend
from support.fake_model_server import FakeServer, Reply, openai_reply
from trinho.channels import Outbox
from trinho.channels.render import console_text
from trinho.cli import main
from trinho.conversations.store import read_day, record_turn
from trinho.notes.store import read_notes
from trinho.workspace import open_workspace


@pytest.fixture
def ws(cli_backend: CliBackend, monkeypatch: pytest.MonkeyPatch) -> CliBackend:
    """The CLI's owner on each backend in turn, in Asia/Ho_Chi_Minh, with no model configured."""
    for var in ("TRINHO_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "OLLAMA_HOST"):
        monkeypatch.delenv(var, raising=False)
    return cli_backend


def add_config(ws: CliBackend, text: str) -> None:
    path = ws.home / ".trinho" / "config.toml"
    path.write_text(path.read_text("utf-8") + "\n" + text, "utf-8")


@pytest.fixture
def model_server() -> Iterator[FakeServer]:
    save = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "memory_save", "arguments": '{"text": "Mua hoa cho mẹ"}'},
    }
    with FakeServer(Reply(openai_reply(None, [save])), Reply(openai_reply("Đã nhớ."))) as server:
        yield server


def waiting(ws: CliBackend) -> list[str]:
    """The owner's outbox, each announcement as the console channel would print it."""
    with ws.view() as root:
        entries = Outbox(open_workspace(root)).entries()
    return [console_text(entry.notification, "en") for entry in entries]


def announced(ws: CliBackend, err: str, earlier: Sequence[str] = ()) -> str:
    """What the owner was told by the command just run: on files, what the console channel
    printed (stderr); on PostgreSQL, what it added to the owner's outbox (`earlier`: what was
    there before), where a command on a working copy leaves its announcements for the owner's
    own channel, never sending them through the deployment's."""
    if ws.kind == "files":
        return err
    return "".join((Counter(waiting(ws)) - Counter(earlier)).elements())


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, object]:
    code = main([*args, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_jobs_list_shows_schedule_and_next_slot(
    ws: CliBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    add_config(ws, '[schedule]\ndigest = "off"\n')
    code, data = run_json(capsys, "jobs", "list")
    assert code == 0
    assert data == {
        "jobs": [
            {
                "name": "condense",
                "kind": "condense",
                "schedule": "sun 21:00",
                "next": "2026-11-29T21:00:00+07:00",
                "last_slot": None,
                "last_status": None,
                "last_error": None,
            },
            {
                "name": "facts",
                "kind": "facts",
                "schedule": "daily 02:00",
                "next": "2026-11-30T02:00:00+07:00",
                "last_slot": None,
                "last_status": None,
                "last_error": None,
            },
        ]
    }


def test_jobs_run_for_cron_catches_up_once(
    ws: CliBackend, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    add_config(ws, '[schedule]\ncondense = "off"\n')
    code, data = run_json(capsys, "jobs", "run")
    assert code == 0
    assert data == {
        "busy": False,
        "runs": [],
        "delivery": {"sent": [], "failed": [], "waiting": [], "in_doubt": []},
        "clock_back": [],
    }
    monkeypatch.setenv("TRINHO_NOW", "2026-12-03T08:00:00+07:00")
    code, data = run_json(capsys, "jobs", "run")
    assert code == 0
    assert isinstance(data, dict)
    assert [(r["run_id"], r["status"]) for r in data["runs"]] == [
        ("facts:2026-12-03T02:00", "ok"),
        ("digest:2026-12-03T07:00", "ok"),
    ]
    code, data = run_json(capsys, "jobs", "run")
    assert isinstance(data, dict) and data["runs"] == []


def test_jobs_run_after_the_clock_came_back_from_the_future_resumes_from_now(
    ws: CliBackend,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    add_config(ws, '[schedule]\ncondense = "off"\n')

    def run_at(now: str) -> dict[str, object]:
        monkeypatch.setenv("TRINHO_NOW", now)
        code, data = run_json(capsys, "jobs", "run")
        assert code == 0 and isinstance(data, dict)
        return data

    def run_ids(data: dict[str, object]) -> list[object]:
        runs = data["runs"]
        assert isinstance(runs, list)
        return [run["run_id"] for run in runs]

    run_at("2026-12-10T12:00:00+07:00")
    ahead = run_at("2027-06-01T09:00:00+07:00")
    assert run_ids(ahead) == ["facts:2027-06-01T02:00", "digest:2027-06-01T07:00"]
    back = run_at("2026-12-13T22:00:00+07:00")
    assert back["runs"] == []
    assert back["clock_back"] == [
        {
            "job": "digest",
            "covered_until": "2027-06-01T07:00:00+07:00",
            "now": "2026-12-13T22:00:00+07:00",
        },
        {
            "job": "facts",
            "covered_until": "2027-06-01T02:00:00+07:00",
            "now": "2026-12-13T22:00:00+07:00",
        },
    ]
    again = run_at("2026-12-13T22:15:00+07:00")
    assert again["runs"] == [] and again["clock_back"] == []
    assert run_ids(run_at("2026-12-14T08:00:00+07:00")) == [
        "facts:2026-12-14T02:00",
        "digest:2026-12-14T07:00",
    ]
    assert run_ids(run_at("2027-01-04T08:00:00+07:00")) == [
        "facts:2027-01-04T02:00",
        "digest:2027-01-04T07:00",
    ]
    monkeypatch.setenv("TRINHO_NOW", "2026-12-13T22:00:00+07:00")
    main(["jobs", "run"])
    human = capsys.readouterr()
    assert "The clock moved back: digest was covered until 2027-01-04T07:00:00+07:00" in human.out
    logged = [getattr(r, "fields", {}) for r in caplog.records if r.message == "clock moved back"]
    assert [(f["event"], f["job"]) for f in logged[-2:]] == [
        ("scheduler.clock_back", "digest"),
        ("scheduler.clock_back", "facts"),
    ]


def test_jobs_run_exits_1_when_a_run_failed(
    ws: CliBackend, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    add_config(ws, '[schedule]\ncondense = "off"\ndigest = "off"\n')
    main(["jobs", "run"])
    with ws.view() as root:  # something for the facts job to read
        record_turn(open_workspace(root), "user", "Tôi vừa chuyển về Huế")
    monkeypatch.setenv("TRINHO_NOW", "2026-11-30T03:00:00+07:00")
    assert main(["jobs", "run"]) == 1  # no model configured
    captured = capsys.readouterr()
    assert "facts:2026-11-30T02:00: failed no model configured" in captured.out
    assert "trinho: error: facts:2026-11-30T02:00 failed" in captured.err
    # announced to the owner, once, with the command that fixes it
    told = announced(ws, captured.err)
    assert told.count("Scheduled job facts failed") == 1
    assert "The run facts:2026-11-30T02:00 failed: no model configured" in told
    assert "trinho jobs list" in told
    earlier = waiting(ws)
    monkeypatch.setenv("TRINHO_NOW", "2026-11-30T03:30:00+07:00")
    main(["jobs", "run"])  # the next pass: nothing due, the failure is not announced again
    assert "Scheduled job facts failed" not in announced(ws, capsys.readouterr().err, earlier)
    _, data = run_json(capsys, "jobs", "list")
    assert isinstance(data, dict)
    assert data["jobs"][0]["last_status"] == "failed"


def test_bad_schedule_is_one_line_error(ws: CliBackend, capsys: pytest.CaptureFixture[str]) -> None:
    add_config(ws, '[schedule]\ncondense = "sunday at nine"\n')
    assert main(["jobs", "list"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("trinho: error: .trinho/config.toml [schedule] condense:")
    assert len(err.splitlines()) == 1


def test_chat_message_saves_a_note_and_records_the_turns(
    ws: CliBackend, model_server: FakeServer, capsys: pytest.CaptureFixture[str]
) -> None:
    add_config(ws, f'[model]\nname = "ollama:test"\nbase_url = "{model_server.url}/v1"\n')
    code, data = run_json(capsys, "chat", "-m", "nhớ mua hoa cho mẹ")
    assert code == 0
    assert data == {
        "turns": [
            {
                "message": "nhớ mua hoa cho mẹ",
                "reply": "Đã nhớ.",
                "tools": [{"name": "memory_save", "error": False}],
            }
        ]
    }
    with ws.view() as root:
        again = open_workspace(root)
        notes = [e.text for e in read_notes(again, again.today()).entries]
        turns = [(s.turn.role, s.turn.text) for s in read_day(again, again.today())]
    assert notes == ["Mua hoa cho mẹ"]
    assert turns == [("user", "nhớ mua hoa cho mẹ"), ("assistant", "Đã nhớ.")]


def test_chat_without_a_model_is_one_line_error(
    ws: CliBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["chat", "-m", "chào"]) == 1
    err = capsys.readouterr().err
    assert "no model configured" in err
    assert len(err.splitlines()) == 1


def test_a_chat_of_several_messages_with_a_tool_call_between_is_accepted_by_a_strict_server(
    ws: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    save = {
        "id": "call_9",
        "type": "function",
        "function": {"name": "memory_save", "arguments": '{"text": "Mua hoa cho mẹ"}'},
    }
    replies = [
        openai_reply("Chào anh."),
        openai_reply(None, [save]),
        openai_reply("Đã nhớ."),
        openai_reply("Dạ."),
    ]
    with FakeServer(*(Reply(r) for r in replies), models=["qwen3"], any_model=True) as srv:
        monkeypatch.setenv("TRINHO_MODEL", "llamacpp:qwen3")
        monkeypatch.setenv("TRINHO_BASE_URL", f"{srv.url}/v1")
        code, data = run_json(capsys, "chat", "-m", "chào", "-m", "nhớ mua hoa", "-m", "cảm ơn")
    assert code == 0
    assert data == {
        "turns": [
            {"message": "chào", "reply": "Chào anh.", "tools": []},
            {
                "message": "nhớ mua hoa",
                "reply": "Đã nhớ.",
                "tools": [{"name": "memory_save", "error": False}],
            },
            {"message": "cảm ơn", "reply": "Dạ.", "tools": []},
        ]
    }
    assert all(seen.path == "/v1/chat/completions" for seen in srv.posts)
    sent = [seen.body["messages"] for seen in srv.posts]
    assert len(sent) == 4
    assert [m["role"] for m in sent[2]] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
        "tool",
    ]
    calling, answer = sent[2][-2:]
    assert calling["content"] == "" and calling["tool_calls"][0]["id"] == "call_9"
    assert answer["tool_call_id"] == "call_9" and '"saved"' in answer["content"]
    assert [(m["role"], m["content"]) for m in sent[3][1:5]] == [
        ("user", "chào"),
        ("assistant", "Chào anh."),
        ("user", "nhớ mua hoa"),
        ("assistant", "Đã nhớ."),
    ]
    assert sent[3][-1]["role"] == "user" and sent[3][-1]["content"].endswith("cảm ơn")
    with ws.view() as root:
        again = open_workspace(root)
        assert [e.text for e in read_notes(again, again.today()).entries] == ["Mua hoa cho mẹ"]
    # what the chat saved and said, as the commands that read the owner's memory show it
    _, notes = run_json(capsys, "notes")
    assert isinstance(notes, dict)
    assert [e["text"] for e in notes["entries"]] == ["Mua hoa cho mẹ"]
    _, got = run_json(capsys, "get", "conversations/2026-11-29.jsonl")
    assert isinstance(got, dict)
    said = [json.loads(line)["text"] for line in got["text"].splitlines()]
    assert said == ["chào", "Chào anh.", "nhớ mua hoa", "Đã nhớ.", "cảm ơn", "Dạ."]
