"""Daily notes: one entry per note whatever its text, hand edits kept, bad input refused."""

from __future__ import annotations

import multiprocessing
import os
import random
import re
import shutil
import signal
import time
from datetime import date

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FixedClock, snapshot
from trinho.durable import atomic_write_bytes
from trinho.errors import TrinhoError
from trinho.notes import format as note_format
from trinho.notes import store as notes
from trinho.workspace import Workspace, open_workspace

TRICKY = st.sampled_from(
    [
        "\n",
        "\r",
        "\r\n",
        "\u2028",
        "\u2029",
        "\x0b",
        "\x85",
        "- ",
        "09:00",
        "- 09:00 ",
        " ",
        "  ",
        "\t",
        "a",
        "đ",
        "Đà Nẵng",
        "e\u0301",
        "#",
        "\x1c",
        "\ufeff",
        "😀",
        "\u200b",
    ]
)
NOTE_TEXT = st.one_of(st.text(), st.lists(TRICKY | st.text(max_size=3)).map("".join))
FILE_TEXT = st.one_of(
    st.text(),
    st.lists(
        st.sampled_from(
            [
                "- 10:00 hand",
                "  continued",
                "- 24:00 not an entry",
                "-10:00 nor this",
                "",
                "\r",
                "# heading",
                "prose đ",
                "- 09:5 short",
                "\t- 11:11 tab",
                "- 23:59",
                "- 00:00 x\r",
            ]
        )
        | st.text(max_size=5)
    ).map("\n".join),
)


def _valid(text: str) -> bool:
    normalized = note_format.normalize_note_text(text)
    return bool(normalized) and "\x00" not in normalized


@given(NOTE_TEXT)
@settings(max_examples=400)
def test_formatted_note_parses_as_exactly_one_entry(text: str) -> None:
    if not _valid(text):
        return
    parsed = note_format.parse_note_file(note_format.format_entry("14:05", text) + "\n")
    assert [(e.time, e.text) for e in parsed.entries] == [
        ("14:05", note_format.normalize_note_text(text))
    ]


@given(FILE_TEXT)
@settings(max_examples=400)
def test_any_note_file_round_trips(text: str) -> None:
    assert note_format.render_note_file(note_format.parse_note_file(text)) == text


@given(prefix=FILE_TEXT, text=NOTE_TEXT)
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_saving_reads_back_one_entry_and_keeps_every_earlier_line(
    workspace: Workspace, prefix: str, text: str
) -> None:
    if not _valid(text):
        return
    path = workspace.note_path(workspace.today())
    # each example starts a new day's file: earlier examples' notes are not acknowledged here
    shutil.rmtree(workspace.internal / "notes-journal", ignore_errors=True)
    atomic_write_bytes(path, prefix.encode("utf-8"))
    before = note_format.parse_note_file(prefix).entries

    saved = notes.save_note(workspace, text)

    written = path.read_bytes().decode("utf-8")
    kept = prefix if prefix == "" or prefix.endswith("\n") else prefix + "\n"
    assert written.startswith(kept)
    after = notes.read_notes(workspace, workspace.today()).entries
    assert [(e.time, e.text) for e in after[:-1]] == [(e.time, e.text) for e in before]
    assert (after[-1].time, after[-1].text) == ("14:05", note_format.normalize_note_text(text))
    assert after[-1].line == saved.line_number
    eol = note_format.line_end(prefix)
    assert written == kept + saved.line.replace("\n", eol) + eol


def test_note_goes_to_the_owners_day_and_time(workspace: Workspace, clock: FixedClock) -> None:
    clock.set("2026-11-29T18:30:00+00:00")  # 01:30 on the 30th in Ho Chi Minh City
    saved = notes.save_note(workspace, "  Mua quà sinh nhật cho mẹ \n")
    assert (saved.path, saved.line) == ("memory/2026-11-30.md", "- 01:30 Mua quà sinh nhật cho mẹ")
    assert (workspace.root / "memory/2026-11-30.md").read_text(encoding="utf-8") == (
        "- 01:30 Mua quà sinh nhật cho mẹ\n"
    )
    assert notes.note_days(workspace) == [date(2026, 11, 30)]


