"""The usage ledger on each backend (`backend`): every call read back in order, summed alike."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from conftest import FixedClock
from support.backends import Backend
from support.stores import UsageLedger
from trinho.models.ledger import UsageRecord, summarize


@pytest.fixture
def usage(backend: Backend) -> UsageLedger:
    return backend.ledger()


def _record(at: datetime, n: int, **more: Any) -> UsageRecord:
    return UsageRecord(at, "rewrite", "scripted", 100 * n, 10 * n, **more)


def test_the_ledger_reads_back_every_call_in_order_and_sums_alike(
    usage: UsageLedger, clock: FixedClock
) -> None:
    assert usage.read().records == ()
    records = [
        _record(clock.now, 1, run="2026-W48"),
        _record(clock.now + timedelta(minutes=1), 2, failure="timeout"),
        _record(clock.now + timedelta(days=1), 3, cached_input_tokens=5),
    ]
    for record in records:
        usage.append(record)
    read = usage.read()
    assert read.records == tuple(records) and read.skipped == 0
    totals = summarize(read.records, run="2026-W48").total
    assert (totals.calls, totals.total_tokens) == (1, 110)
