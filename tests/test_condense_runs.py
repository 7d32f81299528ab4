"""Run ids, the once-per-week rule, and hand edits made during a run (pure rules)."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import FixedClock
from trinho.condense.gate import Change
from trinho.condense.handedit import added_during_run, drop_deleted
from trinho.condense.runs import (
    Journal,
    advance,
    pick_slot,
    read_journal,
    run_dir,
    validate_run_id,
    week_id,
    write_journal,
)
from trinho.errors import TrinhoError
from trinho.workspace import Workspace


@pytest.mark.parametrize(
    ("day", "expected"),
    [
        (date(2026, 11, 29), "2026-W48"),  # a Sunday ends its ISO week
        (date(2026, 11, 30), "2026-W49"),
        (date(2027, 1, 1), "2026-W53"),  # ISO year of a New Year's Day
        (date(2025, 12, 29), "2026-W01"),
    ],
)
def test_week_ids_are_iso_weeks(day: date, expected: str) -> None:
    assert week_id(day) == expected
    assert validate_run_id(expected) == expected


def test_pick_slot_once_per_week_and_force(workspace: Workspace, clock: FixedClock) -> None:
    today = workspace.today()
    assert pick_slot(workspace, today, force=False).run_id == "2026-W48"
    now = workspace.now()
    journal = write_journal(workspace, Journal("2026-W48", "running", now, now))
    slot = pick_slot(workspace, today, force=True)
    assert (slot.run_id, slot.journal, slot.done) == ("2026-W48", journal, None)  # unfinished
    advance(workspace, journal, "done")
    done = pick_slot(workspace, today, force=False)
    assert done.run_id == "2026-W48" and done.done is not None
    assert pick_slot(workspace, today, force=True).run_id == "2026-W48.2"
    for state in ("failed", "skipped"):
        second = Journal("2026-W48.2", state, now, now)
        write_journal(workspace, second)
        assert pick_slot(workspace, today, force=False).run_id == "2026-W48.2"


def test_a_damaged_journal_is_named(workspace: Workspace) -> None:
    folder = run_dir(workspace, "2026-W48")
    folder.mkdir(parents=True)
    (folder / "journal.json").write_text('{"state": "exploded"}', encoding="utf-8")
    with pytest.raises(TrinhoError, match=r"journal\.json: not a valid run journal"):
        read_journal(workspace, "2026-W48")


lines = st.lists(
    st.sampled_from(["- 2026-11-29: a", "- 2026-11-28: b", "# H", "x", ""]), max_size=12
)


@given(lines, lines, lines)
def test_drop_deleted_takes_out_only_what_was_deleted(
    seen: list[str], current: list[str], rewrite: list[str]
) -> None:
    result = drop_deleted("\n".join(seen), "\n".join(current), "\n".join(rewrite)).split("\n")
    for line in set(rewrite):
        removed = rewrite.count(line) - result.count(line)
        deleted = max(0, [s for s in seen if s.strip()].count(line) - current.count(line))
        assert removed == (min(deleted, rewrite.count(line)) if line.strip() else 0)


def test_added_during_run_is_about_lines_the_model_never_saw() -> None:
    seen = "- 2026-01-01: a\n"
    mine = Change("removed", "held", "- 2026-11-29: by hand", None, "r")
    theirs = Change("removed", "held", "- 2026-01-01: a", None, "r")
    addition = Change("strange_date", "held", None, "- 2030-01-01: z", "r")
    assert added_during_run(mine, seen)
    assert not added_during_run(theirs, seen)
    assert not added_during_run(addition, seen)
