"""The Telegram inbox on each backend (`backend`): the same log folded alike, one process
holding it, a compacted inbox keeping only the open items."""

from __future__ import annotations

from datetime import timedelta

import pytest

from conftest import FixedClock
from support.backends import Backend
from support.stores import InboxLog
from trinho.channels import inbox as inbox_module


@pytest.fixture
def inbox(backend: Backend) -> InboxLog:
    return backend.inbox()


def test_the_inbox_folds_the_same_log_on_both(inbox: InboxLog, clock: FixedClock) -> None:
    inbox.add([(3, None), (4, "chào"), (5, "hỏi")])
    first, second = inbox.state().items
    inbox.record_reply(first, "Chào bạn")
    inbox.record_sent(inbox.state().items[0], 10)
    inbox.record_done(inbox.state().items[0])
    inbox.record_failed(second, "502", 30.0)
    state = inbox.state()
    assert state.next_offset == 6
    done, waiting = state.items
    assert (done.reply, done.sent, done.done) == ("Chào bạn", (10,), True)
    assert (waiting.attempts, waiting.last_error) == (1, "502")
    assert waiting.next_attempt_at == clock.now + timedelta(seconds=30)


def test_one_process_holds_the_inbox(inbox: InboxLog) -> None:
    with inbox.hold() as mine:
        assert mine
        with inbox.hold() as second:
            assert not second
    with inbox.hold() as again:
        assert again


def test_a_compacted_inbox_keeps_only_the_open_items(
    inbox: InboxLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(inbox_module, "COMPACT_AFTER", 2)
    inbox.add([(1, "a"), (2, "b"), (3, "c")])
    for item in inbox.state().items[:2]:
        inbox.record_done(item)
    state = inbox.state()
    assert [i.update_id for i in state.items] == [3] and state.next_offset == 4
