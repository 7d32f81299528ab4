"""The owner's decisions from a channel, applied to the proposals queue.

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
from trinho.review.announce import described_item
from trinho.review.appliers import APPLIERS, TAKERS
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
    """The channels' `Decider`, `ReviewQueue` and `TakesBack` over `memory_proposals/`."""

    take_back_minutes = proposals.TAKE_BACK_WINDOW // proposals.MINUTE

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws

    def _find(self, proposal_id: str) -> Proposal | None:
        try:
            return proposals.get_proposal(self.ws, proposal_id)
        except (TrinhoError, OSError):  # unknown or unreadable: said by deciding on it
            return None

    def states(self, proposal_ids: Sequence[str]) -> Mapping[str, str]:
        found = {pid: self._find(pid) for pid in proposal_ids}
        return {pid: p.status for pid, p in found.items() if p is not None}

    def described(self, items: Sequence[NotificationItem]) -> tuple[NotificationItem, ...]:
        """Each item as its proposal reads now; an item whose proposal is gone or changed
        since it was announced, as it was (deciding on it says why it cannot be)."""
        out = []
        for item in items:
            p = self._find(item.proposal_id)
            same = p is not None and p.content_hash == item.content_hash
            out.append(_whole(described_item(item, p, self.ws.locale), p) if same and p else item)
        return tuple(out)

    def decide(
        self, proposal_id: str, content_hash: str, approve: bool, by: str
    ) -> DecisionOutcome:
        try:
            if approve:
                _, applied = proposals.approve(
                    self.ws, proposal_id, by, appliers=APPLIERS, content_hash=content_hash
                )
                if not applied.ok:
                    return DecisionOutcome(False, applied.message)
                return DecisionOutcome(True, applied.message)
            proposals.reject(self.ws, proposal_id, by, content_hash=content_hash)
        except TrinhoError as exc:
            return DecisionOutcome(False, str(exc))
        return DecisionOutcome(True, t(self.ws.locale, "decider.rejected"))

    def take_back(self, proposal_id: str, by: str) -> DecisionOutcome:
        """An approval taken back (what it changed put back), or a rejection (the change
        waits again): any decision, for the same short time."""
        try:
            found = self._find(proposal_id)
            if found is not None and found.status in ("rejected", "pending"):
                proposals.reopen(self.ws, proposal_id, by)
                return DecisionOutcome(True, t(self.ws.locale, "decider.reopened", id=proposal_id))
            _, result = proposals.take_back(self.ws, proposal_id, by, takers=TAKERS)
        except TrinhoError as exc:
            return DecisionOutcome(False, str(exc))
        return DecisionOutcome(result.ok, result.message)
