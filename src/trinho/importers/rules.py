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
- Letta: an agent file (`.af`, JSON; letta-ai/letta letta/serialize_schemas/
  pydantic_agent_schema.py, `AgentSchema`): `core_memory` blocks (`label`, `value`,
  `updated_at`), `messages` (`role`, `content` text parts, `tool_calls`, `created_at`), and
  archival passages (`passages`: `text`, `created_at`) when the file carries them; a newer
  file holds `agents` and their `blocks` side by side.
- Claude Code: CLAUDE.md files (project `./CLAUDE.md` or `./.claude/CLAUDE.md`, user
  `~/.claude/CLAUDE.md`, `CLAUDE.local.md`, rules in `.claude/rules/*.md`) and the auto-memory
  folder `~/.claude/projects/<project>/memory/` (MEMORY.md and topic files); markdown, whose
  `@path` lines import other files (docs.claude.com, "Manage Claude's memory").
"""

from __future__ import annotations

import json
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
class TurnItem:
    """A message of the source, bound for the conversation of its day."""

    ref: str
    role: str
    text: str
    at: datetime


@dataclass(frozen=True)
class Plan:
    source: str
    items: tuple[Item, ...] = ()
    unmapped: tuple[Unmapped, ...] = field(default=())
    turns: tuple[TurnItem, ...] = ()

    @property
    def refs(self) -> list[str]:
        """Every source item's ref, planned or not mapped."""
        return (
            [i.ref for i in self.items]
            + [t.ref for t in self.turns]
            + [u.ref for u in self.unmapped]
        )


def bullet_text(raw: str) -> str:
    """A line's text without its list marker (`-`, `*`, `+`, `1.`, a task box), on one line."""
    return one_line(_BULLET.sub("", raw, count=1))


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
    return bullet_text(raw), None


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


# --- Letta ---------------------------------------------------------------------------------------

NOT_MEMORY_BLOCKS = frozenset({"persona"})
"""Blocks that hold the agent's own character, not what it knows of the owner."""


def _instant(raw: object) -> datetime | None:
    if not isinstance(raw, str) or not raw.strip():
        return None
    try:
        moment = datetime.fromisoformat(raw.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def letta_agents(data: object) -> list[tuple[Mapping[str, Any], list[Any]]] | None:
    """Each agent of an agent file with its memory blocks, or None when it is not one."""
    if not isinstance(data, Mapping):
        return None
    agents = data.get("agents")
    if isinstance(agents, list):
        shared = data.get("blocks") if isinstance(data.get("blocks"), list) else []
        return [(a, list(shared or [])) for a in agents if isinstance(a, Mapping)]
    if isinstance(data.get("core_memory"), list) or isinstance(data.get("messages"), list):
        return [(data, list(data.get("core_memory") or []))]
    return None


def plan_letta(data: Mapping[str, Any], today: date) -> Plan:
    """Memory blocks line by line and archival passages as entries, user and assistant
    messages as conversation turns; the persona, system and tool messages listed."""
    items: list[Item] = []
    turns: list[TurnItem] = []
    unmapped: list[Unmapped] = []
    for agent, blocks in letta_agents(data) or []:
        name = str(agent.get("name") or agent.get("id") or "agent")
        for number, block in enumerate(blocks):
            _plan_block(f"{name}:block:{number}", block, today, items, unmapped)
        passages = agent.get("passages") or data.get("passages") or []
        for number, passage in enumerate(passages if isinstance(passages, list) else []):
            _plan_passage(name, number, passage, today, items, unmapped)
        messages = agent.get("messages") or []
        for number, message in enumerate(messages if isinstance(messages, list) else []):
            ref = f"letta:{name}:message:{number}"
            turn = _letta_turn(ref, message)
            if isinstance(turn, TurnItem):
                turns.append(turn)
            else:
                unmapped.append(Unmapped(ref, turn))
    return Plan("letta", tuple(items), tuple(unmapped), tuple(turns))


def _plan_block(
    where: str, block: object, today: date, items: list[Item], unmapped: list[Unmapped]
) -> None:
    """A block's lines, each an entry (`where` is `AGENT:block:N`, the block's place)."""
    if not isinstance(block, Mapping):
        unmapped.append(Unmapped(f"letta:{where}", "not a memory block"))
        return
    agent = where.split(":block:", 1)[0]
    label = str(block.get("label") or block.get("id") or "block")
    value = block.get("value") if isinstance(block.get("value"), str) else ""
    day = min(_day(block.get("updated_at")) or _day(block.get("created_at")) or today, today)
    for number, raw in enumerate(str(value).split("\n"), start=1):
        ref = f"letta:{where}:{label}:{number}"
        text = bullet_text(raw)
        if not text:
            continue
        if label in NOT_MEMORY_BLOCKS:
            unmapped.append(Unmapped(ref, f"the {label} block: the agent's own character"))
        elif len(text) > MAX_ITEM_CHARS:
            unmapped.append(Unmapped(ref, f"longer than {MAX_ITEM_CHARS} characters"))
        else:
            why = f"Letta agent {agent}, memory block '{label}' line {number}"
            items.append(Item(ref, text, day, why))


def _plan_passage(
    agent: str,
    number: int,
    passage: object,
    today: date,
    items: list[Item],
    unmapped: list[Unmapped],
) -> None:
    ref = f"letta:{agent}:passage:{number}"
    text = _text(passage.get("text")) if isinstance(passage, Mapping) else None
    if text is None or len(text) > MAX_ITEM_CHARS:
        unmapped.append(Unmapped(ref, f"no text, or over {MAX_ITEM_CHARS} characters"))
        return
    assert isinstance(passage, Mapping)
    day = min(_day(passage.get("created_at")) or today, today)
    items.append(Item(ref, text, day, f"Letta agent {agent}, archival passage {number}"))


def _letta_turn(ref: str, message: object) -> TurnItem | str:
    """The turn a Letta message is, or why it is none."""
    if not isinstance(message, Mapping):
        return "not a message"
    role = message.get("role")
    if role not in ("user", "assistant"):
        return f"a {role} message: not a turn of the conversation"
    at = _instant(message.get("created_at"))
    if at is None:
        return "no time it was sent (created_at)"
    text = _content_text(message.get("content"))
    if role == "user":
        text = _user_message(text)
    else:  # what it sent the owner; its content beside a send_message is its inner thought
        text = _sent_message(message.get("tool_calls")) or text
    if not text:
        return "no text (a Letta event or a tool call)"
    return TurnItem(ref, str(role), text, at)


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, Mapping)]
        return "\n".join(p for p in parts if isinstance(p, str)).strip()
    return ""


def _user_message(text: str) -> str:
    """A user turn's words: Letta wraps them as `{"type": "user_message", "message": ...}`;
    its heartbeats and login events are no words of the owner."""
    try:
        wrapped = json.loads(text)
    except ValueError:
        return text
    if not isinstance(wrapped, Mapping):
        return text
    if wrapped.get("type") == "user_message" and isinstance(wrapped.get("message"), str):
        return str(wrapped["message"]).strip()
    return ""


def _sent_message(calls: object) -> str:
    """What the assistant said through Letta's `send_message` tool."""
    for call in calls if isinstance(calls, list) else []:
        function = call.get("function") if isinstance(call, Mapping) else None
        if not isinstance(function, Mapping) or function.get("name") != "send_message":
            continue
        try:
            arguments = json.loads(str(function.get("arguments") or "{}"))
        except ValueError:
            continue
        if isinstance(arguments, Mapping) and isinstance(arguments.get("message"), str):
            return str(arguments["message"]).strip()
    return ""
