"""The narrow chat-model seam: plain typed values in and out, and one Protocol.

Everything in trinho that talks to a model speaks these values; only the adapters in this
package know a vendor SDK.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, Self, runtime_checkable

from trinho.context.budget import estimate_tokens
from trinho.errors import TrinhoError
from trinho.i18n import t

Role = Literal["system", "user", "assistant", "tool"]

FailureKind = Literal[
    "not_configured",
    "not_installed",
    "no_key",
    "auth",
    "unreachable",
    "timeout",
    "rate_limited",
    "server_error",
    "unknown_model",
    "bad_request",
    "context_exceeded",
    "bad_response",
    "exhausted",
]


class ModelError(TrinhoError):
    """A model call that failed for good: names the model, what happened, how to fix it."""

    def __init__(
        self,
        model: str,
        kind: FailureKind,
        detail: str,
        *,
        key: str | None = None,
        params: Mapping[str, object] | None = None,
        attempts: int = 1,
    ) -> None:
        self.model = model
        self.kind = kind
        self.attempts = attempts
        tries = f" (after {attempts} attempts)" if attempts > 1 else ""
        self.detail = detail + tries
        super().__init__(
            f"model {model}: {self.detail}" if model else self.detail, key=key, params=params
        )

    @classmethod
    def failed(cls, model: str, kind: FailureKind, key: str, /, **params: object) -> Self:
        """The failure whose detail is catalog entry `key`: English now, any locale later."""
        return cls(model, kind, t("en", key, **params), key=key, params=params)

    def localized(self, locale: str) -> str:
        """The detail in `locale` (when it has a catalog key), the model and attempts around it."""
        if self.key is None:
            return str(self)
        detail = t(locale, self.key, **self.params)
        if self.attempts > 1:
            detail += t(locale, "error.model.attempts", attempts=self.attempts)
        return t(locale, "error.model", model=self.model, detail=detail) if self.model else detail


@dataclass(frozen=True)
class ToolCall:
    """One call the model asks for. `error` says why the arguments were unusable, if they were."""

    id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    error: str | None = None


@dataclass(frozen=True)
class Message:
    """One message. Build them with `system`, `user`, `assistant` and `tool_result`."""

    role: Role
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    tool_name: str | None = None


def system(text: str) -> Message:
    return Message("system", text)


def user(text: str) -> Message:
    return Message("user", text)


def assistant(text: str = "", tool_calls: Iterable[ToolCall] = ()) -> Message:
    return Message("assistant", text, tuple(tool_calls))


def tool_result(call: ToolCall | str, text: str) -> Message:
    """The answer to a tool call, given the call itself or its id."""
    if isinstance(call, ToolCall):
        return Message("tool", text, tool_call_id=call.id, tool_name=call.name)
    return Message("tool", text, tool_call_id=call)


@dataclass(frozen=True)
class ToolSpec:
    """A tool the model may call: `parameters` is a JSON Schema object."""

    name: str
    description: str
    parameters: Mapping[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )
    builtin: str | None = None
    """The provider's own tool type (Anthropic's `memory_20250818`): sent by its type and
    name, the provider knowing its schema."""


@dataclass(frozen=True)
class Usage:
    """Tokens one call (or several, added up) cost.

    `input_tokens` is the whole prompt, cached or not, so budgets count what the model read;
    `cached_input_tokens` is the part of it the provider served from its prompt cache (0 when
    it does not say), which is cheaper and faster but still part of `input_tokens`.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cached_input_tokens + other.cached_input_tokens,
        )


@dataclass(frozen=True)
class ChatRequest:
    """What one model call sends. A list of messages is accepted and kept as a tuple.

    `max_tokens` is what the caller wants at most; the adapters never ask for more than
    `[model] max_output_tokens`. `cache_prefix` says the system messages are a stable prefix
    (the same bytes call after call) worth caching: adapters whose provider must be told so
    mark it, the others send nothing more, as their servers cache prefixes by themselves.
    """

    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int = 1024
    temperature: float | None = None
    cache_prefix: bool = False
    """The system message is a stable prefix worth caching (Anthropic marks it)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "messages", tuple(self.messages))
        object.__setattr__(self, "tools", tuple(self.tools))
        if not self.messages:
            raise ValueError("a chat request needs at least one message")
        if self.max_tokens < 1:
            raise ValueError("max_tokens must be at least 1")

    def estimated_tokens(self) -> int:
        """A rough prompt size plus the most the answer may take, for budget checks."""
        text = "".join(
            m.text + "".join(json.dumps(dict(c.arguments)) for c in m.tool_calls)
            for m in self.messages
        )
        schema = "".join(
            t.name + t.description + json.dumps(dict(t.parameters)) for t in self.tools
        )
        return estimate_tokens(text + schema) + self.max_tokens


@dataclass(frozen=True)
class ChatResponse:
    """What came back: text and/or tool calls, the tokens it cost, and who answered."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = Usage()
    model: str = ""
    stop_reason: str | None = None

    def as_message(self) -> Message:
        """The assistant message to put back into the conversation."""
        return assistant(self.text, self.tool_calls)


@runtime_checkable
class ListsModels(Protocol):
    """An adapter that can ask its server which models it serves (`trinho model check`)."""

    def served_models(self) -> tuple[str, ...]:
        """The model ids the server lists; raises `ModelError` when it cannot tell."""
        ...


@runtime_checkable
class CountsTokens(Protocol):
    """An adapter whose server tokenizes text for it (llama.cpp, llama-cpp-python, vLLM)."""

    def server_tokens(self, text: str) -> int | None:
        """`text`'s tokens by the server's tokenizer; None when the server has no tokenizer
        endpoint (or it failed: the estimate then stands in)."""
        ...


@runtime_checkable
class ChatModel(Protocol):
    """Anything that answers a chat request: the SDK adapters, the scripted model, the ledger."""

    @property
    def name(self) -> str:
        """`PROVIDER:MODEL`, as configured."""
        ...

    def chat(self, request: ChatRequest) -> ChatResponse: ...


def parse_arguments(raw: object) -> tuple[dict[str, Any], str | None]:
    """Tool-call arguments as a JSON object; a model's broken JSON becomes an error, not a crash.

    The wire carries a JSON string; a server that sends the object itself is taken at its word.
    """
    if isinstance(raw, dict):
        return dict(raw), None
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}, None
    if not isinstance(raw, str):
        return {}, f"arguments are not a JSON object: {str(raw)[:200]!r}"
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return {}, f"arguments are not valid JSON ({exc.msg}): {raw[:200]!r}"
    if not isinstance(value, dict):
        return {}, f"arguments are not a JSON object: {raw[:200]!r}"
    return value, None
