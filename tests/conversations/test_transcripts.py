"""Conversation transcripts: filed by the owner's day, read by range, imported in bulk."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import snapshot
from trinho.conversations import store as transcripts
from trinho.conversations.store import Turn
from trinho.errors import TrinhoError
from trinho.textnorm import nfc, one_line
from trinho.workspace import Workspace

UTC_PLUS_7 = "+07:00"


def at(iso: str) -> datetime:
    return datetime.fromisoformat(iso)


def test_record_and_read_by_date_range(workspace: Workspace) -> None:
    transcripts.record_turn(workspace, "user", "Chào buổi sáng", at("2026-11-27T08:00:00+07:00"))
    transcripts.record_turn(workspace, "assistant", "Hi", at("2026-11-28T08:00:00+07:00"), "m9")
    transcripts.record_turn(workspace, "user", "later", at("2026-11-30T08:00:00+07:00"))
    got = transcripts.read_turns(workspace, date(2026, 11, 27), date(2026, 11, 29))
    assert [(s.turn.text, s.turn.ref, s.path, s.line) for s in got] == [
        ("Chào buổi sáng", None, "conversations/2026-11-27.jsonl", 1),
        ("Hi", "m9", "conversations/2026-11-28.jsonl", 1),
    ]
    assert transcripts.read_turns(workspace, date(2026, 11, 30), date(2026, 11, 30))[0].line == 1


def test_turns_are_filed_under_the_owners_day(workspace: Workspace) -> None:
    stored = transcripts.record_turn(workspace, "user", "đêm", at("2026-11-29T17:30:00+00:00"))
    assert stored.path == "conversations/2026-11-30.jsonl"
    line = (workspace.root / stored.path).read_text(encoding="utf-8")
    assert json.loads(line) == {"at": "2026-11-29T17:30:00+00:00", "role": "user", "text": "đêm"}


def test_record_turn_defaults_to_now(workspace: Workspace) -> None:
    stored = transcripts.record_turn(workspace, "user", "now")
    assert stored.turn.at == workspace.now()
    assert stored.path == "conversations/2026-11-29.jsonl"


def _lines(count: int) -> list[dict[str, object]]:
    start = at("2026-01-01T00:00:00+00:00")
    return [
        {
            "at": (start + timedelta(minutes=37 * i)).isoformat().replace("+00:00", "Z"),
            "role": "user" if i % 2 else "assistant",
            "text": f"lượt {i}\nhai dòng",
            "ref": f"msg-{i}" if i % 3 else i,
        }
        for i in range(count)
    ]


def _write(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    return path


def test_import_many_lines_across_dates_then_reimport_skips(
    workspace: Workspace, tmp_path: Path
) -> None:
    records = _lines(3000)
    source = _write(tmp_path / "turns.jsonl", records)
    calls: list[int] = []
    report = transcripts.import_turns(
        workspace, transcripts.read_import_file(source), progress=calls.append
    )
    assert (report.imported, report.skipped) == (3000, 0)
    assert sum(calls) == 3000
    days = sorted(p.name for p in (workspace.root / "conversations").iterdir())
    assert len(days) == report.days == 78
    got = transcripts.read_turns(workspace, date(2025, 12, 31), date(2026, 3, 31))
    assert len(got) == 3000
    by_ref = {s.turn.ref: s for s in got}
    assert by_ref["msg-1"].turn.text == "lượt 1\nhai dòng"
    assert by_ref["3"].turn.role == "user"
    for stored in got:  # each under the owner's day of its instant
        assert stored.path == f"conversations/{workspace.local_date(stored.turn.at)}.jsonl"

    before = snapshot(workspace.root)
    again = transcripts.import_turns(workspace, transcripts.read_import_file(source))
    assert (again.imported, again.skipped) == (0, 3000)
    assert snapshot(workspace.root) == before

    _write(source, [*records[:10], {"at": "2026-06-01T10:00:00+07:00", "role": "u", "text": "x"}])
    third = transcripts.import_turns(workspace, transcripts.read_import_file(source))
    assert (third.imported, third.skipped) == (1, 10)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "not valid JSON"),
        ('["a"]', "expected a JSON object"),
        ('{"at": "2026-11-29T10:00:00+07:00", "role": "user"}', "missing text"),
        ('{"at": "2026-11-29T10:00:00", "role": "user", "text": "x"}', "no UTC offset"),
        ('{"at": "yesterday", "role": "user", "text": "x"}', "not an ISO 8601 time"),
        ('{"at": "2026-11-29T10:00:00+07:00", "role": "", "text": "x"}', "'role'"),
        ('{"at": "2026-11-29T10:00:00+07:00", "role": "u", "text": 5}', "'text' must be"),
        ('{"at": "2026-11-29T10:00:00+07:00", "role": "u", "text": "x", "ref": [1]}', "'ref'"),
        ('{"at": "2026-11-29T10:00:00+07:00", "role": "u", "text": "x", "ref": true}', "'ref'"),
        ('{"at": "2026-11-29T10:00:00+07:00", "role": "u", "text": "\\udcff"}', "Unicode"),
        ('{"at": "9999-12-31T23:30:00-07:00", "role": "u", "text": "x"}', "out of range"),
        ('{"at": "2026-11-29T10:00:00+07:00", "role": "u", "text": "x", "ref": 1.5}', "whole"),
    ],
)
def test_a_bad_line_names_file_and_line_and_nothing_is_written(
    workspace: Workspace, tmp_path: Path, line: str, message: str
) -> None:
    good = json.dumps({"at": "2026-11-29T10:00:00+07:00", "role": "u", "text": "fine"})
    source = tmp_path / "in.jsonl"
    source.write_text(f"{good}\n\n{good}\n{line}\n{good}\n", encoding="utf-8")
    before = snapshot(workspace.root)
    with pytest.raises(TrinhoError, match=rf"in\.jsonl:4: .*{message}"):
        transcripts.import_turns(workspace, transcripts.read_import_file(source))
    assert snapshot(workspace.root) == before


def test_invalid_utf8_import_file_names_the_line(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_bytes(b'{"at": 1}\n{"text": "caf\xe9"}\n')
    with pytest.raises(TrinhoError, match=r"in\.jsonl:2: invalid UTF-8"):
        transcripts.read_import_file(source)


def test_a_torn_last_line_is_skipped_then_cut_by_the_next_append(workspace: Workspace) -> None:
    first = transcripts.record_turn(workspace, "user", "kept", at("2026-11-29T10:00:00+07:00"))
    path = workspace.root / first.path
    whole = path.read_bytes()
    path.write_bytes(
        whole + '{"at": "2026-11-29T10:01:00+07:00", "role": "user", "text": "Đ'.encode()[:-1]
    )
    assert [s.turn.text for s in transcripts.read_day(workspace, date(2026, 11, 29))] == ["kept"]

    second = transcripts.record_turn(workspace, "user", "next", at("2026-11-29T10:02:00+07:00"))
    assert second.line == 2
    assert [s.turn.text for s in transcripts.read_day(workspace, date(2026, 11, 29))] == [
        "kept",
        "next",
    ]
    assert path.read_bytes().startswith(whole)


def test_a_hand_edited_last_line_without_newline_is_kept(workspace: Workspace) -> None:
    path = workspace.conversation_path(date(2026, 11, 29))
    path.write_text('{"at": "2026-11-29T09:00:00+07:00", "role": "user", "text": "hand"}', "utf-8")
    assert transcripts.read_day(workspace, date(2026, 11, 29))[0].turn.text == "hand"
    stored = transcripts.record_turn(workspace, "user", "after", at("2026-11-29T10:00:00+07:00"))
    assert stored.line == 2
    assert [s.turn.text for s in transcripts.read_day(workspace, date(2026, 11, 29))] == [
        "hand",
        "after",
    ]


def test_a_bad_line_in_the_middle_of_a_day_is_an_error(workspace: Workspace) -> None:
    path = workspace.conversation_path(date(2026, 11, 29))
    path.write_text(
        '{"at": "2026-11-29T09:00:00+07:00", "role": "u", "text": "a"}\n{bad\n', "utf-8"
    )
    with pytest.raises(TrinhoError, match=r"conversations/2026-11-29\.jsonl:2: not valid JSON"):
        transcripts.read_day(workspace, date(2026, 11, 29))


TURNS = st.builds(
    Turn,
    at=st.datetimes(
        min_value=datetime(1970, 1, 2),
        max_value=datetime(2100, 1, 1),
        timezones=st.timezones(),
        allow_imaginary=False,  # a wall time skipped by a DST change is no instant to keep
    ).filter(lambda d: d.utcoffset() is not None),
    role=st.text(min_size=1, max_size=20).map(lambda r: "r" + one_line(r).replace("\r", "")),
    text=st.text(),
    ref=st.none() | st.text(max_size=10),
)


def test_hidden_line_breaks_are_escaped_and_read_back(workspace: Workspace) -> None:
    text = "a\u2028b\u2029c\x85d\re\x1cf"
    stored = transcripts.record_turn(workspace, "user", text, at("2026-11-29T10:00:00+07:00"))
    raw = (workspace.root / stored.path).read_text(encoding="utf-8")
    assert len(raw.splitlines()) == 1
    assert transcripts.read_day(workspace, date(2026, 11, 29))[0].turn.text == text


@given(TURNS)
def test_a_turn_survives_its_json_line(turn: Turn) -> None:
    parsed = transcripts.parse_turn_line(transcripts.turn_line(turn), "x:1")
    assert parsed.at.timestamp() == turn.at.timestamp()  # same instant (== is False in a DST fold)
    assert parsed.at.utcoffset() == turn.at.utcoffset()
    assert (parsed.text, parsed.ref) == (nfc(turn.text), turn.ref)
    assert (
        len((transcripts.turn_line(turn) + "\n").splitlines()) == 1
    )  # one line for any line-based reader


@given(st.text())
def test_any_line_parses_or_is_a_clear_error(line: str) -> None:
    try:
        transcripts.parse_turn_line(line, "f:1")
    except TrinhoError as exc:
        assert str(exc).startswith("f:1: ")
