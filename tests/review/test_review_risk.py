"""The review's order and what a bulk decision may cover, from each proposal's risk alone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from trinho.proposals.format import STATUSES, Proposal
from trinho.proposals.store import content_hash
from trinho.review.risk import (
    ONE_AT_A_TIME,
    Risk,
    bulk_eligible,
    one_at_a_time,
    review_order,
    risk_of,
)

T0 = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)


def proposal(
    kind: str,
    change: dict[str, Any],
    *,
    pid: str = "0123456789",
    minutes: int = 0,
    status: Any = "pending",
) -> Proposal:
    return Proposal(
        id=pid,
        kind=kind,
        change=change,
        reason="r",
        origin="condense:2026-W48" if kind == "memory" else "job:facts",
        created_at=T0 + timedelta(minutes=minutes),
        status=status,
        content_hash=content_hash(kind, change),
    )


def memory(cls: str, old: str | None, new: str | None, code: str | None = None) -> dict[str, Any]:
    return {
        "class": cls,
        "action": "held",
        "old": old,
        "new": new,
        "reason": "r",
        "reason_code": code,
    }


def fact(current: str | None, basis: str | None) -> dict[str, Any]:
    return {
        "user": "owner",
        "key": "coffee",
        "value": "flat white",
        "basis": "inferred",
        "current_value": current,
        "current_basis": basis,
    }


def test_each_kind_of_change_has_its_risk() -> None:
    cases = [
        (
            memory("removed", "- 2026-11-01: Allergic to shrimp", None, "removed_entry"),
            Risk.REMOVES,
        ),
        (memory("removed", "## Health", None, "removed_heading"), Risk.REMOVES),
        (memory("suspicious", None, None, "suspicious"), Risk.REMOVES),
        (memory("archive", "- a\n- b", None), Risk.ARCHIVES),
        (memory("edited", "## Health", "## Sức khoẻ", "edited_heading"), Risk.REPLACES_OWNER),
        (memory("edited", "- 2026-11-01: a", "- 2026-11-01: b", "edited"), Risk.EDITS),
        (memory("strange_date", "- 2026-11-01: a", "- 2026-10-01: a", "moved_earlier"), Risk.EDITS),
        (memory("added", None, "## New", "heading_unscreened"), Risk.ADDS),
        (memory("malformed", None, "stray", "malformed"), Risk.ADDS),
    ]
    for change, risk in cases:
        assert risk_of(proposal("memory", change)) is risk, change
    assert risk_of(proposal("fact", fact("black", "user"))) is Risk.REPLACES_OWNER
    assert risk_of(proposal("fact", fact("black", "inferred"))) is Risk.EDITS
    assert risk_of(proposal("fact", fact(None, None))) is Risk.ADDS
    assert risk_of(proposal("note", {"old": "a", "new": None})) is Risk.REMOVES


def test_a_removal_an_archive_and_an_owner_replacement_are_decided_one_at_a_time() -> None:
    assert one_at_a_time(proposal("memory", memory("removed", "- x", None)))
    assert one_at_a_time(proposal("memory", memory("archive", "- x", None)))
    assert one_at_a_time(proposal("fact", fact("black", "user")))
    assert not one_at_a_time(proposal("fact", fact("black", "inferred")))
    assert not one_at_a_time(proposal("memory", memory("added", None, "- 2026-11-29: x")))


def test_review_order_is_riskiest_then_oldest_then_id() -> None:
    add = proposal("memory", memory("added", None, "- x"), pid="a000000000", minutes=0)
    old_edit = proposal("fact", fact("black", "inferred"), pid="b000000000", minutes=1)
    edit = proposal("fact", fact("tea", "inferred"), pid="c000000000", minutes=5)
    twin = proposal("fact", fact("milk", "inferred"), pid="0000000000", minutes=5)
    removal = proposal("memory", memory("removed", "- y", None), pid="d000000000", minutes=9)
    assert review_order([add, edit, twin, old_edit, removal]) == [
        removal,
        old_edit,
        twin,
        edit,
        add,
    ]


def test_bulk_covers_only_pending_low_risk_proposals() -> None:
    add = proposal("memory", memory("added", None, "- x"), pid="a000000000")
    done = proposal("memory", memory("added", None, "- z"), pid="b000000000", status="rejected")
    removal = proposal("memory", memory("removed", "- y", None), pid="c000000000")
    assert bulk_eligible([removal, done, add]) == [add]


_CHANGES = st.one_of(
    st.builds(
        memory,
        st.sampled_from(
            [
                "added",
                "folded",
                "date_changed",
                "moved",
                "removed",
                "edited",
                "strange_date",
                "malformed",
                "suspicious",
                "archive",
                "other",
            ]
        ),
        st.none() | st.text(max_size=5),
        st.none() | st.text(max_size=5),
        st.none() | st.sampled_from(["edited", "edited_heading", "removed_entry", "malformed"]),
    ).map(lambda c: ("memory", c)),
    st.builds(
        fact, st.none() | st.text(max_size=5), st.none() | st.sampled_from(["user", "inferred"])
    ).map(lambda c: ("fact", c)),
    st.fixed_dictionaries(
        {"old": st.none() | st.text(max_size=3), "new": st.none() | st.text(max_size=3)}
    ).map(lambda c: ("note", c)),
)
_QUEUES = st.lists(
    st.tuples(_CHANGES, st.integers(0, 50), st.sampled_from(STATUSES)), max_size=12
).map(
    lambda rows: [
        proposal(kind, change, pid=f"{i:010x}", minutes=m, status=status)
        for i, ((kind, change), m, status) in enumerate(rows)
    ]
)


@given(_QUEUES)
def test_every_one_at_a_time_proposal_comes_before_any_other(queue: list[Proposal]) -> None:
    ordered = review_order(queue)
    assert sorted(p.id for p in ordered) == sorted(p.id for p in queue)
    flags = [one_at_a_time(p) for p in ordered]
    assert flags == sorted(flags, reverse=True)
    risks = [risk_of(p) for p in ordered]
    assert risks == sorted(risks)


@given(_QUEUES)
def test_a_bulk_decision_never_holds_a_removal_an_archive_or_an_owner_replacement(
    queue: list[Proposal],
) -> None:
    bulk = bulk_eligible(queue)
    assert all(risk_of(p) not in ONE_AT_A_TIME for p in bulk)
    assert all(p.status == "pending" for p in bulk)
    assert all(p.change.get("class") not in ("removed", "archive", "suspicious") for p in bulk)
    assert all(
        not (
            p.kind == "fact"
            and p.change.get("current_basis") == "user"
            and p.change.get("current_value") is not None
        )
        for p in bulk
    )
    expected = {p.id for p in queue if p.status == "pending" and not one_at_a_time(p)}
    assert {p.id for p in bulk} == expected
