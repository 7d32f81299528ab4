"""The owner's decisions that need the owner's files, written once for both backends.

A held archive or rewrite is approved with its condensation run's files, and a decision is
taken back by the file store's takers: on the file workspace that is the workspace itself, on
the database the owner's working copy (`Records.on_files`). The CLI and the review page decide
through here, so neither asks which backend it has.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trinho.errors import TrinhoError
from trinho.proposals import store as proposals
from trinho.review.appliers import APPLIERS, TAKERS
from trinho.textnorm import shown_id

if TYPE_CHECKING:
    from trinho.proposals.format import ApplyResult, Proposal
    from trinho.records.protocol import OnFiles, Records


def approve(
    records: Records, proposal_id: str, by: str, *, content_hash: str | None = None
) -> tuple[Proposal, ApplyResult]:
    """Approve through the records, or on the owner's files when the records leave the
    proposal to its run's files (with none to work on, the records' own refusal stands)."""
    files = records.on_files()
    if files is not None and records.needs_its_run(proposal_id):
        return files(
            lambda ws: proposals.approve(
                ws, proposal_id, by, appliers=APPLIERS, content_hash=content_hash
            )
        )
    return records.approve(proposal_id, by, content_hash=content_hash)


def take_back(records: Records, proposal_id: str, by: str) -> tuple[Proposal, ApplyResult]:
    """Take back an approval just made: its kind's taker puts the change back as it was."""
    files = _files(records, proposal_id)
    return files(lambda ws: proposals.take_back(ws, proposal_id, by, takers=TAKERS))


def reopen(records: Records, proposal_id: str, by: str) -> Proposal:
    """Take back a rejection just made: the proposal waits again."""
    files = _files(records, proposal_id)
    return files(lambda ws: proposals.reopen(ws, proposal_id, by))


def takes_back(records: Records) -> bool:
    """Whether a decision can be taken back here (the page's short undo)."""
    return records.on_files() is not None


def _files(records: Records, proposal_id: str) -> OnFiles:
    files = records.on_files()
    if files is None:
        raise TrinhoError.keyed("error.web.pg_take_back", id=shown_id(proposal_id))
    return files
