"""OpenClaw's file tools over MEMORY.md: the agent's own writes, made through the gate
(`trinho.openclaw.rules` says what they mean and words the answers).

Two doors, both taken by trinho's OpenClaw plugin through `trinho call` (`HOST_TOOLS`), never
offered to a model as tools:

- `agent_write`: the agent called OpenClaw's `write` or `edit` on MEMORY.md; the plugin stops
  the call and hands it here. Under MEMORY.md's lock the new text is made from the file as it
  is and gated as any writer that is not the owner (the window being today): what the gate
  lets apply is written, each held change (a removed or edited owner line, a heading, a line
  that is not an entry) becomes a MEMORY.md proposal from `agent:NAME`.
- `agent_changed`: MEMORY.md changed while the gateway ran a tool the plugin could not stop
  (a shell, a patch): the plugin read the file before the call and gives that text. The
  change is gated the same way against it, so every line it removed or edited is put back
  and waits for the owner, instead of being taken silently as the owner's hand edit by the
  next condensation.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from trinho.condense.rules.gate import Change, GateResult, gate
from trinho.integrations.store import propose_memory
from trinho.memory import store as memory_store
from trinho.openclaw import rules as oc_rules
from trinho.openclaw.rules import Held, Outcome
from trinho.records.protocol import Records
from trinho.tools.service import Actor, MemoryTool, ToolResult, on_records
from trinho.workspace import Workspace


def agent_write(ws: Workspace, edit: Callable[[str], str], origin: str) -> Outcome:
    """MEMORY.md rewritten by `edit` (the agent's write or edit applied to the file as it is)
    through the gate; `edit` may raise `rules.EditRefused`, changing nothing."""
    with memory_store.editing(ws) as memory:
        before = memory.text()
        after = edit(before)
        if len(after) > oc_rules.MAX_MEMORY_CHARS:
            raise oc_rules.EditRefused(
                f"{ws.memory_name} would be {len(after)} characters; at most "
                f"{oc_rules.MAX_MEMORY_CHARS} are accepted."
            )
        result, changed = _applied(ws, memory, before, after, before)
    return _outcome(ws, result, changed, origin)


def agent_changed(ws: Workspace, before: str, origin: str) -> Outcome:
    """MEMORY.md as it is now, taken as a rewrite of `before` by `origin` and gated: what the
    gate would not apply by itself goes back to `before`'s lines and is proposed."""
    with memory_store.editing(ws) as memory:
        now = memory.text()
        if now == before:
            return Outcome(ws.memory_name, (), (), False)
        result, changed = _applied(ws, memory, before, now, now)
    return _outcome(ws, result, changed, origin)


def _applied(
    ws: Workspace, memory: memory_store.Editing, before: str, after: str, on_disk: str
) -> tuple[GateResult, bool]:
    """Gate `after` against `before` and write what applies, when it differs from the file
    as it is (`on_disk`); whether the file changed."""
    today = ws.today()
    result = gate(before, after, today, today)
    if result.applied != on_disk:
        memory.replace(result.applied)
    return result, result.applied != on_disk


def _outcome(ws: Workspace, result: GateResult, changed: bool, origin: str) -> Outcome:
    """What the write became, each held change proposed once MEMORY.md's lock is let go (as
    Claude's memory tool does: the queue's lock is never taken inside it)."""
    added = tuple(c.new for c in result.changes if c.cls == "added" and not c.held and c.new)
    held = tuple(_propose(ws, change, origin) for change in result.held)
    return Outcome(ws.memory_name, added, held, changed)


def _propose(ws: Workspace, change: Change, origin: str) -> Held:
    return Held(propose_memory(ws, change, origin), change.old, change.new, change.reason)


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


NO_FILES = "OpenClaw's file tools write a workspace: this memory has no files to write."


def _write(ws: Workspace, args: dict[str, Any], origin: str) -> ToolResult:
    path = args["path"]
    users = None if Path(ws.config.users_dir).is_absolute() else ws.config.users_dir
    target = oc_rules.target_of(path, ws.memory_name, users)
    if target == "facts":
        return ToolResult.ok({"path": path, "message": oc_rules.FACTS.format(path=path)})
    if target != "memory":
        return ToolResult.error(f"{path} is not a memory file trinho keeps.")
    if ("content" in args) == ("edits" in args):
        return ToolResult.error("Give either content (a write) or edits (an edit).")
    try:
        if "content" in args:
            content = str(args["content"])
            outcome = agent_write(ws, lambda _: content, origin)
        else:
            edits = oc_rules.replacements(args["edits"])
            outcome = agent_write(
                ws, lambda before: oc_rules.apply_edits(before, edits, path), origin
            )
    except oc_rules.EditRefused as exc:
        return ToolResult.error(str(exc))
    return ToolResult.ok({**outcome.to_dict(), "message": oc_rules.told(outcome)})


@on_records
def _openclaw_write(records: Records, args: dict[str, Any], actor: Actor) -> ToolResult:
    """An OpenClaw `write` or `edit` of MEMORY.md the plugin stopped: made through the gate
    (`agent_write`); `message` is what the agent reads."""
    run = records.on_files()
    if run is None:
        return ToolResult.error(NO_FILES)
    return run(lambda ws: _write(ws, args, actor.origin))


def _changed(ws: Workspace, args: dict[str, Any], origin: str) -> ToolResult:
    outcome = agent_changed(ws, args["before"], origin)
    message = oc_rules.told_restored(outcome, args.get("tool", "a tool"))
    return ToolResult.ok({**outcome.to_dict(), "message": message})


@on_records
def _openclaw_changed(records: Records, args: dict[str, Any], actor: Actor) -> ToolResult:
    """MEMORY.md changed during a tool call the plugin could not stop: what it removed or
    edited is put back and proposed (`agent_changed`)."""
    run = records.on_files()
    if run is None:
        return ToolResult.error(NO_FILES)
    return run(lambda ws: _changed(ws, args, actor.origin))


HOST_TOOLS: tuple[MemoryTool, ...] = (
    MemoryTool(
        name="openclaw_memory_write",
        title="An OpenClaw agent's write or edit of MEMORY.md",
        description=(
            "Called by trinho's OpenClaw plugin, never offered to a model: the agent's write "
            "(content) or edit (edits) of MEMORY.md, made through the gate."
        ),
        parameters=_object(
            {
                "path": {"type": "string", "minLength": 1, "maxLength": 1000},
                "content": {"type": "string", "maxLength": oc_rules.MAX_MEMORY_CHARS},
                "edits": {
                    "type": "array",
                    "maxItems": oc_rules.MAX_EDITS,
                    "items": {"type": "object"},
                },
            },
            ["path"],
        ),
        read_only=False,
        destructive=False,
        idempotent=False,
        handler=_openclaw_write,
    ),
    MemoryTool(
        name="openclaw_memory_changed",
        title="MEMORY.md changed behind trinho's back",
        description=(
            "Called by trinho's OpenClaw plugin, never offered to a model: MEMORY.md as it was "
            "before a tool call that changed it; the change is gated against it."
        ),
        parameters=_object(
            {
                "before": {"type": "string", "maxLength": 1_000_000},
                "tool": {"type": "string", "minLength": 1, "maxLength": 200},
            },
            ["before"],
        ),
        read_only=False,
        destructive=False,
        idempotent=True,
        handler=_openclaw_changed,
    ),
)
"""Tools only a host calls (`trinho call --profile openclaw` adds them): the OpenClaw
plugin's doors for the agent's own file writes. They are in no export and no MCP listing, so
no model is offered them; neither approves anything."""
