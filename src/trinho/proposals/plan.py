"""The queue's use cases decided once, for every store: what a submit, an approval and a
rejection write, given what the store read under its lock (pure).

A store is then a thin shell (lock, read, plan, write): the files under a sibling lock
(`trinho.proposals.store`), PostgreSQL in one transaction (`trinho.pg.store`). Both call these
functions, so they refuse, de-duplicate and record a decision alike.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Generic, TypeVar

from trinho.errors import TrinhoError
from trinho.proposals.format import (
    MAX_ORIGIN_CHARS,
    MAX_REASON_CHARS,
    ApplyResult,
    Proposal,
    Source,
    check_kind,
    clean_sources,
    clean_text,
    clean_why,
    content_hash,
    identity,
)
from trinho.textnorm import shown_id

T = TypeVar("T")
A = TypeVar("A")


@dataclass(frozen=True)
class Submission:
    """A change to queue, its fields cleaned, with the hashes that name it: `digest` the
    change itself, `same` the change without its context (what a rejection is remembered by)."""

    kind: str
    change: dict[str, Any]
    reason: str
    origin: str
    why: str | None
    sources: tuple[Source, ...]
    digest: str
    same: str
    context: tuple[str, ...]

    def proposal(self, proposal_id: str, created_at: datetime) -> Proposal:
        """The new pending proposal, once the store has found it a free id."""
        return Proposal(
            id=proposal_id,
            kind=self.kind,
            change=self.change,
            reason=self.reason,
            origin=self.origin,
            created_at=created_at,
            status="pending",
            content_hash=self.digest,
            why=self.why,
            sources=self.sources,
        )


def submission(
    kind: str,
    change: Mapping[str, Any],
    *,
    reason: str,
    origin: str,
    context: Collection[str] = (),
    why: str | None = None,
    sources: Iterable[Source] = (),
) -> Submission:
    """The change as it will be queued, or one keyed line saying which field is wrong. The
    change is made plain JSON, so its hash is the one a stored copy reads back with."""
    check_kind(kind)
    kept_why = clean_why(why)
    kept_sources = clean_sources(sources)
    reason = clean_text(reason, "proposal reason", MAX_REASON_CHARS)
    origin = clean_text(origin, "proposal origin", MAX_ORIGIN_CHARS)
    plain: dict[str, Any] = json.loads(json.dumps(dict(change), ensure_ascii=False))
    return Submission(
        kind,
        plain,
        reason,
        origin,
        kept_why,
        kept_sources,
        content_hash(kind, plain),
        identity(kind, plain, context),
        tuple(context),
    )


def already_submitted(wanted: Submission, queue: Iterable[Proposal]) -> Proposal | None:
    """The proposal that stands for `wanted` in the queue (read oldest first): the same change
    still pending, or the same change (its context aside) the owner rejected from the same
    origin. None: queue it."""
    for existing in queue:
        if existing.status == "pending" and existing.content_hash == wanted.digest:
            return existing
        if (
            existing.status == "rejected"
            and existing.origin == wanted.origin
            and identity(existing.kind, existing.change, wanted.context) == wanted.same
        ):
            return existing
    return None


def decider(by: str) -> str:
    """Who decides, as the decision records them: one line, not empty, not too long."""
    return clean_text(by, "decided by", MAX_ORIGIN_CHARS)


def rejection_note(reason: str | None) -> str | None:
    return clean_text(reason, "rejection reason", MAX_REASON_CHARS) if reason else None


def check_pending(proposal: Proposal, expected_hash: str | None) -> Proposal:
    """The proposal when a person may decide it now: still pending, and (with `expected_hash`,
    a button bound to what was announced) still the change they saw."""
    if expected_hash is not None and expected_hash != proposal.content_hash:
        raise TrinhoError.keyed("error.proposal.changed", id=shown_id(proposal.id))
    if proposal.status != "pending":
        if proposal.decided_by:
            raise TrinhoError.keyed(
                "error.proposal.decided_by",
                id=shown_id(proposal.id),
                status=proposal.status,
                by=proposal.decided_by,
            )
        raise TrinhoError.keyed(
            "error.proposal.decided", id=shown_id(proposal.id), status=proposal.status
        )
    return proposal


def applier_for(appliers: Mapping[str, A], proposal: Proposal, place: object) -> A:
    """The applier of the proposal's kind; a kind no applier knows is refused, naming `place`
    (where the proposal is kept)."""
    applier = appliers.get(proposal.kind)
    if applier is None:
        raise TrinhoError.keyed("error.proposal.no_applier", path=place, kind=proposal.kind)
    return applier


def approved(proposal: Proposal, result: ApplyResult, by: str, now: datetime) -> Proposal:
    """The decision recorded: approved when its applier applied it, stale when the change no
    longer fits (nothing applied)."""
    return replace(
        proposal,
        status="approved" if result.ok else "stale",
        decided_at=now,
        decided_by=by,
        decision_note=result.message,
    )


def rejected(proposal: Proposal, by: str, note: str | None, now: datetime) -> Proposal:
    return replace(proposal, status="rejected", decided_at=now, decided_by=by, decision_note=note)


# ---- what an applier does -----------------------------------------------------------------------


@dataclass(frozen=True)
class AlreadyApplied:
    """The change is there already: an approval that died before it could record its decision
    applied it. Nothing to write; the approval stands."""

    message: str


@dataclass(frozen=True)
class StaleChange:
    """What the change acts on changed since it was proposed: nothing written, the proposal
    becomes stale."""

    message: str


@dataclass(frozen=True)
class Apply(Generic[T]):
    """Write `write` (None: the change leaves things as they are), then say `message`."""

    write: T | None
    message: str


ApplyPlan = AlreadyApplied | StaleChange | Apply[T]


def result_of(plan: AlreadyApplied | StaleChange | Apply[Any]) -> ApplyResult:
    """What the approval reports: applied unless the change went stale."""
    return ApplyResult(not isinstance(plan, StaleChange), plan.message)
