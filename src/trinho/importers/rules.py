"""What another memory system's export becomes in a workspace (pure): a plan of items, each
bound for MEMORY.md as a dated entry, and the items that cannot be mapped, each with why.

An importer is a writer that is not the owner: its MEMORY.md entries go through the gate as any
other (`trinho.importers.store`), so a line dated outside the window waits for the owner as a
proposal, and the origin of every item (the source, its id, its user, its date) is kept in the
proposal's `why`. Nothing is dropped in silence: an item is planned or listed as not mapped.

The formats, as their projects publish them:

- Mem0: the JSON of `Memory.get_all()` (`{"results": [...]}`, mem0/memory/main.py), the v1
  platform answer (a list) or the platform's export (`{"memories": [...]}`); each memory has
  `id`, `memory`, `user_id`, `hash`, `metadata`, `created_at`, `updated_at`
  (docs.mem0.ai, "Get Memories").
- basic-memory: a project folder of markdown notes, each with YAML front matter (`title`,
  `type`, `tags`, `permalink`), observations `- [category] content #tag (context)` and
  relations `- relation_type [[Target]] (context)`, found by their syntax anywhere in the
  note (basicmachines-co/basic-memory, docs/NOTE-FORMAT.md).
- Claude Code: CLAUDE.md files (project `./CLAUDE.md` or `./.claude/CLAUDE.md`, user
  `~/.claude/CLAUDE.md`, `CLAUDE.local.md`, rules in `.claude/rules/*.md`) and the auto-memory
  folder `~/.claude/projects/<project>/memory/` (MEMORY.md and topic files); markdown, whose
  `@path` lines import other files (docs.claude.com, "Manage Claude's memory").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from trinho.textnorm import one_line

MAX_ITEM_CHARS = 1000
"""A longer text is not one MEMORY.md entry: listed as not mapped."""

_BULLET = re.compile(r"^\s*(?:[-*+]|[0-9]{1,3}[.)])\s+(?:\[[ xX]\]\s+)?")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_IMPORT = re.compile(r"^\s*@\S+")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_OBSERVATION = re.compile(r"^\s*[-*]\s+\[([^\]\[]+)\]\s+(.+)$")
_RELATION = re.compile(r"^\s*[-*]\s+([A-Za-z_][\w-]*)\s+\[\[([^\]]+)\]\](.*)$")
_TITLE = re.compile(r"^title:\s*(.+?)\s*$")


@dataclass(frozen=True)
class Item:
    """One thing of the source, bound for MEMORY.md as `- DAY: text`."""

    ref: str
    text: str
    day: date
    why: str

    @property
    def line(self) -> str:
        return f"- {self.day.isoformat()}: {self.text}"


@dataclass(frozen=True)
class Unmapped:
    ref: str
    why: str


@dataclass(frozen=True)
class Plan:
    source: str
    items: tuple[Item, ...] = ()
    unmapped: tuple[Unmapped, ...] = field(default=())

    @property
    def refs(self) -> list[str]:
        """Every source item's ref, planned or not mapped."""
        return [i.ref for i in self.items] + [u.ref for u in self.unmapped]


def _text(raw: object) -> str | None:
    if not isinstance(raw, str):
        return None
    text = one_line(raw).strip()
    return text or None


def _day(raw: object) -> date | None:
    if not isinstance(raw, str) or not raw.strip():
        return None
    try:
        return datetime.fromisoformat(raw.strip().replace("Z", "+00:00")).date()
    except ValueError:
        return None


def mem0_records(data: object) -> list[Any] | None:
    """The memories of a Mem0 JSON answer or export, or None when it is none of them."""
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        for key in ("results", "memories"):
            found = data.get(key)
            if isinstance(found, list):
                return found
    return None


def plan_mem0(records: Sequence[Any], today: date) -> Plan:
    """Each memory as an entry dated when Mem0 last changed it (`updated_at`, else
    `created_at`, else today), its id, user and metadata in its origin."""
    items: list[Item] = []
    unmapped: list[Unmapped] = []
    for number, record in enumerate(records):
        if not isinstance(record, Mapping):
            unmapped.append(Unmapped(f"mem0:#{number}", "not a memory object"))
            continue
        ident = str(record.get("id") or f"#{number}")
        ref = f"mem0:{ident}"
        text = _text(record.get("memory"))
        if text is None:
            unmapped.append(Unmapped(ref, "no memory text"))
            continue
        if len(text) > MAX_ITEM_CHARS:
            unmapped.append(Unmapped(ref, f"longer than {MAX_ITEM_CHARS} characters"))
            continue
        day = _day(record.get("updated_at")) or _day(record.get("created_at")) or today
        items.append(Item(ref, text, min(day, today), _mem0_origin(ident, record)))
    return Plan("mem0", tuple(items), tuple(unmapped))


