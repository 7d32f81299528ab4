"""Transcripts on each backend (`backend`): turns filed under the owner's day with their line,
bad turns refused, an import run again adding nothing, a last line without its newline kept
or cut as the file store does."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest

from conftest import FixedClock
from support.backends import Backend
from support.stores import Transcripts
from trinho.conversations.store import make_turn, turn_line
from trinho.errors import TrinhoError

DAY = date(2026, 11, 29)


@pytest.fixture
def transcripts(backend: Backend) -> Transcripts:
    return backend.transcripts()


def test_turns_are_filed_under_the_owners_day_with_their_line(
    transcripts: Transcripts, clock: FixedClock
) -> None:
    first = transcripts.record_turn("user", "đi chợ\nmua cá", ref="telegram:4")
    second = transcripts.record_turn("assistant", "Vâng\u2028ạ")
    late = datetime.fromisoformat("2026-11-29T20:30:00+00:00")  # the 30th in Hồ Chí Minh
    third = transcripts.record_turn("user", "late", at=late)
    assert (first.path, first.line, second.line) == ("conversations/2026-11-29.jsonl", 1, 2)
    assert (third.path, third.line) == ("conversations/2026-11-30.jsonl", 1)
    day = transcripts.read_day(DAY)
    assert [(s.turn.role, s.turn.text, s.turn.ref, s.line) for s in day] == [
        ("user", "đi chợ\nmua cá", "telegram:4", 1),
        ("assistant", "Vâng\u2028ạ", None, 2),
    ]
    assert transcripts.read_day(date(2026, 11, 28)) == []


@pytest.mark.parametrize(
    ("role", "text", "key"),
    [(" ", "x", "error.turn.bad_role"), ("a\nb", "x", "error.turn.role_lines")],
)
def test_a_bad_turn_is_refused_and_nothing_is_written(
    transcripts: Transcripts, role: str, text: str, key: str
) -> None:
    with pytest.raises(TrinhoError) as caught:
        transcripts.record_turn(role, text)
    assert caught.value.key == key
    assert transcripts.read_day(DAY) == []


def test_an_import_of_turns_run_again_adds_nothing(transcripts: Transcripts) -> None:
    at = datetime.fromisoformat("2026-11-29T09:00:00+07:00")
    turns = [
        make_turn("user", "chào", at, "telegram:1", "t"),
        make_turn("assistant", "Chào bạn", at + timedelta(minutes=1), None, "t"),
        make_turn("user", "chào", at, "telegram:1", "t"),  # twice in the file
        make_turn("user", "mai", at + timedelta(days=1), None, "t"),
    ]
    seen: list[int] = []
    first = transcripts.import_turns(turns, seen.append)
    assert (first.imported, first.skipped, first.days, seen) == (3, 1, 2, [3, 1])
    again = transcripts.import_turns(turns)
    assert (again.imported, again.skipped) == (0, 4)
    assert [s.turn.text for s in transcripts.read_day(DAY)] == ["chào", "Chào bạn"]


KEPT = '{"at": "2026-11-29T09:00:00+07:00", "role": "user", "text": "kept"}'


@pytest.mark.parametrize(
    ("tail", "line"),
    [(KEPT, 3), ('{"at": "2026-11-2', 2), ("   ", 3), ("", 2)],
    ids=["a-turn-without-newline", "torn", "blank", "none"],
)
def test_a_last_line_without_its_newline_is_kept_or_cut_as_the_file_store_does(
    backend: Backend, transcripts: Transcripts, tail: str, line: int
) -> None:
    backend.put_transcript(DAY, KEPT + "\n" + tail)
    stored = transcripts.record_turn("assistant", "next")
    assert stored.line == line
    assert [s.turn.text for s in transcripts.read_day(DAY)][-1] == "next"
    assert backend.transcript_text(DAY).endswith(turn_line(stored.turn) + "\n")
