"""The outbox announces each notification once: across retries, failures, crashes, restarts."""

from __future__ import annotations

import json
import logging
import tempfile
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import FixedClock
from trinho.channels import (
    ChannelError,
    Notification,
    NotificationItem,
    Outbox,
    SentReceipt,
)
from trinho.channels.outbox import DeliveryReport, backoff_delay
from trinho.durable import inject
from trinho.errors import TrinhoError
from trinho.workspace import Workspace, init_workspace


class Crash(BaseException):
    """The process dies here (SIGKILL, power cut): nothing after it runs."""


def make_notification(nid: str = "condense:2026-W48", items: int = 2) -> Notification:
    return Notification(
        id=nid,
        title="Weekly condensation",
        summary=f"{items} changes held",
        items=tuple(
            NotificationItem(f"p{i}", f"hash{i}", "removed", f"- 2026-11-0{i + 1}: x", None, "r")
            for i in range(items)
        ),
    )


class ScriptedChannel:
    """Follows a script per send: ok, fail, crash_before, crash_after (delivered, then dies)."""

    def __init__(self, script: list[str] | None = None) -> None:
        self.script = list(script or [])
        self.delivered: list[str] = []
        self.titles: list[str] = []
        self.attempts = 0

    @property
    def name(self) -> str:
        return "scripted"

    def send(self, notification: Notification) -> SentReceipt:
        self.attempts += 1
        step = self.script.pop(0) if self.script else "ok"
        if step == "fail":
            raise ChannelError("502 Bad Gateway")
        if step == "crash_before":
            raise Crash
        self.delivered.append(notification.id)
        self.titles.append(notification.title)
        if step == "crash_after":
            raise Crash
        return SentReceipt(self.name, f"msg-{len(self.delivered)}")

    def close(self) -> None:
        pass


def test_enqueue_is_idempotent_per_id_and_the_first_version_wins(workspace: Workspace) -> None:
    box = Outbox(workspace)
    first = box.enqueue(make_notification(items=2))
    again = box.enqueue(make_notification(items=5))
    assert first.created and not again.created
    assert len(again.entry.notification.items) == 2
    assert len(box.entries()) == 1


def test_a_sent_notification_is_never_sent_again_even_after_a_restart(
    workspace: Workspace, clock: FixedClock
) -> None:
    channel = ScriptedChannel()
    box = Outbox(workspace)
    box.enqueue(make_notification())
    report = box.deliver(channel)
    assert report.sent == ("condense:2026-W48",)
    assert box.deliver(channel).sent == ()
    clock.advance(days=3)
    restarted = Outbox(workspace)
    assert restarted.enqueue(make_notification()).created is False
    assert restarted.deliver(channel).sent == ()
    assert channel.delivered == ["condense:2026-W48"]
    entry = restarted.get("condense:2026-W48")
    assert entry is not None and entry.status == "sent"
    assert entry.receipt == SentReceipt("scripted", "msg-1")


def test_a_failed_send_waits_for_its_backoff_then_retries(
    workspace: Workspace, clock: FixedClock
) -> None:
    channel = ScriptedChannel(["fail", "fail"])
    box = Outbox(workspace)
    box.enqueue(make_notification())
    first = box.deliver(channel)
    assert first.failed == (("condense:2026-W48", "ChannelError: 502 Bad Gateway"),)
    assert box.deliver(channel).waiting == ("condense:2026-W48",)
    assert channel.attempts == 1
    clock.advance(seconds=30)
    assert box.deliver(channel).failed
    clock.advance(seconds=59)
    assert box.deliver(channel).waiting  # the second delay is 60 s
    clock.advance(seconds=1)
    assert box.deliver(channel).sent == ("condense:2026-W48",)
    assert channel.delivered == ["condense:2026-W48"]
    assert channel.attempts == 3


