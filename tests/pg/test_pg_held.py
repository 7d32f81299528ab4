"""Approving a held MEMORY.md change on PostgreSQL (`trinho.pg.held`): the file store's rules on
MEMORY.md's latest version, written as the next version in the approval's transaction; the
same outcome and the same text as the file workspace gives."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import TZ, FixedClock
from trinho.condense.rules.gate import Change
from trinho.condense.store.runs import Journal, UndoEntry
from trinho.errors import TrinhoError
from trinho.pg.connect import Database
from trinho.pg.journals import PgJournals
from trinho.pg.owners import add_owner
from trinho.pg.store import PgRecords
from trinho.records.protocol import FileRecords, Records
from trinho.review.appliers import APPLIERS
from trinho.search import Query
from trinho.workspace import Workspace, init_workspace

LISBON = "- 2026-02-11: Sister Anna lives in Lisbon"
PORTO = "- 2026-11-23: Sister Anna lives in Porto"
PENICILLIN = "- 2026-10-05: Allergic to penicillin"
MEMORY = f"# Memory\n\n{LISBON}\n{PENICILLIN}\n"
RUN = "2026-W48"


def held(cls: str, old: str | None, new: str | None, **more: str) -> dict[str, object]:
    return Change(cls, "held", old, new, f"held {cls}", **more).to_dict()  # type: ignore[arg-type]


@pytest.fixture(params=["files", "pg"])
def both(
    request: pytest.FixtureRequest, workspace: Workspace, clock: FixedClock
) -> Iterator[Records]:
    """One owner's records on each backend, approvals applying every built-in kind."""
    if request.param == "files":
        yield FileRecords(workspace, APPLIERS)
        return
    db: Database = request.getfixturevalue("pg_admin")
    owner = f"o-{uuid.uuid4().hex[:12]}"
    add_owner(db, owner, TZ)
    yield PgRecords(db, owner, clock=clock, timezone=TZ)


def submit(records: Records, change: dict[str, object]) -> str:
    return records.submit("memory", change, reason="held", origin=f"condense:{RUN}").proposal.id


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
    both: Records, change: dict[str, object], after: str
) -> None:
    both.write_memory(MEMORY)
    pid = submit(both, change)
    decided, result = both.approve(pid, "owner (web)")
    assert result.ok and decided.status == "approved"
    assert both.memory_text() == after
    assert both.get_proposal(pid).status == "approved"


def test_a_line_gone_since_makes_the_approval_stale_and_writes_nothing(both: Records) -> None:
    both.write_memory(MEMORY)
    pid = submit(both, held("edited", LISBON, PORTO))
    both.write_memory(f"# Memory\n\n{PENICILLIN}\n")
    decided, result = both.approve(pid, "owner")
    assert not result.ok and decided.status == "stale"
    assert "Sister Anna lives in Lisbon" in result.message
    assert both.memory_text() == f"# Memory\n\n{PENICILLIN}\n"


def test_the_approval_writes_one_new_version_and_keeps_the_old(
    pg_admin: Database, owner: str, clock: FixedClock
) -> None:
    records = PgRecords(pg_admin, owner, clock=clock, timezone=TZ)
    assert records.write_memory(MEMORY) == 1
    pid = submit(records, held("edited", LISBON, PORTO))
    records.approve(pid, "owner")
    latest = records.memory_version()
    assert latest is not None and latest.version == 2 and PORTO in (latest.text or "")
    with pg_admin.owner_tx(owner) as conn:
        bodies = conn.execute(
            "SELECT body FROM memory_versions WHERE owner_id = %s ORDER BY version", (owner,)
        ).fetchall()
    assert [b for (b,) in bodies] == [MEMORY, latest.text]
    [hit] = records.search(Query("Porto"))
    assert (hit.path, hit.text) == ("MEMORY.md", "Sister Anna lives in Porto")


@pytest.mark.parametrize(
    "change",
    [
        held("archive", LISBON, None),
        held("suspicious", None, None, snapshot=MEMORY, rewrite="# Memory\n"),
    ],
)
def test_an_archive_or_a_whole_rewrite_is_refused_on_pg_and_stays_waiting(
    pg_admin: Database, owner: str, clock: FixedClock, change: dict[str, object]
) -> None:
    records = PgRecords(pg_admin, owner, clock=clock, timezone=TZ)
    records.write_memory(MEMORY)
    pid = submit(records, change)
    with pytest.raises(TrinhoError) as refused:
        records.approve(pid, "owner")
    assert refused.value.key == "error.pg.held_with_run"
    assert records.get_proposal(pid).status == "pending"
    assert records.memory_text() == MEMORY
    latest = records.memory_version()
    assert latest is not None and latest.version == 1


def test_a_change_of_an_undone_run_is_refused(
    pg_admin: Database, owner: str, clock: FixedClock
) -> None:
    records = PgRecords(pg_admin, owner, clock=clock, timezone=TZ)
    records.write_memory(MEMORY)
    pid = submit(records, held("edited", LISBON, PORTO))
    now = clock()
    journals = PgJournals(pg_admin, owner, clock=clock, timezone=TZ)
    journals.write(Journal(RUN, "done", now, now, undone=(UndoEntry(now, None),)))
    with pytest.raises(TrinhoError) as refused:
        records.approve(pid, "owner")
    assert refused.value.key == "error.condense.run_undone"
    assert records.get_proposal(pid).status == "pending"
    assert records.memory_text() == MEMORY


def test_a_proposal_that_is_no_held_change_is_refused_in_one_line(
    pg_admin: Database, owner: str, clock: FixedClock
) -> None:
    records = PgRecords(pg_admin, owner, clock=clock, timezone=TZ)
    pid = records.submit("memory", {"class": "nonsense"}, reason="r", origin="x").proposal.id
    with pytest.raises(TrinhoError) as refused:
        records.approve(pid, "owner")
    assert refused.value.key == "error.condense.not_memory_change"
    assert records.get_proposal(pid).status == "pending"


LINE = st.text(st.sampled_from("abc xyz:-"), min_size=1, max_size=12).map(lambda s: f"- {s}")


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    lines=st.lists(LINE, min_size=1, max_size=6),
    cls=st.sampled_from(["edited", "removed", "added"]),
    pick=st.integers(0, 5),
    new=LINE,
)
def test_any_held_line_change_ends_in_the_same_text_on_both(
    tmp_path_factory: pytest.TempPathFactory,
    pg_admin: Database,
    clock: FixedClock,
    lines: list[str],
    cls: str,
    pick: int,
    new: str,
) -> None:
    ws = init_workspace(tmp_path_factory.mktemp("ws"), timezone=TZ, clock=clock).workspace
    owner = f"o-{uuid.uuid4().hex[:12]}"
    add_owner(pg_admin, owner, TZ)
    target = lines[pick % len(lines)]
    change = {
        "edited": held("edited", target, new),
        "removed": held("removed", target, None),
        "added": held("added", None, new, after=target),
    }[cls]
    text = "\n".join(lines) + "\n"
    outcomes = []
    for records in (
        FileRecords(ws, APPLIERS),
        PgRecords(pg_admin, owner, clock=clock, timezone=TZ),
    ):
        records.write_memory(text)
        decided, result = records.approve(submit(records, change), "owner")
        outcomes.append((decided.status, result.ok, result.message, records.memory_text()))
    assert outcomes[0] == outcomes[1]
