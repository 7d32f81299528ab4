"""An approval on either backend dispatches by kind through an appliers table, as the file
store does: no kind is named in the approval itself, and one no applier knows is refused in one
line, leaving the proposal waiting. Also the measure of issue 42: no use case copied between
`trinho/pg` and the file stores."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.copies import pg_copies
from trinho.errors import TrinhoError
from trinho.pg.store import PG_APPLIERS, PgRecords
from trinho.proposals.format import ApplyResult, Proposal
from trinho.records.protocol import Records
from trinho.review.appliers import APPLIERS

CHANGE = {"what": "a gadget"}


def test_a_kind_no_applier_knows_is_refused_and_stays_waiting(records: Records) -> None:
    proposal = records.submit("gadget", CHANGE, reason="r", origin="job:x").proposal
    with pytest.raises(TrinhoError) as refused:
        records.approve(proposal.id, "owner")
    assert refused.value.key == "error.proposal.no_applier"
    assert records.get_proposal(proposal.id).status == "pending"


def test_postgres_applies_the_kinds_the_file_store_applies_through_the_table_it_is_given(
    records: Records,
) -> None:
    if not isinstance(records, PgRecords):
        pytest.skip("the appliers a PostgreSQL approval is given")
    assert set(PG_APPLIERS) <= set(APPLIERS)
    seen: list[str] = []

    def apply(_: PgRecords, __: object, proposal: Proposal) -> ApplyResult:
        seen.append(proposal.id)
        return ApplyResult(False, "no longer fits")

    proposal = records.submit("gadget", CHANGE, reason="r", origin="job:x").proposal
    decided, result = records.approve(proposal.id, "owner", appliers={"gadget": apply})
    assert seen == [proposal.id]
    assert (decided.status, decided.decision_note, result.ok) == ("stale", "no longer fits", False)
    with pytest.raises(TrinhoError) as again:
        records.approve(proposal.id, "owner", appliers={"gadget": apply})
    assert again.value.key == "error.proposal.decided_by"
    assert seen == [proposal.id]


def test_no_run_of_six_lines_is_copied_between_postgres_and_the_file_stores() -> None:
    src = Path(__file__).parents[2] / "src"
    assert [str(copy) for copy in pg_copies(src, stores_only=True)] == []
