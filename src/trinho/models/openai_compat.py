"""OpenAI-compatible chat completions through the official `openai` SDK.

One adapter serves OpenAI itself and the `/v1` endpoints of Ollama, llama.cpp server, vLLM and
LM Studio: only the base URL differs. The SDK is imported when a model is built, not before.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from trinho.models.base import (
    ChatRequest,
    ChatResponse,
    Message,
    ModelError,
    ToolCall,
    Usage,
    parse_arguments,
)
from trinho.models.config import PROVIDERS, ModelSettings, is_loopback
from trinho.models.probe import ServerProbe
from trinho.models.sdk_errors import SdkModel
from trinho.workspace import CONFIG_PATH


def to_openai_messages(messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    """Our messages in the chat-completions wire shape.

    Every `content` is a string, "" when there is no text: OpenAI allows null beside tool
    calls, but llama.cpp's server refuses it (HTTP 500, "Input should be a valid string").
    """
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "tool":
            out.append({"role": "tool", "tool_call_id": m.tool_call_id or "", "content": m.text})
        elif m.role == "assistant" and m.tool_calls:
            out.append(
                {
                    "role": "assistant",
                    "content": m.text,
                    "tool_calls": [
                        {
                            "id": c.id,
                            "type": "function",
                            "function": {
                                "name": c.name,
                                "arguments": json.dumps(dict(c.arguments), ensure_ascii=False),
                            },
                        }
                        for c in m.tool_calls
                    ],
                }
            )
        else:
            out.append({"role": m.role, "content": m.text})
    return out


def to_openai_request(request: ChatRequest, settings: ModelSettings) -> dict[str, Any]:
    """Keyword arguments for `chat.completions.create`.

    OpenAI's newer models take `max_completion_tokens`; the local servers know `max_tokens`.
    Either never exceeds `[model] max_output_tokens`. `cache_prefix` sends nothing: these
    servers reuse a prompt prefix they have seen by themselves.
    """
    messages = to_openai_messages(request.messages)
    params: dict[str, Any] = {"model": settings.model, "messages": messages}
    limit_key = "max_completion_tokens" if settings.provider == "openai" else "max_tokens"
    params[limit_key] = min(request.max_tokens, settings.max_output_tokens)
    if request.temperature is not None:
        params["temperature"] = request.temperature
    if request.tools:
        params["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": dict(t.parameters),
                },
            }
            for t in request.tools
        ]
    return params


def openai_usage(usage: Any) -> Usage:
    """`prompt_tokens` counts the cached part too; `prompt_tokens_details.cached_tokens` says
    how much of it was cached, where the server tells (llama.cpp and ollama may leave the
    details out or null)."""
    details = getattr(usage, "prompt_tokens_details", None)
    return Usage(
        getattr(usage, "prompt_tokens", 0) or 0,
        getattr(usage, "completion_tokens", 0) or 0,
        getattr(details, "cached_tokens", 0) or 0,
    )


def from_openai_response(data: Any, name: str) -> ChatResponse:
    """A chat-completions response object (SDK model) as our plain value."""
    if not getattr(data, "choices", None):
        raise ModelError.failed(name, "bad_response", "error.model.no_choices")
    choice = data.choices[0]
    message = choice.message
    calls: list[ToolCall] = []
    for number, call in enumerate(message.tool_calls or (), start=1):
        function = getattr(call, "function", None)
        if function is None:
            continue
        arguments, error = parse_arguments(function.arguments)
        # A call must be answered by its id; a server that gives none still gets one back.
        calls.append(ToolCall(call.id or f"call_{number}", function.name, arguments, error))
    return ChatResponse(
        text=message.content or "",
        tool_calls=tuple(calls),
        usage=openai_usage(getattr(data, "usage", None)),
        model=getattr(data, "model", "") or "",
        stop_reason=choice.finish_reason,
    )


class OpenAICompatModel(SdkModel):
    """A `ChatModel` over `openai.OpenAI(base_url=...)`, its own retries and timeout."""

    def __init__(
        self, settings: ModelSettings, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        try:
            import openai
        except ModuleNotFoundError:
            raise ModelError.failed(
                settings.name, "not_installed", "error.model.no_sdk", sdk="openai", package="openai"
            ) from None
        super().__init__(settings, openai, openai.OpenAIError, sleep)
        policy = settings.policy
        self._client = openai.OpenAI(
            api_key=settings.api_key,
            base_url=settings.base_url,
            timeout=openai.Timeout(policy.timeout, connect=policy.connect_timeout),
            max_retries=0,
        )
        local = PROVIDERS[settings.provider].local or is_loopback(settings.shown_url)
        self.probe = ServerProbe(settings.shown_url, settings.model) if local else None
        """Only a server of the owner's own is asked for its tokenizer, context and slots."""

    def chat(self, request: ChatRequest) -> ChatResponse:
        params = to_openai_request(request, self.settings)

        def attempt() -> ChatResponse:
            return from_openai_response(self._client.chat.completions.create(**params), self.name)

        try:
            return self._retried(attempt)
        except ModelError as exc:
            if exc.kind != "timeout" or self.probe is None or not self.probe.busy():
                raise
            raise ModelError.failed(
                self.name,
                "timeout",
                "error.model.timeout_busy",
                url=self.settings.shown_url,
                seconds=self.settings.policy.timeout,
                config=CONFIG_PATH,
            ) from None

    def server_tokens(self, text: str) -> int | None:
        return self.probe.tokens(text) if self.probe is not None else None

    def server_context(self) -> int | None:
        """The context length the server runs with, when it tells (llama.cpp, vLLM)."""
        return self.probe.context() if self.probe is not None else None

    def served_models(self) -> tuple[str, ...]:
        """The ids `GET {base_url}/models` lists (one attempt: it only informs a check)."""

        def attempt() -> tuple[str, ...]:
            return tuple(str(m.id) for m in self._client.models.list())

        once = replace(self.settings.policy, attempts=1)
        return self._retried(attempt, once)
