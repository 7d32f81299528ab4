"""The SDK adapters' shared reading of what went wrong: an exception becomes a `Failure`.

Both official SDKs raise the same family (a timeout, a connection error, an HTTP status error
carrying the body, and a base class for the rest), so one classifier serves both. What a server
says is reduced to one line: servers answer with multi-line dumps (a pydantic validation error,
a request echoed back) that would otherwise flood the owner's one-line error.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from types import ModuleType
from typing import Any, TypeVar

from trinho.models.config import ModelSettings
from trinho.models.retry import Failure, RetryPolicy, call_with_retries, retry_after_seconds
from trinho.textnorm import one_line, unify_breaks
from trinho.workspace import CONFIG_PATH

MAX_SAID_CHARS = 200
"""The most of a server's own words an error quotes."""

_PYDANTIC_HEAD = re.compile(r"\d+ validation errors? for \S+")
_PYDANTIC_TYPE = re.compile(r"\s*\[type=[^\]]*\]?.*$")
_CONTEXT = re.compile(
    r"context (length|size|window)|exceeds? the (available )?context|context_length_exceeded"
    r"|exceed_context_size|prompt is too long|too many tokens|n_ctx",
    re.IGNORECASE,
)
"""How servers say a request does not fit the model's context: llama.cpp ("the request exceeds
the available context size"), vLLM and OpenAI ("maximum context length is 2048 tokens"),
LM Studio ("context length of only 4096 tokens"), Anthropic ("prompt is too long")."""
_INVALID = re.compile(
    r"validation error|Input should be|Failed to parse messages|Expected 'content'"
    r"|JSON schema conversion failed|unknown escape",
    re.IGNORECASE,
)
"""A server refusing the request itself under a 5xx status (llama.cpp answers 500 to a message
or a tool schema it cannot read): sending it again would be refused again."""


def classify(
    sdk: ModuleType, base_error: type[Exception], settings: ModelSettings
) -> Callable[[Exception], Failure | None]:
    """Map `sdk`'s exceptions to failures that say what happened and what to do."""
    url = settings.shown_url

    def classify_error(exc: Exception) -> Failure | None:
        if isinstance(exc, sdk.APITimeoutError):
            if _is_connect_timeout(exc):
                return unreachable(settings)
            return Failure.keyed(
                "timeout",
                "error.model.timeout",
                url=url,
                seconds=settings.policy.timeout,
                config=CONFIG_PATH,
            )
        if isinstance(exc, sdk.APIConnectionError):
            return unreachable(settings)
        if isinstance(exc, sdk.APIStatusError):
            return status_failure(exc.status_code, _message(exc), settings, exc.response.headers)
        if isinstance(exc, base_error):
            return Failure.keyed("bad_response", "error.model.unexpected", url=url, error=str(exc))
        return None

    return classify_error


def _is_connect_timeout(exc: BaseException) -> bool:
    """The connection itself timed out (the host is down or drops packets), so nothing was
    asked of the model and asking again costs nothing. The SDKs raise their timeout error from
    the HTTP client's, whose class says which phase timed out (httpx and httpx2 alike)."""
    return type(exc.__cause__).__name__ == "ConnectTimeout"


def unreachable(settings: ModelSettings) -> Failure:
    """No connection: says which setting chose the address, or how to choose another."""
    if settings.url_setting:
        return Failure.keyed(
            "unreachable",
            "error.model.unreachable",
            url=settings.shown_url,
            setting=settings.url_setting,
        )
    return Failure.keyed(
        "unreachable",
        "error.model.unreachable_default",
        url=settings.shown_url,
        provider=settings.provider,
        config=CONFIG_PATH,
    )


def status_failure(status: int, message: str, settings: ModelSettings, headers: object) -> Failure:
    """An HTTP error status as a failure."""
    url = settings.shown_url
    said = f": {message}" if message else ""
    if status == 429:
        return Failure.keyed(
            "rate_limited",
            "error.model.rate_limited",
            retry_after=retry_after_seconds(headers),
            url=url,
            said=said,
        )
    if status not in (401, 403, 404) and _CONTEXT.search(message):
        return Failure.keyed(
            "context_exceeded",
            "error.model.context_exceeded",
            url=url,
            status=status,
            said=said,
            config=CONFIG_PATH,
        )
    if status >= 500 and not _INVALID.search(message):
        return Failure.keyed(
            "server_error",
            "error.model.server_error",
            retry_after=retry_after_seconds(headers),
            status=status,
            url=url,
            said=said,
        )
    if status in (401, 403):
        if settings.key_var:
            return Failure.keyed(
                "auth",
                "error.model.auth_var",
                url=url,
                status=status,
                said=said,
                var=settings.key_var,
            )
        return Failure.keyed("auth", "error.model.auth", url=url, status=status, said=said)
    if status == 404:
        return Failure.keyed(
            "unknown_model", "error.model.unknown", model=settings.model, url=url, said=said
        )
    return Failure.keyed("bad_request", "error.model.rejected", url=url, status=status, said=said)


def _message(exc: Any) -> str:
    """The server's own words, from an error body `{"error": {"message": ...}}`, a top-level
    `message` (vLLM), FastAPI's `detail`, or a body that is plain text."""
    return server_said(getattr(exc, "body", None))


def server_said(body: object) -> str:
    """What a server's error body says, in one line of at most `MAX_SAID_CHARS`."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            inner = inner.get("message", inner.get("detail"))
        if isinstance(inner, list):
            inner = _detail_list(inner)
        body = inner
    return first_line(body) if isinstance(body, str) else ""


def _detail_list(items: list[Any]) -> str:
    """FastAPI's validation `detail`: `[{"loc": [...], "msg": "..."}]`, its first item."""
    first = items[0] if items else None
    if not isinstance(first, dict) or not isinstance(first.get("msg"), str):
        return ""
    where = ".".join(str(part) for part in first.get("loc") or ())
    return f"{where}: {first['msg']}" if where else str(first["msg"])


def first_line(text: str) -> str:
    """The first line that says something: for a pydantic dump (`1 validation error for X`,
    then the field, then the message), the field and its message; at most `MAX_SAID_CHARS`."""
    lines = [line.strip() for line in unify_breaks(text).split("\n") if line.strip()]
    if not lines:
        return ""
    line = lines[0]
    if _PYDANTIC_HEAD.fullmatch(line) and len(lines) >= 3:
        line = f"{lines[1]}: {_PYDANTIC_TYPE.sub('', lines[2])}"
    line = one_line(line)
    if len(line) <= MAX_SAID_CHARS:
        return line
    return line[: MAX_SAID_CHARS - 1].rstrip() + "…"


T = TypeVar("T")


class SdkModel:
    """What every `ChatModel` over a vendor SDK shares: its settings, its name, and each call
    through the retry policy with that SDK's errors classified (`classify`)."""

    def __init__(
        self,
        settings: ModelSettings,
        sdk: ModuleType,
        base_error: type[Exception],
        sleep: Callable[[float], None],
    ) -> None:
        self.settings = settings
        self._sleep = sleep
        self._classify = classify(sdk, base_error, settings)

    @property
    def name(self) -> str:
        return self.settings.name

    def _retried(self, attempt: Callable[[], T], policy: RetryPolicy | None = None) -> T:
        """`attempt` under `policy` (the model's own by default), retried as it allows."""
        chosen = self.settings.policy if policy is None else policy
        return call_with_retries(self.name, attempt, self._classify, chosen, self._sleep)
