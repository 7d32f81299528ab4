"""Approving a held MEMORY.md change on PostgreSQL (`trinho.pg.held`), what only the database
does: the approval writes MEMORY.md's next version and keeps the old, found by search at
once; an archive or a whole rewrite, held on the owner's working copy, is refused here. The
rules both backends share run on both in tests/review/test_review_held_backends.py."""

from __future__ import annotations

import pytest

from conftest import TZ, FixedClock
from support.held_changes import LISBON, MEMORY, PORTO, held, submit
from trinho.errors import TrinhoError
from trinho.pg.connect import Database
from trinho.pg.store import PgRecords
from trinho.search import Query


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
