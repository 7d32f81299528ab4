"""Run ids, the once-per-week rule, and hand edits made during a run (pure rules)."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import FixedClock
from trinho.condense.rules.gate import Change
from trinho.condense.rules.handedit import added_during_run, drop_deleted
from trinho.condense.store.runs import (
    Journal,
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
    write_journal(workspace, replace(journal, state="done"))
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
    (folder / "journal.json").write_text('{"state": "exp', encoding="utf-8")
    with pytest.raises(TrinhoError, match=r"journal\.json: not a valid run journal"):
        read_journal(workspace, "2026-W48")


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({"state": "exploded"}, r"journal\.json: field 'state' is 'exploded', not one of running"),
        ({"started_at": "yesterday"}, r"journal\.json: field 'started_at' is not an ISO 8601"),
        ({"held": {}}, r"journal\.json: field 'held' must be a list"),
        ({"held": [{"class": "deleted"}]}, r"journal\.json: held\[0\]: not a held MEMORY\.md"),
        ({"proposals": [{"content_hash": "x"}]}, r"proposals\[0\]: field 'status' is None"),
        ({"undone": [{"at": "2026-11-29T14:05"}]}, r"undone\[0\]: field 'at' has no UTC offset"),
        ({"had_memory": "yes"}, r"journal\.json: field 'had_memory' must be a bool"),
    ],
)
def test_a_journal_field_that_does_not_read_is_named(
    workspace: Workspace, edit: dict[str, object], message: str
) -> None:
    folder = run_dir(workspace, "2026-W48.2")
    folder.mkdir(parents=True)
    (folder / "journal.json").write_text(json.dumps({**json.loads(JOURNAL), **edit}), "utf-8")
    with pytest.raises(TrinhoError, match=message):
        read_journal(workspace, "2026-W48.2")


JOURNAL = """\
{
 "run_id": "2026-W48.2",
 "state": "done",
 "started_at": "2026-11-29T14:05:00+07:00",
 "updated_at": "2026-11-29T14:05:00+07:00",
 "held": [
  {
   "class": "edited",
   "action": "held",
   "old": "- 2026-02-11: Sister Anna lives in Lisbon",
   "new": "- 2026-11-23: Sister Anna lives in Porto",
   "reason": "text changed (similarity 0.83); the old line stays until decided",
   "after": null,
   "snapshot": null,
   "rewrite": null,
   "similarity": 0.8302,
   "reason_code": "edited",
   "reason_params": {
    "similarity": 0.8301886792452831
   }
  },
  {
   "class": "removed",
   "action": "held",
   "old": "- 2026-10-05: Allergic to penicillin",
   "new": null,
   "reason": "entry missing from the rewrite; it stays until you approve its removal",
   "after": null,
   "snapshot": null,
   "rewrite": null,
   "similarity": null,
   "reason_code": "removed_entry",
   "reason_params": {}
  },
  {
   "class": "strange_date",
   "action": "held",
   "old": null,
   "new": "- 2026-12-04: Dentist appointment on Thursday at 9",
   "reason": "date 2026-12-04 is in the future (today is 2026-11-29)",
   "after": "- 2026-11-02: Reads history books before bed",
   "snapshot": null,
   "rewrite": null,
   "similarity": null,
   "reason_code": "future",
   "reason_params": {
    "date": "2026-12-04",
    "today": "2026-11-29"
   }
  }
 ],
 "applied_sha": "5f279f630ea2d80d80f549fdc33ccbe6f85bc9ca3ca6ef332639e160ef0fa28a",
 "proposals": [
  {
   "proposal_id": "ba0d44f7af",
   "content_hash": "0aa7780ab6e10b6bba45a03b02751db24c8f92c75b7fc618a4817ae53a184d60",
   "status": "pending"
  },
  {
   "proposal_id": null,
   "content_hash": "e77f50603267ce545d957ecb427fb39d269ff5a4ff927399257fc75121098f1c",
   "status": "rejected"
  },
  {
   "proposal_id": "e12a95f735",
   "content_hash": "396f1331b79939f32aa7806cac00aeabe08200119d406055b5ae1dfc14744665",
   "status": "pending"
  }
 ],
 "error": null,
 "undone": [
  {
   "at": "2026-11-29T14:05:00+07:00",
   "kept": "MEMORY.undone.md"
  }
 ],
 "had_memory": true
}
"""
"""A journal as trinho writes it: a second run of the week, one held change the owner had
already rejected (no proposal), undone once."""


def test_a_journal_as_written_reads_back_and_is_written_byte_for_byte(workspace: Workspace) -> None:
    path = run_dir(workspace, "2026-W48.2") / "journal.json"
    path.parent.mkdir(parents=True)
    path.write_text(JOURNAL, encoding="utf-8")
    journal = read_journal(workspace, "2026-W48.2")
    assert journal is not None
    assert [c.cls for c in journal.held] == ["edited", "removed", "strange_date"]
    assert [e.proposal_id for e in journal.proposals] == ["ba0d44f7af", None, "e12a95f735"]
    assert [e.kept for e in journal.undone] == ["MEMORY.undone.md"]
    path.unlink()
    write_journal(workspace, journal)
    assert path.read_text(encoding="utf-8") == JOURNAL


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


@pytest.mark.parametrize("day", [date(2, 1, 10), date(100, 3, 1), date(999, 12, 27)])
def test_run_ids_of_years_2_to_999_are_valid_and_ordered_by_year(day: date) -> None:
    from trinho.condense.store.runs import run_order, week_id

    run_id = week_id(day)
    assert validate_run_id(run_id) == run_id
    assert validate_run_id(f"{run_id}.2") == f"{run_id}.2"
    assert run_order(run_id) < run_order("2026-W01")
