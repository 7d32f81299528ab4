"""How much a proposal can cost the owner if approved unseen, and what that allows.

Pure: everything a proposal's risk depends on is on the proposal when it is made (a fact
change records the basis of the value it would replace; a MEMORY.md change its class and
reason code), so the order of the review and what a bulk decision may cover are decided here,
from the proposal alone, the same in every channel.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum

from trinho.proposals.format import Proposal


class Risk(IntEnum):
    """Lower is riskier: the review shows the lowest first."""

    REMOVES = 0
    """Removes a line the owner has (a held removal, a rewrite held whole)."""
    ARCHIVES = 1
    """Moves lines out of MEMORY.md into the archive (still searchable)."""
    REPLACES_OWNER = 2
    """Replaces something the owner said themselves (a fact they stated, a heading)."""
    EDITS = 3
    """Changes a line or a value nobody stated as the owner."""
    ADDS = 4
    """Adds something new and replaces nothing."""


ONE_AT_A_TIME = frozenset({Risk.REMOVES, Risk.ARCHIVES, Risk.REPLACES_OWNER})
"""Risks decided only one by one, after the change was shown: never in a bulk decision."""

_MEMORY_CLASS: dict[str, Risk] = {
    "removed": Risk.REMOVES,
    "suspicious": Risk.REMOVES,
    "archive": Risk.ARCHIVES,
}
_OWNER_LINE_CODES = frozenset({"edited_heading"})
"""Reason codes of MEMORY.md edits to a line the owner wrote themselves (a heading)."""


def risk_of(p: Proposal) -> Risk:
    """The proposal's risk, from its kind and its change."""
    change = p.change
    if p.kind == "fact":
        if change.get("current_value") is None:
            return Risk.ADDS
        return Risk.REPLACES_OWNER if change.get("current_basis") == "user" else Risk.EDITS
    if p.kind == "memory":
        known = _MEMORY_CLASS.get(str(change.get("class")))
        if known is not None:
            return known
        if change.get("reason_code") in _OWNER_LINE_CODES:
            return Risk.REPLACES_OWNER
    old, new = change.get("old"), change.get("new")
    if old is not None and new is None:
        return Risk.REMOVES
    if old is None and new is not None:
        return Risk.ADDS
    return Risk.EDITS


def one_at_a_time(p: Proposal) -> bool:
    """Whether the proposal may only be decided on its own (never in a bulk decision)."""
    return risk_of(p) in ONE_AT_A_TIME


def review_order(ps: Iterable[Proposal]) -> list[Proposal]:
    """The proposals riskiest first, then oldest first, then by id (a total order)."""
    return sorted(ps, key=lambda p: (risk_of(p), p.created_at, p.id))


def bulk_eligible(ps: Iterable[Proposal]) -> list[Proposal]:
    """What one bulk decision may cover: the pending proposals that are not one-at-a-time,
    in review order."""
    return review_order(p for p in ps if p.status == "pending" and not one_at_a_time(p))
