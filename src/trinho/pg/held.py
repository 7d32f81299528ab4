"""Approving a held MEMORY.md change on PostgreSQL: the file store's pure rules
(`trinho.condense.rules.held.apply_held`) on MEMORY.md's latest version, written as the next
version, in the approval's own transaction (MEMORY.md's lock held, its version checked), so an
approval is never half done.

A line change (an addition, an edit, a removal, a date fixed) is applied here. An archive (it
writes `memory/archive.md` with the run's sections) and a rewrite held whole (approved only
while no later run read the week again) are decided with their condensation run, which does not
run on PostgreSQL yet: they are refused in one line and stay waiting.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trinho.condense.rules.gate import Change
from trinho.condense.rules.held import HeldApplied, apply_held
from trinho.condense.store.runs import JOURNAL, ORIGIN, RUN_ID_RE, parse_journal
from trinho.errors import TrinhoError
from trinho.i18n import t
from trinho.i18n.keys import APPROVED
from trinho.proposals.store import ApplyResult, Proposal

if TYPE_CHECKING:
    import psycopg

    from trinho.pg.store import PgRecords

WITH_THE_RUN = frozenset({"archive", "suspicious"})
"""The held classes approved with their condensation run's files: on the owner's working
copy (`trinho.pg.workcopy`), by the file store's own appliers."""


def with_its_run(proposal: Proposal) -> bool:
    """A held archive or rewrite: approved with its run's files, not in a transaction here."""
    return proposal.kind == "memory" and proposal.change.get("class") in WITH_THE_RUN


def memory_change(proposal: Proposal) -> Change:
    """The held change a memory proposal carries, or one keyed line naming the proposal."""
    try:
        return Change.from_dict(proposal.change)
    except (ValueError, KeyError, TypeError) as exc:
        raise TrinhoError.keyed(
            "error.condense.not_memory_change", where=f"proposal {proposal.id}", error=str(exc)
        ) from None


def _undone_run(records: PgRecords, conn: psycopg.Connection, origin: str) -> str | None:
    """The run id when `origin` names a condensation run its journal says was undone."""
    run_id = origin.removeprefix(ORIGIN)
    if run_id == origin or not RUN_ID_RE.fullmatch(run_id):
        return None
    row = conn.execute(
        "SELECT body FROM run_files WHERE owner_id = %s AND run_id = %s AND name = %s",
        (records.owner, run_id, JOURNAL),
    ).fetchone()
    if row is None:
        return None
    journal = parse_journal(row[0], f"{run_id}/{JOURNAL}")
    return run_id if journal.undone else None


def apply_memory(records: PgRecords, conn: psycopg.Connection, proposal: Proposal) -> ApplyResult:
    """Apply a held line change to MEMORY.md as it is now, or say why it no longer fits."""
    where = f"proposal {proposal.id}"
    change = memory_change(proposal)
    if change.cls == "moved" or not change.held:
        raise TrinhoError.keyed("error.condense.applies_itself", where=where, cls=change.cls)
    undone = _undone_run(records, conn, proposal.origin)
    if undone is not None:
        raise TrinhoError.keyed("error.condense.run_undone", id=proposal.id, run=undone)
    if change.cls in WITH_THE_RUN:
        raise TrinhoError.keyed("error.pg.held_with_run", id=proposal.id, cls=change.cls)
    version, before = records.memory_in(conn)
    outcome = apply_held(before, change)
    if not isinstance(outcome, HeldApplied):
        why = outcome.why.text(records.locale)
        return ApplyResult(False, t(records.locale, "condense.stale", reason=why))
    if outcome.text != before:
        records.write_memory_in(conn, outcome.text, None, version)
    return ApplyResult(True, t(records.locale, APPROVED[change.cls]))
