"""trinho: long-term memory for a personal AI assistant that never loses what you told it.

Embedding it: `trinho.Memory(path)` gives the prompt context, the tool definitions and the
dispatcher for the model's tool calls.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

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


def lazy_exports(
    package: str, modules: Mapping[str, Iterable[str]]
) -> tuple[list[str], Callable[[str], object]]:
    """A package's `__all__` and module `__getattr__` for the names its modules define
    (`modules`: module -> names), each imported on first use and then kept, so importing
    one module of a package loads no other. The package's `TYPE_CHECKING` block imports the
    same names (`import X as X`), which is what a type checker reads."""
    module_of = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> object:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    return sorted(module_of), __getattr__


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
