"""Retries with backoff around one model call; the SDKs' own retries are turned off.

The adapters classify each SDK exception into a `Failure`; this module decides, as a pure
function of the attempt number and the failure, whether and how long to wait.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from trinho.i18n import t
from trinho.models.base import FailureKind, ModelError

T = TypeVar("T")

RETRYABLE: frozenset[FailureKind] = frozenset(
    {"unreachable", "timeout", "rate_limited", "server_error"}
)
CONNECT_TIMEOUT = 10.0
"""Seconds to open a connection, whatever `timeout` allows for the answer: a host that is down
is known in seconds, and a connection that never opened asked the model nothing."""


@dataclass(frozen=True)
class RetryPolicy:
    """How long one request may take and how often a transient failure is tried again.

    `retry_timeouts` False: a request that got no answer in time is not sent again. A local
    server that did not answer is still computing the first answer; a second request would
    only queue behind it and double the wait.
    """

    timeout: float = 120.0
    attempts: int = 5
    backoff: float = 0.5
    max_backoff: float = 8.0
    retry_timeouts: bool = True

    @property
    def connect_timeout(self) -> float:
        return min(self.timeout, CONNECT_TIMEOUT)

    def retries(self, kind: FailureKind) -> bool:
        """Whether a failure of `kind` is worth another attempt under this policy."""
        if kind == "timeout":
            return self.retry_timeouts
        return kind in RETRYABLE

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait after failed attempt number `attempt` (1-based): doubling, capped."""
        wanted = self.backoff * 2.0 ** (attempt - 1)
        if retry_after is not None and retry_after > wanted:
            wanted = retry_after
        return min(wanted, self.max_backoff)


@dataclass(frozen=True)
class Failure:
    """One failed attempt, as an adapter understood it."""

    kind: FailureKind
    detail: str
    retry_after: float | None = None
    key: str | None = None
    """The catalog key of `detail`, so the owner can read it in their locale."""
    params: Mapping[str, object] = field(default_factory=dict)

    @classmethod
    def keyed(
        cls, kind: FailureKind, key: str, /, *, retry_after: float | None = None, **params: object
    ) -> Failure:
        """The failure whose detail is catalog entry `key`, in English."""
        return cls(kind, t("en", key, **params), retry_after, key=key, params=params)


def call_with_retries(
    model: str,
    attempt: Callable[[], T],
    classify: Callable[[Exception], Failure | None],
    policy: RetryPolicy,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Run `attempt`, retrying transient failures; the last failure becomes a `ModelError`.

    `classify` returns None for exceptions it does not know; those propagate unchanged.
    """
    number = 1
    while True:
        try:
            return attempt()
        except ModelError:
            raise
        except Exception as exc:
            failure = classify(exc)
            if failure is None:
                raise
            if not policy.retries(failure.kind) or number >= policy.attempts:
                raise ModelError(
                    model,
                    failure.kind,
                    failure.detail,
                    key=failure.key,
                    params=failure.params,
                    attempts=number,
                ) from None
            sleep(policy.delay(number, failure.retry_after))
            number += 1


def retry_after_seconds(headers: object) -> float | None:
    """A numeric Retry-After header, in seconds, if the server sent one."""
    get = getattr(headers, "get", None)
    if get is None:
        return None
    value = get("retry-after")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None
