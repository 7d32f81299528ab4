"""The decisions that need the owner's files (`trinho.review.decide`), whichever backend the
records are: they go to `Records.on_files` when the records say so, and are refused in one
line when the records have no files to work on."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trinho.errors import TrinhoError
from trinho.facts import store as facts
from trinho.proposals.format import ApplyResult, Proposal
from trinho.records.protocol import FileRecords, OnFiles
from trinho.review import decide
from trinho.review.appliers import APPLIERS
from trinho.workspace import Workspace

T = TypeVar("T")


class Steered(FileRecords):
    """The file records, told whether their approval leaves a proposal to its run's files
    and whether they have files to work on; every call to those files is counted."""

    def __init__(self, ws: Workspace, *, needs_run: bool, has_files: bool) -> None:
        super().__init__(ws, APPLIERS)
        self.needs_run = needs_run
        self.has_files = has_files
        self.on_files_jobs = 0
        self.own_approvals = 0

    def needs_its_run(self, proposal_id: str) -> bool:
        return self.needs_run

    def on_files(self) -> OnFiles | None:
        if not self.has_files:
            return None
        ws = self.ws

        def run(job: Callable[[Workspace], T]) -> T:
            self.on_files_jobs += 1
            return job(ws)

        return run

    def approve(
        self, proposal_id: str, by: str, *, content_hash: str | None = None
    ) -> tuple[Proposal, ApplyResult]:
        self.own_approvals += 1
        return super().approve(proposal_id, by, content_hash=content_hash)


def _waiting_fact(ws: Workspace) -> Proposal:
    saved = facts.save_fact(ws, "home-city", "Huế", actor="job", origin="job:nightly")
    assert saved.proposal is not None
    return saved.proposal


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(needs_run=st.booleans(), has_files=st.booleans())
def test_an_approval_goes_to_the_files_exactly_when_the_records_leave_it_there(
    tmp_path_factory: pytest.TempPathFactory, needs_run: bool, has_files: bool
) -> None:
    from trinho.workspace import init_workspace

    ws = init_workspace(tmp_path_factory.mktemp("ws"), timezone="Asia/Ho_Chi_Minh").workspace
    proposal = _waiting_fact(ws)
    records = Steered(ws, needs_run=needs_run, has_files=has_files)
    decided, applied = decide.approve(
        records, proposal.id, "owner (cli)", content_hash=proposal.content_hash
    )
    on_files = needs_run and has_files
    assert (records.on_files_jobs, records.own_approvals) == ((1, 0) if on_files else (0, 1))
    assert applied.ok and decided.status == "approved"
    assert facts.load_fact(ws, "home-city") is not None


def test_with_no_files_a_take_back_and_a_reopen_are_refused_and_nothing_changes(
    workspace: Workspace,
) -> None:
    proposal = _waiting_fact(workspace)
    records = Steered(workspace, needs_run=False, has_files=False)
    decide.approve(records, proposal.id, "owner (web)")
    assert not decide.takes_back(records)
    for undo in (decide.take_back, decide.reopen):
        with pytest.raises(TrinhoError) as refused:
            undo(records, proposal.id, "owner (web)")
        assert refused.value.key == "error.web.pg_take_back"
    assert records.get_proposal(proposal.id).status == "approved"


def test_on_the_files_an_approval_is_taken_back_and_a_rejection_reopened(
    workspace: Workspace,
) -> None:
    records = Steered(workspace, needs_run=False, has_files=True)
    assert decide.takes_back(records)
    approved = _waiting_fact(workspace)
    decide.approve(records, approved.id, "owner (web)")
    taken, result = decide.take_back(records, approved.id, "owner (web)")
    assert result.ok and taken.status == "reverted"
    waiting = _waiting_fact(workspace)
    records.reject(waiting.id, "owner (web)")
    assert decide.reopen(records, waiting.id, "owner (web)").status == "pending"
    assert records.on_files_jobs == 2
