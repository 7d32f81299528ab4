"""trinho: long-term memory for a personal AI assistant that never loses what you told it.

Embedding it: `trinho.Memory(path)` gives the prompt context, the tool definitions and the
dispatcher for the model's tool calls.
"""

from trinho.api import Memory
from trinho.context import Budgets, Context
from trinho.errors import TrinhoError
from trinho.tools import Actor, ToolResult
from trinho.workspace import Workspace, init_workspace, open_workspace

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
