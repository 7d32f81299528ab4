"""Weekly condensation of MEMORY.md: collect, rewrite, screen, the pure gate, apply, held
changes as proposals, one announcement per run.

The scheduler calls `run_condensation`; `undo_run` puts back what a run replaced.
"""

from trinho.condense.apply import UndoResult, undo_run
from trinho.condense.pipeline import run_condensation
from trinho.condense.report import RunReport

__all__ = ["RunReport", "UndoResult", "run_condensation", "undo_run"]
