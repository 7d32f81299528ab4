"""`load_model`: the configured model, wrapped so every call lands in the usage ledger."""

from __future__ import annotations

import os
from collections.abc import Mapping

from trinho.models.base import ChatModel
from trinho.models.config import ModelSettings, resolve_model
from trinho.models.ledger import LedgeredModel, Purpose
from trinho.workspace import Workspace


def build_model(settings: ModelSettings) -> ChatModel:
    """The SDK adapter for `settings` (the SDK is imported here, not before)."""
    if settings.api == "anthropic":
        from trinho.models.anthropic import AnthropicModel

        return AnthropicModel(settings)
    from trinho.models.openai_compat import OpenAICompatModel

    return OpenAICompatModel(settings)


def load_model(
    ws: Workspace,
    purpose: Purpose,
    *,
    run: str | None = None,
    model: ChatModel | None = None,
    env: Mapping[str, str] | None = None,
) -> LedgeredModel:
    """The model for `purpose`: `model` if given (e.g. a scripted one), else the configured one.

    Raises `ModelError` when none is configured, a key is missing or the SDK is not installed.
    """
    inner = model or build_model(resolve_model(ws.config, os.environ if env is None else env))
    return LedgeredModel(inner, ws, purpose, run)
