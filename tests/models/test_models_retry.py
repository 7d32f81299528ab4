"""Retries: which failures are tried again, how long between tries, what the last error says."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trinho.models.base import FailureKind, ModelError
from trinho.models.retry import Failure, RetryPolicy, call_with_retries, retry_after_seconds


class Flaky(Exception):
    pass


@given(
    st.integers(1, 30),
    st.floats(0, 5),
    st.floats(0.1, 60),
    st.none() | st.floats(0, 1000),
)
def test_delay_doubles_and_is_capped(
    attempt: int, backoff: float, cap: float, retry_after: float | None
) -> None:
    policy = RetryPolicy(backoff=backoff, max_backoff=cap)
    delay = policy.delay(attempt, retry_after)
    assert 0 <= delay <= cap
    assert delay >= min(backoff * 2 ** (attempt - 1), cap)
    if retry_after is not None:
        assert delay >= min(retry_after, cap)


def test_transient_failures_are_retried_with_growing_waits() -> None:
    waits: list[float] = []
    outcomes: list[object] = [Flaky(), Flaky(), "done"]

    def attempt() -> str:
        outcome = outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return str(outcome)

    def classify(exc: Exception) -> Failure | None:
        return Failure("rate_limited", "429") if isinstance(exc, Flaky) else None

    policy = RetryPolicy(attempts=5, backoff=1.0)
    assert call_with_retries("p:m", attempt, classify, policy, waits.append) == "done"
    assert waits == [1.0, 2.0]


def test_the_last_failure_becomes_a_model_error() -> None:
    calls: list[int] = []

    def attempt() -> str:
        calls.append(1)
        raise Flaky

    policy = RetryPolicy(attempts=3, backoff=0)
    with pytest.raises(ModelError) as info:
        call_with_retries(
            "p:m", attempt, lambda e: Failure("server_error", "server error 503"), policy, print
        )
    assert len(calls) == 3
    assert str(info.value) == "model p:m: server error 503 (after 3 attempts)"


def test_permanent_failures_are_not_retried_and_unknown_errors_pass_through() -> None:
    calls: list[int] = []

    def attempt() -> str:
        calls.append(1)
        raise Flaky

    with pytest.raises(ModelError) as info:
        call_with_retries("p:m", attempt, lambda e: Failure("auth", "refused"), RetryPolicy())
    assert info.value.kind == "auth" and len(calls) == 1
    with pytest.raises(Flaky):
        call_with_retries("p:m", attempt, lambda e: None, RetryPolicy())


def test_retry_after_header() -> None:
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    assert retry_after_seconds({"retry-after": "Wed, 21 Oct 2026 07:28:00 GMT"}) is None
    assert retry_after_seconds({}) is None
    assert retry_after_seconds(None) is None


@pytest.mark.parametrize(
    ("retry_timeouts", "kind", "tries"),
    [
        (False, "timeout", 1),
        (True, "timeout", 4),
        (False, "unreachable", 4),
        (False, "rate_limited", 4),
        (False, "server_error", 4),
        (True, "context_exceeded", 1),
        (True, "bad_request", 1),
    ],
)
def test_a_timeout_is_retried_only_where_the_policy_says(
    retry_timeouts: bool, kind: FailureKind, tries: int
) -> None:
    calls: list[int] = []

    def attempt() -> str:
        calls.append(1)
        raise Flaky

    policy = RetryPolicy(attempts=4, backoff=0, retry_timeouts=retry_timeouts)
    with pytest.raises(ModelError) as info:
        call_with_retries("p:m", attempt, lambda e: Failure(kind, "x"), policy, lambda s: None)
    assert len(calls) == tries == info.value.attempts