def _mem0_origin(ident: str, record: Mapping[str, Any]) -> str:
    parts = [f"Mem0 memory {ident}"]
    for key in ("user_id", "agent_id", "created_at", "updated_at"):
        if record.get(key):
            parts.append(f"{key} {record[key]}")
    metadata = record.get("metadata")
    if isinstance(metadata, Mapping) and metadata:
        parts.append("metadata " + ", ".join(f"{k}={v}" for k, v in sorted(metadata.items())))
    return "; ".join(str(p) for p in parts)


@dataclass(frozen=True)
class SourceFile:
    """A markdown file of the source: its path relative to what was imported, its text, and
    the day it was last changed."""

    rel: str
    text: str
    day: date


def plan_markdown(source: str, files: Iterable[SourceFile], today: date) -> Plan:
    """Every line of markdown memory files: a bullet or a line of prose is an entry dated
    the file's day, under the headings it sits in (named in its origin); a heading, an
    `@path` import, a code block, front matter or a line too long is listed as not mapped."""
    items: list[Item] = []
    unmapped: list[Unmapped] = []
    for file in files:
        _plan_file(source, file, today, items, unmapped)
    return Plan(source, tuple(items), tuple(unmapped))


def _plan_file(
    source: str, file: SourceFile, today: date, items: list[Item], unmapped: list[Unmapped]
) -> None:
    section: list[str] = []
    fenced = False
    front = file.text.startswith("---\n")
    title = file.rel.rsplit("/", 1)[-1].removesuffix(".md")
    for number, raw in enumerate(file.text.split("\n"), start=1):
        ref = f"{source}:{file.rel}:{number}"
        line = raw.strip()
        if front:
            named = _TITLE.match(line)
            title = named.group(1).strip("\"'") if named else title
            if line and line != "---":
                unmapped.append(Unmapped(ref, "front matter"))
            front = not (line == "---" and number > 1)
        elif _FENCE.match(raw) or (fenced and line):
            fenced = not fenced if _FENCE.match(raw) else fenced
            unmapped.append(Unmapped(ref, "code block"))
        elif not line:
            continue
        elif _HEADING.match(raw):
            level = len(line) - len(line.lstrip("#"))
            section = [*section[: level - 1], line.lstrip("#").strip()]
            unmapped.append(Unmapped(ref, "heading: named in the origin of its lines"))
        elif _IMPORT.match(raw):
            unmapped.append(Unmapped(ref, "an @import of another file: import that file"))
        else:
            text, kind = _entry_text(source, raw, title)
            if not text or len(text) > MAX_ITEM_CHARS:
                unmapped.append(Unmapped(ref, f"empty or over {MAX_ITEM_CHARS} characters"))
                continue
            where = f"{file.rel} line {number}" + (f" ({' > '.join(section)})" if section else "")
            why = f"{source}: {where}" + (f", {kind}" if kind else "")
            items.append(Item(ref, text, min(file.day, today), why))


def _entry_text(source: str, raw: str, title: str) -> tuple[str, str | None]:
    """The entry a line of prose or a bullet makes, and what kind of line it was: for
    basic-memory, an observation keeps its content, tags and context (its category goes to
    the origin), and a relation is said of its note (`Coffee: relates_to Tea`)."""
    if source == "basic-memory":
        observed = _OBSERVATION.match(raw)
        if observed and observed.group(1).strip() not in ("", "x", "X"):
            return one_line(observed.group(2)), f"observation [{observed.group(1).strip()}]"
        related = _RELATION.match(raw)
        if related:
            rest = one_line(related.group(3))
            text = f"{title}: {related.group(1)} {related.group(2)}" + (f" {rest}" if rest else "")
            return one_line(text), "relation"
    return one_line(_BULLET.sub("", raw, count=1)), None


def is_basic_memory_file(rel_parts: Sequence[str]) -> bool:
    """Whether a path of a basic-memory project is one of its notes: a markdown file outside
    hidden folders."""
    parts = tuple(rel_parts)
    return (
        bool(parts)
        and parts[-1].endswith(".md")
        and not any(p.startswith(".") or p in SKIPPED for p in parts)
    )


CLAUDE_CODE_NAMES = frozenset({"CLAUDE.md", "CLAUDE.local.md"})


def is_claude_code_file(rel_parts: Sequence[str], memory_folder: bool = False) -> bool:
    """Whether a path under what is imported is one of Claude Code's memory files: a
    CLAUDE.md or CLAUDE.local.md anywhere, a rule in `.claude/rules/`, or a markdown file
    of an auto-memory folder (`memory/*.md`, or any at the top when `memory_folder`: the
    folder itself was given)."""
    parts = tuple(rel_parts)
    if not parts or not parts[-1].endswith(".md") or any(p in SKIPPED for p in parts):
        return False
    folders = parts[:-1]
    return (
        parts[-1] in CLAUDE_CODE_NAMES
        or (".claude" in folders and folders[-1] == "rules")
        or (bool(folders) and folders[-1] == "memory")
        or (memory_folder and not folders)
    )


SKIPPED = frozenset({".git", "node_modules", ".venv", "__pycache__"})