def test_a_resend_after_a_cut_off_attempt_is_marked_as_a_possible_repeat(
    workspace: Workspace, clock: FixedClock
) -> None:
    channel = ScriptedChannel(["crash_after"])
    box = Outbox(workspace)
    note = make_notification()
    box.enqueue(note)
    with pytest.raises(Crash):
        box.deliver(channel)
    clock.advance(seconds=30)
    report = box.deliver(channel)
    assert report.sent == report.in_doubt == (note.id,)
    assert channel.titles == [
        note.title,
        f"(Sent again: an earlier send may have arrived.) {note.title}",
    ]
    entry = box.get(note.id)
    assert entry is not None and entry.notification == note  # the stored one is unchanged


def test_backoff_doubles_and_is_capped() -> None:
    delays = [backoff_delay(n) for n in range(0, 12)]
    assert delays[:4] == [
        timedelta(0),
        timedelta(seconds=30),
        timedelta(seconds=60),
        timedelta(seconds=120),
    ]
    assert delays[-1] == timedelta(hours=1)
    assert delays == sorted(delays)


def test_a_broken_entry_is_set_aside_with_one_log_line_and_the_others_are_sent(
    workspace: Workspace, caplog: pytest.LogCaptureFixture
) -> None:
    box = Outbox(workspace)
    box.enqueue(make_notification("digest:2026-11-29"))
    bad = box.root / ("0" * 16 + ".json")
    bad.write_text("{not json", encoding="utf-8")
    channel = ScriptedChannel()
    with caplog.at_level(logging.ERROR, logger="trinho.channels.outbox"):
        report = box.deliver(channel)
        assert box.next_due() is None
        assert box.deliver(channel) == DeliveryReport()
    assert report.sent == ("digest:2026-11-29",)
    assert report.failed == ()
    assert not bad.exists()
    assert (box.root / "broken" / bad.name).read_text(encoding="utf-8") == "{not json"
    (line,) = caplog.records
    assert line.getMessage() == "outbox entry set aside"
    assert bad.name in str(line.__dict__["fields"]["path"])
    assert [e.notification.id for e in box.entries()] == ["digest:2026-11-29"]


def test_find_returns_a_notification_by_key_and_refuses_odd_keys(workspace: Workspace) -> None:
    box = Outbox(workspace)
    note = make_notification()
    box.enqueue(note)
    assert box.find(note.key) == note
    assert box.find("../../etc/passwd") is None
    assert box.find("f" * 16) is None


def test_entries_round_trip_vietnamese_text(workspace: Workspace) -> None:
    item = NotificationItem(
        "p-1", "h", "edited", "- 2026-11-20: Đi Đà Lạt", "- 2026-11-28: đi Huế", ""
    )
    note = Notification("condense:2026-W48", "Rút gọn tuần", "Có thay đổi chờ duyệt", (item,))
    box = Outbox(workspace)
    box.enqueue(note)
    assert Outbox(workspace).entries()[0].notification == note
    raw = json.loads(next(box.root.glob("*.json")).read_text(encoding="utf-8"))
    assert raw["notification"]["items"][0]["new"] == "- 2026-11-28: đi Huế"


STEPS = st.sampled_from(["ok", "fail", "crash_before", "crash_after", "crash_in_mark"])


