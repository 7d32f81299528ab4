"""The service in-process, through the real python-telegram-bot against the fake Bot API:
the owner chats (a tool call taking effect), a nightly job's proposal is announced in the
digest and approved with a button, and a stop loses nothing."""

from __future__ import annotations

import io
import json
import logging
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import FixedClock
from support.fake_bot_api import FakeBotApi
from trinho.channels import Notification, Outbox
from trinho.channels.inbox import Inbox
from trinho.config import config_from
from trinho.conversations.store import read_day
from trinho.errors import TrinhoError
from trinho.facts import load_fact, save_fact
from trinho.models import ChatRequest, ChatResponse, ScriptedModel, ToolCall
from trinho.notes.store import read_notes
from trinho.proposals import store as proposals
from trinho.schedule.run import run_due
from trinho.serve.service import Timing, build_service, configure_logging
from trinho.workspace import Workspace, init_workspace, open_workspace

OWNER = 77
DIGEST = "Waiting for your approval"
FAST = Timing(scheduler_poll=0.1, outbox_poll=0.1, grace=15)


@pytest.fixture
def api() -> Iterator[FakeBotApi]:
    with FakeBotApi() as server:
        yield server


def env_for(api: FakeBotApi) -> dict[str, str]:
    return {
        "TRINHO_TELEGRAM_TOKEN": "123456:TEST-token",
        "TRINHO_TELEGRAM_OWNER_ID": str(OWNER),
        "TRINHO_TELEGRAM_BASE_URL": api.base_url,
    }


def replies(request: ChatRequest) -> ChatResponse | str:
    """The owner's chat saves a note; the nightly job proposes a fact; then a closing line."""
    last = request.messages[-1]
    if last.role == "tool":
        return "Xong."
    if "Nightly review" in last.text:
        args = {"key": "home_city", "value": "Huế", "basis": "user"}
        return ChatResponse("", (ToolCall("j1", "user_memory_save", args),))
    return ChatResponse("", (ToolCall("c1", "memory_save", {"text": "Mai đi Đà Lạt"}),))


def test_chat_digest_and_approval_through_telegram(
    api: FakeBotApi, workspace: Workspace, clock: FixedClock
) -> None:
    save_fact(workspace, "home_city", "Hà Nội", basis="user", actor="chat")
    run_due(workspace, workspace.config.jobs, lambda run: "")  # first sight
    service = build_service(workspace, env=env_for(api), model=ScriptedModel(replies), timing=FAST)
    with service.running():
        api.say("hello from a stranger", user_id=666, chat_id=666)
        api.say("nhớ giùm: mai đi Đà Lạt", user_id=OWNER, chat_id=OWNER)
        api.wait_for(lambda: any(c.params["text"] == "Xong." for c in api.ok_calls("sendMessage")))
        # the night passes: the facts job reads today's conversation, the digest announces
        clock.set("2026-11-30T07:30:00+07:00")
        api.wait_for(
            lambda: any(
                "Waiting for your approval, 2026-11-30" in c.params["text"]
                for c in api.ok_calls("sendMessage")
            )
        )
        digest = next(
            c for c in api.ok_calls("sendMessage") if "Waiting for your" in c.params["text"]
        )
        # it replaces what the owner said: no bulk button, it is shown and decided on its own
        buttons = dict(api.buttons(digest))
        assert not any(label.startswith("✅ Approve the") for label in buttons)
        shown = next(m for m, (text, _) in api.messages.items() if "Waiting for your" in text)

        def press(data: str) -> None:
            query = api.press(data, user_id=OWNER, chat_id=OWNER, message_id=shown)
            api.wait_for(
                lambda: any(
                    c.params.get("callback_query_id") == query
                    for c in api.ok_calls("answerCallbackQuery")
                )
            )

        press(buttons["🔍 Review one by one"])
        screen = api.ok_calls("editMessageText")[-1]
        press(dict(api.buttons(screen))["Replace what you said with “Huế”?"])
    notes = read_notes(workspace, clock.now.date().replace(day=29)).entries
    assert [e.text for e in notes] == ["Mai đi Đà Lạt"]
    day = read_day(workspace, clock.now.date().replace(day=29))
    assert [(s.turn.role, s.turn.text) for s in day] == [
        ("user", "nhớ giùm: mai đi Đà Lạt"),
        ("assistant", "Xong."),
    ]
    (proposal,) = proposals.list_proposals(workspace).proposals
    assert (proposal.origin, proposal.status) == ("job:facts", "approved")
    assert proposal.decided_by == f"telegram:{OWNER}"
    fact = load_fact(workspace, "home_city")
    assert fact is not None and fact.head is not None and fact.head.value == "Huế"
    answers = [c.params["text"] for c in api.ok_calls("answerCallbackQuery")]
    assert answers == ["Review: 1 change", "Approved."]
    final = api.ok_calls("editMessageText")[-1].params["text"]
    assert "Review finished: 1 approved, 0 kept as they were, 0 left." in final
    assert (
        len([c for c in api.ok_calls("sendMessage") if "Waiting for your" in c.params["text"]]) == 1
    )
    assert all(c.params["chat_id"] == str(OWNER) for c in api.ok_calls("sendMessage"))


