"""Writers that take no lock: an acknowledged note dropped by a stale atomic replace comes back."""

from __future__ import annotations

import os
import threading
from collections import Counter
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import FixedClock, snapshot
from trinho import durable
from trinho.durable import atomic_write_bytes
from trinho.notes import format as note_format
from trinho.notes import journal as note_repair
from trinho.notes import store as notes
from trinho.notes.journal import Acknowledged
from trinho.workspace import Workspace

# The pure part: any interleaving of trinho appends and foreign rewrites from a stale read.

NOTE = st.sampled_from(["đi chợ", "gọi mẹ\nvề quê", "- 09:00 not an entry"])
APPEND = st.tuples(st.just("append"), NOTE)
# a foreign writer reads some earlier version, keeps some of its lines, adds its own
REWRITE = st.tuples(
    st.just("rewrite"),
    st.tuples(st.integers(0, 50), st.lists(st.booleans(), max_size=40), st.integers(0, 3)),
)


def _present(text: str) -> list[Acknowledged]:
    return [Acknowledged(e.time, e.text) for e in note_format.parse_note_file(text).entries]


def _repaired(journal: list[Acknowledged], text: str) -> str:
    """What `save_note`'s repair appends, done on plain text."""
    lost = note_repair.missing_entries(journal, _present(text))
    return text + "".join(note_format.format_entry(a.time, a.text) + "\n" for a in lost)


