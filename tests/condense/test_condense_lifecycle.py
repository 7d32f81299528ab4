"""A condensation run's life (`trinho.condense.rules.lifecycle`): the table's properties, and the
journal store refusing every step the table does not allow."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import TZ, FixedClock, snapshot
from support.stores import FileJournals, RunJournals
from trinho.condense.rules import lifecycle
from trinho.condense.rules.lifecycle import (
    FINAL,
    RESTART,
    RUN_STATES,
    START,
    STEPS,
    WRITTEN,
    RunState,
    check_step,
    reachable,
    recover,
)
from trinho.condense.store.runs import Journal, advance, write_journal
from trinho.errors import TrinhoError
from trinho.pg.journals import PgJournals
from trinho.workspace import Workspace

states = st.sampled_from(RUN_STATES)
RESUMABLE = frozenset(s for s in RUN_STATES if RESTART[s] == "finish")


@given(states)
def test_every_state_is_reachable_from_the_start(state: RunState) -> None:
    assert state in reachable(START)


@given(st.data())
def test_every_path_ends_in_a_final_state(data: st.DataObject) -> None:
    """Leaving out the steps that stay in a state (they record a field, not progress), every
    walk from the start ends, within as many steps as there are states, in a final state."""
    state = START
    walked = [state]
    while onward := sorted(STEPS[state] - {state}):
        state = data.draw(st.sampled_from(onward))
        assert state not in walked, f"a cycle: {walked} -> {state}"
        walked.append(state)
    assert state in FINAL


@given(states)
def test_a_final_state_is_left_for_no_other(state: RunState) -> None:
    assert (state in FINAL) == (STEPS[state] <= {state})


@given(states, st.booleans(), st.booleans())
def test_a_restart_from_any_state_ends_the_run_resumes_it_or_starts_it_over(
    state: RunState, replaced: bool, undone: bool
) -> None:
    """The steps a restart records are the table's own; after them the run is final (nothing
    more), resumable (its proposals and announcement from the journal, never for a run that was
    undone), or it starts over, which only a run whose text MEMORY.md does not hold may do."""
    recovery = recover(state, replaced=replaced, undone=undone)
    now = state
    for nxt in recovery.record:
        check_step(now, nxt, "2026-W48")
        now = nxt
    if recovery.then == "nothing":
        assert now in FINAL
    elif recovery.then == "finish":
        assert now in RESUMABLE and not undone
        assert "done" in reachable(now)
    else:
        assert now not in WRITTEN and recovery.record == ()
    again = recover(now, replaced=replaced, undone=undone)
    assert again.record == () and again.then == recovery.then  # a second restart agrees


@given(states, st.booleans())
def test_a_restart_in_the_middle_of_the_replace_asks_memory_md(
    state: RunState, undone: bool
) -> None:
    """Only `applying` depends on whether MEMORY.md holds the run's text."""
    same = recover(state, replaced=True, undone=undone) == recover(
        state, replaced=False, undone=undone
    )
    assert same == (state != "applying")


@given(states, states)
def test_check_step_refuses_every_pair_not_in_the_table(old: RunState, new: RunState) -> None:
    if new in STEPS[old]:
        check_step(old, new, "2026-W48")
        return
    with pytest.raises(TrinhoError) as caught:
        check_step(old, new, "2026-W48")
    assert caught.value.key == "error.run.bad_step"
    assert f"from {old} to {new}" in str(caught.value)


@pytest.fixture(params=["files", "pg"])
def journals(request: pytest.FixtureRequest, workspace: Workspace, clock: FixedClock) -> Any:
    """A run's journals on each backend: both refuse the same steps."""
    if request.param == "files":
        return FileJournals(workspace)
    app, owner = request.getfixturevalue("pg_app"), request.getfixturevalue("owner")
    return PgJournals(app, owner, clock=clock, timezone=TZ)


def test_advance_records_a_step_of_the_table_and_refuses_any_other(
    journals: RunJournals, clock: FixedClock
) -> None:
    for old, new in itertools.product(RUN_STATES, RUN_STATES):
        journal = journals.write(Journal("2026-W48", old, clock.now, clock.now))
        clock.advance(minutes=1)
        if new in STEPS[old]:
            recorded = journals.advance(journal, new, error="e")
            assert journals.read("2026-W48") == recorded
            assert (recorded.state, recorded.error, recorded.updated_at) == (new, "e", clock.now)
            continue
        with pytest.raises(TrinhoError) as caught:
            journals.advance(journal, new, error="e")
        assert caught.value.key == "error.run.bad_step", (old, new)
        assert journals.read("2026-W48") == journal  # nothing recorded


def test_a_refused_step_writes_no_file(workspace: Workspace) -> None:
    now = workspace.now()
    journal = write_journal(workspace, Journal("2026-W48", "done", now, now))
    before = snapshot(workspace.root)
    with pytest.raises(TrinhoError):
        advance(workspace, journal, "running")
    assert snapshot(workspace.root) == before


def test_one_module_names_the_run_states() -> None:
    """The states are spelled as a type in the lifecycle only: no other module of the package
    declares a Literal of them."""
    root = Path(lifecycle.__file__).parents[2]
    found = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Subscript) and ast.unparse(node.value) == "Literal":
                names = {
                    e.value
                    for e in ast.walk(node.slice)
                    if isinstance(e, ast.Constant) and isinstance(e.value, str)
                }
                if {"running", "applying", "applied"} <= names:
                    found.append(path.relative_to(root).as_posix())
    assert found == ["condense/rules/lifecycle.py"]
