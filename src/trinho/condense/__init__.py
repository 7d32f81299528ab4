"""Weekly condensation of MEMORY.md: collect, rewrite, screen, the pure gate, apply, held
changes as proposals, one announcement per run.

The scheduler calls `run_condensation`; `undo_run` puts back what a run replaced.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trinho.condense.rules.report import RunReport
    from trinho.condense.run import run_condensation
    from trinho.condense.store.apply import UndoResult, undo_run

_EXPORTS = {
    "RunReport": "trinho.condense.rules.report",
    "UndoResult": "trinho.condense.store.apply",
    "run_condensation": "trinho.condense.run",
    "undo_run": "trinho.condense.store.apply",
}
"""Public name -> the module that defines it, imported on first use so that importing
one module of the package loads nothing else."""

__all__ = [
    "RunReport",
    "UndoResult",
    "run_condensation",
    "undo_run",
]


def __getattr__(name: str) -> object:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
