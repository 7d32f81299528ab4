"""A workspace written by trinho 0.1.0 opens, reads and condenses with this version.

`tests/data/workspace_0_1_0/` is what `trinho demo --keep DIR` left with release 0.1.0
(commit 635a314): config, notes, conversations, facts with history, decided and pending
proposals, a run journal with its held changes, an outbox entry and the usage ledger. Only
derived and lock files were left out. Every record is read back; a pending proposal is
decided; a later week is condensed over it.
"""

from __future__ import annotations

import io
import json
import shutil
from datetime import datetime
from pathlib import Path

import pytest

from conftest import FixedClock
from support.condense_weeks import is_rewrite
from trinho.channels import ConsoleChannel
from trinho.channels.outbox import Outbox
from trinho.condense import run_condensation
from trinho.condense.store.runs import read_journal
from trinho.context.run import build_context
from trinho.facts.store import list_facts
from trinho.memory import store as memory_store
from trinho.models import ChatRequest, ScriptedModel, read_ledger
from trinho.notes.store import save_note
from trinho.proposals import store as proposals
from trinho.review.appliers import APPLIERS
from trinho.search import search
from trinho.workspace import Workspace, open_workspace

DATA = Path(__file__).parent / "data" / "workspace_0_1_0"
NEXT_WEEK = datetime.fromisoformat("2026-12-06T21:00:00+07:00")


@pytest.fixture
def next_week() -> FixedClock:
    return FixedClock(NEXT_WEEK)


@pytest.fixture
def old(tmp_path: Path, next_week: FixedClock) -> Workspace:
    root = tmp_path / "ws"
    shutil.copytree(DATA, root)
    return open_workspace(root, clock=next_week)


def test_every_record_it_wrote_reads_back(old: Workspace) -> None:
    listing = proposals.list_proposals(old)
    assert listing.broken == []
    assert sorted(p.status for p in listing.proposals) == [
        "approved",
        "pending",
        "pending",
        "rejected",
    ]
    journal = read_journal(old, "2026-W48")
    assert journal is not None and journal.state == "done" and journal.held
    assert [e.notification.id for e in Outbox(old).entries()]
    assert read_ledger(old).records
    facts = list_facts(old)
    assert facts.broken == [] and {f.key for f in facts.facts} >= {"coffee", "home_city"}
    assert any(len(f.history) > 0 for f in facts.facts)
    entry = memory_store.read(old).entries[0]
    assert entry.raw in build_context(old, "owner").system
    assert search(old, "coffee")


def test_a_pending_proposal_is_decided(old: Workspace) -> None:
    pending = [p for p in proposals.list_proposals(old).proposals if p.status == "pending"]
    decided, _ = proposals.approve(old, pending[0].id, "owner", appliers=APPLIERS)
    assert decided.status in ("approved", "stale")
    raw = json.loads(proposals.proposal_path(old, pending[0].id).read_text(encoding="utf-8"))
    assert raw["status"] == decided.status


def test_the_next_week_condenses_over_it(old: Workspace, next_week: FixedClock) -> None:
    before = memory_store.read_text(old)
    next_week.advance(days=-2)
    save_note(old, "Started learning the đàn bầu on Tuesdays")
    next_week.advance(days=2)
    line = "- 2026-12-06: Learns the đàn bầu on Tuesdays"

    def answer(request: ChatRequest) -> str:
        if is_rewrite(request):
            return f"ADD - {line[2:]}" if "[1]" in request.messages[0].text else before + line
        return "1. ACCEPT"

    channel = ConsoleChannel(old.locale, io.StringIO())
    report = run_condensation(old, model=ScriptedModel(answer), channel=channel)
    assert report.outcome == "done"
    after = memory_store.read_text(old)
    assert line in after
    assert all(old_line in after for old_line in before.splitlines())
