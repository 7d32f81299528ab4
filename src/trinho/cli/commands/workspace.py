"""Commands for the workspace itself: init, note, notes, import."""

from __future__ import annotations

import sys
from dataclasses import asdict
from pathlib import Path

import click

from trinho.cli.app import cli, emit, json_option, owner_option, state
from trinho.clock import parse_day
from trinho.conversations import store as transcripts
from trinho.i18n import N_, t
from trinho.notes import format as note_format
from trinho.workspace import init_workspace


@cli.command()
@click.option("--tz", "timezone", help="Owner's IANA time zone, e.g. Asia/Ho_Chi_Minh.")
@click.option("--locale", type=click.Choice(["en", "vi"]), help="Language trinho writes in.")
@click.option("--owner", help="Owner's user id (default: owner).")
@json_option
def init(timezone: str | None, locale: str | None, owner: str | None, as_json: bool) -> None:
    """Create the workspace (idempotent; existing files are never touched)."""
    result = init_workspace(state().workspace_dir, timezone=timezone, locale=locale, owner=owner)
    ws = result.workspace
    data: dict[str, object] = {
        "workspace": str(ws.root),
        "timezone": ws.config.timezone,
        "locale": ws.locale,
        "owner": ws.config.owner,
        "created": result.created,
    }
    key = N_("init.created") if result.created else N_("init.unchanged")
    text = t(ws.locale, key, root=ws.root, tz=ws.config.timezone, created=", ".join(result.created))
    moved = result.zone_changed
    if moved is not None:
        at = moved.at.astimezone(ws.tz).isoformat(timespec="minutes")
        data["zone_changed"] = {"from": moved.old, "to": moved.new, "at": moved.at.isoformat()}
        text += "\n" + t(ws.locale, "init.zone_changed", old=moved.old, new=moved.new, at=at)
    emit(as_json, data, text)


@cli.command()
@click.argument("text")
@owner_option
@json_option
def note(text: str, owner: str | None, as_json: bool) -> None:
    """memory_save: append `- HH:MM TEXT` to today's daily note."""
    saved = state().records(owner).save_note(text)
    data = {
        "path": saved.path,
        "line": saved.line,
        "date": saved.date.isoformat(),
        "time": saved.time,
        "line_number": saved.line_number,
    }
    emit(as_json, data, t(state().locale(), "note.saved", path=saved.path, line=saved.line))


@cli.command()
@click.option("--date", "day_text", help="Day to show (YYYY-MM-DD); default today.")
@owner_option
@json_option
def notes(day_text: str | None, owner: str | None, as_json: bool) -> None:
    """Show the entries of one day's note, and the lines typed into it without a time."""
    records = state().records(owner)
    locale = state().locale()
    day = parse_day(day_text, "--date") if day_text else records.today()
    items = records.read_notes(day).items
    entries = [item for item in items if isinstance(item, note_format.NoteEntry)]
    prose = [item for item in items if isinstance(item, note_format.LooseLine) and item.shown]
    data = {
        "date": day.isoformat(),
        "path": f"memory/{day.isoformat()}.md",
        "entries": [asdict(entry) for entry in entries],
        "lines": [{"line": item.line, "text": item.raw.strip()} for item in prose],
    }

    def human() -> str:
        if not entries and not prose:
            return t(locale, "notes.none", date=day.isoformat())
        return "\n".join(
            note_format.format_entry(item.time, item.text)
            if isinstance(item, note_format.NoteEntry)
            else item.raw.strip()
            for item in items
            if isinstance(item, note_format.NoteEntry) or item.shown
        )

    emit(as_json, data, human)


@cli.group(name="import")
def import_group() -> None:
    """Bulk imports."""


@import_group.command(name="conversations")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@owner_option
@json_option
def import_conversations(file: Path, owner: str | None, as_json: bool) -> None:
    """Import JSON lines {"at", "role", "text", "ref"?}, each filed under its own day."""
    ws = state().working(owner)
    turns = transcripts.read_import_file(file)
    if sys.stderr.isatty() and not as_json:
        with click.progressbar(length=len(turns), label="Importing", file=sys.stderr) as bar:
            report = transcripts.import_turns(ws, turns, progress=bar.update)
    else:
        report = transcripts.import_turns(ws, turns)
    said = t(
        ws.locale,
        "import.done",
        imported=t(ws.locale, "count.turns", count=report.imported),
        days=t(ws.locale, "count.days", count=report.days),
        skipped=report.skipped,
    )
    emit(as_json, asdict(report), said)


def _import_from(source: str, path: Path, dry_run: bool, owner: str | None, as_json: bool) -> None:
    """`trinho import SOURCE PATH`: plan the export, write it through the gate, say what
    happened in one line, then each item that could not be mapped."""
    from trinho.importers.store import apply_plan, read_plan

    ws = state().working(owner)
    plan = read_plan(ws, source, path)
    if sys.stderr.isatty() and not as_json:
        label = t(ws.locale, "import.progress")
        with click.progressbar(length=len(plan.items), label=label, file=sys.stderr) as bar:
            report = apply_plan(ws, plan, dry_run=dry_run, progress=bar.update)
    else:
        report = apply_plan(ws, plan, dry_run=dry_run)
    data = asdict(report)
    key = N_("import.summary_dry") if dry_run else N_("import.summary")
    counts = {k: v for k, v in data.items() if k not in ("unmapped", "dry_run")}
    counts["items"] = t(ws.locale, "count.items", count=report.items)
    counts["turns"] = t(ws.locale, "count.messages", count=report.turns)
    lines = [t(ws.locale, key, **counts, unmapped=len(report.unmapped))]
    lines += [t(ws.locale, "import.not_mapped", **u) for u in report.unmapped]
    emit(as_json, data, "\n".join(lines))


_DRY_RUN = click.option(
    "--dry-run", is_flag=True, help="Show what would be imported; write nothing."
)


@import_group.command(name="mem0")
@click.argument("path", type=click.Path(path_type=Path))
@_DRY_RUN
@owner_option
@json_option
def import_mem0(path: Path, dry_run: bool, owner: str | None, as_json: bool) -> None:
    """Import Mem0 memories: the JSON of Memory.get_all() or of the platform's export."""
    _import_from("mem0", path, dry_run, owner, as_json)


@import_group.command(name="basic-memory")
@click.argument("path", type=click.Path(path_type=Path))
@_DRY_RUN
@owner_option
@json_option
def import_basic_memory(path: Path, dry_run: bool, owner: str | None, as_json: bool) -> None:
    """Import a basic-memory project: its notes' observations, relations and prose."""
    _import_from("basic-memory", path, dry_run, owner, as_json)


@import_group.command(name="letta")
@click.argument("path", type=click.Path(path_type=Path))
@_DRY_RUN
@owner_option
@json_option
def import_letta(path: Path, dry_run: bool, owner: str | None, as_json: bool) -> None:
    """Import a Letta agent file (.af): memory blocks, archival passages, messages."""
    _import_from("letta", path, dry_run, owner, as_json)


@import_group.command(name="claude-code")
@click.argument("path", type=click.Path(path_type=Path))
@_DRY_RUN
@owner_option
@json_option
def import_claude_code(path: Path, dry_run: bool, owner: str | None, as_json: bool) -> None:
    """Import Claude Code's memory: CLAUDE.md files and the auto-memory folder under PATH."""
    _import_from("claude-code", path, dry_run, owner, as_json)


# `trinho import workspace DIR --owner ID`: the PostgreSQL store's way in (commands.store).
from trinho.cli.commands.store import import_workspace  # noqa: E402

import_group.add_command(import_workspace)
