"""Importing another memory system: reading its export, and writing the plan through the gate.

Every planned entry is added to MEMORY.md as one rewrite judged by the gate as any writer that
is not the owner (`trinho.condense.rules.gate.gate`, the window being today): what the gate
lets apply is written (an entry dated today), the rest waits for the owner as MEMORY.md
proposals from `import:SOURCE`, each with the item's origin as its `why`. A line already in
MEMORY.md folds, a change already waiting or rejected is not asked again: a second import
of the same export adds nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trinho.condense.rules.gate import Change, gate
from trinho.conversations import store as transcripts
from trinho.durable import append_bytes, read_regular, sibling_lock
from trinho.errors import TrinhoError
from trinho.importers import rules
from trinho.importers.rules import (
    Plan,
    SourceFile,
    is_basic_memory_file,
    is_claude_code_file,
    mem0_records,
    plan_markdown,
    plan_mem0,
)
from trinho.memory import store as memory_store
from trinho.proposals import store as proposals
from trinho.proposals.format import MAX_WHY_CHARS
from trinho.textnorm import decode
from trinho.workspace import Workspace

KIND = "memory"
LOG = "imports.jsonl"
"""Under `.trinho/`: where each entry an import added by itself came from (one JSON line
each); an entry that waits keeps its origin on its proposal."""
MAX_SOURCE_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class ImportReport:
    """What an import did (or, dry, would do)."""

    source: str
    items: int
    added: int
    proposed: int
    already: int
    turns: int
    unmapped: list[dict[str, str]]
    dry_run: bool


def read_plan(ws: Workspace, source: str, path: Path) -> Plan:
    """The plan of the export at `path` in `source`'s format; one keyed line when it is not."""
    if source == "mem0":
        data = _json(path)
        records = mem0_records(data)
        if records is None:
            raise TrinhoError.keyed("error.import.format", path=path, source="Mem0")
        return plan_mem0(records, ws.today())
    if source == "claude-code":
        return plan_markdown(source, claude_code_files(ws, path), ws.today())
    if source == "letta":
        agents = _json(path)
        if rules.letta_agents(agents) is None:
            raise TrinhoError.keyed("error.import.format", path=path, source="Letta agent file")
        return rules.plan_letta(agents, ws.today())
    if source == "basic-memory":
        return plan_markdown(source, markdown_files(path, is_basic_memory_file), ws.today())
    raise TrinhoError.keyed("error.import.format", path=path, source=source)


def _json(path: Path) -> Any:
    if not path.is_file():
        raise TrinhoError.keyed("error.import.no_file", path=path)
    try:
        return json.loads(decode(read_regular(path, MAX_SOURCE_BYTES), str(path)))
    except ValueError:
        raise TrinhoError.keyed("error.import.format", path=path, source="JSON") from None


def claude_code_files(ws: Workspace, path: Path) -> list[SourceFile]:
    """Claude Code's memory files under `path` (or `path` itself), in path order."""
    memory_folder = path.name == "memory"
    return markdown_files(path, lambda parts: is_claude_code_file(parts, memory_folder))


def markdown_files(path: Path, wanted: Callable[[Sequence[str]], bool]) -> list[SourceFile]:
    """The markdown files under `path` that `wanted` names (or `path` itself), in path order;
    links are not followed."""
    if path.is_file():
        return [_source_file(path, path.name)]
    if not path.is_dir():
        raise TrinhoError.keyed("error.import.no_file", path=path)
    found = [
        p
        for p in path.rglob("*.md")
        if p.is_file() and not p.is_symlink() and wanted(p.relative_to(path).parts)
    ]
    return [_source_file(p, p.relative_to(path).as_posix()) for p in sorted(found)]


def _source_file(path: Path, rel: str) -> SourceFile:
    text = decode(read_regular(path, MAX_SOURCE_BYTES), rel)
    day = datetime.fromtimestamp(path.stat().st_mtime, UTC).date()
    return SourceFile(rel, text.replace("\r\n", "\n"), day)


