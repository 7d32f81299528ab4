"""`trinho gate OLD NEW`: run only the gate on two files and show what would apply or wait."""

from __future__ import annotations

from datetime import UTC, date
from pathlib import Path

import click

from trinho.cli.app import cli, emit, json_option, state
from trinho.clock import parse_day
from trinho.condense.rules.gate import Change, gate
from trinho.condense.store.collect import window
from trinho.durable import read_regular
from trinho.errors import TrinhoError
from trinho.i18n import t
from trinho.i18n.keys import GATE_ACTION, GATE_CLASS
from trinho.notes.store import decode
from trinho.workspace import clock_from_env


@cli.command(name="gate")
@click.argument("old", type=click.Path(path_type=Path))
@click.argument("new", type=click.Path(path_type=Path))
@click.option("--today", "today_text", help="Run day (YYYY-MM-DD); default today.")
@click.option("--since", "since_text", help="First day of the window; default today minus 6.")
@json_option
def gate_command(
    old: Path, new: Path, today_text: str | None, since_text: str | None, as_json: bool
) -> None:
    """Classify the rewrite NEW of the MEMORY.md OLD: what applies by itself, what is held."""
    old_text = _read(old, "OLD")
    new_text = _read(new, "NEW")
    today_default, locale = _today_and_locale()
    today = parse_day(today_text, "--today") if today_text else today_default
    since = parse_day(since_text, "--since") if since_text else window(today)[0]
    if since > today:
        raise TrinhoError.keyed("error.gate.since_after_today", since=since, today=today)
    result = gate(old_text, new_text, today, since)
    data = {
        "applied": result.applied,
        "changes": [_change_json(change) for change in result.changes],
        "today": today.isoformat(),
        "since": since.isoformat(),
    }
    emit(as_json, data, lambda: _human(result.changes, locale))


def _read(path: Path, what: str) -> str:
    try:
        data = read_regular(path)
    except FileNotFoundError:
        raise TrinhoError.keyed("error.gate.no_file", what=what, path=path) from None
    except IsADirectoryError:
        raise TrinhoError.keyed("error.gate.folder", what=what, path=path) from None
    return decode(data, str(path))


def _today_and_locale() -> tuple[date, str]:
    """The workspace's today and locale; without a workspace, the clock's day in UTC."""
    try:
        workspace = state().settings()
    except TrinhoError:
        workspace = None
    if workspace is None:
        return clock_from_env()().astimezone(UTC).date(), "en"
    return workspace.today(), workspace.locale


def _change_json(change: Change) -> dict[str, object]:
    data: dict[str, object] = {
        "class": change.cls,
        "action": change.action,
        "old": change.old,
        "new": change.new,
        "reason": change.reason,
        "reason_code": change.reason_code,
        "reason_params": dict(change.reason_params),
    }
    if change.similarity is not None:
        data["similarity"] = change.similarity
    return data


def _human(changes: tuple[Change, ...], locale: str) -> str:
    if not changes:
        return t(locale, "gate.none")
    lines = []
    for change in changes:
        action = t(locale, GATE_ACTION[change.action])
        head = f"[{action}] {t(locale, GATE_CLASS[change.cls])}: {change.reason_in(locale)}"
        lines.append(head)
        if change.old is not None:
            lines.append(f"    - {change.old}")
        if change.new is not None:
            lines.append(f"    + {change.new}")
    held = sum(change.held for change in changes)
    waiting = t(locale, "gate.summary_held", count=held)
    lines.append(t(locale, "gate.summary", count=len(changes) - held, held=waiting))
    return "\n".join(lines)
