"""Changes that wait for the owner: the queue (`store`), a proposal as a value (`format`), what
the queue's use cases write (`plan`). Deciding on them is `trinho.review`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trinho.exports import lazy_exports

if TYPE_CHECKING:
    from trinho.proposals.format import Proposal as Proposal
    from trinho.proposals.format import Source as Source
    from trinho.proposals.format import Submitted as Submitted
    from trinho.proposals.store import approve as approve
    from trinho.proposals.store import get_proposal as get_proposal
    from trinho.proposals.store import list_proposals as list_proposals
    from trinho.proposals.store import reject as reject
    from trinho.proposals.store import submit as submit


__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "trinho.proposals.format": ("Proposal", "Source", "Submitted"),
        "trinho.proposals.store": (
            "approve",
            "get_proposal",
            "list_proposals",
            "reject",
            "submit",
        ),
    },
)