def test_stop_keeps_an_undelivered_announcement(
    api: FakeBotApi, workspace: Workspace, clock: FixedClock
) -> None:
    api.fail("sendMessage", 1000, status=502)
    Outbox(workspace).enqueue(Notification("digest:2026-11-29", "t", "s"))
    service = build_service(workspace, env=env_for(api), model=ScriptedModel([]), timing=FAST)
    with service.running():
        api.wait_for(lambda: any(c.method == "sendMessage" for c in api.calls))
    (entry,) = Outbox(workspace).entries()
    assert entry.status == "pending"
    assert entry.attempts >= 1
    assert not entry.in_flight


def test_a_service_without_a_model_tells_the_owner(
    api: FakeBotApi, workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TRINHO_MODEL", raising=False)
    service = build_service(workspace, env=env_for(api), timing=FAST)
    with service.running():
        api.say("chào", user_id=OWNER, chat_id=OWNER)
        api.wait_for(lambda: bool(api.ok_calls("sendMessage")))
    text = api.ok_calls("sendMessage")[0].params["text"]
    assert text.startswith("I cannot answer yet: no model configured")
    assert [s.turn.text for s in read_day(workspace, workspace.today())] == []


def test_log_lines_are_json_with_fields() -> None:
    stream = io.StringIO()
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    configure_logging(stream=stream)
    try:
        logging.getLogger("trinho.test").info(
            "hello", extra={"fields": {"event": "x.y", "job": "facts"}}
        )
        logging.getLogger("telegram.ext").info("library chatter is not logged")
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)
    (line,) = stream.getvalue().splitlines()
    data = json.loads(line)
    assert (data["msg"], data["event"], data["job"], data["level"]) == (
        "hello",
        "x.y",
        "facts",
        "info",
    )


