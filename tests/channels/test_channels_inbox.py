"""The inbox: what a log of events says, what to answer next, and a failed reply retried."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import FixedClock
from support.fake_bot_api import FakeBotApi
from trinho.channels import TelegramSettings
from trinho.channels import inbox as inbox_module
from trinho.channels.inbox import (
    COMPACT_AFTER,
    Inbox,
    InboxItem,
    compacted,
    fold,
    next_item,
    retry_at,
)
from trinho.channels.telegram import TelegramChannel
from trinho.workspace import Workspace

NOW = datetime.fromisoformat("2026-11-29T10:00:00+07:00")
OWNER = 77
NOW_ISO = NOW.isoformat()


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


def test_a_message_holding_a_unicode_line_separator_is_kept(workspace: Workspace) -> None:
    """JSON written raw keeps U+2028, U+2029 and U+0085: the log is read at newlines only,
    so such a message is one event, not two broken lines skipped."""
    inbox = Inbox(workspace)
    inbox.add([(1, "một\u2028hai\u2029ba\x85bốn")])
    [item] = inbox.state().items
    assert item.text == "một\u2028hai\u2029ba\x85bốn"


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


def _long_log(open_ids: set[int], total: int) -> list[dict[str, Any]]:
    """`total` updates, each answered and done except `open_ids` (one of them with its reply
    kept from a failed send)."""
    events: list[dict[str, Any]] = []
    for uid in range(1, total + 1):
        events.append({"kind": "update", "update_id": uid, "text": f"msg-{uid}", "at": NOW_ISO})
        if uid in open_ids and uid == min(open_ids):
            events.append({"kind": "reply", "update_id": uid, "text": f"re: msg-{uid}"})
            events.append(
                {
                    "kind": "failed",
                    "update_id": uid,
                    "attempts": 1,
                    "next_at": NOW_ISO,
                    "error": "x",
                }
            )
        elif uid not in open_ids:
            events.append({"kind": "reply", "update_id": uid, "text": f"re: msg-{uid}"})
            events.append({"kind": "sent", "update_id": uid, "message_id": uid})
            events.append({"kind": "done", "update_id": uid})
    events.append({"kind": "seen", "update_id": total + 3})
    return events


@given(
    total=st.integers(COMPACT_AFTER, COMPACT_AFTER + 40),
    open_ids=st.sets(st.integers(1, COMPACT_AFTER), max_size=5),
)
def test_compaction_keeps_every_open_item_and_the_offset(total: int, open_ids: set[int]) -> None:
    events = _long_log(open_ids, total)
    kept = compacted(events)
    done = total - len(open_ids)
    if done < COMPACT_AFTER:
        assert kept is None
        return
    assert kept is not None and len(kept) <= 1 + 3 * len(open_ids)
    before, after = fold(events), fold(kept)
    assert after.next_offset == before.next_offset == total + 4
    assert after.items == tuple(item for item in before.items if not item.done)


def test_the_channel_compacts_a_long_inbox_at_start_and_answers_what_is_open(
    workspace: Workspace,
) -> None:
    inbox = Inbox(workspace)
    inbox.path.parent.mkdir(parents=True, exist_ok=True)
    total = COMPACT_AFTER + 20
    lines = [json.dumps(e) + "\n" for e in _long_log({7, 300}, total)]
    inbox.path.write_text("".join(lines), "utf-8")
    asked: list[str] = []

    def on_message(text: str, ref: str | None = None) -> str:
        asked.append(text)
        return f"re: {text}"

    with FakeBotApi() as api:
        settings = TelegramSettings(
            token="123456:TEST-token", owner_id=OWNER, base_url=api.base_url
        )
        channel = TelegramChannel(settings, on_message=on_message, inbox=inbox, timeout=10)
        with channel:
            channel.start(poll_timeout=1)
            api.wait_for(lambda: all(item.done for item in inbox.state().items))
            api.wait_for(
                lambda: any(
                    str(c.params.get("offset")) == str(total + 4)
                    for c in api.calls
                    if c.method == "getUpdates"
                )
            )
    assert asked == ["msg-300"]  # msg-7's reply was kept: sent, the model not asked again
    assert [c.params["text"] for c in api.ok_calls("sendMessage")] == ["re: msg-7", "re: msg-300"]
    assert len(inbox.path.read_text("utf-8").splitlines()) < 20


def test_a_long_running_inbox_stays_bounded_by_the_open_work(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Compaction is not only at start: a service that runs for months reads, at each poll and
    each answer, a log bounded by `COMPACT_AFTER`, not by every message it ever answered."""
    monkeypatch.setattr(inbox_module, "COMPACT_AFTER", 20)
    every = inbox_module.COMPACT_AFTER
    inbox = Inbox(workspace)
    longest = 0
    for uid in range(1, 3 * every + 1):
        inbox.add([(uid, f"msg-{uid}")])
        (item,) = [i for i in inbox.state().items if not i.done]
        inbox.record_reply(item, "ok")
        inbox.record_sent(item, uid)
        inbox.record_done(item)
        longest = max(longest, len(inbox.path.read_text(encoding="utf-8").splitlines()))
    assert longest <= 4 * every + 1  # without compaction: 12 * every
    assert inbox.state().next_offset == 3 * every + 1
