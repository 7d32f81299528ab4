"""trinho: long-term memory for a personal AI assistant that never loses what you told it.

Embedding it: `trinho.Memory(path)` gives the prompt context, the tool definitions and the
dispatcher for the model's tool calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trinho.exports import lazy_exports

if TYPE_CHECKING:
    from trinho.api import Memory as Memory
    from trinho.context.assembly import Budgets as Budgets
    from trinho.context.assembly import Context as Context
    from trinho.errors import TrinhoError as TrinhoError
    from trinho.tools.service import Actor as Actor
    from trinho.tools.service import ToolResult as ToolResult
    from trinho.workspace import Workspace as Workspace
    from trinho.workspace import init_workspace as init_workspace
    from trinho.workspace import open_workspace as open_workspace


__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "trinho.api": ("Memory",),
        "trinho.context.assembly": ("Budgets", "Context"),
        "trinho.errors": ("TrinhoError",),
        "trinho.tools.service": ("Actor", "ToolResult"),
        "trinho.workspace": ("Workspace", "init_workspace", "open_workspace"),
    },
)
