"""trinho: long-term memory for a personal AI assistant that never loses what you told it.

Embedding it: `trinho.Memory(path)` gives the prompt context, the tool definitions and the
dispatcher for the model's tool calls.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trinho.api import Memory
    from trinho.context.assembly import Budgets, Context
    from trinho.errors import TrinhoError
    from trinho.tools.service import Actor, ToolResult
    from trinho.workspace import Workspace, init_workspace, open_workspace

_EXPORTS = {
    "Actor": "trinho.tools.service",
    "Budgets": "trinho.context.assembly",
    "Context": "trinho.context.assembly",
    "Memory": "trinho.api",
    "ToolResult": "trinho.tools.service",
    "TrinhoError": "trinho.errors",
    "Workspace": "trinho.workspace",
    "init_workspace": "trinho.workspace",
    "open_workspace": "trinho.workspace",
}
"""Public name -> the module that defines it, imported on first use so that importing
one module of the package loads nothing else."""

__all__ = [
    "Actor",
    "Budgets",
    "Context",
    "Memory",
    "ToolResult",
    "TrinhoError",
    "Workspace",
    "init_workspace",
    "open_workspace",
]


def __getattr__(name: str) -> object:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
