"""The SDK adapters' shared reading of what went wrong: an exception becomes a `Failure`.

Both official SDKs raise the same family (a timeout, a connection error, an HTTP status error
carrying the body, and a base class for the rest), so one classifier serves both.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from trinho.models.config import ModelSettings
from trinho.models.retry import Failure, retry_after_seconds


def classify(
    sdk: ModuleType, base_error: type[Exception], settings: ModelSettings
) -> Callable[[Exception], Failure | None]:
    """Map `sdk`'s exceptions to failures that say what happened and what to do."""
    url = settings.shown_url

    def classify_error(exc: Exception) -> Failure | None:
        if isinstance(exc, sdk.APITimeoutError):
            return Failure.keyed(
                "timeout", "error.model.timeout", url=url, seconds=settings.policy.timeout
            )
        if isinstance(exc, sdk.APIConnectionError):
            return Failure.keyed("unreachable", "error.model.unreachable", url=url)
        if isinstance(exc, sdk.APIStatusError):
            return status_failure(exc.status_code, _message(exc), settings, exc.response.headers)
        if isinstance(exc, base_error):
            return Failure.keyed("bad_response", "error.model.unexpected", url=url, error=str(exc))
        return None

    return classify_error


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
    if status >= 500:
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
    """The server's own words, from an error body `{"error": {"message": ...}}` or alike."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])[:300]
        if isinstance(inner, str):
            return inner[:300]
    return ""
