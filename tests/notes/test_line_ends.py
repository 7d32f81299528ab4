"""A day file reads the same whatever its line ends (`\n`, `\r\n` from Windows, `\r` from an
old Mac, or a mix): no entry, loose line or prompt line ever holds a `\r`, the file renders
back byte for byte, and a note appended to a Windows file keeps it a Windows file."""

from __future__ import annotations

import shutil
from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FixedClock
from trinho.condense.rules.chunks import render_material
from trinho.condense.store.collect import Span, collect
from trinho.context.run import build_context
from trinho.notes import format as note_format
from trinho.notes import store as notes
from trinho.workspace import Workspace

ENDS = st.sampled_from(["\n", "\r\n", "\r"])
LINES = st.lists(
    st.sampled_from(
        [
            "- 10:00 đi chợ mua cá",
            "  continued line",
            "- 11:30 gọi mẹ",
            "# heading",
            "prose typed by hand",
            "",
            "- 24:00 not an entry",
            "<!-- openclaw:note -->",
        ]
    ),
    max_size=10,
)


def _no_cr(parsed: note_format.NoteFile) -> None:
    for item in parsed.items:
        text = item.text if isinstance(item, note_format.NoteEntry) else item.raw
        assert "\r" not in text
    assert all("\r" not in line for line in parsed.raw_lines)


@given(LINES, ENDS, st.booleans())
def test_any_line_end_reads_as_the_same_entries_and_renders_back(
    lines: list[str], end: str, final: bool
) -> None:
    text = end.join(lines) + (end if final and lines else "")
    parsed = note_format.parse_note_file(text)
    _no_cr(parsed)
    assert note_format.render_note_file(parsed) == text
    as_lf = note_format.parse_note_file(text.replace(end, "\n"))
    assert [(e.time, e.text, e.line) for e in parsed.entries] == [
        (e.time, e.text, e.line) for e in as_lf.entries
    ]


@given(st.lists(st.tuples(LINES.map(lambda x: x[0] if x else ""), ENDS), max_size=12))
def test_a_file_mixing_line_ends_renders_back_and_holds_no_carriage_return(
    parts: list[tuple[str, str]],
) -> None:
    text = "".join(line + end for line, end in parts)
    parsed = note_format.parse_note_file(text)
    _no_cr(parsed)
    assert note_format.render_note_file(parsed) == text


def test_a_windows_day_file_gains_a_windows_note_and_loses_no_entry(
    workspace: Workspace, clock: FixedClock
) -> None:
    path = workspace.note_path(workspace.today())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"- 09:00 breakfast with Lan\r\n- 10:15 call the bank\r\n")
    saved = notes.save_note(workspace, "pick up Mai\nat four")
    data = path.read_bytes()
    assert data == (
        b"- 09:00 breakfast with Lan\r\n- 10:15 call the bank\r\n"
        + saved.line.replace("\n", "\r\n").encode("utf-8")
        + b"\r\n"
    )
    assert b"\n" not in data.replace(b"\r\n", b"")
    entries = notes.read_notes(workspace, workspace.today()).entries
    assert [(e.text, e.line) for e in entries] == [
        ("breakfast with Lan", 1),
        ("call the bank", 2),
        ("pick up Mai\nat four", 3),
    ]
    assert saved.line_number == 3
    # saving again finds every acknowledged entry present: nothing is appended twice
    notes.save_note(workspace, "one more")
    assert [e.text for e in notes.read_notes(workspace, workspace.today()).entries][-2:] == [
        "pick up Mai\nat four",
        "one more",
    ]


@given(ENDS)
@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_nothing_in_the_weeks_prompt_holds_a_carriage_return(
    workspace: Workspace, end: str
) -> None:
    shutil.rmtree(workspace.notes_dir, ignore_errors=True)
    day = workspace.today()
    path = workspace.note_path(day)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["# Hôm nay", "- 08:00 uống cà phê sữa đá", "  ở quán quen", "ghi tay: gọi mẹ"]
    path.write_bytes((end.join(lines) + end).encode("utf-8"))
    # a line typed by hand counts at the end of its day: the span reads on to tomorrow
    found = collect(workspace, Span(None, workspace.now() + timedelta(days=1))).items
    texts = [m.text for m in found]
    assert "uống cà phê sữa đá\nở quán quen" in texts and "ghi tay: gọi mẹ" in texts
    assert all("\r" not in text for text in texts)
    assert "\r" not in render_material(found)


def test_a_windows_day_file_reaches_the_chat_prompt_without_a_carriage_return(
    workspace: Workspace,
) -> None:
    path = workspace.note_path(workspace.today())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes("- 08:00 uống cà phê\r\n  ở quán quen\r\nghi tay\r\n".encode())
    context = build_context(workspace)
    assert "uống cà phê" in context.preamble and "ghi tay" in context.preamble
    assert "\r" not in context.preamble and "\r" not in context.system
