"""The owner's decisions from a channel, applied to the proposals queue, on either backend.

A decision carries the content hash the owner saw; the queue refuses it when the proposal
changed since, was already decided, or does not exist. Only channels that verified the owner
(the Telegram channel checks the user id and chat) call this; no model tool reaches it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from trinho.channels import DecisionOutcome, NotificationItem
from trinho.condense.rules.archive import ORIGIN
from trinho.errors import TrinhoError
from trinho.i18n import t
from trinho.proposals import store as proposals
from trinho.proposals.format import Proposal
from trinho.records.protocol import FileRecords, Records
from trinho.review import decide as decisions
from trinho.review.announce import described_item
from trinho.review.appliers import APPLIERS
from trinho.textnorm import shown_id
from trinho.workspace import Workspace


def _whole(item: NotificationItem, p: Proposal) -> NotificationItem:
    """An archive shown whole on its own screen: every line it takes out of long-term memory,
    which the archive gains word for word under a heading of the week's update (trinho's own
    marker, a run id and a hash, is not shown), so approving it changes only what the owner
    was shown."""
    if p.kind != "memory" or p.change.get("class") != "archive" or not p.origin.startswith(ORIGIN):
        return item
    lines = str(p.change.get("old") or "").split("\n")
    return replace(item, old="\n".join(lines))


class QueueDecider:
    """The channels' `Decider`, `ReviewQueue` and `TakesBack` over one owner's proposals: a
    file workspace, or any `Records` (one owner of the database, whose row-level security keeps
    a button naming another owner's proposal from finding it)."""

    take_back_minutes = proposals.TAKE_BACK_WINDOW // proposals.MINUTE

    def __init__(self, owner: Workspace | Records) -> None:
        self.records = FileRecords(owner, APPLIERS) if isinstance(owner, Workspace) else owner

    def _find(self, proposal_id: str) -> Proposal | None:
        try:
            return self.records.get_proposal(proposal_id)
        except (TrinhoError, OSError):  # unknown or unreadable: said by deciding on it
            return None

    def states(self, proposal_ids: Sequence[str]) -> Mapping[str, str]:
        found = {pid: self._find(pid) for pid in proposal_ids}
        return {pid: p.status for pid, p in found.items() if p is not None}

    def described(self, items: Sequence[NotificationItem]) -> tuple[NotificationItem, ...]:
        """Each item as its proposal reads now; an item whose proposal is gone or changed
        since it was announced, as it was (deciding on it says why it cannot be)."""
        out = []
        locale = self.records.locale
        for item in items:
            p = self._find(item.proposal_id)
            same = p is not None and p.content_hash == item.content_hash
            out.append(_whole(described_item(item, p, locale), p) if same and p else item)
        return tuple(out)

    def decide(
        self, proposal_id: str, content_hash: str, approve: bool, by: str
    ) -> DecisionOutcome:
        try:
            if approve:
                _, applied = decisions.approve(
                    self.records, proposal_id, by, content_hash=content_hash
                )
                return DecisionOutcome(applied.ok, applied.message)
            self.records.reject(proposal_id, by, content_hash=content_hash)
        except TrinhoError as exc:
            return DecisionOutcome(False, str(exc))
        return DecisionOutcome(True, t(self.records.locale, "decider.rejected"))

    def take_back(self, proposal_id: str, by: str) -> DecisionOutcome:
        """An approval taken back (what it changed put back), or a rejection (the change
        waits again): any decision, for the same short time, on the owner's files (the
        workspace, or the database owner's working copy)."""
        try:
            found = self._find(proposal_id)
            if found is not None and found.status in ("rejected", "pending"):
                decisions.reopen(self.records, proposal_id, by)
                locale = self.records.locale
                return DecisionOutcome(
                    True, t(locale, "decider.reopened", id=shown_id(proposal_id))
                )
            _, result = decisions.take_back(self.records, proposal_id, by)
        except TrinhoError as exc:
            return DecisionOutcome(False, str(exc))
        return DecisionOutcome(result.ok, result.message)
