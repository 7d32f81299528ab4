"""The outbox on each backend (`backend`): each notification announced once across failed
sends and a crash after the owner got it, a repeat said as one."""

from __future__ import annotations

import pytest

from conftest import FixedClock
from support.backends import Backend
from support.outbox_script import Crash, ScriptedChannel
from support.outbox_script import notification as _notification
from support.stores import OutboxStore
from trinho.i18n import t


@pytest.fixture
def outbox(backend: Backend) -> OutboxStore:
    return backend.outbox()


def test_the_outbox_announces_each_notification_once_across_failures_and_a_crash(
    outbox: OutboxStore, clock: FixedClock
) -> None:
    first = outbox.enqueue(_notification("condense:2026-W48", items=2))
    again = outbox.enqueue(_notification("condense:2026-W48", items=5))
    assert first.created and not again.created and len(again.entry.notification.items) == 2
    outbox.enqueue(_notification("digest:2026-11-29"))
    first_id, second_id = sorted(
        ["condense:2026-W48", "digest:2026-11-29"], key=lambda nid: _notification(nid).key
    )
    channel = ScriptedChannel(["fail", "crash"])
    with pytest.raises(Crash):
        outbox.deliver(channel)  # the first fails, the second reaches the owner, then dies
    clock.advance(seconds=20)
    assert outbox.deliver(channel).waiting == (first_id, second_id)
    clock.advance(seconds=15)
    report = outbox.deliver(channel)
    assert (report.sent, report.in_doubt) == ((first_id, second_id), (second_id,))
    title = "Weekly condensation"
    assert channel.titles == [title, title, t("en", "channel.maybe_repeat", title=title)]
    assert outbox.deliver(channel).sent == ()
    entries = outbox.entries()
    assert [e.status for e in entries] == ["sent", "sent"]
    key = entries[0].notification.key
    found = outbox.find(key)
    assert found is not None and found.id == entries[0].notification.id
    assert outbox.find("nothing") is None and outbox.next_due() is None
