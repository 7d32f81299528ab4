"""An OpenClaw workspace (tests/data/openclaw, built from OpenClaw's formats at the commits its
README names) opens as it is: everything OpenClaw writes is read, and nothing is changed."""

from __future__ import annotations

import hashlib
import io
import shutil
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import FixedClock
from support.condense_weeks import two_roles
from trinho.channels import ConsoleChannel
from trinho.cli.app import cli
from trinho.condense import run_condensation
from trinho.condense.store.collect import Span, collect
from trinho.context.run import build_context
from trinho.search import search
from trinho.workspace import Workspace, init_workspace, open_workspace

FIXTURE = Path(__file__).parent.parent / "data" / "openclaw"
NOW = "2026-04-21T20:00:00+07:00"


def snapshot(root: Path) -> dict[str, str]:
    """Every file outside .trinho/ with its hash."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".trinho" not in p.relative_to(root).parts
    }


@pytest.fixture
def openclaw(tmp_path: Path, clock: FixedClock) -> Workspace:
    root = tmp_path / "oc"
    shutil.copytree(FIXTURE, root)
    clock.set(NOW)
    return open_workspace(root, clock)


@pytest.mark.parametrize(
    ("query", "path"),
    [
        ("xylophone", "memory/2026-04-20.md"),  # a heading of a daily note
        ("hoan kiem music school", "memory/2026-04-20.md"),  # prose under it
        ("thanh buoi night bus", "memory/2026-04-20-dalat-plans.md"),  # a session summary
        ("tiler thursday", "memory/context-digest.md"),
        ("quarterly vat", "memory/network.md"),
        ("passport immigration", "memory/important/passport.md"),
        ("kayaking ninh binh", "memory/dreaming/light/2026-04-20.md"),
        ("lanterns hoi an", "memory/dreaming/rem/2026-04-20.md"),
        ("quokka album", "memory/dreaming/deep/2026-04-20.md"),
        ("garage code", "memory.md"),
        ("sister lan piano", "MEMORY.md"),
        ("xylophone saturdays son", "MEMORY.md"),  # a promoted entry
    ],
)
def test_every_kind_of_openclaw_content_is_found(
    openclaw: Workspace, query: str, path: str
) -> None:
    assert path in [hit.path for hit in search(openclaw, query, limit=20)]


def test_slugged_day_files_are_dated_by_their_prefix(openclaw: Workspace) -> None:
    hit = search(openclaw, "thanh buoi")[0]
    assert (hit.kind, hit.date) == ("note", date(2026, 4, 20))


def test_markers_managed_blocks_and_openclaw_state_are_never_hits(openclaw: Workspace) -> None:
    hits = search(openclaw, "memory", limit=100) + search(openclaw, "openclaw dreaming", limit=50)
    # only the promoted entries' own text (`source=memory/...`), never a marker or a block
    assert sorted((h.path, h.line) for h in hits) == [("MEMORY.md", 10), ("MEMORY.md", 12)]
    assert search(openclaw, "consolidation confidence") == []  # inside Light Sleep
    assert search(openclaw, "zebrafish") == []  # memory/.dreams/ and DREAMS.md
    assert search(openclaw, "trigger") == []  # a comment


def test_reading_changes_nothing_outside_trinho(openclaw: Workspace) -> None:
    before = snapshot(openclaw.root)
    search(openclaw, "xylophone")
    build_context(openclaw)
    collect(openclaw, Span(None, openclaw.now()))
    runner = CliRunner()
    for args in (["notes", "--date", "2026-04-20"], ["search", "bus"], ["context"]):
        result = runner.invoke(
            cli, ["--workspace", str(openclaw.root), *args], env={"TRINHO_NOW": NOW}
        )
        assert result.exit_code == 0, result.output
    assert snapshot(openclaw.root) == before


def test_the_prompt_keeps_headings_and_leaves_out_machine_lines(openclaw: Workspace) -> None:
    preamble = build_context(openclaw).preamble
    assert "## 14:00 - Xylophone lesson booking\nCalled the music school" in preamble
    assert "<!--" not in preamble and "Candidate" not in preamble and "Light Sleep" not in preamble


def test_the_rewrite_reads_what_was_said_never_dreaming(openclaw: Workspace) -> None:
    items = collect(openclaw, Span(None, openclaw.now())).items
    said = " ".join(item.text for item in items)
    assert "Saturday mornings are full" in said and "Thanh Buoi night bus" in said
    for machine in ("Candidate", "Reflection", "<!--", "kayaking", "Light Sleep", "zebrafish"):
        assert machine not in said


def test_notes_shows_a_prose_only_openclaw_day(openclaw: Workspace) -> None:
    result = CliRunner().invoke(
        cli,
        ["--workspace", str(openclaw.root), "notes", "--date", "2026-04-20"],
        env={"TRINHO_NOW": NOW},
    )
    assert result.exit_code == 0
    assert "## 14:00 - Xylophone lesson booking" in result.output
    assert "too salty" in result.output and "Candidate" not in result.output


def test_markers_survive_a_condensation_next_to_their_entries(
    openclaw: Workspace, clock: FixedClock
) -> None:
    init_workspace(openclaw.root, timezone="Asia/Ho_Chi_Minh", clock=clock)
    ws = open_workspace(openclaw.root, clock)
    old = ws.memory_file.read_text(encoding="utf-8")
    lines = old.split("\n")
    promoted = [line for line in lines if line.startswith("- Minh ")]
    # The model moves the promoted entries under People and drops the markers; the gate keeps
    # typed lines where they were, and every marker stays right before its entry.
    moved = "\n".join(
        [*lines[:5], *promoted, "", "## Promoted From Short-Term Memory (2026-04-21)", ""]
    )
    report = run_condensation(
        ws, model=two_roles(moved + "\n"), channel=ConsoleChannel("en", io.StringIO())
    )
    assert report.held == ()
    after = ws.memory_file.read_text(encoding="utf-8").split("\n")
    for marker, entry in zip(lines[8:12:2], lines[9:13:2], strict=True):
        assert marker.startswith("<!-- openclaw-memory-promotion:")
        assert after[after.index(entry) - 1] == marker
