"""The channels' decider (`trinho.review.service.QueueDecider`), one class over either
backend: a held line change approved from a button and taken back within the short time puts
MEMORY.md back byte for byte, and a rejection taken back waits again, on the file workspace and
on a database owner (the Telegram bot's records, taken back on the owner's working copy)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conftest import FixedClock
from support.desks import DeskBackend, file_backend, pg_backend
from support.held_changes import LISBON, MEMORY, PENICILLIN, PORTO, held, submit
from trinho.channels.base import ReviewQueue, TakesBack
from trinho.review.service import QueueDecider
from trinho.workspace import Workspace


@pytest.fixture(params=["files", "pg"])
def desk(
    request: pytest.FixtureRequest, workspace: Workspace, clock: FixedClock
) -> Iterator[DeskBackend]:
    workspace.memory_file.write_text(MEMORY, encoding="utf-8")
    if request.param == "files":
        yield file_backend(workspace)
        return
    yield pg_backend(request.getfixturevalue("pg_admin"), workspace, clock)


def test_an_approval_from_a_button_is_taken_back_byte_for_byte(desk: DeskBackend) -> None:
    decider = QueueDecider(desk.records)
    assert isinstance(decider, TakesBack) and isinstance(decider, ReviewQueue)
    pid = submit(desk.records, held("edited", LISBON, PORTO))
    digest = desk.records.get_proposal(pid).content_hash
    assert decider.decide(pid, "0" * 64, True, "owner").ok is False  # not what was announced
    assert desk.memory() == MEMORY
    assert decider.decide(pid, digest, True, "owner").ok
    assert desk.memory() == f"# Memory\n\n{PORTO}\n{PENICILLIN}\n"
    assert decider.states([pid]) == {pid: "approved"}
    assert decider.take_back(pid, "owner").ok
    assert desk.memory() == MEMORY


def test_a_rejection_taken_back_waits_again(desk: DeskBackend) -> None:
    decider = QueueDecider(desk.records)
    pid = submit(desk.records, held("removed", PENICILLIN, None))
    digest = desk.records.get_proposal(pid).content_hash
    assert decider.decide(pid, digest, False, "owner").ok
    assert decider.states([pid]) == {pid: "rejected"}
    assert decider.take_back(pid, "owner").ok
    assert decider.states([pid]) == {pid: "pending"}
    assert desk.memory() == MEMORY
