"""Weekly condensation of MEMORY.md: collect, rewrite, screen, the pure gate, apply, held
changes as proposals, one announcement per run.

The scheduler calls `run_condensation`; `undo_run` puts back what a run replaced.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trinho.exports import lazy_exports

if TYPE_CHECKING:
    from trinho.condense.rules.gate import Change as Change
    from trinho.condense.rules.gate import GateResult as GateResult
    from trinho.condense.rules.gate import gate as gate
    from trinho.condense.rules.held import HeldApplied as HeldApplied
    from trinho.condense.rules.held import Stale as Stale
    from trinho.condense.rules.held import apply_held as apply_held
    from trinho.condense.rules.report import RunReport as RunReport
    from trinho.condense.rules.report import render_report as render_report
    from trinho.condense.run import run_condensation as run_condensation
    from trinho.condense.store.apply import UndoResult as UndoResult
    from trinho.condense.store.apply import undo_run as undo_run


__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "trinho.condense.rules.gate": ("Change", "GateResult", "gate"),
        "trinho.condense.rules.held": ("HeldApplied", "Stale", "apply_held"),
        "trinho.condense.rules.report": ("RunReport", "render_report"),
        "trinho.condense.run": ("run_condensation",),
        "trinho.condense.store.apply": ("UndoResult", "undo_run"),
    },
)
