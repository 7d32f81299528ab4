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
            return Failure("bad_response", f"unexpected answer from {url}: {exc}")
        return None

    return classify_error


def status_failure(status: int, message: str, settings: ModelSettings, headers: object) -> Failure:
    """An HTTP error status as a failure."""
    url = settings.shown_url
    said = f": {message}" if message else ""
    if status == 429:
        return Failure(
            "rate_limited", f"rate limited by {url} (429){said}", retry_after_seconds(headers)
        )
    if status >= 500:
        return Failure(
            "server_error", f"server error {status} from {url}{said}", retry_after_seconds(headers)
        )
    if status in (401, 403):
        hint = f"check {settings.key_var}" if settings.key_var else "check the API key"
        return Failure("auth", f"{url} refused the credentials ({status}){said}; {hint}")
    if status == 404:
        return Failure(
            "unknown_model",
            f"unknown model {settings.model!r} at {url} (404){said}",
        )
    return Failure("bad_request", f"{url} rejected the request ({status}){said}")


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
