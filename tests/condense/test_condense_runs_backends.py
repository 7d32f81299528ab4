"""A condensation run's journal on each backend (`backend`): replaced whole at each step, read
back, the week's runs listed, a bad run id refused."""

from __future__ import annotations

import pytest

from conftest import FixedClock
from support.backends import Backend
from support.stores import RunJournals
from trinho.condense.store.runs import Journal, ProposalEntry
from trinho.errors import TrinhoError


@pytest.fixture
def journals(backend: Backend) -> RunJournals:
    return backend.journals()


def test_a_journal_is_replaced_whole_at_each_step_and_reads_back(
    journals: RunJournals, clock: FixedClock
) -> None:
    now = clock.now
    assert journals.read("2026-W48") is None
    first = journals.write(Journal("2026-W48", "running", now, now))
    clock.advance(minutes=3)
    entry = ProposalEntry("abcdef0123", "h" * 64, "pending")
    applying = journals.advance(first, "applying")
    applied = journals.advance(applying, "applied", applied_sha="s", proposals=(entry,))
    journals.write(Journal("2026-W48.2", "failed", now, now, error="model: timeout"))
    journals.write(Journal("2026-W47", "done", now, now))
    assert journals.read("2026-W48") == applied
    assert applied.updated_at == clock.now and applied.state == "applied"
    assert journals.week_runs("2026-W48") == ["2026-W48", "2026-W48.2"]
    with pytest.raises(TrinhoError) as caught:
        journals.read("2026-48")
    assert caught.value.key == "error.run.bad_id"
