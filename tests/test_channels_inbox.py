"""The inbox: what a log of events says, what to answer next, and a failed reply retried."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from conftest import FixedClock
from fake_bot_api import FakeBotApi
from trinho.channels import TelegramSettings
from trinho.channels.inbox import Inbox, InboxItem, fold, next_item, retry_at
from trinho.channels.telegram import TelegramChannel
from trinho.workspace import Workspace

NOW = datetime.fromisoformat("2026-11-29T10:00:00+07:00")
OWNER = 77


def test_fold_follows_an_item_from_update_to_done() -> None:
    at = NOW.isoformat()
    events: list[dict[str, Any]] = [
        {"kind": "seen", "update_id": 3},
        {"kind": "update", "update_id": 4, "text": "a", "at": at},
        {"kind": "update", "update_id": 5, "text": "b", "at": at},
        {"kind": "update", "update_id": 4, "text": "a again", "at": at},  # fetched twice
        {"kind": "reply", "update_id": 4, "text": "A"},
        {"kind": "sent", "update_id": 4, "message_id": 10},
        {"kind": "done", "update_id": 4},
        {"kind": "failed", "update_id": 5, "attempts": 1, "next_at": at, "error": "502"},
        {"kind": "reply", "update_id": 99, "text": "for nothing known"},
        {"kind": "nonsense"},
    ]
    state = fold(events)
    assert state.next_offset == 6
    first, second = state.items
    assert (first.text, first.reply, first.sent, first.done) == ("a", "A", (10,), True)
    assert (second.text, second.attempts, second.done) == ("b", 1, False)


def test_next_item_is_the_oldest_open_one_and_a_retry_holds_back_the_rest() -> None:
    waiting = InboxItem(1, "a", NOW, reply="A", attempts=1, next_attempt_at=NOW + timedelta(1))
    later = InboxItem(2, "b", NOW)
    done = InboxItem(0, "z", NOW, done=True)
    assert next_item([done, waiting, later], NOW) == (None, NOW + timedelta(1))
    assert next_item([done, waiting, later], NOW + timedelta(2)) == (waiting, None)
    assert next_item([done, later], NOW) == (later, None)
    assert next_item([done], NOW) == (None, None)


@given(attempts=st.integers(1, 40), retry_after=st.none() | st.floats(0, 86_400))
def test_a_retry_waits_at_least_what_telegram_asked(
    attempts: int, retry_after: float | None
) -> None:
    moment = retry_at(attempts, NOW, retry_after)
    assert moment > NOW
    if retry_after is not None:
        assert moment >= NOW + timedelta(seconds=retry_after)


def test_a_failed_reply_is_kept_and_sent_again(workspace: Workspace, clock: FixedClock) -> None:
    inbox = Inbox(workspace)
    asked: list[str] = []

    def on_message(text: str, ref: str | None = None) -> str:
        asked.append(text)
        return "Đã nhớ."

    with FakeBotApi() as api:
        api.fail("sendMessage", 1, status=502)
        settings = TelegramSettings(
            token="123456:TEST-token", owner_id=OWNER, base_url=api.base_url
        )
        channel = TelegramChannel(settings, on_message=on_message, inbox=inbox, timeout=10)
        with channel:
            channel.start(poll_timeout=1)
            api.say("nhớ giùm", user_id=OWNER, chat_id=OWNER)
            api.wait_for(lambda: any(c.status == 502 for c in api.calls))
            api.wait_for(lambda: inbox.state().items[0].attempts == 1)
            (item,) = inbox.state().items
            assert (item.reply, item.done) == ("Đã nhớ.", False)
            assert item.last_error is not None and "Bad Gateway" in item.last_error
            clock.advance(minutes=1)
            api.wait_for(lambda: len(api.ok_calls("sendMessage")) == 1)
            api.wait_for(lambda: inbox.state().items[0].done)
    assert asked == ["nhớ giùm"]  # the reply was kept, the model not asked again
    assert [c.params["text"] for c in api.ok_calls("sendMessage")] == ["Đã nhớ."]
