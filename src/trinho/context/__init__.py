"""The prompt: its assembly (`assembly`, pure), the token estimate every budget uses (`budget`,
pure) and reading the workspace for it (`run`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trinho.exports import lazy_exports

if TYPE_CHECKING:
    from trinho.context.assembly import Budgets as Budgets
    from trinho.context.assembly import Context as Context
    from trinho.context.assembly import ContextInputs as ContextInputs
    from trinho.context.assembly import assemble as assemble
    from trinho.context.run import build_context as build_context


__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "trinho.context.assembly": ("Budgets", "Context", "ContextInputs", "assemble"),
        "trinho.context.run": ("build_context",),
    },
)
