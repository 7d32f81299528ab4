"""What a condensation run asks of the owner: its held changes into the proposals queue, each
once, then one announcement of them through the outbox, delivered at once when it can be.

A run that wrote MEMORY.md and was cut off finishes here too (`run._resume`): both steps read
the journal and record their step in it, so a retry proposes and announces nothing twice.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from trinho.channels import Channel, Notification, NotificationItem, Outbox, channel_from_config
from trinho.condense.rules.archive import budget_words
from trinho.condense.rules.gate import Change
from trinho.condense.rules.held import can_still_apply
from trinho.condense.rules.loss import memory_sides
from trinho.condense.rules.reasons import owner_reason
from trinho.condense.rules.report import ReportChange, reported
from trinho.condense.store.apply import withdraw
from trinho.condense.store.archive import conflicting_archives, waiting_archive
from trinho.condense.store.runs import (
    ORIGIN,
    Journal,
    ProposalEntry,
    advance,
    superseded_rewrites,
    undone_origin,
)
from trinho.context.run import budgets_from_config
from trinho.errors import TrinhoError
from trinho.i18n import N_, t
from trinho.memory import store as memory_store
from trinho.models import estimate_tokens
from trinho.proposals import store as proposals
from trinho.proposals.format import Proposal, Source
from trinho.workspace import Workspace

KIND = "memory"


def without_explanation(data: dict[str, Any]) -> dict[str, Any]:
    """A held change as its proposal holds it: the model's reason and the sources are kept
    on the proposal beside it (`why`, `sources`), not in the change its hash binds."""
    return {k: v for k, v in data.items() if k not in ("why", "sources")}


def substance(change: Mapping[str, Any]) -> tuple[object, ...]:
    """What makes two held changes the same question for the owner: the class and the lines.

    Reasons and position hints are left out: they name the week's window or a neighbour, so a
    change the owner rejected last week would otherwise look new every week.
    """
    return (change.get("class"), change.get("old"), change.get("new"), change.get("rewrite"))


def propose_held(
    ws: Workspace, journal: Journal, changes: tuple[Change, ...] | None = None
) -> tuple[Journal, list[ReportChange]]:
    """Every held change of the journal into the proposals queue (once: a retry finds them
    pending), except a change the owner already rejected, which is not asked again.

    `changes` is every change of the gate, for the report (default: the journal's held ones).
    """
    held = journal.held
    if journal.state == "applied":
        text = memory_store.read_text(ws)
        queue = [p for p in proposals.list_proposals(ws).proposals if p.kind == KIND]
        queue = _expire_gone(ws, journal.run_id, text, queue)
        rejected = {substance(p.change) for p in queue if p.status == "rejected"}
        waiting = {substance(p.change): p for p in queue if p.status == "pending"}
        entries: list[ProposalEntry] = []
        for change in held:
            data = without_explanation(change.to_dict())
            digest = proposals.content_hash(KIND, data)
            if substance(data) in rejected:
                entries.append(ProposalEntry(None, digest, "rejected"))
                continue
            earlier = waiting.get(substance(data))
            if earlier is not None:  # still waiting from an earlier run: not asked twice
                entries.append(ProposalEntry(earlier.id, earlier.content_hash, "pending"))
                continue
            submitted = proposals.submit(
                ws,
                KIND,
                data,
                reason=change.reason,
                origin=f"condense:{journal.run_id}",
                why=change.why,
                sources=[Source.quoted(*triple) for triple in change.sources],
            )
            p = submitted.proposal
            entries.append(ProposalEntry(p.id, p.content_hash, p.status))
        expire_conflicting_archives(ws, journal.run_id, text)
        journal = advance(ws, journal, "proposed", proposals=tuple(entries))
    by_change = dict(zip(held, journal.proposals, strict=True))
    report: list[ReportChange] = []
    for change in changes if changes is not None else held:
        entry = by_change.get(change)
        if entry is None:
            report.append(reported(change, held))
        elif entry.proposal_id is None:
            report.append(ReportChange(change, None, "rejected_before"))
        else:
            report.append(ReportChange(change, entry.proposal_id))
    return journal, report


def _expire_gone(ws: Workspace, run_id: str, text: str, queue: list[Proposal]) -> list[Proposal]:
    """The queue with every pending change that can no longer apply to `text` made stale,
    every one an undo cut off left pending withdrawn, and every whole rewrite of a run whose
    span `run_id` read again (`superseded_rewrites`) made stale: approving it would fold that
    week's notes in a second time."""
    superseded = superseded_rewrites(ws, run_id)
    updated = []
    for p in queue:
        if p.status == "pending":
            undone = _undone_run(ws, p.origin)
            origin = p.origin.removeprefix(ORIGIN)
            if undone is not None:
                withdraw(ws, p.id, undone)
                p = proposals.get_proposal(ws, p.id)
            elif p.change.get("class") == "suspicious" and origin in superseded:
                note = t(ws.locale, "condense.superseded")
                p = proposals.expire(ws, p.id, "trinho", note) or proposals.get_proposal(ws, p.id)
            elif not can_still_apply(p.change, text):
                note = t(ws.locale, "condense.expired")
                p = proposals.expire(ws, p.id, "trinho", note) or proposals.get_proposal(ws, p.id)
        updated.append(p)
    return updated


def expire_conflicting_archives(ws: Workspace, run_id: str, text: str) -> tuple[str, ...]:
    """Make stale every waiting archive that holds a line another pending change acts on (or a
    line gone from `text`): approving both would make one of them stale, whichever came
    second. Run `run_id` proposed an archive without those lines in its place when MEMORY.md
    is still over its budget. The ids of those made stale."""
    note = t(ws.locale, "condense.archive_replaced", run=run_id)
    return tuple(
        p.id
        for p in conflicting_archives(ws, text)
        if proposals.expire(ws, p.id, "trinho", note) is not None
    )


def _undone_run(ws: Workspace, origin: str) -> str | None:
    """`undone_origin`, with an unreadable journal of another run taken as not undone: it must
    not stop this run (approving its proposals says what is wrong with it)."""
    try:
        return undone_origin(ws, origin)
    except TrinhoError:
        return None


def announce_run(
    ws: Workspace, journal: Journal, changes: list[ReportChange], channel: Channel | None
) -> tuple[str | None, str]:
    """One notification per run through the outbox (its id makes a retry announce nothing
    new), then an attempt to deliver it. A run with nothing held announces nothing."""
    origin = f"condense:{journal.run_id}"
    waiting = proposals.list_proposals(ws, include_decided=False).proposals
    earlier = [p for p in waiting if p.origin != origin]
    asked_before = {p.id for p in earlier}
    items = [
        NotificationItem(
            entry.proposal_id,
            entry.content_hash,
            change.cls,
            *memory_sides(change.to_dict(), ws.locale),
            announced_reason(change, ws.locale),
        )
        for change, entry in zip(journal.held, journal.proposals, strict=True)
        if entry.proposal_id and entry.status == "pending" and entry.proposal_id not in asked_before
    ]
    position = {p.id: n for n, p in enumerate(waiting)}  # oldest first, as the review orders
    items.sort(key=lambda item: position.get(item.proposal_id, len(position)))
    notification_id = origin
    again = _archive_again(ws, {item.proposal_id for item in items})
    if again is not None:
        items.append(again[0])
    if items:
        auto = sum(not rc.change.held for rc in changes)
        summary = summary_line(auto, len(items), ws.locale)
        if again is not None:
            summary += " " + again[1]
            earlier = [p for p in earlier if p.id != again[0].proposal_id]
        if earlier:  # said, not repeated: the owner knows where to find them
            oldest = ws.local_date(min(p.created_at for p in earlier))
            summary += " " + t(
                ws.locale, "condense.notify.waiting", count=len(earlier), since=oldest
            )
        day = ws.local_date(journal.started_at).isoformat()
        title = t(ws.locale, "condense.notify.title", day=day)
        Outbox(ws).enqueue(Notification(notification_id, title, summary, tuple(items)))
    if journal.state != "done":
        advance(ws, journal, "done")
    if not items:
        return None, ""
    return notification_id, deliver(ws, notification_id, channel)


def summary_line(auto: int, held: int, locale: str) -> str:
    """The announcement's first line: how many changes applied by themselves, how many wait."""
    return t(
        locale,
        "condense.notify.summary",
        auto=t(locale, "condense.notify.auto", count=auto),
        held=t(locale, "condense.notify.held", count=held),
    )


def notify_unusable(
    ws: Workspace, model: str, kind: str, chunks: int, channel: Channel | None
) -> tuple[str, str, str]:
    """Tell the owner once that the model answered nothing usable, and what to change: the
    notification's id is the model and the kind of failure, so the weeks after that fail the
    same way announce nothing new (a new model, or a new way of failing, does). Returns the
    id, the text said and how its delivery went."""
    digest = hashlib.sha256(model.encode("utf-8")).hexdigest()[:12]
    notification_id = f"condense-unusable:{digest}:{kind}"
    summary = t(
        ws.locale,
        N_("condense.notify.unusable"),
        model=model,
        count=chunks,
        kind=t(ws.locale, UNUSABLE_KIND[kind]),
        advice=t(ws.locale, N_("condense.notify.unusable.advice")),
    )
    day = ws.today().isoformat()
    title = t(ws.locale, N_("condense.notify.unusable_title"), day=day)
    if not Outbox(ws).enqueue(Notification(notification_id, title, summary)).created:
        return notification_id, summary, ""
    return notification_id, summary, deliver(ws, notification_id, channel)


UNUSABLE_KIND = {
    "empty": N_("condense.notify.unusable.empty"),
    "chatter": N_("condense.notify.unusable.chatter"),
}


def deliver(ws: Workspace, notification_id: str, channel: Channel | None) -> str:
    """Deliver the outbox (the notification `notification_id` among what waits): "sent", or
    the line saying it stays queued and why."""
    try:
        target = channel if channel is not None else channel_from_config(ws)
    except TrinhoError as exc:  # e.g. a broken channel config: the outbox keeps it for later
        return t(ws.locale, "condense.queued", error=f"({exc})")
    try:
        delivered = Outbox(ws).deliver(target)
    finally:
        if channel is None:
            target.close()
    entry = Outbox(ws).get(notification_id)
    if entry is not None and entry.status == "sent":
        return "sent"
    errors = [f"({error})" for nid, error in delivered.failed if nid == notification_id]
    return t(ws.locale, "condense.queued", error=errors[0] if errors else "").strip()


def _archive_again(ws: Workspace, listed: set[str]) -> tuple[NotificationItem, str] | None:
    """The waiting archive proposal, asked again, while MEMORY.md is over its budget: its item
    and the line that says so. None when none waits, it is listed already, or within budget."""
    archive = waiting_archive(ws)
    budget = budgets_from_config(ws).memory
    tokens = estimate_tokens(memory_store.read_text(ws))
    if archive is None or archive.id in listed or tokens <= budget:
        return None
    change = Change.from_dict(archive.change)
    item = NotificationItem(
        archive.id,
        archive.content_hash,
        change.cls,
        *memory_sides(archive.change, ws.locale),
        announced_reason(change, ws.locale),
    )
    return item, t(ws.locale, "condense.notify.archive_again")


def announced_reason(change: Change, locale: str) -> str:
    """A held change's reason as its announcement says it: an archive's is the budget's, in
    words (`budget_words`); the others' as every review surface words them (`owner_reason`)."""
    if change.cls == "archive":
        return budget_words(dict(change.reason_params), locale)
    return owner_reason(change.to_dict(), change.reason, locale, change.why)
