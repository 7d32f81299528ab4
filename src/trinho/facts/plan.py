"""A fact's use cases decided once, for every store: what a save and an approved fact proposal
write, given the fact as the store read it under the fact's lock (pure).

`trinho.facts.rules.reconcile` decides a save (the table of docs/rules.md); these planners put
that decision in the terms a store acts on: write this fact, queue this proposal, or nothing.
The files (`trinho.facts.store`) and PostgreSQL (`trinho.pg.store`) lock, read, plan and
write; neither decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from trinho.facts.format import (
    CHANGE_CONTEXT,
    FactChange,
    check_basis,
    clean_source,
    clean_value,
    fact_digest,
    proposal_change,
)
from trinho.facts.rules import (
    ActorKind,
    Fact,
    FactConflict,
    FactOutcome,
    Incoming,
    check_actor,
    check_dates,
    reconcile,
)
from trinho.i18n import t
from trinho.i18n.keys import FACT_OUTCOME, FACT_REASON
from trinho.proposals.format import Source
from trinho.proposals.plan import AlreadyApplied, Apply, StaleChange, Submission, submission

KIND = "fact"
"""The kind of a fact proposal: the key of its applier."""


def incoming(
    key: str,
    value: str,
    basis: str,
    actor: str,
    source: str | None,
    valid_from: date | None,
    valid_to: date | None,
    now: datetime,
    today: date,
) -> Incoming:
    """What a save asks, checked (the value, basis, source, actor and dates), or one keyed line
    saying what is wrong; nothing is read or written before this passes."""
    wanted = Incoming(
        key=key,
        value=clean_value(value, key),
        basis=check_basis(basis),
        recorded_at=now,
        source=clean_source(source or actor),
        valid_from=valid_from,
        valid_to=valid_to,
    )
    check_actor(actor)
    check_dates(key, valid_from, valid_to, today)
    return wanted


@dataclass(frozen=True)
class Proposer:
    """Who a save's proposal comes from (`origin`), in their words (`why`), drawn from what
    (`sources`): kept on the proposal for the owner, when the save is one."""

    origin: str
    why: str | None = None
    sources: tuple[Source, ...] = ()


@dataclass(frozen=True)
class Propose:
    """Queue this change of kind `KIND` for the owner; the fact is written only when it is
    approved."""

    submission: Submission


@dataclass(frozen=True)
class Settle:
    """The save is decided: write `write` (None: nothing), and the fact is then `fact`."""

    outcome: FactOutcome
    write: Fact | None
    fact: Fact | None


def plan_save(
    user: str,
    current: Fact | None,
    wanted: Incoming,
    actor: ActorKind,
    today: date,
    locale: str,
    proposer: Proposer,
) -> Propose | Settle:
    """What saving `wanted` over `current` writes: the fact reconciled, or a proposal from
    `proposer` (the change, and the fact as it stood: `CHANGE_CONTEXT`)."""
    decision = reconcile(current, wanted, actor, today)
    if decision.outcome == "proposed":
        assert decision.proposal_reason is not None
        return Propose(
            submission(
                KIND,
                proposal_change(user, wanted, current, today),
                reason=t(locale, FACT_REASON[decision.proposal_reason], fact=wanted.key),
                origin=proposer.origin,
                context=CHANGE_CONTEXT,
                why=proposer.why,
                sources=proposer.sources,
            )
        )
    return Settle(decision.outcome, decision.after, decision.after or current)


def approval_source(proposal_id: str) -> str:
    """The `source` an approved proposal's version carries: how a rerun finds it applied."""
    return f"proposal:{proposal_id}"


def plan_approval(
    change: FactChange,
    proposal_id: str,
    current: Fact | None,
    now: datetime,
    today: date,
    locale: str,
) -> AlreadyApplied | StaleChange | Apply[Fact]:
    """What approving a fact proposal writes: the value saved as the owner's word (basis
    `user`), unless the fact changed since it was proposed (stale) or this approval already
    wrote it (an approval that died before recording its decision)."""
    source = approval_source(proposal_id)
    key, value = change.key, change.value
    if current is not None and any(v.source == source for v in current.versions()):
        return AlreadyApplied(t(locale, "fact.already_applied", fact=key, value=value))
    if fact_digest(current) != change.base:
        return StaleChange(t(locale, "fact.stale", fact=key))
    wanted = Incoming(key, value, "user", now, source, change.valid_from, change.valid_to)
    try:
        decision = reconcile(current, wanted, "owner", today)
    except FactConflict as exc:
        return StaleChange(str(exc))
    return Apply(decision.after, t(locale, FACT_OUTCOME[decision.outcome], fact=key, value=value))