@given(st.lists(st.one_of(APPEND, REWRITE), max_size=30))
def test_after_repair_every_acknowledged_entry_is_there_once_and_foreign_lines_in_order(
    steps: list[tuple[str, object]],
) -> None:
    journal: list[Acknowledged] = []
    versions = [""]  # every version of the file, for a stale read
    foreign = 0
    for i, (kind, arg) in enumerate(steps):
        current = versions[-1]
        if kind == "append":
            assert isinstance(arg, str)
            current = _repaired(journal, current)  # save_note repairs first, then appends
            entry = Acknowledged(f"{i % 3:02d}:00", arg)  # the same note twice happens
            journal.append(entry)
            current += note_format.format_entry(entry.time, entry.text) + "\n"
        else:
            assert isinstance(arg, tuple)
            back, keep, added = arg
            stale = versions[max(0, len(versions) - 1 - back)]
            old = stale.split("\n")[:-1]
            lines = [ln for j, ln in enumerate(old) if j >= len(keep) or keep[j]]
            for _ in range(added):
                lines.insert(len(lines) // 2, f"foreign {foreign}")
                foreign += 1
            current = "".join(ln + "\n" for ln in lines)
        versions.append(current)
    last = versions[-1]
    final = _repaired(journal, last)

    assert final.startswith(last)  # a repair only appends: foreign lines stay, in their order
    present = Counter(_present(final))
    # a foreign writer that kept half of an entry left a foreign line, not an entry of ours
    assert {entry: present[entry] for entry in journal} == Counter(journal)
    assert _repaired(journal, final) == final  # a second repair finds nothing to put back


def test_changed_under_tells_a_plain_append_from_a_replace() -> None:
    before = note_repair.file_state(b"a\n")
    assert not note_repair.changed_under(before, b"b\n", b"a\nb\n")
    assert note_repair.changed_under(before, b"b\n", b"a\n")  # the append went to a dead file
    assert note_repair.changed_under(before, b"b\n", b"x\nb\n")  # same size, other bytes
    assert note_repair.changed_under(before, b"b\n", b"a\nb\nc\n")


def test_a_torn_journal_line_is_skipped() -> None:
    text = note_repair.render_journal_line(Acknowledged("09:00", "a")) + '{"time": "09:0'
    assert note_repair.parse_journal(text) == [Acknowledged("09:00", "a")]


# The shell, on a real workspace.


def _stale_replace(path: Path, stale: bytes, extra: bytes = b"") -> None:
    """What OpenClaw's writers do: write back what they read earlier, atomically, no lock."""
    atomic_write_bytes(path, stale + extra)


def test_a_note_dropped_by_a_stale_replace_comes_back_once_at_the_next_save(
    workspace: Workspace, clock: FixedClock
) -> None:
    path = workspace.note_path(workspace.today())
    notes.save_note(workspace, "first")
    stale = path.read_bytes()
    notes.save_note(workspace, "second")
    _stale_replace(path, stale, b"## 14:06 - Dreaming\nsomething OpenClaw wrote\n")
    clock.advance(minutes=1)

    saved = notes.save_note(workspace, "third")

    text = path.read_text(encoding="utf-8")
    assert [e.text for e in note_format.parse_note_file(text).entries] == [
        "first",
        "second",
        "third",
    ]
    assert "## 14:06 - Dreaming\nsomething OpenClaw wrote\n" in text
    assert notes.read_notes(workspace, workspace.today()).entries[-1].line == saved.line_number


def test_a_replace_between_the_read_and_the_append_is_caught_at_once(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = workspace.note_path(workspace.today())
    notes.save_note(workspace, "first")
    stale = path.read_bytes()
    real = durable.append_recorded
    raced: list[bool] = []

    def append_then_replace(target: Path, data: bytes, intent: Path) -> None:
        real(target, data, intent)
        if b"second" in data and not raced:  # OpenClaw's replace lands right after it
            raced.append(True)
            _stale_replace(target, stale, b"OpenClaw line\n")

    monkeypatch.setattr("trinho.notes.store.append_recorded", append_then_replace)
    saved = notes.save_note(workspace, "second")

    parsed = notes.read_notes(workspace, workspace.today())
    assert [e.text for e in parsed.entries] == ["first", "second"]
    assert parsed.entries[-1].line == saved.line_number
    assert "OpenClaw line" in path.read_text(encoding="utf-8")
    assert raced


def test_yesterdays_file_rewritten_after_midnight_is_repaired_by_todays_save(
    workspace: Workspace, clock: FixedClock
) -> None:
    clock.set("2026-11-29T23:59:00+07:00")
    yesterday = workspace.note_path(workspace.today())
    stale = b"# 2026-11-29\n"
    atomic_write_bytes(yesterday, stale)
    notes.save_note(workspace, "late note")
    clock.set("2026-11-30T00:05:00+07:00")
    _stale_replace(yesterday, stale, b"## Light Sleep\n")

    notes.save_note(workspace, "morning")

    kept = notes.read_notes(workspace, date(2026, 11, 29))
    assert [e.text for e in kept.entries] == ["late note"]
    assert yesterday.read_bytes().startswith(stale + b"## Light Sleep\n")


def test_journals_before_yesterday_are_retired(workspace: Workspace, clock: FixedClock) -> None:
    notes.save_note(workspace, "old")
    clock.advance(days=2)
    notes.save_note(workspace, "new")
    assert note_repair.journal_days(workspace) == [workspace.today()]


def test_a_save_with_no_foreign_write_leaves_the_file_a_plain_append(
    workspace: Workspace,
) -> None:
    path = workspace.note_path(workspace.today())
    notes.save_note(workspace, "a")
    first = path.read_bytes()
    saved = notes.save_note(workspace, "a")  # the same note twice is kept twice
    assert path.read_bytes() == first + (saved.line + "\n").encode()


def test_repair_notes_writes_only_what_was_lost_and_reading_writes_nothing(
    workspace: Workspace,
) -> None:
    path = workspace.note_path(workspace.today())
    notes.save_note(workspace, "kept")
    _stale_replace(path, b"")
    before = snapshot(workspace.root)
    notes.read_notes(workspace, workspace.today())
    assert snapshot(workspace.root) == before

    assert notes.repair_notes(workspace) == [f"memory/{workspace.today().isoformat()}.md"]
    assert notes.repair_notes(workspace) == []
    assert [e.text for e in notes.read_notes(workspace, workspace.today()).entries] == ["kept"]


# A real race: a thread rewrites the day file OpenClaw's way while trinho appends.

ROUNDS = 60


def _openclaw_writer(path: Path, stop: threading.Event, lines: list[str]) -> None:
    """Read the day file, add a line, replace the file atomically; in a loop, no lock."""
    while not stop.is_set():
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            data = b""
        os.sched_yield()
        line = f"openclaw {len(lines)}"
        atomic_write_bytes(path, data + f"{line}\n".encode())
        lines.append(line)


def test_notes_saved_while_a_foreign_writer_replaces_the_file_are_all_kept(
    workspace: Workspace,
) -> None:
    path = workspace.note_path(workspace.today())
    atomic_write_bytes(path, b"# today\n")
    stop = threading.Event()
    foreign: list[str] = []
    writer = threading.Thread(target=_openclaw_writer, args=(path, stop, foreign))
    writer.start()
    try:
        for i in range(ROUNDS):
            notes.save_note(workspace, f"note {i}")
    finally:
        stop.set()
        writer.join()
    notes.repair_notes(workspace)

    parsed = notes.read_notes(workspace, workspace.today())
    assert Counter(e.text for e in parsed.entries) == Counter(f"note {i}" for i in range(ROUNDS))
    loose = [item.raw for item in parsed.items if isinstance(item, note_format.LooseLine)]
    assert [ln for ln in loose if ln.startswith("openclaw")] == foreign  # its own, in order
    assert foreign  # the writer did run
