"""Chat models: one narrow Protocol, adapters over the official SDKs, a scripted double,
and the usage ledger every call is recorded in."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trinho.context.budget import estimate_tokens
    from trinho.models.base import (
        ChatModel,
        ChatRequest,
        ChatResponse,
        Message,
        ModelError,
        ToolCall,
        ToolSpec,
        Usage,
        assistant,
        system,
        tool_result,
        user,
    )
    from trinho.models.config import ModelSettings, max_output_tokens, resolve_model
    from trinho.models.ledger import (
        Budget,
        BudgetLimits,
        LedgeredModel,
        Purpose,
        UsageRecord,
        load_budget,
        read_ledger,
        summarize,
    )
    from trinho.models.loader import build_model, load_model
    from trinho.models.retry import RetryPolicy
    from trinho.models.scripted import ScriptedModel

_EXPORTS = {
    "Budget": "trinho.models.ledger",
    "BudgetLimits": "trinho.models.ledger",
    "ChatModel": "trinho.models.base",
    "ChatRequest": "trinho.models.base",
    "ChatResponse": "trinho.models.base",
    "LedgeredModel": "trinho.models.ledger",
    "Message": "trinho.models.base",
    "ModelError": "trinho.models.base",
    "ModelSettings": "trinho.models.config",
    "Purpose": "trinho.models.ledger",
    "RetryPolicy": "trinho.models.retry",
    "ScriptedModel": "trinho.models.scripted",
    "ToolCall": "trinho.models.base",
    "ToolSpec": "trinho.models.base",
    "Usage": "trinho.models.base",
    "UsageRecord": "trinho.models.ledger",
    "assistant": "trinho.models.base",
    "build_model": "trinho.models.loader",
    "estimate_tokens": "trinho.context.budget",
    "load_budget": "trinho.models.ledger",
    "load_model": "trinho.models.loader",
    "max_output_tokens": "trinho.models.config",
    "read_ledger": "trinho.models.ledger",
    "resolve_model": "trinho.models.config",
    "summarize": "trinho.models.ledger",
    "system": "trinho.models.base",
    "tool_result": "trinho.models.base",
    "user": "trinho.models.base",
}
"""Public name -> the module that defines it, imported on first use so that importing
one module of the package loads nothing else."""

__all__ = [
    "Budget",
    "BudgetLimits",
    "ChatModel",
    "ChatRequest",
    "ChatResponse",
    "LedgeredModel",
    "Message",
    "ModelError",
    "ModelSettings",
    "Purpose",
    "RetryPolicy",
    "ScriptedModel",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "UsageRecord",
    "assistant",
    "build_model",
    "estimate_tokens",
    "load_budget",
    "load_model",
    "max_output_tokens",
    "read_ledger",
    "resolve_model",
    "summarize",
    "system",
    "tool_result",
    "user",
]


def __getattr__(name: str) -> object:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
