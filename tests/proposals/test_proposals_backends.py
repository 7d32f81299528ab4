"""Proposals through the records facade, on each backend (`records`): an approval speaks as
the owner, a rejection is not asked again, a changed fact makes an approval stale, a decision
bound to another hash or an unknown id is refused."""

from __future__ import annotations

import pytest

from trinho.errors import TrinhoError
from trinho.records.protocol import Records


def test_an_approval_speaks_as_the_owner_and_a_rejection_is_not_asked_again(
    records: Records,
) -> None:
    records.save_fact("city", "Hue", basis="user")
    proposed = records.save_fact("city", "Hanoi", basis="inferred", origin="agent:main")
    assert proposed.proposal is not None
    again = records.save_fact("city", "Hanoi", basis="inferred", origin="agent:main")
    assert again.proposal is not None and not again.proposal_created
    assert again.proposal.id == proposed.proposal.id
    decided, result = records.approve(proposed.proposal.id, "owner")
    assert (decided.status, result.ok, decided.decided_by) == ("approved", True, "owner")
    fact = records.load_fact("city")
    assert fact is not None and fact.head is not None
    assert (fact.head.value, fact.head.basis) == ("Hanoi", "user")
    assert fact.head.source == f"proposal:{proposed.proposal.id}"
    with pytest.raises(TrinhoError) as twice:
        records.approve(proposed.proposal.id, "owner")
    assert twice.value.key == "error.proposal.decided_by"
    pet = records.save_fact("pet", "cat", actor="job", origin="job:facts")
    assert pet.proposal is not None
    rejected = records.reject(pet.proposal.id, "owner", "no pets")
    assert (rejected.status, rejected.decision_note) == ("rejected", "no pets")
    after = records.save_fact("pet", "cat", actor="job", origin="job:facts")
    assert after.proposal is not None and not after.proposal_created
    assert [p.status for p in records.proposals()] == ["approved", "rejected"]
    assert records.proposals(include_decided=False) == []


def test_an_approval_of_a_fact_that_changed_since_is_stale(records: Records) -> None:
    records.save_fact("city", "Hue", basis="user")
    proposed = records.save_fact("city", "Hanoi", basis="inferred")
    assert proposed.proposal is not None
    records.save_fact("city", "Vinh", basis="user")
    decided, result = records.approve(proposed.proposal.id, "owner")
    assert (decided.status, result.ok) == ("stale", False)
    fact = records.load_fact("city")
    assert fact is not None and fact.head is not None and fact.head.value == "Vinh"


def test_a_proposal_bound_to_another_hash_is_refused(records: Records) -> None:
    submitted = records.submit("fact", {"user": "owner", "key": "k", "value": "v"}, reason="r",
                               origin="o")  # fmt: skip
    with pytest.raises(TrinhoError) as caught:
        records.reject(submitted.proposal.id, "owner", content_hash="0" * 64)
    assert caught.value.key == "error.proposal.changed"


def test_an_unknown_proposal_is_not_found(records: Records) -> None:
    with pytest.raises(TrinhoError) as caught:
        records.reject("0123456789", "owner")
    assert caught.value.key == "error.proposal.not_found"
