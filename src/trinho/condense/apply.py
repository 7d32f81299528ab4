"""Writing MEMORY.md: a condensation run's text, an approved held change, an undo.

Every write replaces the file atomically under its lock, and a run keeps the text it replaced
so `trinho condense --undo RUN_ID` can put it back (keeping the text it undoes, too).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from trinho import proposals
from trinho.condense.gate import Change
from trinho.condense.held import HeldApplied, apply_held
from trinho.condense.runs import BEFORE, UndoEntry, advance, read_journal, require_run
from trinho.durable import atomic_write_text, fsync_dir
from trinho.errors import TrinhoError
from trinho.i18n import t
from trinho.memory_md import read_memory, render
from trinho.workspace import MEMORY_FILE, Workspace


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def current_text(ws: Workspace) -> str:
    return render(read_memory(ws))


def reindex_memory(ws: Workspace) -> None:
    """Let the search index see the new MEMORY.md at once (imported late: search reads it)."""
    from trinho.search import notify_written

    notify_written(ws, [MEMORY_FILE])


def apply_memory_proposal(ws: Workspace, proposal: proposals.Proposal) -> proposals.ApplyResult:
    """Approving a held change applies it to MEMORY.md as it is now, or says why it cannot."""
    where = proposals.proposal_path(ws, proposal.id)
    try:
        change = Change.from_dict(proposal.change)
    except (ValueError, KeyError, TypeError) as exc:
        raise TrinhoError(f"{where}: not a MEMORY.md change ({exc}); nothing was applied") from None
    if change.cls == "moved" or not change.held:
        raise TrinhoError(f"{where}: a {change.cls} change applies by itself; nothing to approve")
    with ws.lock(ws.memory_file):
        before = current_text(ws)
        outcome = apply_held(before, change)
        if not isinstance(outcome, HeldApplied):
            why = outcome.why.text(ws.locale)
            return proposals.ApplyResult(False, t(ws.locale, "condense.stale", reason=why))
        if outcome.text != before:
            atomic_write_text(ws.memory_file, outcome.text)
    reindex_memory(ws)
    return proposals.ApplyResult(True, t(ws.locale, f"condense.approved.{change.cls}"))


@dataclass(frozen=True)
class UndoResult:
    run_id: str
    restored_from: str | None
    """Workspace-relative path of the version put back; None when the run wrote the first
    MEMORY.md, which the undo removes."""
    kept_current: str | None
    """Workspace-relative path where the text it replaced was kept; None when there was no
    MEMORY.md to keep (removed since a run that created it)."""
    changed_since: bool
    """MEMORY.md had changed since the run wrote it (approvals, hand edits): kept all the same."""

    def to_dict(self) -> dict[str, object]:
        return {
            "run_id": self.run_id,
            "restored_from": self.restored_from,
            "kept_current": self.kept_current,
            "changed_since": self.changed_since,
        }


def undo_run(ws: Workspace, run_id: str) -> UndoResult:
    """Put back the MEMORY.md that run `run_id` replaced, keeping the current one as a version.

    When there was no MEMORY.md before the run, putting it back means removing the file.
    """
    folder = require_run(ws, run_id)
    before_path = folder / BEFORE
    journal = read_journal(ws, run_id)
    if journal is None or journal.state not in ("applied", "proposed", "done"):
        raise TrinhoError(f"run {run_id} did not write MEMORY.md; there is nothing to undo")
    if journal.had_memory and not before_path.exists():
        raise TrinhoError(f"{before_path} is missing: the version before run {run_id} is gone")
    restored = before_path.read_text(encoding="utf-8") if journal.had_memory else None
    kept: Path | None = None
    with ws.lock(ws.memory_file):
        current = current_text(ws)
        if restored is not None or ws.memory_file.exists():
            kept = _free_name(folder, "MEMORY.undone", ".md")
            atomic_write_text(kept, current)
        if restored is not None:
            atomic_write_text(ws.memory_file, restored)
        elif ws.memory_file.exists():
            ws.memory_file.unlink()
            fsync_dir(ws.memory_file.parent)
    reindex_memory(ws)
    undone = UndoEntry(ws.now(), kept.name if kept else None)
    advance(ws, journal, journal.state, undone=(*journal.undone, undone))
    return UndoResult(
        run_id,
        ws.relative(before_path) if restored is not None else None,
        ws.relative(kept) if kept else None,
        changed_since=journal.applied_sha is not None and sha(current) != journal.applied_sha,
    )


def _free_name(folder: Path, stem: str, suffix: str) -> Path:
    path = folder / f"{stem}{suffix}"
    number = 1
    while path.exists():
        number += 1
        path = folder / f"{stem}.{number}{suffix}"
    return path