def apply_plan(
    ws: Workspace,
    plan: Plan,
    *,
    dry_run: bool = False,
    progress: Callable[[int], None] | None = None,
) -> ImportReport:
    """Add the plan's entries to MEMORY.md through the gate, proposing what it holds."""
    origin = f"import:{plan.source}"
    today = ws.today()
    by_line = {item.line: item for item in plan.items}
    with memory_store.editing(ws, lock=not dry_run) as memory:
        before = memory.text()
        present = set(before.split("\n"))
        new = [line for line in by_line if line not in present]
        base = before if not before or before.endswith("\n") else before + "\n"
        after = base + "".join(line + "\n" for line in new)
        result = gate(before, after, today, today) if new else None
        if result is not None and result.applied != before and not dry_run:
            memory.replace(result.applied)
    held = list(result.held) if result is not None else []
    if progress is not None:
        progress(max(0, len(plan.items) - len(held)))
    asked = {
        _substance(p.change)
        for p in proposals.list_proposals(ws).proposals
        if p.kind == KIND and p.status in ("pending", "rejected")
    }
    proposed = 0
    for change in held:
        data = {k: v for k, v in change.to_dict().items() if k not in ("why", "sources")}
        if _substance(data) not in asked:
            asked.add(_substance(data))
            proposed += 1
            if not dry_run:
                _propose(ws, change, data, origin, by_line)
        if progress is not None:
            progress(1)
    if result is not None and not dry_run:
        _log_added(ws, plan.source, result.changes, by_line)
    turns, refused = _file_turns(ws, plan, dry_run)
    added = sum(
        1
        for c in (result.changes if result is not None else ())
        if c.action == "auto" and c.cls != "folded"
    )
    return ImportReport(
        plan.source,
        len(plan.items),
        added,
        proposed,
        len(plan.items) - added - proposed,
        turns,
        [{"ref": u.ref, "why": u.why} for u in plan.unmapped] + refused,
        dry_run,
    )


def _file_turns(ws: Workspace, plan: Plan, dry_run: bool) -> tuple[int, list[dict[str, str]]]:
    """The plan's messages into the conversation of their days (a turn already there
    verbatim is skipped): how many are new, and each message a transcript refuses (too
    long, a control character), listed with why."""
    turns: list[transcripts.Turn] = []
    refused: list[dict[str, str]] = []
    for item in plan.turns:
        try:
            turns.append(
                transcripts.make_turn(item.role, item.text, item.at.isoformat(), item.ref, item.ref)
            )
        except TrinhoError as exc:
            refused.append({"ref": item.ref, "why": str(exc)})
    if not turns:
        return 0, refused
    if dry_run:
        present = set()
        for day in {ws.local_date(turn.at) for turn in turns}:
            present |= {transcripts.turn_line(s.turn) for s in transcripts.read_day(ws, day)}
        return sum(transcripts.turn_line(turn) not in present for turn in turns), refused
    return transcripts.import_turns(ws, turns).imported, refused


def _log_added(
    ws: Workspace, source: str, changes: Sequence[Change], by_line: dict[str, Any]
) -> None:
    """The origin of every entry the gate let apply, appended to `.trinho/imports.jsonl`."""
    at = ws.now().isoformat()
    records = [
        {
            "at": at,
            "source": source,
            "ref": by_line[c.new].ref,
            "line": c.new,
            "origin": by_line[c.new].why,
        }
        for c in changes
        if c.action == "auto" and c.cls != "folded" and c.new in by_line
    ]
    if records:
        data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
        path = ws.internal / LOG
        with sibling_lock(path):
            append_bytes(path, data.encode("utf-8"))


def _substance(change: dict[str, Any]) -> tuple[object, ...]:
    """What makes two held changes the same question for the owner (as a weekly run asks
    it): the class and the lines, not where the line would go."""
    return (change.get("class"), change.get("old"), change.get("new"), change.get("rewrite"))


def _propose(
    ws: Workspace, change: Change, data: dict[str, Any], origin: str, by_line: dict[str, Any]
) -> None:
    item = by_line.get(change.new or "")
    why = item.why[:MAX_WHY_CHARS] if item is not None else None
    proposals.submit(ws, KIND, data, reason=change.reason, origin=origin, why=why)
