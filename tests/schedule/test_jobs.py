"""Nightly jobs through the scheduler with a fixed clock: facts become proposals, one digest."""

from __future__ import annotations

import io
from datetime import date, datetime, timedelta

import pytest

from conftest import FixedClock
from trinho.channels import ConsoleChannel, Notification, Outbox
from trinho.condense.rules.gate import gate
from trinho.config.files import parse_config
from trinho.conversations.store import read_turns, record_turn
from trinho.facts import load_fact, save_fact
from trinho.models import ChatModel, ChatResponse, ScriptedModel, ToolCall
from trinho.notes.store import save_note
from trinho.proposals import store as proposals
from trinho.review.announce import digest_notification, enqueue_digest, proposal_item
from trinho.review.service import QueueDecider
from trinho.schedule.jobs import (
    ScheduledCondensation,
    WorkspaceJobRunner,
    conversation_text,
    slot_condensed,
)
from trinho.schedule.plan import DueRun
from trinho.schedule.run import run_due
from trinho.workspace import Workspace

CONFIG = (
    '[schedule]\ncondense = "off"\nfacts = "daily 02:00"\ndigest = "daily 07:00"\n'
    '[[jobs]]\nname = "tidy"\nschedule = "daily 03:00"\nprompt = "Dọn dẹp: tìm dữ kiện mới"\n'
)


def fact_call(key: str, value: str, call_id: str = "c1") -> ChatResponse:
    args = {"key": key, "value": value, "basis": "user"}
    return ChatResponse("", (ToolCall(call_id, "user_memory_save", args),))


class Models:
    """A scripted model per run, recording which runs asked for one."""

    def __init__(self, script: dict[str, list[ChatResponse | str]]) -> None:
        self.script = script
        self.used: dict[str, ScriptedModel] = {}

    def __call__(self, run: DueRun) -> ChatModel:
        model = ScriptedModel(self.script[run.job.name])
        self.used[run.job.name] = model
        return model


def test_a_jobs_fact_becomes_a_proposal_and_one_digest_announces_it(
    workspace: Workspace, clock: FixedClock
) -> None:
    jobs = parse_config(CONFIG, "cfg").jobs
    save_fact(workspace, "home_city", "Hà Nội", basis="user", actor="chat")
    record_turn(workspace, "user", "Tuần sau tôi chuyển vào Huế sống luôn")
    record_turn(workspace, "assistant", "Chúc bạn chuyển nhà thuận lợi!")
    models = Models(
        {
            "facts": [fact_call("home_city", "Huế"), "Đã lưu 1 dữ kiện."],
            "tidy": ["Không có gì mới."],
        }
    )
    runner = WorkspaceJobRunner(workspace, models)
    run_due(workspace, jobs, runner)  # first sight at 14:05: nothing owed
    clock.set("2026-11-30T08:00:00+07:00")
    records = run_due(workspace, jobs, runner).records
    assert [(r.job, r.status) for r in records] == [
        ("facts", "ok"),
        ("tidy", "ok"),
        ("digest", "ok"),
    ]
    prompt = models.used["facts"].requests[0].messages[-1].text
    assert "Tuần sau tôi chuyển vào Huế sống luôn" in prompt
    (proposal,) = proposals.list_proposals(workspace, include_decided=False).proposals
    assert proposal.origin == "job:facts"
    assert proposal.change["value"] == "Huế"
    fact = load_fact(workspace, "home_city")
    assert fact is not None and fact.head is not None and fact.head.value == "Hà Nội"
    (entry,) = [e for e in Outbox(workspace).entries() if e.notification.id.startswith("digest")]
    assert entry.notification.id == "digest:2026-11-30"
    assert entry.notification.items == (proposal_item(proposal, "en"),)
    assert entry.notification.items[0].old == "home_city: Hà Nội"
    assert entry.notification.items[0].new == "home_city: Huế"
    # the next day: no new proposal, no second digest
    clock.set("2026-12-01T08:00:00+07:00")
    models.script["facts"] = []
    models.script["tidy"] = ["Không có gì mới."]
    run_due(workspace, jobs, runner)
    digests = [e for e in Outbox(workspace).entries() if e.notification.id.startswith("digest")]
    assert len(digests) == 1