def test_the_mcp_http_server_runs_with_the_service_and_stops_with_it(
    tmp_path: Path, clock: FixedClock
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    root = tmp_path / "ws"
    init_workspace(root, timezone="Asia/Ho_Chi_Minh", clock=clock)
    config = root / ".trinho" / "config.toml"
    config.write_text(
        config.read_text("utf-8") + f'\n[mcp]\nhttp = true\nport = {port}\ntoken = "{"t" * 32}"\n',
        "utf-8",
    )
    ws = open_workspace(root, clock)
    service = build_service(ws, env={}, model=ScriptedModel([]), timing=FAST)
    with service.running():
        status = None
        for _ in range(200):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/mcp", timeout=5)
            except urllib.error.HTTPError as exc:
                status = exc.code
                break
            except OSError:
                time.sleep(0.05)
        assert status == 401  # the bearer token is required
    with socket.socket() as again:
        assert again.connect_ex(("127.0.0.1", port)) != 0  # stopped with the service


def test_without_a_token_announcements_go_to_stdout_once(
    workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    Outbox(workspace).enqueue(Notification("digest:2026-11-29", "Nightly jobs, 2026-11-29", "x"))
    for _ in range(2):  # a restart: still announced once
        service = build_service(workspace, env={}, model=ScriptedModel([]), timing=FAST)
        with service.running():
            deadline = time.monotonic() + 15
            while Outbox(workspace).pending() and time.monotonic() < deadline:
                time.sleep(0.05)
    assert Outbox(workspace).pending() == []
    assert capsys.readouterr().out.count("Nightly jobs, 2026-11-29") == 1


def test_polling_starts_once_telegram_answers(
    api: FakeBotApi, workspace: Workspace, caplog: pytest.LogCaptureFixture
) -> None:
    api.fail("getMe", 2, status=502)
    timing = Timing(scheduler_poll=0.1, outbox_poll=0.1, grace=15, channel_retry_cap=0.1)
    service = build_service(
        workspace, env=env_for(api), model=ScriptedModel(["chào"]), timing=timing
    )
    with caplog.at_level(logging.INFO, logger="trinho"), service.running():
        api.say("xin chào", user_id=OWNER, chat_id=OWNER)
        api.wait_for(lambda: any(c.params["text"] == "chào" for c in api.ok_calls("sendMessage")))
    events = [getattr(r, "fields", {}).get("event") for r in caplog.records]
    assert events.count("channel.unreachable") == 2
    assert events.count("channel.polling") == 1


@pytest.mark.parametrize(
    ("value", "grace"), [(None, 60.0), (5, 5.0), (0.5, 0.5), (3600, 3600.0), (75.5, 75.5)]
)
def test_stop_grace_is_seconds_up_to_an_hour(value: object, grace: float) -> None:
    assert config_from({"service": {"stop_grace": value}}).service.stop_grace == grace


@pytest.mark.parametrize("value", [0, -1, 3601, "60", True, [], float("nan"), float("inf")])
def test_a_bad_stop_grace_is_an_error_naming_the_setting(value: object) -> None:
    with pytest.raises(TrinhoError) as caught:
        config_from({"service": {"stop_grace": value}})
    assert caught.value.key == "error.service.bad_stop_grace"
    assert str(caught.value).startswith(".trinho/config.toml: [service] stop_grace: ")


def test_the_service_takes_its_stop_grace_from_the_config(workspace: Workspace) -> None:
    assert build_service(workspace, env={}).timing.grace == 60.0
    path = workspace.internal / "config.toml"
    path.write_text(path.read_text("utf-8") + "\n[service]\nstop_grace = 7\n", "utf-8")
    assert build_service(open_workspace(workspace.root), env={}).timing.grace == 7.0


def test_a_turn_longer_than_the_grace_is_cut_and_left_in_the_inbox(
    api: FakeBotApi, workspace: Workspace, caplog: pytest.LogCaptureFixture
) -> None:
    """The stop does not wait for a turn beyond the grace: it logs the cut and stops; the
    message stays undone in the inbox, to be answered at the next start."""
    asked, release = threading.Event(), threading.Event()

    def stuck(request: ChatRequest) -> str:
        asked.set()
        release.wait(60)
        return "late"

    timing = Timing(scheduler_poll=0.1, outbox_poll=0.1, grace=0.5)
    service = build_service(workspace, env=env_for(api), model=ScriptedModel(stuck), timing=timing)
    try:
        with caplog.at_level(logging.INFO, logger="trinho"), service.running():
            api.say("một câu hỏi dài", user_id=OWNER, chat_id=OWNER)
            assert asked.wait(15)
        events = [getattr(r, "fields", {}).get("event") for r in caplog.records]
        assert events[-2:] == ["serve.chat_cut", "serve.stopped"]
        assert any("still running at stop" in r.getMessage() for r in caplog.records)
        assert api.ok_calls("sendMessage") == []
        (item,) = Inbox(workspace).state().items
        assert item.text == "một câu hỏi dài" and not item.done
    finally:
        release.set()
        for thread in threading.enumerate():
            if thread.name == "trinho-inbox":
                thread.join(15)
