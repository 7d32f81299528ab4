"""What approving a held MEMORY.md change reads on PostgreSQL, beside MEMORY.md itself.

The approval is the file store's use case (`trinho.condense.rules.held.plan_held` on
MEMORY.md's latest version, written as the next version), run by `trinho.pg.store.PgRecords`
in the approval's own transaction, so an approval is never half done.

A line change (an addition, an edit, a removal, a date fixed) is approved in that
transaction. An archive (it writes `memory/archive.md` with the run's sections) and a rewrite
held whole (approved only while no later run read the week again) are decided with their
condensation run's files: on the owner's working copy (`trinho.pg.workcopy`), where the
condensation runs, by the file store's own appliers. In a transaction here they are refused in
one line and stay waiting.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trinho.condense.store.runs import JOURNAL, ORIGIN, RUN_ID_RE, parse_journal
from trinho.errors import TrinhoError
from trinho.proposals.format import Proposal
from trinho.textnorm import shown_id

if TYPE_CHECKING:
    import psycopg

    from trinho.condense.rules.gate import Change

WITH_THE_RUN = frozenset({"archive", "suspicious"})
"""The held classes approved with their condensation run's files: on the owner's working
copy (`trinho.pg.workcopy`), by the file store's own appliers."""


def with_its_run(proposal: Proposal) -> bool:
    """A held archive or rewrite: approved with its run's files, not in a transaction here."""
    return proposal.kind == "memory" and proposal.change.get("class") in WITH_THE_RUN


def refuse_with_its_run(proposal: Proposal, change: Change) -> None:
    """One line refusing to approve, in a transaction, what is approved with its run's files."""
    if change.cls in WITH_THE_RUN:
        raise TrinhoError.keyed("error.pg.held_with_run", id=shown_id(proposal.id), cls=change.cls)


def undone_run(conn: psycopg.Connection, owner: str, origin: str) -> str | None:
    """The run id when `origin` names a condensation run its journal says was undone."""
    run_id = origin.removeprefix(ORIGIN)
    if run_id == origin or not RUN_ID_RE.fullmatch(run_id):
        return None
    row = conn.execute(
        "SELECT body FROM run_files WHERE owner_id = %s AND run_id = %s AND name = %s",
        (owner, run_id, JOURNAL),
    ).fetchone()
    if row is None:
        return None
    journal = parse_journal(row[0], f"{run_id}/{JOURNAL}")
    return run_id if journal.undone else None
