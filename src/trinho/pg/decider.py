"""One owner's decisions from a channel, on PostgreSQL: the channels' `Decider` and
`ReviewQueue` over that owner's proposals (`PgRecords`), as `QueueDecider` is over the files.

It holds one owner's records and nothing else, so whatever a button names (another owner's
proposal id and its content hash among them) is looked for among that owner's proposals only:
row-level security and the owner named in every transaction see to it. It cannot take an
approval back: that is decided with its run on PostgreSQL (`trinho condense --undo`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from trinho.channels import DecisionOutcome, NotificationItem
from trinho.errors import TrinhoError
from trinho.i18n import t
from trinho.pg.store import PgRecords
from trinho.proposals.format import Proposal
from trinho.review.announce import described_item


class PgDecider:
    def __init__(self, records: PgRecords) -> None:
        self.records = records

    def _find(self, proposal_id: str) -> Proposal | None:
        try:
            return self.records.get_proposal(proposal_id)
        except TrinhoError:  # unknown (to this owner) or invalid: said by deciding on it
            return None

    def states(self, proposal_ids: Sequence[str]) -> Mapping[str, str]:
        found = {pid: self._find(pid) for pid in proposal_ids}
        return {pid: p.status for pid, p in found.items() if p is not None}

    def described(self, items: Sequence[NotificationItem]) -> tuple[NotificationItem, ...]:
        """Each item as its proposal reads now; one gone or changed since, as announced."""
        out = []
        for item in items:
            p = self._find(item.proposal_id)
            same = p is not None and p.content_hash == item.content_hash
            locale = self.records.locale
            out.append(described_item(item, p, locale) if p is not None and same else item)
        return tuple(out)

    def decide(
        self, proposal_id: str, content_hash: str, approve: bool, by: str
    ) -> DecisionOutcome:
        try:
            if approve:
                _, applied = self.records.approve(proposal_id, by, content_hash=content_hash)
                return DecisionOutcome(applied.ok, applied.message)
            self.records.reject(proposal_id, by, content_hash=content_hash)
        except TrinhoError as exc:
            return DecisionOutcome(False, str(exc))
        return DecisionOutcome(True, t(self.records.locale, "decider.rejected"))
