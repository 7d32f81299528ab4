"""The promises both backends keep, run on each (the `records` fixture): the same calls give
the same outcomes and the same text, on the file workspace and in PostgreSQL."""

from __future__ import annotations

import uuid
from datetime import date, timedelta
from typing import cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import TZ, FixedClock
from trinho.errors import TrinhoError
from trinho.facts.format import render_fact
from trinho.facts.rules import ActorKind, Basis
from trinho.pg.connect import Database
from trinho.pg.owners import add_owner
from trinho.pg.store import PgRecords
from trinho.records.protocol import FileRecords, Records
from trinho.workspace import init_workspace

DAY = date(2026, 11, 29)


def test_a_note_is_one_entry_appended_to_the_days_file(records: Records) -> None:
    first = records.save_note("bought  rice\nand fish")
    second = records.save_note("- 09:00 forged?")
    assert (first.line, first.line_number, first.time) == (
        "- 14:05 bought  rice\n  and fish",
        1,
        "14:05",
    )
    assert second.line_number == 3
    assert records.note_text(DAY) == "- 14:05 bought  rice\n  and fish\n- 14:05 - 09:00 forged?\n"


@pytest.mark.parametrize(
    ("text", "key"), [("   ", "error.note.empty"), ("a\x00b", "error.note.nul")]
)
def test_a_bad_note_is_refused_in_one_keyed_line_and_nothing_is_written(
    records: Records, text: str, key: str
) -> None:
    with pytest.raises(TrinhoError) as caught:
        records.save_note(text)
    assert caught.value.key == key
    assert records.note_text(DAY) == ""


def test_memory_md_is_replaced_whole(records: Records) -> None:
    assert records.memory_text() == ""
    records.write_memory("# Memory\n- 2026-11-22: likes phở\n")
    records.write_memory("# Memory\n- 2026-11-29: likes bún\n", run="r1")
    assert records.memory_text() == "# Memory\n- 2026-11-29: likes bún\n"


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


def test_an_approval_speaks_as_the_owner_and_a_rejection_is_not_asked_again(
    records: Records,
) -> None:
    records.save_fact("city", "Hue", basis="user")
    proposed = records.save_fact("city", "Hanoi", basis="inferred", origin="agent:main")
    assert proposed.proposal is not None
    again = records.save_fact("city", "Hanoi", basis="inferred", origin="agent:main")
    assert again.proposal is not None and not again.proposal_created
    assert again.proposal.id == proposed.proposal.id
    decided, result = records.approve(proposed.proposal.id, "owner")
    assert (decided.status, result.ok, decided.decided_by) == ("approved", True, "owner")
    fact = records.load_fact("city")
    assert fact is not None and fact.head is not None
    assert (fact.head.value, fact.head.basis) == ("Hanoi", "user")
    assert fact.head.source == f"proposal:{proposed.proposal.id}"
    with pytest.raises(TrinhoError) as twice:
        records.approve(proposed.proposal.id, "owner")
    assert twice.value.key == "error.proposal.decided_by"
    pet = records.save_fact("pet", "cat", actor="job", origin="job:facts")
    assert pet.proposal is not None
    rejected = records.reject(pet.proposal.id, "owner", "no pets")
    assert (rejected.status, rejected.decision_note) == ("rejected", "no pets")
    after = records.save_fact("pet", "cat", actor="job", origin="job:facts")
    assert after.proposal is not None and not after.proposal_created
    assert [p.status for p in records.proposals()] == ["approved", "rejected"]
    assert records.proposals(include_decided=False) == []


def test_an_approval_of_a_fact_that_changed_since_is_stale(records: Records) -> None:
    records.save_fact("city", "Hue", basis="user")
    proposed = records.save_fact("city", "Hanoi", basis="inferred")
    assert proposed.proposal is not None
    records.save_fact("city", "Vinh", basis="user")
    decided, result = records.approve(proposed.proposal.id, "owner")
    assert (decided.status, result.ok) == ("stale", False)
    fact = records.load_fact("city")
    assert fact is not None and fact.head is not None and fact.head.value == "Vinh"


def test_a_proposal_bound_to_another_hash_is_refused(records: Records) -> None:
    submitted = records.submit("fact", {"user": "owner", "key": "k", "value": "v"}, reason="r",
                               origin="o")  # fmt: skip
    with pytest.raises(TrinhoError) as caught:
        records.reject(submitted.proposal.id, "owner", content_hash="0" * 64)
    assert caught.value.key == "error.proposal.changed"


def test_an_unknown_proposal_is_not_found(records: Records) -> None:
    with pytest.raises(TrinhoError) as caught:
        records.reject("0123456789", "owner")
    assert caught.value.key == "error.proposal.not_found"


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
    saves: list[tuple[str, str, str, str, int, int | None]],
    pg_app: Database,
    pg_admin: Database,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The property: whatever the owner, a chat model and a job save, in whatever order and
    on whatever days, both backends give the same outcome each time, the same errors, the
    same fact files and the same queue of proposals."""
    clock = FixedClock()
    ws = init_workspace(tmp_path_factory.mktemp("ws") / "ws", timezone=TZ, clock=clock).workspace
    owner = f"p-{uuid.uuid4().hex[:12]}"
    add_owner(pg_admin, owner)
    both: list[Records] = [FileRecords(ws), PgRecords(pg_app, owner, clock=clock, timezone=TZ)]
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
