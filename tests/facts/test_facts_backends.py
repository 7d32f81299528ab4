"""Facts through the records facade, on each backend (`records`): the reconciliation table,
the fact file's text, and any sequence of saves ending alike on both (`both_backends`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from typing import cast

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FixedClock
from support.backends import Pair
from trinho.errors import TrinhoError
from trinho.facts.format import render_fact
from trinho.facts.rules import ActorKind, Basis
from trinho.records.protocol import Records


def test_facts_follow_the_reconciliation_table(records: Records, clock: FixedClock) -> None:
    assert records.save_fact("city", "Hue", basis="user").outcome == "created"
    assert records.save_fact("city", "Hue", basis="user").outcome == "unchanged"
    clock.advance(days=2)
    moved = records.save_fact("city", "Da Nang", basis="user")
    assert moved.outcome == "superseded"
    inferred = records.save_fact("city", "Hanoi", basis="inferred")
    assert inferred.outcome == "proposed" and inferred.proposal_created
    from_job = records.save_fact("pet", "cat", basis="inferred", actor="job")
    assert from_job.outcome == "proposed"
    fact = records.load_fact("city")
    assert fact is not None and fact.head is not None and fact.head.value == "Da Nang"
    [ended] = fact.history
    assert (ended.value, ended.valid_to) == ("Hue", date(2026, 12, 1))
    assert records.load_fact("pet") is None


def test_the_fact_file_text_is_the_same_on_both(records: Records, clock: FixedClock) -> None:
    records.save_fact("city", "Huế", basis="user", source="chat")
    clock.advance(days=1)
    records.save_fact("city", "Hà Nội", basis="user", source="chat")
    fact = records.load_fact("city")
    assert fact is not None
    assert render_fact(fact).startswith("---\nkey: city\n")
    assert "Huế" in render_fact(fact)


_SAVES = st.lists(
    st.tuples(
        st.sampled_from(["city", "pet"]),
        st.sampled_from(["Huế", "Hà Nội", "cat", "Đà Nẵng"]),
        st.sampled_from(["user", "inferred"]),
        st.sampled_from(["owner", "chat", "job"]),
        st.integers(min_value=0, max_value=3),  # days the clock moves first
        st.sampled_from([None, -3, 0, 2]),  # valid_from, days from today
    ),
    max_size=8,
)


@settings(max_examples=20, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(saves=_SAVES)
def test_any_sequence_of_saves_ends_the_same_on_both_backends(
    saves: list[tuple[str, str, str, str, int, int | None]], both_backends: Callable[[], Pair]
) -> None:
    """The property: whatever the owner, a chat model and a job save, in whatever order and
    on whatever days, both backends give the same outcome each time, the same errors, the
    same fact files and the same queue of proposals."""
    pair = both_backends()
    clock = pair.files.clock
    both = [b.records() for b in pair]
    for key, value, basis, actor, days, start in saves:
        clock.advance(days=days)
        valid_from = None if start is None else clock.now.date() + timedelta(days=start)
        results: list[tuple[str | None, bool]] = []
        for records in both:
            try:
                saved = records.save_fact(
                    key,
                    value,
                    basis=cast(Basis, basis),
                    actor=cast(ActorKind, actor),
                    valid_from=valid_from,
                )
                results.append((saved.outcome, saved.proposal_created))
            except TrinhoError as exc:
                results.append((exc.key, False))
        assert results[0] == results[1]
    for key in ("city", "pet"):
        files, db = (records.load_fact(key) for records in both)
        assert (render_fact(files) if files else None) == (render_fact(db) if db else None)
    files_queue, db_queue = (records.proposals() for records in both)
    assert [p.to_json() for p in files_queue] == [p.to_json() for p in db_queue]
