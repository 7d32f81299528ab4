"""Approving a held MEMORY.md change, on each backend (`backend`): the same rules on
MEMORY.md's latest text, the same outcome and the same text; a change of an undone run, or a
proposal that is no held change, refused and left waiting."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.backends import Backend, Pair
from support.held_changes import LISBON, MEMORY, PENICILLIN, PORTO, RUN, held, submit
from trinho.condense.store.runs import Journal, UndoEntry
from trinho.durable import inject
from trinho.errors import TrinhoError
from trinho.proposals import store as proposals
from trinho.records.protocol import FileRecords, Records
from trinho.review.appliers import APPLIERS
from trinho.workspace import Workspace


@pytest.mark.parametrize(
    ("change", "after"),
    [
        (held("edited", LISBON, PORTO), f"# Memory\n\n{PORTO}\n{PENICILLIN}\n"),
        (held("removed", PENICILLIN, None), f"# Memory\n\n{LISBON}\n"),
        (
            held("added", None, PORTO, after=LISBON),
            f"# Memory\n\n{LISBON}\n{PORTO}\n{PENICILLIN}\n",
        ),
    ],
)
def test_a_held_line_change_is_applied_on_both_backends_alike(
    records: Records, change: dict[str, object], after: str
) -> None:
    records.write_memory(MEMORY)
    pid = submit(records, change)
    decided, result = records.approve(pid, "owner (web)")
    assert result.ok and decided.status == "approved"
    assert records.memory_text() == after
    assert records.get_proposal(pid).status == "approved"


def test_a_line_gone_since_makes_the_approval_stale_and_writes_nothing(records: Records) -> None:
    records.write_memory(MEMORY)
    pid = submit(records, held("edited", LISBON, PORTO))
    records.write_memory(f"# Memory\n\n{PENICILLIN}\n")
    decided, result = records.approve(pid, "owner")
    assert not result.ok and decided.status == "stale"
    assert "Sister Anna lives in Lisbon" in result.message
    assert records.memory_text() == f"# Memory\n\n{PENICILLIN}\n"


def test_a_change_of_an_undone_run_is_refused(backend: Backend) -> None:
    records = backend.records()
    records.write_memory(MEMORY)
    pid = submit(records, held("edited", LISBON, PORTO))
    now = backend.clock()
    backend.journals().write(Journal(RUN, "done", now, now, undone=(UndoEntry(now, None),)))
    with pytest.raises(TrinhoError) as refused:
        records.approve(pid, "owner")
    assert refused.value.key == "error.condense.run_undone"
    assert records.get_proposal(pid).status == "pending"
    assert records.memory_text() == MEMORY


def test_a_proposal_that_is_no_held_change_is_refused_in_one_line(records: Records) -> None:
    pid = records.submit("memory", {"class": "nonsense"}, reason="r", origin="x").proposal.id
    with pytest.raises(TrinhoError) as refused:
        records.approve(pid, "owner")
    assert refused.value.key == "error.condense.not_memory_change"
    assert records.get_proposal(pid).status == "pending"


LINE = st.text(st.sampled_from("abc xyz:-"), min_size=1, max_size=12).map(lambda s: f"- {s}")


@settings(max_examples=20, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=st.lists(LINE, min_size=1, max_size=6),
    cls=st.sampled_from(["edited", "removed", "added"]),
    pick=st.integers(0, 5),
    new=LINE,
)
def test_any_held_line_change_ends_in_the_same_text_on_both(
    both_backends: Callable[[], Pair], lines: list[str], cls: str, pick: int, new: str
) -> None:
    target = lines[pick % len(lines)]
    change = {
        "edited": held("edited", target, new),
        "removed": held("removed", target, None),
        "added": held("added", None, new, after=target),
    }[cls]
    text = "\n".join(lines) + "\n"
    outcomes = []
    for backend in both_backends():
        records = backend.records()
        records.write_memory(text)
        decided, result = records.approve(submit(records, change), "owner")
        outcomes.append((decided.status, result.ok, result.message, records.memory_text()))
    assert outcomes[0] == outcomes[1]


@pytest.mark.durability
@pytest.mark.parametrize(
    "change",
    [
        held("edited", LISBON, PORTO),
        held("added", None, PORTO, after=LISBON),
        held("removed", PENICILLIN, None),
    ],
)
def test_an_approval_cut_off_before_its_decision_is_recorded_changes_memory_once(
    workspace: Workspace, change: dict[str, object]
) -> None:
    """On files MEMORY.md is written before the proposal's decision: killed between the two,
    the approval is run again and must not apply the change a second time (on PostgreSQL both
    are one transaction). The digest it recorded first tells it the file is already as it
    left it; once decided, the record goes."""
    records = FileRecords(workspace, APPLIERS)
    records.write_memory(MEMORY)
    pid = submit(records, change)

    def dies(path: Path) -> None:
        if path == proposals.proposal_path(workspace, pid):
            raise KeyboardInterrupt

    with inject("before_replace", dies), pytest.raises(KeyboardInterrupt):
        records.approve(pid, "owner")
    once = records.memory_text()
    assert once != MEMORY and records.get_proposal(pid).status == "pending"
    decided, result = records.approve(pid, "owner")
    assert result.ok and decided.status == "approved"
    assert records.memory_text() == once
    assert not proposals.intent_path(workspace, pid).exists()