def test_a_jobs_fact_names_the_turn_it_was_drawn_from_and_why(
    workspace: Workspace, clock: FixedClock
) -> None:
    jobs = parse_config(CONFIG, "cfg").jobs
    save_fact(workspace, "coffee", "black, no sugar", basis="user", actor="chat")
    record_turn(workspace, "user", "Long day.\nGrabbed a flat white at the airport")
    args = {
        "key": "coffee",
        "value": "flat white",
        "basis": "inferred",
        "why": "ordered one at the airport",
        "quote": "grabbed a  flat white",
    }
    invented = {**args, "key": "tea", "quote": "I love green tea"}
    calls = (ToolCall("c1", "user_memory_save", args), ToolCall("c2", "user_memory_save", invented))
    models = Models({"facts": [ChatResponse("", calls), "ok"], "tidy": ["-"]})
    runner = WorkspaceJobRunner(workspace, models)
    run_due(workspace, jobs, runner)
    clock.set("2026-11-30T08:00:00+07:00")
    run_due(workspace, jobs, runner)
    made = {p.change["key"]: p for p in proposals.list_proposals(workspace).proposals}
    coffee = made["coffee"]
    assert coffee.why == "ordered one at the airport"
    [source] = coffee.sources
    assert source.kind == "turn" and source.text == "Grabbed a flat white at the airport"
    assert source.ref == "conversations/2026-11-29.jsonl#1"
    assert made["tea"].sources == ()  # a quote found nowhere it was shown names no source


def test_the_owner_approves_through_the_decider(workspace: Workspace) -> None:
    save_fact(workspace, "home_city", "Hà Nội", basis="user", actor="chat")
    saved = save_fact(workspace, "home_city", "Huế", basis="user", actor="job", origin="job:x")
    assert saved.proposal is not None
    decider = QueueDecider(workspace)
    wrong = decider.decide(saved.proposal.id, "0" * 64, True, "telegram:77")
    assert not wrong.ok
    assert "content hash differs" in wrong.message
    ok = decider.decide(saved.proposal.id, saved.proposal.content_hash, True, "telegram:77")
    assert ok.ok
    fact = load_fact(workspace, "home_city")
    assert fact is not None and fact.head is not None and fact.head.value == "Huế"
    again = decider.decide(saved.proposal.id, saved.proposal.content_hash, False, "telegram:77")
    assert not again.ok
    assert "already approved" in again.message
    assert not decider.decide("ffffffffff", "x", True, "telegram:77").ok
    assert not decider.decide("../../etc", "x", False, "telegram:77").ok


def test_the_owner_rejects_through_the_decider(workspace: Workspace) -> None:
    saved = save_fact(workspace, "pet", "mèo", basis="inferred", actor="job", origin="job:x")
    assert saved.proposal is not None
    outcome = QueueDecider(workspace).decide(
        saved.proposal.id, saved.proposal.content_hash, False, "telegram:77"
    )
    assert outcome.ok
    assert proposals.get_proposal(workspace, saved.proposal.id).status == "rejected"
    assert load_fact(workspace, "pet") is None


def test_the_facts_job_reads_only_the_24_hours_before_its_slot(
    workspace: Workspace, clock: FixedClock
) -> None:
    for when, text in [
        ("2026-11-28T23:00:00+07:00", "too old"),
        ("2026-11-29T10:00:00+07:00", "kept one"),
        ("2026-11-30T01:59:00+07:00", "kept two"),
        ("2026-11-30T02:30:00+07:00", "after the slot"),
    ]:
        record_turn(workspace, "user", text, at=datetime.fromisoformat(when))
    turns = read_turns(workspace, workspace.today(), workspace.today().replace(day=30))
    slot = datetime.fromisoformat("2026-11-30T02:00:00+07:00")
    since = datetime.fromisoformat("2026-11-29T02:00:00+07:00")
    text = conversation_text(read_turns(workspace, since.date(), slot.date()), since, slot)
    assert text == "[2026-11-29 10:00] user: kept one\n[2026-11-30 01:59] user: kept two"
    assert len(turns) == 3


def test_a_day_without_conversation_asks_no_model(workspace: Workspace, clock: FixedClock) -> None:
    jobs = tuple(j for j in parse_config(CONFIG, "cfg").jobs if j.name == "facts")
    models = Models({"facts": []})
    run_due(workspace, jobs, WorkspaceJobRunner(workspace, models))
    clock.set("2026-12-02T03:00:00+07:00")
    (record,) = run_due(workspace, jobs, WorkspaceJobRunner(workspace, models)).records
    assert record.status == "ok"
    assert models.used == {}


