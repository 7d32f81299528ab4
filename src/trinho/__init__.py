"""trinho: long-term memory for a personal AI assistant that never loses what you told it."""

from trinho.errors import TrinhoError
from trinho.workspace import Workspace, init_workspace, open_workspace

__all__ = ["TrinhoError", "Workspace", "init_workspace", "open_workspace"]
