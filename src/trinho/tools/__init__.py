"""The agent tools: their definitions and the one door a call goes through (`service`), and
checking their arguments (`args`, pure)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trinho.exports import lazy_exports

if TYPE_CHECKING:
    from trinho.tools.service import Actor as Actor
    from trinho.tools.service import ToolResult as ToolResult
    from trinho.tools.service import call as call
    from trinho.tools.service import call_model_tool as call_model_tool
    from trinho.tools.service import export as export
    from trinho.tools.service import model_specs as model_specs


__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "trinho.tools.service": (
            "Actor",
            "ToolResult",
            "call",
            "call_model_tool",
            "export",
            "model_specs",
        ),
    },
)