def test_text_is_stored_nfc(workspace: Workspace) -> None:
    saved = notes.save_note(workspace, "Đa\u0300 Na\u0306\u0303ng")
    assert saved.line == "- 14:05 Đà Nẵng"


def test_folded_note_cannot_forge_an_entry(workspace: Workspace) -> None:
    notes.save_note(workspace, "a\n- 09:00 b")
    entries = notes.read_notes(workspace, workspace.today()).entries
    assert [(e.time, e.text, e.lines) for e in entries] == [("14:05", "a\n- 09:00 b", 2)]


def test_save_after_a_hand_edit_without_final_newline(workspace: Workspace) -> None:
    path = workspace.note_path(workspace.today())
    path.write_bytes(b"# my day\n- 08:00 coffee")
    saved = notes.save_note(workspace, "tea")
    assert path.read_bytes() == b"# my day\n- 08:00 coffee\n- 14:05 tea\n"
    assert saved.line_number == 3


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty note"),
        (" \n\t\u2028 ", "empty note"),
        ("a\x00b", "NUL"),
        ("x" * (note_format.MAX_NOTE_CHARS + 1), "limit is 10,000"),
        ("bad \udcff byte", "not valid Unicode"),
    ],
)
def test_bad_notes_are_refused_and_nothing_is_written(
    workspace: Workspace, text: str, message: str
) -> None:
    before = snapshot(workspace.root)
    with pytest.raises(TrinhoError, match=message):
        notes.save_note(workspace, text)
    assert snapshot(workspace.root) == before


def test_a_note_at_the_size_limit_is_accepted(workspace: Workspace) -> None:
    text = "đ" * note_format.MAX_NOTE_CHARS
    notes.save_note(workspace, text)
    assert notes.read_notes(workspace, workspace.today()).entries[0].text == text


def test_invalid_utf8_note_file_is_an_error_and_left_untouched(workspace: Workspace) -> None:
    path = workspace.note_path(workspace.today())
    path.write_bytes(b"- 08:00 ok\n- 09:00 caf\xe9\n")
    before = snapshot(workspace.root)
    with pytest.raises(TrinhoError, match=r"memory/2026-11-29\.md:2: invalid UTF-8"):
        notes.save_note(workspace, "more")
    with pytest.raises(TrinhoError, match=r"memory/2026-11-29\.md:2: invalid UTF-8"):
        notes.read_notes(workspace, workspace.today())
    assert snapshot(workspace.root) == before


def test_reading_writes_nothing(workspace: Workspace) -> None:
    notes.save_note(workspace, "x")
    before = snapshot(workspace.root)
    notes.read_notes(workspace, workspace.today())
    notes.read_notes(workspace, date(2020, 1, 1))
    notes.note_days(workspace)
    assert snapshot(workspace.root) == before


def test_note_days_ignores_other_files(workspace: Workspace) -> None:
    for name in ("2026-11-28.md", "notes.md", "2026-13-01.md", "2026-11-27.txt"):
        (workspace.root / "memory" / name).write_text("x", encoding="utf-8")
    assert notes.note_days(workspace) == [date(2026, 11, 28)]


# Concurrency and crashes: real processes, real flock, real fsync.

FORK = multiprocessing.get_context("fork")
WRITERS = 8
NOTES_EACH = 150  # 1,200 saves interleaved by eight writers; each reads the grown file


def _writer(root: str, worker: int) -> None:
    workspace = open_workspace(root, clock=FixedClock())
    for i in range(NOTES_EACH):
        notes.save_note(workspace, f"w{worker} n{i} Đà Nẵng\n- 09:00 not an entry")