@pytest.mark.durability
@settings(max_examples=40, deadline=None)
@given(script=st.lists(STEPS, max_size=8))
def test_random_crash_points_never_lose_and_never_repeat_after_success(script: list[str]) -> None:
    """Every run ends delivered; a duplicate only follows a crash after the send and before
    its mark, and once the mark is written nothing is ever sent again."""
    with tempfile.TemporaryDirectory() as tmp:
        clock = FixedClock()
        ws = init_workspace(Path(tmp) / "ws", timezone="Asia/Ho_Chi_Minh", clock=clock).workspace
        Outbox(ws).enqueue(make_notification())
        channel = ScriptedChannel()
        in_doubt_crashes = 0
        marked = False
        for step in [*script, "ok"]:
            box = Outbox(ws)  # every step is a fresh process
            channel.script = ["ok" if step == "crash_in_mark" else step]
            writes = {"n": 0}

            def write(path: Path, step: str = step, writes: dict[str, int] = writes) -> None:
                writes["n"] += 1
                if step == "crash_in_mark" and writes["n"] == 2:
                    raise Crash  # the send went through; the "sent" mark never lands

            try:
                with inject("before_replace", write):
                    report = box.deliver(channel)
                marked = marked or bool(report.sent)
            except Crash:
                if step in ("crash_after", "crash_in_mark") and not marked:
                    in_doubt_crashes += 1
            clock.advance(hours=2)
            if marked:
                break
        assert marked
        assert len(channel.delivered) == in_doubt_crashes + 1
        attempts = channel.attempts
        for _ in range(2):
            clock.advance(days=1)
            assert Outbox(ws).deliver(channel).sent == ()
        assert channel.attempts == attempts


ENTRY = """\
{
 "notification": {
  "id": "condense:2026-W48",
  "title": "Weekly memory condensation 2026-W48",
  "summary": "0 changes were applied by themselves; 3 wait for your approval.",
  "items": [
   {
    "proposal_id": "ba0d44f7af",
    "content_hash": "0aa7780ab6e10b6bba45a03b02751db24c8f92c75b7fc618a4817ae53a184d60",
    "kind": "edited",
    "old": "- 2026-02-11: Sister Anna lives in Lisbon",
    "new": "- 2026-11-23: Sister Anna lives in Porto",
    "reason": "text changed (similarity 0.83); the old line stays until decided"
   },
   {
    "proposal_id": "cf66aa76da",
    "content_hash": "e77f50603267ce545d957ecb427fb39d269ff5a4ff927399257fc75121098f1c",
    "kind": "removed",
    "old": "- 2026-10-05: Allergic to penicillin",
    "new": null,
    "reason": "entry missing from the rewrite; it stays until you approve its removal"
   },
   {
    "proposal_id": "e12a95f735",
    "content_hash": "396f1331b79939f32aa7806cac00aeabe08200119d406055b5ae1dfc14744665",
    "kind": "strange_date",
    "old": null,
    "new": "- 2026-12-04: Dentist appointment on Thursday at 9",
    "reason": "date 2026-12-04 is in the future (today is 2026-11-29)"
   }
  ]
 },
 "status": "sent",
 "enqueued_at": "2026-11-29T14:05:00+07:00",
 "attempts": 1,
 "next_attempt_at": null,
 "in_flight": false,
 "last_error": null,
 "sent_at": "2026-11-29T14:05:00+07:00",
 "receipt": {
  "channel": "console",
  "ref": "condense:2026-W48"
 }
}
"""
"""An outbox entry as trinho writes it: a run's announcement, sent to the console."""


def test_an_entry_as_written_reads_back_and_is_written_byte_for_byte(workspace: Workspace) -> None:
    outbox = Outbox(workspace)
    path = outbox.root / "57cfab71ceb9e942.json"
    path.parent.mkdir(parents=True)
    path.write_text(ENTRY, encoding="utf-8")
    entry = outbox.get("condense:2026-W48")
    assert entry is not None and entry.status == "sent" and len(entry.notification.items) == 3
    assert entry.receipt == SentReceipt("console", "condense:2026-W48")
    path.unlink()
    outbox._write(entry)
    assert path.read_text(encoding="utf-8") == ENTRY


def test_an_entry_field_that_does_not_read_is_named(workspace: Workspace) -> None:
    outbox = Outbox(workspace)
    path = outbox.root / "57cfab71ceb9e942.json"
    path.parent.mkdir(parents=True)
    data = json.loads(ENTRY)
    data["notification"]["items"][1]["kind"] = None
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TrinhoError, match=r"notification: items\[1\]: field 'kind' must be a str"):
        outbox.get("condense:2026-W48")
