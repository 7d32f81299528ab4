"""The owner's decisions from a channel, applied to the proposals queue.

A decision carries the content hash the owner saw; the queue refuses it when the proposal
changed since, was already decided, or does not exist. Only channels that verified the owner
(the Telegram channel checks the user id and chat) call this; no model tool reaches it.
"""

from __future__ import annotations

from trinho.channels import DecisionOutcome
from trinho.errors import TrinhoError
from trinho.i18n import t
from trinho.proposals import store as proposals
from trinho.review.appliers import APPLIERS
from trinho.workspace import Workspace


class QueueDecider:
    """The channels' `Decider` over `memory_proposals/`."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws

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
        return DecisionOutcome(True, t(self.ws.locale, "decider.rejected", id=proposal_id))
