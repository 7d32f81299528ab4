"""The daily digest: one announcement of the proposals nobody announced yet, each once.

Mostly what the nightly jobs proposed, but also an inference of the chat agent that
contradicted the owner, or a held change whose own announcement was lost: nothing waits
unannounced. A proposal is "already announced" when any outbox notification carries it (a
condensation run announces its own), so a retried digest, or one after a quiet day, never
repeats a change.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import date
from typing import Any

from trinho.channels import Notification, NotificationItem, Outbox
from trinho.condense.rules.loss import memory_sides
from trinho.i18n import t
from trinho.proposals import store as proposals
from trinho.proposals.format import Proposal
from trinho.review.render import effect_words, proposer_words, reason_words, where_from
from trinho.review.risk import risk_of
from trinho.workspace import Workspace


def digest_id(day: date) -> str:
    return f"digest:{day.isoformat()}"


def _shown(change: dict[str, Any], value_field: str) -> str | None:
    value = change.get(value_field)
    if value is None:
        return None
    key = change.get("key")
    return f"{key}: {value}" if key else str(value)


def proposal_item(proposal: Proposal, locale: str) -> NotificationItem:
    """A proposal as the channel shows it, in the owner's locale: old -> new with its reason
    (a rewrite held whole shows the lines it would remove and add, as its run announced it)."""
    change = proposal.change
    if proposal.kind == "fact":
        old, new = _shown(change, "current_value"), _shown(change, "value")
    else:
        old, new = memory_sides(change, locale)
    item = NotificationItem(proposal.id, proposal.content_hash, proposal.kind, old, new, "")
    return described_item(item, proposal, locale)


def described_item(item: NotificationItem, proposal: Proposal, locale: str) -> NotificationItem:
    """`item` as the owner reads its proposal: its risk, the buttons named by their effect,
    who proposed and why in words, and the note or turn it was drawn from."""
    approve, keep = effect_words(proposal, locale)
    drawn = where_from(proposal)
    return replace(
        item,
        reason=reason_words(proposal, locale),
        risk=int(risk_of(proposal)),
        approve=approve,
        keep=keep,
        who=proposer_words(proposal, locale),
        source=f"“{drawn[0].text}”" if drawn else t(locale, "review.from.none"),
    )


def unannounced(pending: Iterable[Proposal], announced: set[str]) -> list[Proposal]:
    """Pending proposals not yet in any announcement, in the order given (oldest first)."""
    return [p for p in pending if p.status == "pending" and p.id not in announced]


def digest_notification(day: date, found: Sequence[Proposal], locale: str) -> Notification | None:
    """The digest for `day`, or None when nothing new waits."""
    if not found:
        return None
    who = sorted({proposer_words(p, locale) for p in found})
    return Notification(
        id=digest_id(day),
        title=t(locale, "digest.title", date=day.isoformat()),
        summary=t(locale, "digest.summary", count=len(found), origins=", ".join(who)),
        items=tuple(proposal_item(p, locale) for p in found),
    )


def enqueue_digest(ws: Workspace, day: date) -> Notification | None:
    """Put the day's digest in the outbox (once per day); None when there is nothing new."""
    outbox = Outbox(ws)
    announced = {
        item.proposal_id for entry in outbox.entries() for item in entry.notification.items
    }
    pending = proposals.list_proposals(ws, include_decided=False).proposals
    notification = digest_notification(day, unannounced(pending, announced), ws.locale)
    if notification is None:
        return None
    return outbox.enqueue(notification).entry.notification
