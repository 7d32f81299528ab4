"""Chat models: one narrow Protocol, adapters over the official SDKs, a scripted double,
and the usage ledger every call is recorded in."""

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
from trinho.models.config import ModelSettings, resolve_model
from trinho.models.loader import build_model, load_model
from trinho.models.retry import RetryPolicy
from trinho.models.scripted import ScriptedModel
from trinho.models.usage import (
    Budget,
    BudgetLimits,
    LedgeredModel,
    Purpose,
    UsageRecord,
    load_budget,
    read_ledger,
    summarize,
)
from trinho.tokens import estimate_tokens

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
    "read_ledger",
    "resolve_model",
    "summarize",
    "system",
    "tool_result",
    "user",
]
