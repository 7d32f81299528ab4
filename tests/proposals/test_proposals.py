"""The proposals queue: no duplicates, rejections remembered per origin, decisions by a person
applied through the kind's applier, stale fact proposals, broken or edited files."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import FixedClock
from trinho import facts
from trinho.durable import inject
from trinho.errors import NotFound, TrinhoError
from trinho.proposals import store as proposals
from trinho.proposals.format import MAX_SOURCE_CHARS, ApplyResult, Proposal, Source
from trinho.review.appliers import APPLIERS, TAKERS
from trinho.workspace import Workspace

CHANGE = {"summary": "remove a line", "line": "- 2026-11-01: old"}


def test_submit_writes_one_file_with_every_field(workspace: Workspace) -> None:
    sub = proposals.submit(workspace, "memory", CHANGE, reason="lost line", origin="condense:W48")
    assert sub.created
    p = sub.proposal
    assert len(p.id) == 10 and int(p.id, 16) >= 0
    data = json.loads((workspace.proposals_root / f"{p.id}.json").read_text(encoding="utf-8"))
    assert set(data) == {
        "id",
        "kind",
        "change",
        "reason",
        "origin",
        "created_at",
        "status",
        "decided_at",
        "decided_by",
        "decision_note",
        "content_hash",
    }  # fmt: skip  (why and sources only when the proposer gave them)
    assert data["status"] == "pending" and data["created_at"] == "2026-11-29T14:05:00+07:00"
    assert data["content_hash"] == proposals.content_hash("memory", CHANGE)
    assert proposals.get_proposal(workspace, p.id) == p


def test_identical_pending_proposal_is_not_duplicated(workspace: Workspace) -> None:
    first = proposals.submit(workspace, "memory", CHANGE, reason="r", origin="job:a")
    again = proposals.submit(workspace, "memory", dict(CHANGE), reason="other", origin="job:b")
    assert not again.created and again.proposal.id == first.proposal.id
    assert len(proposals.list_proposals(workspace).proposals) == 1


def test_rejected_is_not_proposed_again_by_the_same_origin(
    workspace: Workspace, clock: FixedClock
) -> None:
    first = proposals.submit(workspace, "memory", CHANGE, reason="r", origin="job:a")
    rejected = proposals.reject(workspace, first.proposal.id, "owner", "sai rồi")
    assert (rejected.status, rejected.decision_note, rejected.decided_by) == (
        "rejected",
        "sai rồi",
        "owner",
    )
    clock.advance(days=1)
    again = proposals.submit(workspace, "memory", CHANGE, reason="r", origin="job:a")
    assert not again.created and again.proposal.status == "rejected"
    other = proposals.submit(workspace, "memory", CHANGE, reason="r", origin="job:b")
    assert other.created and other.proposal.id != first.proposal.id


def test_a_rejected_fact_change_stays_rejected_when_the_fact_changes_meanwhile(
    workspace: Workspace, clock: FixedClock
) -> None:
    facts.save_fact(workspace, "home-city", "Hà Nội")
    first = facts.save_fact(workspace, "home-city", "Huế", actor="job", origin="job:nightly")
    assert first.proposal is not None
    proposals.reject(workspace, first.proposal.id, "owner", "không phải")
    clock.advance(days=1)
    facts.save_fact(workspace, "home-city", "Hà Nội")  # confirmed again: the file changes
    again = facts.save_fact(workspace, "home-city", "Huế", actor="job", origin="job:nightly")
    assert again.proposal == proposals.get_proposal(workspace, first.proposal.id)
    assert not again.proposal_created
    facts.save_fact(workspace, "home-city", "Sài Gòn")  # even a new value: Huế was refused
    later = facts.save_fact(workspace, "home-city", "Huế", actor="job", origin="job:nightly")
    assert not later.proposal_created
    assert proposals.list_proposals(workspace, include_decided=False).proposals == []
    other = facts.save_fact(workspace, "home-city", "Huế", actor="job", origin="job:weekly")
    assert other.proposal_created


def test_only_pending_can_be_decided(workspace: Workspace) -> None:
    p = proposals.submit(workspace, "memory", CHANGE, reason="r", origin="o").proposal
    proposals.reject(workspace, p.id, "owner")
    with pytest.raises(TrinhoError, match="already rejected"):
        proposals.approve(workspace, p.id, "owner", appliers=APPLIERS)
    with pytest.raises(NotFound, match="no proposal"):
        proposals.reject(workspace, "0123456789", "owner")
    for bad in ["../x", "ABCDEF0123", "", "0123456789/"]:
        with pytest.raises(TrinhoError, match="invalid proposal id"):
            proposals.approve(workspace, bad, "owner", appliers=APPLIERS)


def test_appliers_are_what_the_caller_passes(workspace: Workspace) -> None:
    seen: list[dict[str, Any]] = []

    def apply(ws: Workspace, proposal: Proposal) -> ApplyResult:
        seen.append(proposal.change)
        return ApplyResult(True, "done")

    p = proposals.submit(workspace, "gadget", CHANGE, reason="r", origin="o").proposal
    with pytest.raises(TrinhoError, match="no applier"):
        proposals.approve(workspace, p.id, "owner", appliers=APPLIERS)
    assert proposals.get_proposal(workspace, p.id).status == "pending"
    gadgets = {**APPLIERS, "gadget": apply}
    decided, applied = proposals.approve(workspace, p.id, "owner", appliers=gadgets)
    assert seen == [CHANGE] and applied.ok
    assert (decided.status, decided.decision_note) == ("approved", "done")
    assert decided.decided_at is not None


def test_approving_a_fact_saves_it_as_the_owner_word(workspace: Workspace) -> None:
    facts.save_fact(workspace, "home-city", "Hà Nội", basis="inferred")
    saved = facts.save_fact(workspace, "home-city", "Huế", basis="inferred", actor="job")
    assert saved.proposal is not None
    decided, applied = proposals.approve(workspace, saved.proposal.id, "owner", appliers=APPLIERS)
    assert applied.ok and decided.status == "approved"
    head = facts.get_fact(workspace, "home-city").head
    assert head is not None
    assert (head.value, head.basis, head.source) == ("Huế", "user", f"proposal:{decided.id}")


def test_fact_changed_since_the_proposal_makes_it_stale(workspace: Workspace) -> None:
    facts.save_fact(workspace, "home-city", "Hà Nội")
    saved = facts.save_fact(workspace, "home-city", "Huế", basis="inferred")
    assert saved.outcome == "proposed" and saved.proposal is not None
    assert saved.proposal.reason.startswith("The assistant inferred")
    facts.save_fact(workspace, "home-city", "Sài Gòn")
    decided, applied = proposals.approve(workspace, saved.proposal.id, "owner", appliers=APPLIERS)
    assert not applied.ok and decided.status == "stale"
    assert "changed after this proposal" in (decided.decision_note or "")
    assert facts.fact_on(workspace, "home-city").value == "Sài Gòn"


@pytest.mark.durability
def test_an_approval_that_died_after_saving_the_fact_completes_on_retry(
    workspace: Workspace,
) -> None:
    facts.save_fact(workspace, "home-city", "Hà Nội")
    saved = facts.save_fact(workspace, "home-city", "Huế", actor="job")
    assert saved.proposal is not None
    decision = proposals.proposal_path(workspace, saved.proposal.id)

    def die_after_applying(path: Path) -> None:
        if path == decision:
            raise KeyboardInterrupt  # the process stops between saving the fact and the decision

    with inject("before_replace", die_after_applying), pytest.raises(KeyboardInterrupt):
        proposals.approve(workspace, saved.proposal.id, "owner", appliers=APPLIERS)
    assert facts.fact_on(workspace, "home-city").value == "Huế"
    assert proposals.get_proposal(workspace, saved.proposal.id).status == "pending"

    decided, applied = proposals.approve(workspace, saved.proposal.id, "owner", appliers=APPLIERS)
    assert applied.ok and decided.status == "approved"
    assert applied.message == "home-city = Huế was already saved from this proposal"
    values = [v.value for v in facts.get_fact(workspace, "home-city").versions()]
    assert values == ["Hà Nội", "Huế"]


def test_an_approval_taken_back_puts_the_fact_back_and_keeps_it_in_history(
    workspace: Workspace, clock: FixedClock
) -> None:
    facts.save_fact(workspace, "home-city", "Hà Nội", basis="inferred")
    before = facts.fact_path(workspace, "home-city").read_text(encoding="utf-8")
    saved = facts.save_fact(workspace, "home-city", "Huế", basis="inferred", actor="job")
    assert saved.proposal is not None
    pid = saved.proposal.id
    proposals.approve(workspace, pid, "owner", appliers=APPLIERS)
    clock.advance(minutes=3)
    taken, result = proposals.take_back(workspace, pid, "owner", takers=TAKERS)
    assert result.ok and (taken.status, taken.reverted_by) == ("reverted", "owner")
    assert taken.decided_by == "owner" and taken.reverted_at == clock()
    now = facts.get_fact(workspace, "home-city")
    assert facts.fact_on(workspace, "home-city").value == "Hà Nội"
    assert now.live_head(workspace.today()) is not None
    assert sorted(v.value for v in now.versions()) == ["Huế", "Hà Nội"]  # nothing deleted
    (withdrawn,) = [v for v in now.versions() if v.value == "Huế"]  # recorded, never true
    assert withdrawn.valid_to == withdrawn.valid_from
    after = facts.fact_path(workspace, "home-city").read_bytes()
    again, result = proposals.take_back(workspace, pid, "owner", takers=TAKERS)
    assert result.ok and again == taken  # twice: taken back once
    assert result.message == "Already taken back; nothing more to do."
    assert facts.fact_path(workspace, "home-city").read_bytes() == after
    assert before.splitlines()[1:3] == after.decode().splitlines()[1:3]  # key, value: as before


def test_an_approval_is_taken_back_only_soon_after_only_once_approved_and_only_as_it_was(
    workspace: Workspace, clock: FixedClock
) -> None:
    saved = facts.save_fact(workspace, "home-city", "Huế", basis="inferred", actor="job")
    assert saved.proposal is not None
    pid = saved.proposal.id
    with pytest.raises(TrinhoError) as pending:
        proposals.take_back(workspace, pid, "owner", takers=TAKERS)
    assert pending.value.key == "error.proposal.not_approved"
    proposals.approve(workspace, pid, "owner", appliers=APPLIERS)
    facts.save_fact(workspace, "home-city", "Đà Nẵng")  # the owner moved on since
    changed_since = facts.fact_path(workspace, "home-city").read_bytes()
    taken, result = proposals.take_back(workspace, pid, "owner", takers=TAKERS)
    assert not result.ok and taken.status == "approved"
    assert "changed after it was approved" in result.message
    assert facts.fact_path(workspace, "home-city").read_bytes() == changed_since
    clock.advance(minutes=16)
    with pytest.raises(TrinhoError) as late:
        proposals.take_back(workspace, pid, "owner", takers=TAKERS)
    assert late.value.key == "error.proposal.take_back_late"
    assert "15 minutes" in str(late.value)


def test_a_rejection_taken_back_soon_after_waits_again_as_it_was(
    workspace: Workspace, clock: FixedClock
) -> None:
    saved = facts.save_fact(workspace, "home-city", "Huế", basis="inferred", actor="job")
    assert saved.proposal is not None
    pid = saved.proposal.id
    proposals.reject(workspace, pid, "owner", "not now")
    clock.advance(minutes=5)
    waiting = proposals.reopen(workspace, pid, "owner")
    assert waiting == saved.proposal  # as it was before the rejection, every field
    assert proposals.get_proposal(workspace, pid) == saved.proposal
    assert proposals.reopen(workspace, pid, "owner") == saved.proposal  # twice: once
    proposals.approve(workspace, pid, "owner", appliers=APPLIERS)
    with pytest.raises(TrinhoError) as approved:
        proposals.reopen(workspace, pid, "owner")
    assert approved.value.key == "error.proposal.not_rejected"


def test_a_rejection_is_taken_back_only_within_the_window(
    workspace: Workspace, clock: FixedClock
) -> None:
    saved = facts.save_fact(workspace, "home-city", "Huế", basis="inferred", actor="job")
    assert saved.proposal is not None
    proposals.reject(workspace, saved.proposal.id, "owner")
    clock.advance(minutes=16)
    with pytest.raises(TrinhoError) as late:
        proposals.reopen(workspace, saved.proposal.id, "owner")
    assert late.value.key == "error.proposal.take_back_late"
    assert proposals.get_proposal(workspace, saved.proposal.id).status == "rejected"


@pytest.mark.durability
def test_a_take_back_that_died_after_writing_the_fact_completes_on_retry(
    workspace: Workspace,
) -> None:
    saved = facts.save_fact(workspace, "home-city", "Huế", actor="job")
    assert saved.proposal is not None
    pid = saved.proposal.id
    proposals.approve(workspace, pid, "owner", appliers=APPLIERS)
    decision = proposals.proposal_path(workspace, pid)

    def die_after_writing(path: Path) -> None:
        if path == decision:
            raise KeyboardInterrupt

    with inject("before_replace", die_after_writing), pytest.raises(KeyboardInterrupt):
        proposals.take_back(workspace, pid, "owner", takers=TAKERS)
    written = facts.fact_path(workspace, "home-city").read_bytes()
    assert proposals.get_proposal(workspace, pid).status == "approved"
    taken, result = proposals.take_back(workspace, pid, "owner", takers=TAKERS)
    assert result.ok and taken.status == "reverted"
    assert facts.fact_path(workspace, "home-city").read_bytes() == written


def test_the_owner_restating_the_same_value_does_not_make_a_proposal_stale(
    workspace: Workspace, clock: FixedClock
) -> None:
    facts.save_fact(workspace, "home-city", "Hà Nội")
    saved = facts.save_fact(workspace, "home-city", "Huế", actor="job")
    assert saved.proposal is not None
    clock.advance(days=1)
    again = facts.save_fact(workspace, "home-city", "Hà Nội")
    assert again.outcome == "unchanged"
    head = facts.get_fact(workspace, "home-city").head
    assert head is not None and head.confirmed_on == workspace.today()
    decided, applied = proposals.approve(workspace, saved.proposal.id, "owner", appliers=APPLIERS)
    assert applied.ok and decided.status == "approved"
    assert facts.fact_on(workspace, "home-city").value == "Huế"


def test_conflicting_dates_at_approval_make_it_stale(workspace: Workspace) -> None:
    facts.save_fact(workspace, "home-city", "Hà Nội", valid_from=date(2026, 1, 1))
    saved = facts.save_fact(workspace, "home-city", "Huế", actor="job", valid_from=date(2025, 1, 1))
    assert saved.proposal is not None
    decided, applied = proposals.approve(workspace, saved.proposal.id, "owner", appliers=APPLIERS)
    assert decided.status == "stale" and "cannot start earlier" in applied.message
    assert facts.fact_on(workspace, "home-city").value == "Hà Nội"


def test_broken_or_edited_files_are_reported_not_fatal(workspace: Workspace) -> None:
    good = proposals.submit(workspace, "memory", CHANGE, reason="r", origin="o").proposal
    edited = proposals.submit(workspace, "memory", {"x": 1}, reason="r", origin="o").proposal
    path = workspace.proposals_root / f"{edited.id}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["change"]["x"] = 2
    path.write_text(json.dumps(data), encoding="utf-8")
    (workspace.proposals_root / "0000000000.json").write_text("{nope", encoding="utf-8")
    listing = proposals.list_proposals(workspace)
    assert [p.id for p in listing.proposals] == [good.id]
    errors = sorted(b.error for b in listing.broken)
    assert "0000000000.json: not a valid proposal file" in errors[0]
    assert "no longer matches its content_hash" in errors[1]
    with pytest.raises(TrinhoError, match="content_hash"):
        proposals.approve(workspace, edited.id, "owner", appliers=APPLIERS)


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.text(min_size=1, max_size=8),
        st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=20)),
        max_size=5,
    )
)
def test_content_hash_is_stable_and_order_free(change: dict[str, Any]) -> None:
    reordered = dict(reversed(list(change.items())))
    assert proposals.content_hash("fact", change) == proposals.content_hash("fact", reordered)
    assert proposals.content_hash("fact", change) != proposals.content_hash("memory", change)


def test_a_decision_bound_to_another_content_hash_is_refused(workspace: Workspace) -> None:
    p = proposals.submit(workspace, "memory", CHANGE, reason="r", origin="o").proposal
    other = proposals.content_hash("memory", {"summary": "something else"})
    with pytest.raises(TrinhoError, match="not the change that was announced"):
        proposals.approve(workspace, p.id, "owner", appliers=APPLIERS, content_hash=other)
    with pytest.raises(TrinhoError, match="not the change that was announced"):
        proposals.reject(workspace, p.id, "owner", content_hash=other)
    assert proposals.get_proposal(workspace, p.id).status == "pending"
    decided = proposals.reject(workspace, p.id, "owner", content_hash=p.content_hash)
    assert decided.status == "rejected"


PROPOSAL = """\
{
  "id": "cf66aa76da",
  "kind": "memory",
  "change": {
    "class": "removed",
    "action": "held",
    "old": "- 2026-10-05: Allergic to penicillin",
    "new": null,
    "reason": "entry missing from the rewrite; it stays until you approve its removal",
    "after": null,
    "snapshot": null,
    "rewrite": null,
    "similarity": null,
    "reason_code": "removed_entry",
    "reason_params": {}
  },
  "reason": "entry missing from the rewrite; it stays until you approve its removal",
  "origin": "condense:2026-W48",
  "created_at": "2026-11-29T14:05:00+07:00",
  "status": "rejected",
  "decided_at": "2026-11-29T14:05:00+07:00",
  "decided_by": "owner",
  "decision_note": "còn dị ứng",
  "content_hash": "e77f50603267ce545d957ecb427fb39d269ff5a4ff927399257fc75121098f1c"
}
"""
"""A proposal file as trinho writes it: a held MEMORY.md removal the owner rejected."""


def test_a_proposal_as_written_reads_back_and_is_written_byte_for_byte(
    workspace: Workspace,
) -> None:
    path = workspace.proposals_root / "cf66aa76da.json"
    path.write_text(PROPOSAL, encoding="utf-8")
    proposal = proposals.get_proposal(workspace, "cf66aa76da")
    assert (proposal.kind, proposal.status, proposal.decided_by) == ("memory", "rejected", "owner")
    assert proposal.decision_note == "còn dị ứng"
    path.unlink()
    proposals._write(workspace, proposal)
    assert path.read_text(encoding="utf-8") == PROPOSAL


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({"status": "maybe"}, r"cf66aa76da\.json: field 'status' is 'maybe', not one of pending"),
        ({"reason": 3}, r"cf66aa76da\.json: field 'reason' must be a str"),
        ({"decided_at": "2026-11-29"}, r"field 'decided_at' has no UTC offset"),
        ({"created_at": "soon"}, r"field 'created_at' is not an ISO 8601 time"),
        ({"id": "e12a95f735"}, r"id 'e12a95f735' does not match the file name"),
    ],
)
def test_a_proposal_field_that_does_not_read_is_named(
    workspace: Workspace, edit: dict[str, object], message: str
) -> None:
    path = workspace.proposals_root / "cf66aa76da.json"
    path.write_text(json.dumps({**json.loads(PROPOSAL), **edit}), encoding="utf-8")
    with pytest.raises(TrinhoError, match=message):
        proposals.get_proposal(workspace, "cf66aa76da")
    path.write_text("[]", encoding="utf-8")
    with pytest.raises(TrinhoError, match="the file holds one JSON object"):
        proposals.get_proposal(workspace, "cf66aa76da")


def test_why_and_sources_are_kept_beside_the_change_and_old_files_read_without_them(
    workspace: Workspace,
) -> None:
    long = "Grabbed a flat white at the airport " * 10
    source = Source("turn", "conversations/2026-11-29.jsonl#3", long)
    sub = proposals.submit(
        workspace, "memory", CHANGE, reason="r", origin="job:facts",
        why="  duplicate of\nthe food line ", sources=[source, source],
    )  # fmt: skip
    p = sub.proposal
    assert p.why == "duplicate of the food line"
    assert len(p.sources) == 1 and len(p.sources[0].text) == MAX_SOURCE_CHARS
    assert p.sources[0].text.endswith("…") and "\n" not in p.sources[0].text
    assert p.content_hash == proposals.content_hash("memory", CHANGE)  # not part of the hash
    assert proposals.get_proposal(workspace, p.id) == p
    path = workspace.proposals_root / f"{p.id}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["sources"][0]["kind"] == "turn"
    del data["why"], data["sources"]
    path.write_text(json.dumps(data), encoding="utf-8")
    old = proposals.get_proposal(workspace, p.id)
    assert old.why is None and old.sources == ()
    again = proposals.submit(workspace, "memory", CHANGE, reason="r", origin="job:facts", why="x")
    assert not again.created and again.proposal.id == p.id


def test_a_source_of_an_unknown_kind_is_a_broken_file(workspace: Workspace) -> None:
    p = proposals.submit(workspace, "memory", CHANGE, reason="r", origin="o").proposal
    path = workspace.proposals_root / f"{p.id}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["sources"] = [{"kind": "email", "ref": "x", "text": "y"}]
    path.write_text(json.dumps(data), encoding="utf-8")
    listing = proposals.list_proposals(workspace)
    assert listing.proposals == [] and len(listing.broken) == 1