@pytest.mark.slow
def test_concurrent_writers_lose_nothing(workspace: Workspace) -> None:
    procs = [FORK.Process(target=_writer, args=(str(workspace.root), w)) for w in range(WRITERS)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join()
    assert [proc.exitcode for proc in procs] == [0] * WRITERS

    parsed = notes.read_notes(workspace, workspace.today())
    texts = [entry.text for entry in parsed.entries]
    expected = [
        f"w{w} n{i} Đà Nẵng\n- 09:00 not an entry"
        for w in range(WRITERS)
        for i in range(NOTES_EACH)
    ]
    assert sorted(texts) == sorted(expected)
    assert len(set(texts)) == WRITERS * NOTES_EACH
    assert [item.raw for item in parsed.items if isinstance(item, note_format.LooseLine)] == [""]
    for w in range(WRITERS):  # each writer's notes are in the order it saved them
        mine = [t for t in texts if t.startswith(f"w{w} ")]
        assert mine == [f"w{w} n{i} Đà Nẵng\n- 09:00 not an entry" for i in range(NOTES_EACH)]


def _crash_text(run: int, i: int) -> str:
    """Mostly short notes; every fourth spans several pages, so a kill can split its write."""
    body = "đ" * 4000 if i % 4 == 3 else "x" * (i % 50)
    return f"r{run} n{i} ghi chú x{body}"


def _crash_writer(root: str, run: int, ack_fd: int) -> None:
    workspace = open_workspace(root, clock=FixedClock())
    i = 0
    while True:
        notes.save_note(workspace, _crash_text(run, i))
        os.write(ack_fd, f"{i}\n".encode())
        i += 1


@pytest.mark.slow
def test_sigkill_at_random_moments_never_breaks_the_file(workspace: Workspace) -> None:
    rng = random.Random(20261129)
    acked: list[str] = []
    for run in range(120):
        read_fd, write_fd = os.pipe()
        proc = FORK.Process(target=_crash_writer, args=(str(workspace.root), run, write_fd))
        proc.start()
        os.close(write_fd)
        with os.fdopen(read_fd, "rb", buffering=0) as pipe:
            first = pipe.read(2)  # wait for the first ack ("0\n"): the writer is in its loop
            time.sleep(rng.uniform(0, 0.01))  # then kill it at a random point of a later save
            proc.kill()  # SIGKILL
            proc.join()
            count = (first + pipe.read()).count(b"\n")
        assert proc.exitcode == -signal.SIGKILL
        acked += [_crash_text(run, i) for i in range(count)]

        parsed = notes.read_notes(workspace, workspace.today())  # decodes and parses, or raises
        texts = [entry.text for entry in parsed.entries]
        seen = set(texts)
        assert all(text in seen for text in acked)
        assert len(texts) == len(seen)
        for text in texts:  # no entry is a torn half of a note
            run_i = re.match(r"r(\d+) n(\d+) ", text)
            assert run_i is not None and text == _crash_text(int(run_i[1]), int(run_i[2]))
    assert len(acked) >= 120


def test_a_torn_append_is_invisible_and_cut_by_the_next_save(workspace: Workspace) -> None:
    """A writer killed mid-way through a large note leaves half a record: readers skip it and
    the next save removes it, so a day's file never holds a partial entry or broken UTF-8."""
    first = notes.save_note(workspace, "Hà Nội mùa thu")
    path = workspace.note_path(first.date)
    before = path.read_bytes()
    record = ("- 14:05 " + "đường dài " * 800 + "\n").encode("utf-8")
    with workspace.lock(path):
        workspace.intent_path(path).write_text(f"{len(before)} {len(record)}", encoding="ascii")
        with path.open("ab") as handle:
            handle.write(record[:4097])
    assert path.read_bytes()[len(before) :].decode("utf-8", "replace") != record.decode()
    assert [e.text for e in notes.read_notes(workspace, first.date).entries] == ["Hà Nội mùa thu"]
    second = notes.save_note(workspace, "Sau đó")
    assert path.read_bytes() == before + b"- 14:05 Sau \xc4\x91\xc3\xb3\n"
    assert second.line_number == 2
    assert not workspace.intent_path(path).exists()
