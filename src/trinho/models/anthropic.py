"""Anthropic's Messages API through the official `anthropic` SDK (the `anthropic` extra).

The SDK is imported when a model is built; without the extra installed, building one says
how to install it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from trinho.models.base import ChatRequest, ChatResponse, Message, ModelError, ToolCall, Usage
from trinho.models.config import ModelSettings
from trinho.models.sdk_errors import SdkModel


def _blocks(m: Message) -> list[dict[str, Any]]:
    if m.role == "tool":
        return [{"type": "tool_result", "tool_use_id": m.tool_call_id or "", "content": m.text}]
    blocks: list[dict[str, Any]] = [{"type": "text", "text": m.text}] if m.text else []
    blocks += [
        {"type": "tool_use", "id": c.id, "name": c.name, "input": dict(c.arguments)}
        for c in m.tool_calls
    ]
    return blocks


def _system(text: str, cache: bool) -> str | list[dict[str, Any]]:
    """The `system` parameter: one text block marked as a cache breakpoint when asked, so
    the API caches the prompt up to its end (Anthropic caches only what is marked)."""
    if not cache:
        return text
    return [{"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}]


def to_anthropic_request(request: ChatRequest, settings: ModelSettings) -> dict[str, Any]:
    """Keyword arguments for `messages.create`.

    System messages become the `system` parameter; tool results travel in user turns; turns of
    the same side next to each other are merged, as the API requires them to alternate.
    `temperature` is not sent: the Messages API of the SDK this targets no longer takes it.
    `max_tokens` never exceeds `[model] max_output_tokens`.
    """
    system_text = "\n\n".join(m.text for m in request.messages if m.role == "system")
    turns: list[dict[str, Any]] = []
    for m in request.messages:
        if m.role == "system":
            continue
        side = "assistant" if m.role == "assistant" else "user"
        blocks = _blocks(m)
        if turns and turns[-1]["role"] == side:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": side, "content": blocks})
    params: dict[str, Any] = {
        "model": settings.model,
        "max_tokens": min(request.max_tokens, settings.max_output_tokens),
        "messages": turns,
    }
    if system_text:
        params["system"] = _system(system_text, request.cache_prefix)
    if request.tools:
        params["tools"] = [
            {"type": t.builtin, "name": t.name}
            if t.builtin
            else {"name": t.name, "description": t.description, "input_schema": dict(t.parameters)}
            for t in request.tools
        ]
    return params


def anthropic_usage(usage: Any) -> Usage:
    """The Messages API's `input_tokens` leaves out the tokens written to the cache
    (`cache_creation_input_tokens`) and read from it (`cache_read_input_tokens`): the whole
    prompt is the three added up, and the cached part is what was read."""
    created = getattr(usage, "cache_creation_input_tokens", 0) or 0
    read = getattr(usage, "cache_read_input_tokens", 0) or 0
    return Usage((usage.input_tokens or 0) + created + read, usage.output_tokens or 0, read)


def from_anthropic_response(data: Any) -> ChatResponse:
    """A Messages response (SDK model) as our plain value."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    for block in data.content or ():
        if block.type == "text":
            texts.append(block.text)
        elif block.type == "tool_use":
            arguments = block.input
            if isinstance(arguments, dict):
                calls.append(ToolCall(block.id, block.name, arguments))
            else:
                calls.append(ToolCall(block.id, block.name, {}, "input is not a JSON object"))
    return ChatResponse(
        text="".join(texts),
        tool_calls=tuple(calls),
        usage=anthropic_usage(data.usage),
        model=data.model or "",
        stop_reason=data.stop_reason,
    )


class AnthropicModel(SdkModel):
    """A `ChatModel` over `anthropic.Anthropic`, its own retries and timeout."""

    def __init__(
        self, settings: ModelSettings, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        try:
            import anthropic
        except ModuleNotFoundError:
            raise ModelError.failed(
                settings.name,
                "not_installed",
                "error.model.no_sdk",
                sdk="anthropic",
                package="'trinho[anthropic]'",
            ) from None
        super().__init__(settings, anthropic, anthropic.AnthropicError, sleep)
        keys: dict[str, Any] = {}
        if settings.key_var == "ANTHROPIC_AUTH_TOKEN":
            keys["auth_token"] = settings.api_key
        else:
            keys["api_key"] = settings.api_key
        policy = settings.policy
        self._client = anthropic.Anthropic(
            base_url=settings.base_url,
            timeout=anthropic.Timeout(policy.timeout, connect=policy.connect_timeout),
            max_retries=0,
            **keys,
        )

    def chat(self, request: ChatRequest) -> ChatResponse:
        params = to_anthropic_request(request, self.settings)

        def attempt() -> ChatResponse:
            return from_anthropic_response(self._client.messages.create(**params))

        return self._retried(attempt)