def test_the_weekly_condensation_runs_once_per_slot_and_catches_up(
    workspace: Workspace, clock: FixedClock
) -> None:
    """A missed Sunday is caught up on the Tuesday; the next Sunday still runs (forced past
    the week's catch-up run), so no days fall between two runs."""
    workspace.memory_file.write_text("- 2026-11-20: Thích trà sen\n", "utf-8")
    same = ScriptedModel(lambda request: workspace.memory_file.read_text("utf-8"))
    condense = ScheduledCondensation(model=same, channel=ConsoleChannel("en", io.StringIO()))
    jobs = tuple(j for j in parse_config("", "cfg").jobs if j.name == "condense")
    runner = WorkspaceJobRunner(workspace, Models({}), condense=condense)
    run_due(workspace, jobs, runner)
    summaries: list[str] = []
    for now in (
        "2026-11-29T21:00:00+07:00",  # the slot
        "2026-11-29T21:30:00+07:00",  # nothing more that Sunday
        "2026-12-08T09:00:00+07:00",  # down over Sunday 6 December: caught up on Tuesday
        "2026-12-08T10:00:00+07:00",
        "2026-12-13T21:00:00+07:00",  # the next Sunday runs again in the same ISO week
    ):
        clock.set(now)
        clock.advance(minutes=-1)  # written before the slot's minute, so that run reads it
        save_note(workspace, "Mua hoa cho mẹ")
        clock.advance(minutes=1)
        summaries += [r.summary for r in run_due(workspace, jobs, runner).records]
    assert [s.split(":")[0] for s in summaries] == ["2026-W48", "2026-W50", "2026-W50.2"]
    assert all(r.startswith("20") for r in summaries)


def test_a_slot_already_condensed_is_not_run_again(workspace: Workspace) -> None:
    slot = datetime.fromisoformat("2026-11-29T21:00:00+07:00")
    assert slot_condensed(slot, slot)
    assert slot_condensed(slot + timedelta(minutes=5), slot)
    assert not slot_condensed(slot - timedelta(days=1), slot)
    assert not slot_condensed(None, slot)


def test_the_condensation_runs_through_its_seam(workspace: Workspace, clock: FixedClock) -> None:
    jobs = tuple(j for j in parse_config("", "cfg").jobs if j.name == "condense")
    days: list[str] = []

    def condense(ws: Workspace, run: DueRun) -> str:
        days.append(run.slot.date().isoformat())
        return "nothing held"

    runner = WorkspaceJobRunner(workspace, Models({}), condense=condense)
    run_due(workspace, jobs, runner)
    clock.set("2026-12-09T09:00:00+07:00")
    (record,) = run_due(workspace, jobs, runner).records
    assert (record.status, record.summary) == ("ok", "nothing held")
    assert days == ["2026-12-06"]


@pytest.mark.parametrize(
    ("locale", "title"), [("en", "Waiting for your approval"), ("vi", "Đang chờ bạn duyệt")]
)
def test_digest_text_in_the_owners_locale(workspace: Workspace, locale: str, title: str) -> None:
    saved = save_fact(workspace, "pet", "mèo", basis="inferred", actor="job", origin="job:facts")
    assert saved.proposal is not None
    day = datetime(2026, 11, 30).date()
    assert digest_notification(day, [], locale) is None
    note = digest_notification(day, [saved.proposal], locale)
    assert note is not None
    assert note.title.startswith(title)
    assert "job:facts" not in note.summary  # who proposed, in words
    assert note.items[0].who is not None and note.items[0].who in note.summary


def test_the_digest_takes_every_unannounced_proposal_once(workspace: Workspace) -> None:
    save_fact(workspace, "home_city", "Hà Nội", basis="user", actor="chat")
    chat = save_fact(
        workspace, "home_city", "Huế", basis="inferred", actor="chat", origin="agent:main"
    )
    held = save_fact(workspace, "pet", "mèo", basis="inferred", actor="job", origin="condense:w48")
    assert chat.proposal is not None and held.proposal is not None
    Outbox(workspace).enqueue(
        Notification("condense:2026-W48", "t", "s", (proposal_item(held.proposal, "en"),))
    )
    note = enqueue_digest(workspace, datetime(2026, 11, 30).date())
    assert note is not None
    assert [item.proposal_id for item in note.items] == [chat.proposal.id]
    assert enqueue_digest(workspace, datetime(2026, 12, 1).date()) is None


def test_the_digest_shows_a_held_rewrite_as_its_run_would(workspace: Workspace) -> None:
    """A suspicious rewrite whose own announcement was lost reaches the digest with the lines it
    would remove and its reason in the owner's locale, not with empty sides in English."""
    old = "- 2026-11-20: Mẹ thích hoa sen trắng\n- 2026-11-21: Dị ứng tôm\n"
    [change] = gate(old, "", date(2026, 11, 29), date(2026, 11, 23)).changes
    submitted = proposals.submit(
        workspace, "memory", change.to_dict(), reason=change.reason, origin="condense:2026-W48"
    )
    note = digest_notification(date(2026, 11, 29), [submitted.proposal], "vi")
    assert note is not None
    [item] = note.items
    assert item.old is not None and "Dị ứng tôm" in item.old and "sẽ xoá" in item.old
    assert item.reason == change.reason_in("vi") != change.reason
