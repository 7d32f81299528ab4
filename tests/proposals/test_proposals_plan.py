"""The queue's use cases planned once (`trinho.proposals.plan`): what a submit, an approval and
a rejection write, whatever store holds the queue. Properties over random queues."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trinho.errors import TrinhoError
from trinho.proposals.format import STATUSES, ApplyResult, Proposal, content_hash
from trinho.proposals.plan import (
    already_submitted,
    applier_for,
    approved,
    check_pending,
    rejected,
    submission,
)

NOW = datetime.fromisoformat("2026-11-29T14:05:00+07:00")
CONTEXT = ("current_value",)

changes = st.fixed_dictionaries(
    {"key": st.sampled_from(["home-city", "job"]), "value": st.sampled_from(["Huế", "Hà Nội"])},
    optional={"current_value": st.sampled_from(["Đà Nẵng", "Sài Gòn"])},
)
origins = st.sampled_from(["job:facts", "agent:main"])


@st.composite
def queues(draw: st.DrawFn) -> list[Proposal]:
    """A queue, oldest first, of proposals of any status, from either origin."""
    found = []
    for n in range(draw(st.integers(0, 6))):
        wanted = submission(
            "fact", draw(changes), reason="r", origin=draw(origins), context=CONTEXT
        )
        made = wanted.proposal(f"{n:010x}", NOW + timedelta(minutes=n))
        found.append(replace(made, status=draw(st.sampled_from(STATUSES))))
    return found


@given(queues(), changes, origins)
def test_submitting_twice_queues_once(
    queue: list[Proposal], change: dict[str, str], origin: str
) -> None:
    wanted = submission("fact", change, reason="r", origin=origin, context=CONTEXT)
    first = already_submitted(wanted, queue)
    if first is None:
        queue = [*queue, wanted.proposal("ffffffffff", NOW + timedelta(days=1))]
    again = already_submitted(wanted, queue)
    assert again is not None
    assert again == (first or queue[-1])


@given(queues(), changes, origins)
def test_what_stands_for_a_submit_is_the_same_change_pending_or_rejected_from_its_origin(
    queue: list[Proposal], change: dict[str, str], origin: str
) -> None:
    wanted = submission("fact", change, reason="r", origin=origin, context=CONTEXT)
    found = already_submitted(wanted, queue)
    pending = [p for p in queue if p.status == "pending" and p.content_hash == wanted.digest]
    same = {k: v for k, v in change.items() if k not in CONTEXT}
    refused = [
        p
        for p in queue
        if p.status == "rejected"
        and p.origin == origin
        and {k: v for k, v in p.change.items() if k not in CONTEXT} == same
    ]
    if found is None:
        assert not pending and not refused
    else:
        assert found in pending or found in refused
        assert found == next(p for p in queue if p in pending or p in refused)  # the oldest


@given(changes)
def test_a_submission_is_hashed_as_the_stored_copy_reads_back(change: dict[str, str]) -> None:
    wanted = submission("fact", change, reason=" a  reason ", origin="job:facts")
    assert wanted.digest == content_hash("fact", change)
    assert wanted.reason == "a reason"
    proposal = wanted.proposal("0123456789", NOW)
    assert Proposal.from_json(proposal.to_json(), "p") == proposal


@given(queues(), st.booleans())
def test_an_approval_planned_twice_is_refused_the_second_time(
    queue: list[Proposal], ok: bool
) -> None:
    for proposal in queue:
        if proposal.status != "pending":
            with pytest.raises(TrinhoError):
                check_pending(proposal, None)
            continue
        decided = approved(
            check_pending(proposal, proposal.content_hash), ApplyResult(ok, "m"), "owner", NOW
        )
        assert decided.status == ("approved" if ok else "stale")
        assert (decided.decided_by, decided.decision_note, decided.decided_at) == (
            "owner",
            "m",
            NOW,
        )
        assert (
            replace(decided, status="pending", decided_at=None, decided_by=None, decision_note=None)
            == proposal
        )
        with pytest.raises(TrinhoError) as again:
            check_pending(decided, proposal.content_hash)
        assert again.value.key == "error.proposal.decided_by"


def test_a_decision_bound_to_another_change_is_refused() -> None:
    proposal = submission("fact", {"key": "x"}, reason="r", origin="o").proposal("0123456789", NOW)
    with pytest.raises(TrinhoError) as refused:
        check_pending(proposal, "0" * 64)
    assert refused.value.key == "error.proposal.changed"
    assert rejected(proposal, "owner", None, NOW).status == "rejected"


def test_a_kind_no_applier_knows_is_refused_naming_the_place() -> None:
    proposal = submission("gadget", {"key": "x"}, reason="r", origin="o").proposal(
        "0123456789", NOW
    )
    assert applier_for({"gadget": len}, proposal, "here") is len
    with pytest.raises(TrinhoError) as refused:
        applier_for({"fact": len}, proposal, "the database")
    assert refused.value.key == "error.proposal.no_applier"
    assert "the database" in str(refused.value)
