"""Chat models: one narrow Protocol, adapters over the official SDKs, a scripted double,
and the usage ledger every call is recorded in."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trinho.exports import lazy_exports

if TYPE_CHECKING:
    from trinho.context.budget import estimate_tokens as estimate_tokens
    from trinho.models.base import ChatModel as ChatModel
    from trinho.models.base import ChatRequest as ChatRequest
    from trinho.models.base import ChatResponse as ChatResponse
    from trinho.models.base import Message as Message
    from trinho.models.base import ModelError as ModelError
    from trinho.models.base import ToolCall as ToolCall
    from trinho.models.base import ToolSpec as ToolSpec
    from trinho.models.base import Usage as Usage
    from trinho.models.base import assistant as assistant
    from trinho.models.base import system as system
    from trinho.models.base import tool_result as tool_result
    from trinho.models.base import user as user
    from trinho.models.config import ModelSettings as ModelSettings
    from trinho.models.config import max_output_tokens as max_output_tokens
    from trinho.models.config import resolve_model as resolve_model
    from trinho.models.ledger import Budget as Budget
    from trinho.models.ledger import BudgetLimits as BudgetLimits
    from trinho.models.ledger import LedgeredModel as LedgeredModel
    from trinho.models.ledger import Purpose as Purpose
    from trinho.models.ledger import UsageRecord as UsageRecord
    from trinho.models.ledger import load_budget as load_budget
    from trinho.models.ledger import read_ledger as read_ledger
    from trinho.models.ledger import summarize as summarize
    from trinho.models.loader import build_model as build_model
    from trinho.models.loader import load_model as load_model
    from trinho.models.retry import RetryPolicy as RetryPolicy
    from trinho.models.scripted import ScriptedModel as ScriptedModel


__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "trinho.context.budget": ("estimate_tokens",),
        "trinho.models.base": (
            "ChatModel",
            "ChatRequest",
            "ChatResponse",
            "Message",
            "ModelError",
            "ToolCall",
            "ToolSpec",
            "Usage",
            "assistant",
            "system",
            "tool_result",
            "user",
        ),
        "trinho.models.config": ("ModelSettings", "max_output_tokens", "resolve_model"),
        "trinho.models.ledger": (
            "Budget",
            "BudgetLimits",
            "LedgeredModel",
            "Purpose",
            "UsageRecord",
            "load_budget",
            "read_ledger",
            "summarize",
        ),
        "trinho.models.loader": ("build_model", "load_model"),
        "trinho.models.retry": ("RetryPolicy",),
        "trinho.models.scripted": ("ScriptedModel",),
    },
)
