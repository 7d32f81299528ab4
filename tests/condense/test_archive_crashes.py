"""A condensation or an approval killed at every durable write point, archive "auto" and "ask":
after the rerun, the resume or the re-approval, every entry is exactly once in MEMORY.md or
`memory/archive.md`: none lost, none twice (DESIGN.md section 7, "Durability").

The kill is injected through `trinho.durable.inject` at each atomic replace (before the fsync,
before the rename, after it) and each append (before its bytes, after their fsync) the clean
run makes, one point per case, counted from a clean run first.
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import get_args

import pytest

from conftest import FixedClock
from support.condense_weeks import two_roles
from trinho.channels import ConsoleChannel
from trinho.condense import run_condensation
from trinho.durable import FaultPoint, inject
from trinho.errors import TrinhoError
from trinho.memory import store as memory_store
from trinho.memory.format import parse
from trinho.notes.store import save_note
from trinho.proposals import store as proposals
from trinho.review.appliers import APPLIERS
from trinho.workspace import Workspace, init_workspace, open_workspace

OLD = "".join(f"- 2025-{1 + i % 12:02d}-{1 + i % 28:02d}: Kỷ niệm số {i}\n" for i in range(60))
POINTS: tuple[FaultPoint, ...] = get_args(FaultPoint)


class Killed(BaseException):
    """The process dies here: no `except Exception` handler sees it."""


def fresh(root: Path, clock: FixedClock, mode: str) -> Workspace:
    ws = init_workspace(root, timezone="Asia/Ho_Chi_Minh", clock=clock).workspace
    config = ws.internal / "config.toml"
    config.write_text(
        config.read_text() + f'\n[context]\nmemory_tokens = 400\n[condense]\narchive = "{mode}"\n'
    )
    ws = open_workspace(ws.root, clock)
    ws.memory_file.write_text("# Trí nhớ\n" + OLD, encoding="utf-8")
    clock.advance(hours=-2)
    save_note(ws, "Tuần yên ả")
    clock.advance(hours=2)
    return ws


@contextmanager
def kill_at(target: int | None, seen: list[tuple[str, str]]) -> Iterator[None]:
    """Count every durable write point reached; die at the `target`-th (None: never)."""

    def at(point: FaultPoint) -> Callable[[Path], None]:
        def action(path: Path) -> None:
            seen.append((point, path.name))
            if target is not None and len(seen) == target:
                raise Killed(point)

        return action

    with ExitStack() as stack:
        for point in POINTS:
            stack.enter_context(inject(point, at(point)))
        yield


def condense(ws: Workspace) -> None:
    run_condensation(ws, model=two_roles("NONE"), channel=ConsoleChannel("vi", io.StringIO()))


def approve_archives(ws: Workspace) -> None:
    for p in proposals.list_proposals(ws, include_decided=False).proposals:
        if p.change.get("class") == "archive":
            proposals.approve(ws, p.id, "owner", appliers=APPLIERS)


def entry_counts(ws: Workspace) -> Counter[str]:
    texts = [memory_store.read_text(ws), memory_store.read_archive(ws)]
    return Counter(e.raw for text in texts for e in parse(text).entries)


def expect_once_each(ws: Workspace) -> None:
    counts = entry_counts(ws)
    expected = Counter(OLD.splitlines())
    assert counts == expected, {k: v for k, v in counts.items() if v != 1}


def steps(mode: str) -> list[Callable[[Workspace], None]]:
    """What the owner's side does: a condensation, then (archive "ask") the approval."""
    return [condense] if mode == "auto" else [condense, approve_archives]


def count_points(tmp: Path, mode: str, step: int) -> int:
    clock = FixedClock()
    ws = fresh(tmp / f"count-{mode}-{step}", clock, mode)
    for index, action in enumerate(steps(mode)):
        seen: list[tuple[str, str]] = []
        with kill_at(None, seen):
            action(ws)
        if index == step:
            return len(seen)
    raise AssertionError(step)


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "step"), [("auto", 0), ("ask", 0), ("ask", 1)])
def test_a_kill_at_every_durable_write_point_loses_and_duplicates_nothing(
    tmp_path: Path, mode: str, step: int
) -> None:
    total = count_points(tmp_path, mode, step)
    assert total > 5
    for target in range(1, total + 1):
        clock = FixedClock()
        ws = fresh(tmp_path / f"{mode}-{step}-{target}", clock, mode)
        actions = steps(mode)
        for action in actions[:step]:
            action(ws)
        seen: list[tuple[str, str]] = []
        with kill_at(target, seen), pytest.raises(Killed):
            actions[step](ws)
        ws = open_workspace(ws.root, clock)  # a new process
        for action in actions[step:]:  # the rerun, the resume, the re-approval
            try:
                action(ws)
            except TrinhoError as exc:  # an approval already saved as decided
                assert exc.key == "error.proposal.decided", (target, seen[-1], exc)
        condense(ws)  # the week is done: a second run finds nothing to do twice
        expect_once_each(ws)
        assert len(parse(memory_store.read_text(ws)).entries) < 60, (target, seen[-1])
        archived = memory_store.read_archive(ws)
        headings = [line for line in archived.split("\n") if line.startswith("## Archived")]
        assert len(headings) == len(set(headings)) == 1, (target, seen[-1], headings)
