"""A note saved while the clock reads behind the last run's cutoff is read by the next run.

Real workspace, real condensation; a scripted model answers NONE and records what each run
was shown. The rule: a saved entry counts at the later of its instant and the read floor (the
end of the span of the last run that started), `trinho.notes.journal.counted_at`.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import FixedClock
from trinho.condense import RunReport, run_condensation
from trinho.errors import TrinhoError
from trinho.models import ChatRequest, ScriptedModel
from trinho.notes.journal import (
    Acknowledged,
    behind_seen,
    counted_at,
    joined_instants,
    read_floor,
    seen_behind,
)
from trinho.notes.store import save_note
from trinho.workspace import CLOCK_BEHIND_FILE, Workspace, init_workspace

TOKEN = re.compile(r"tok(\d+)x")
START = datetime(2026, 11, 27, 9, 0, tzinfo=UTC)


def _reader() -> tuple[ScriptedModel, list[set[int]]]:
    shown: list[set[int]] = []

    def reply(request: ChatRequest) -> str:
        shown[-1].update(int(n) for m in request.messages for n in TOKEN.findall(m.text))
        return "NONE"

    return ScriptedModel(reply), shown


def _run(ws: Workspace, model: ScriptedModel, shown: list[set[int]]) -> RunReport:
    """A condensation run that records, as its own entry of `shown`, the notes it was shown."""
    shown.append(set())
    return run_condensation(ws, model=model)


def _after_a_first_run(
    tmp_path: Path,
) -> tuple[FixedClock, Workspace, ScriptedModel, list[set[int]]]:
    """A workspace whose first run read note 1 and left the read floor a minute after START."""
    clock = FixedClock(START)
    ws = init_workspace(tmp_path / "ws", timezone="Asia/Ho_Chi_Minh", clock=clock).workspace
    model, shown = _reader()
    save_note(ws, "first tok1x")
    clock.advance(minutes=1)
    _run(ws, model, shown)
    return clock, ws, model, shown


INSTANTS = st.datetimes(
    min_value=datetime(1971, 1, 1), max_value=datetime(9990, 1, 1), timezones=st.just(UTC)
)


@given(saved=INSTANTS, floor=st.none() | INSTANTS)
def test_an_entry_counts_at_its_instant_or_the_floor_whichever_is_later(
    saved: datetime, floor: datetime | None
) -> None:
    counts = counted_at(saved, floor)
    assert counts == (saved if floor is None else max(saved, floor))


def test_a_note_saved_with_the_clock_set_back_is_read_by_the_next_run_once(
    tmp_path: Path,
) -> None:
    clock, ws, model, shown = _after_a_first_run(tmp_path)
    floor = read_floor(ws)
    assert floor == START + timedelta(minutes=1)
    clock.now = START - timedelta(days=12)  # set back twelve days, behind the cutoff
    save_note(ws, "while back tok2x")
    record = json.loads(
        (ws.internal / "notes-journal" / "2026-11-15.jsonl").read_text(encoding="utf-8")
    )
    assert record["at"] == "2026-11-15T09:00:00+00:00"
    assert record["counts"] == floor.isoformat()
    behind = _run(ws, model, shown)  # its own week, by the clock set back
    assert behind.run_id == "2026-W46" and behind.since <= date(2026, 11, 15) <= behind.today
    assert "2026-11-27T16:01" in behind.notice  # told once, in the owner's zone
    assert read_floor(ws) == floor + timedelta(minutes=1)  # read past what counts at the floor
    clock.now = START + timedelta(days=8)  # put right, a week on
    save_note(ws, "later tok3x")  # retires the set-back day's journal, keeping its instants
    assert (ws.internal / "notes-journal" / "2026-11-15.instants.jsonl").exists()
    clock.advance(minutes=1)
    _run(ws, model, shown)
    clock.advance(days=8)
    _run(ws, model, shown)
    assert shown == [{1}, {2}, {3}, set()]
    assert read_floor(ws) == utc_minute(clock.now)


def test_a_day_set_back_to_again_after_its_journal_retired_keeps_both_instants(
    tmp_path: Path,
) -> None:
    """The clock set back to the same day twice, put right between (its journal retired to
    kept instants): the day's new journal and the kept instants both count, so the note saved
    behind the floor the first time, which no run read yet, is read once (CI, issue 44)."""
    clock, ws, model, shown = _after_a_first_run(tmp_path)
    clock.now = START - timedelta(days=12)
    save_note(ws, "back once tok2x")  # counts at the floor: the next run reads it
    clock.now = START + timedelta(minutes=5)  # put right: the set-back day's journal retires
    save_note(ws, "right tok3x")
    folder = ws.internal / "notes-journal"
    assert (folder / "2026-11-15.instants.jsonl").exists()
    assert not (folder / "2026-11-15.jsonl").exists()
    clock.now = START - timedelta(days=12, minutes=-10)
    save_note(ws, "back twice tok4x")  # a new journal for the same day
    clock.now = START + timedelta(days=8)
    save_note(ws, "later tok5x")  # retires it again: the kept instants grow, never shrink
    text = (folder / "2026-11-15.instants.jsonl").read_text(encoding="utf-8")
    assert "tok2x" in text and "tok4x" in text
    clock.advance(minutes=1)
    _run(ws, model, shown)
    clock.advance(days=8)
    _run(ws, model, shown)
    assert shown == [{1}, {2, 3, 4, 5}, set()]


def utc_minute(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(second=0, microsecond=0)


def test_a_note_of_this_minute_is_named_when_nothing_else_is_there(tmp_path: Path) -> None:
    """A run reads up to the start of its minute: a note saved in that minute is the next run's,
    and the owner is told so rather than "no notes" (a fixed TRINHO_NOW, a quick condense)."""
    clock = FixedClock(START)
    ws = init_workspace(tmp_path / "ws", timezone="Asia/Ho_Chi_Minh", clock=clock).workspace
    model, shown = _reader()
    save_note(ws, "just now tok1x")
    shown.append(set())
    report = run_condensation(ws, model=model)
    assert report.outcome == "skipped" and "16:00" in report.message
    assert "next run" in report.message and shown == [set()]
    clock.advance(minutes=1)
    shown.append(set())
    assert run_condensation(ws, model=model).outcome == "done" and shown[-1] == {1}


def test_clock_seen_behind_keeps_each_floors_earliest_reading(tmp_path: Path) -> None:
    ws = init_workspace(tmp_path / "ws", clock=FixedClock(START)).workspace
    floor = START + timedelta(days=3)
    seen_behind(ws, START + timedelta(hours=2), floor)
    seen_behind(ws, START + timedelta(hours=1), floor)
    seen_behind(ws, START + timedelta(hours=5), floor)
    assert behind_seen(ws) == {floor: START + timedelta(hours=1)}


def test_clock_seen_behind_refuses_a_link_out_of_the_workspace(tmp_path: Path) -> None:
    ws = init_workspace(tmp_path / "ws", clock=FixedClock(START)).workspace
    outside = tmp_path / "elsewhere.json"
    outside.write_text("{}\n", "utf-8")
    (ws.root / CLOCK_BEHIND_FILE).symlink_to(outside)
    with pytest.raises(TrinhoError):
        seen_behind(ws, START, START + timedelta(days=1))
    assert outside.read_text("utf-8") == "{}\n"


def test_a_run_that_fails_after_the_clock_was_set_back_leaves_the_notice_for_the_next(
    tmp_path: Path,
) -> None:
    """The owner is told the clock moved back by the run that reads ahead of it: a run cut
    off by its model before it finished has told no one, so the next attempt still says it."""
    clock, ws, model, shown = _after_a_first_run(tmp_path)
    clock.now = START - timedelta(days=12)
    save_note(ws, "while back tok2x")

    def down(request: ChatRequest) -> str:
        raise TrinhoError("the model is down")

    with pytest.raises(TrinhoError):
        run_condensation(ws, model=ScriptedModel(down))
    behind = _run(ws, model, shown)
    assert "2026-11-27T16:01" in behind.notice
    assert shown[-1] == {2}


_ACKS = st.lists(
    st.tuples(
        st.builds(Acknowledged, st.sampled_from(["09:00", "21:30"]), st.sampled_from("abc")),
        INSTANTS,
    ),
    max_size=12,
    unique_by=lambda ack: ack[1],  # two saves are never at one instant
)


@given(acks=_ACKS, cuts=st.tuples(st.integers(0, 12), st.integers(0, 12)))
def test_a_journal_kept_before_it_was_removed_counts_once_with_what_was_added_to_it(
    acks: list[tuple[Acknowledged, datetime]], cuts: tuple[int, int]
) -> None:
    """A retirement cut off between keeping a journal's instants and removing the journal:
    the kept tail and the journal (appended to since, by a clock set back) count once."""
    first, second = sorted(min(c, len(acks)) for c in cuts)
    kept, journal, added = acks[:first], acks[first:second], acks[second:]
    assert joined_instants(kept + journal, journal + added) == acks
    assert joined_instants(kept, journal + added) == acks
    assert joined_instants(kept, []) == kept
