"""The agent tools: one declarative definition each, exported for OpenAI, Anthropic and MCP.

`call(memory, name, args, actor)` is the one door a model's tool call goes through: arguments
are checked against the tool's schema here, and every failure comes back as a `ToolResult` with
`is_error=True` and a message the model can act on, never as an exception into the host.

`memory` is a file workspace, or any owner's records behind `trinho.records.protocol.Records`
(one owner of the PostgreSQL store): the handlers are the same for both, and a workspace is
seen through `FileRecords`, the file stores as they are.

The actor says who is calling: `chat` (the owner is present) or `job` (an unattended run). It is
passed through to the rules that care (a job's `user_memory_save` becomes a proposal). No tool
approves or rejects a proposal: only the owner decides, outside these tools.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import TYPE_CHECKING, Any, Literal, cast

from trinho.boundary import public_error
from trinho.clock import parse_day
from trinho.config import TOOL_PROFILES
from trinho.config import ToolProfile as ToolProfile
from trinho.errors import TrinhoError
from trinho.facts.rules import BASES, ActorKind
from trinho.notes.format import MAX_NOTE_CHARS
from trinho.proposals.format import MAX_WHY_CHARS, Source
from trinho.records.protocol import FileRecords, Records
from trinho.textnorm import json_text, match_key, printable
from trinho.tools import args as jsonargs
from trinho.tools import format as oc_format
from trinho.workspace import SLUG_PATTERN, Workspace, validate_slug

if TYPE_CHECKING:
    from trinho.models.base import ToolCall, ToolSpec

log = logging.getLogger("trinho.tools")

ToolFormat = Literal["openai", "openai-strict", "responses", "anthropic", "mcp"]
FORMATS: tuple[ToolFormat, ...] = ("openai", "openai-strict", "responses", "anthropic", "mcp")
PROFILES = TOOL_PROFILES
"""Which argument names and result shapes the tools speak: trinho's own (`default`), or
OpenClaw's memory tools' (`openclaw`: memory_search and memory_get as OpenClaw's memory-core
declares them, so an OpenClaw agent's prompt works unchanged)."""


@dataclass(frozen=True)
class Actor:
    """Who calls a tool: a chat with the owner present, or an unattended job.

    `agent` names the agent (or the job, for a job); `user` whose facts are meant (None: the
    workspace's owner).
    """

    kind: ActorKind = "chat"
    agent: str = "main"
    user: str | None = None
    seen: tuple[Source, ...] = field(default=(), compare=False)
    """The turns and notes this actor was shown (the facts job's transcript, the owner's
    message in chat): a fact it proposes names the one its `quote` is found in."""

    def __post_init__(self) -> None:
        if self.kind not in ("chat", "job"):
            raise TrinhoError.keyed("error.tools.bad_actor", kind=self.kind)
        validate_slug(self.agent, "agent name")
        if self.user is not None:
            validate_slug(self.user, "user id")

    @property
    def origin(self) -> str:
        """How proposals and records name this actor, e.g. `agent:main` or `job:nightly`."""
        return f"{'agent' if self.kind == 'chat' else 'job'}:{self.agent}"

    def user_of(self, memory: ToolTarget) -> str:
        return self.user or as_records(memory).user


ToolTarget = Workspace | Records
"""What the tools act on: a file workspace, or one owner's records behind `Records`."""


def as_records(memory: ToolTarget) -> Records:
    """The records a tool reads and writes: a workspace's own file stores, or `memory`."""
    return FileRecords(memory) if isinstance(memory, Workspace) else memory


@dataclass(frozen=True)
class ToolResult:
    """What a tool call gives back to the model: text to read, and the same as data if it worked."""

    text: str
    is_error: bool = False
    data: dict[str, Any] | None = None

    @classmethod
    def ok(cls, data: dict[str, Any]) -> ToolResult:
        return cls(json_text(data), False, data)

    @classmethod
    def error(cls, message: str) -> ToolResult:
        return cls(printable(message), True, None)


Handler = Callable[[ToolTarget, dict[str, Any], Actor], ToolResult]


def on_records(run: Callable[[Records, dict[str, Any], Actor], ToolResult]) -> Handler:
    """A handler over `Records`, callable with a workspace or any owner's records."""

    def handler(memory: ToolTarget, args: dict[str, Any], actor: Actor) -> ToolResult:
        return run(as_records(memory), args, actor)

    handler.__doc__ = run.__doc__
    return handler


@dataclass(frozen=True)
class MemoryTool:
    """One of trinho's tools: its name, what a model reads about it, its argument schema, hints,
    and the handler that runs it (a model API is told only its `ToolSpec` part)."""

    name: str
    title: str
    description: str
    parameters: Mapping[str, Any]
    read_only: bool
    destructive: bool
    idempotent: bool
    handler: Handler
    result: Mapping[str, Any] | None = None
    """The JSON schema of a successful result's data (MCP's `outputSchema`)."""


DATE = {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}
"""Patterns spell classes out (`[0-9]`, never `\\d`): llama.cpp turns a schema into a grammar
whose parser knows no class escape ("unknown escape at \\d"), and a forced tool call then
crashes its server. `[0-9]` is also what JSON Schema's `\\d` means, ASCII digits only."""
MAX_FACT_VALUE_CHARS = 2000
MAX_QUERY_CHARS = 2000
MAX_SEARCH_LIMIT = 50
MAX_GET_LINES = 2000


def _object(properties: dict[str, Any], required: Sequence[str] = ()) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
    }


def _result(properties: dict[str, Any], required: Sequence[str] | None = None) -> dict[str, Any]:
    """A result's schema; every property required unless `required` names fewer."""
    needed = list(properties) if required is None else list(required)
    return {"type": "object", "properties": properties, "required": needed}


def _text(limit: int, description: str) -> dict[str, Any]:
    """A non-empty string argument of at most `limit` characters."""
    return {"type": "string", "minLength": 1, "maxLength": limit, "description": description}


STRING: dict[str, Any] = {"type": "string"}
INTEGER: dict[str, Any] = {"type": "integer"}
STRINGS: dict[str, Any] = {"type": "array", "items": STRING}
RECORDS: dict[str, Any] = {"type": "array", "items": {"type": "object"}}
HITS: dict[str, Any] = {
    "type": "array",
    "items": _result(
        {
            "kind": STRING,
            "path": STRING,
            "line": INTEGER,
            "date": {"type": ["string", "null"]},
            "text": STRING,
            "score": {"type": "number"},
            "refs": {"type": "array"},
        },
    ),
}


@on_records
def _memory_save(records: Records, args: dict[str, Any], actor: Actor) -> ToolResult:
    saved = records.save_note(args["text"])
    return ToolResult.ok(
        {
            "saved": saved.line,
            "path": saved.path,
            "line": saved.line_number,
            "date": saved.date.isoformat(),
            "time": saved.time,
        }
    )


def _day(args: dict[str, Any], name: str) -> date | None:
    value = args.get(name)
    return None if value is None else parse_day(value, name)


_OUTCOME_NOTES = {
    "created": "Saved as a new fact.",
    "unchanged": "Already known with this value; nothing changed.",
    "superseded": "Saved; the previous value stays in the fact's history with its end date.",
    "proposed": "Not saved: it waits for the owner's decision as a proposal. Do not retry; "
    "tell the owner if it matters.",
    "historical": "Recorded in the fact's history only: its validity ends before today.",
}


MIN_QUOTE_CHARS = 4
MAX_QUOTE_CHARS = 200


def quoted_in(seen: Sequence[Source], quote: str | None) -> tuple[Source, ...]:
    """The sources among `seen` that hold `quote` (case and spacing aside), each shown by its
    line that holds it: a quote found nowhere the actor was shown names no source, so a
    source the owner reads is always one that exists."""
    key = match_key(quote or "")
    if len(key) < MIN_QUOTE_CHARS:
        return ()
    found: list[Source] = []
    for source in seen:
        lines = [line for line in source.text.split("\n") if key in match_key(line)]
        if lines or key in match_key(source.text):
            found.append(Source.quoted(source.kind, source.ref, (lines or [source.text])[0]))
    return tuple(found[-3:])


@on_records
def _user_memory_save(records: Records, args: dict[str, Any], actor: Actor) -> ToolResult:
    saved = records.save_fact(
        args["key"],
        args["value"],
        user=actor.user_of(records),
        basis=args["basis"],
        actor=actor.kind,
        valid_from=_day(args, "valid_from"),
        valid_to=_day(args, "valid_to"),
        source=actor.origin,
        origin=actor.origin,
        why=args.get("why"),
        sources=quoted_in(actor.seen, args.get("quote")),
    )
    current = saved.fact.value_on(records.today()) if saved.fact is not None else None
    data: dict[str, Any] = {
        "outcome": saved.outcome,
        "key": args["key"],
        "current_value": current.value if current is not None else None,
        "note": _OUTCOME_NOTES[saved.outcome],
    }
    if saved.proposal is not None:
        data["proposal_id"] = saved.proposal.id
        data["reason"] = saved.proposal.reason
    return ToolResult.ok(data)


@on_records
def _memory_proposals(records: Records, args: dict[str, Any], actor: Actor) -> ToolResult:
    listing = records.list_proposals(include_decided=bool(args.get("include_decided")))
    shown = [
        {
            key: value
            for key, value in proposal.to_json().items()
            if key != "content_hash" and value is not None
        }
        for proposal in listing.proposals
    ]
    data: dict[str, Any] = {"proposals": shown, "count": len(shown)}
    if listing.broken:
        data["unreadable"] = len(listing.broken)
    return ToolResult.ok(data)


@on_records
def _memory_search(records: Records, args: dict[str, Any], actor: Actor) -> ToolResult:
    from trinho import search  # the index and its stemmer load only when searching

    found = records.find(
        search.Query(
            args["query"],
            int(args.get("limit", 10)),
            _day(args, "since"),
            _day(args, "until"),
            tuple(cast(list[search.Kind], args.get("kinds", []))),
        )
    )
    hits = found.hits
    data: dict[str, Any] = {"hits": [hit.to_json() for hit in hits], "count": len(hits)}
    # The people the query named, so the calling model can search again for the second hop.
    data["entities"] = list(found.entities)
    if not hits:
        data["note"] = "Nothing found. Try other words, fewer words, or no date limits."
    return ToolResult.ok(data)


@on_records
def _memory_get(records: Records, args: dict[str, Any], actor: Actor) -> ToolResult:
    resolved = records.shown_path(args["path"])
    lines = args.get("lines")
    snippet = records.memory_get(
        resolved, int(args.get("from_line", 1)), None if lines is None else int(lines)
    )
    return ToolResult.ok(
        {
            "path": snippet.path,
            "from_line": snippet.start,
            "to_line": snippet.end,
            "total_lines": snippet.total,
            "text": snippet.text,
        }
    )


TOOLS: tuple[MemoryTool, ...] = (
    MemoryTool(
        name="memory_save",
        title="Save a note",
        description=(
            "Save something worth remembering to today's daily note. Use it for anything said "
            "or done in this conversation that may matter later: plans, events, decisions, "
            "preferences mentioned in passing. It appends one timestamped line (- HH:MM text) "
            "to memory/YYYY-MM-DD.md, needs no approval and never changes what is already "
            "saved. Write one self-contained sentence, in the language of the conversation. "
            "For a lasting fact about the owner (where they live, a name, an allergy) use "
            "user_memory_save instead."
        ),
        parameters=_object(
            {
                "text": _text(
                    MAX_NOTE_CHARS, "What to remember, e.g. 'Mẹ hẹn khám răng thứ Sáu 9 giờ'."
                )
            },
            ["text"],
        ),
        read_only=False,
        destructive=False,
        idempotent=False,
        handler=_memory_save,
        result=_result(
            {"saved": STRING, "path": STRING, "line": INTEGER, "date": STRING, "time": STRING},
        ),
    ),
    MemoryTool(
        name="user_memory_save",
        title="Write a fact about the owner",
        description=(
            "Write now a lasting fact about the owner into their shared facts, which every "
            "agent reads: a short key and its value, e.g. key 'home_city', value 'Đà Nẵng'. "
            "Set basis 'user' only when the owner stated it themselves; 'inferred' when you "
            "concluded it. Give valid_from / valid_to (YYYY-MM-DD) when it holds for a period "
            "('in Tokyo until 5 December' -> valid_to of that date). Code reconciles it: the "
            "owner's word replaces an older value, which is kept in history with an end date; "
            "an inference that contradicts the owner, and anything from an unattended job, "
            "becomes a proposal the owner decides on. The result says which happened: "
            "created, unchanged, superseded, proposed or historical."
        ),
        parameters=_object(
            {
                "key": {
                    "type": "string",
                    "pattern": SLUG_PATTERN,
                    "description": "Lowercase slug naming the fact, e.g. 'home_city'.",
                },
                "value": _text(
                    MAX_FACT_VALUE_CHARS, "The fact's value, as the owner would say it."
                ),
                "basis": {
                    "type": "string",
                    "enum": list(BASES),
                    "description": "'user': the owner said it. 'inferred': you concluded it.",
                },
                "valid_from": {**DATE, "description": "First day it holds (default: today)."},
                "valid_to": {**DATE, "description": "Day it stops holding, if known."},
                "why": _text(
                    MAX_WHY_CHARS,
                    "Why you conclude it, in a few words; the owner reads it "
                    "when the fact waits for their approval.",
                ),
                "quote": _text(
                    MAX_QUOTE_CHARS,
                    "The words of the conversation it is drawn from, copied "
                    "exactly, e.g. 'Grabbed a flat white at the airport'.",
                ),
            },
            ["key", "value", "basis"],
        ),
        read_only=False,
        destructive=False,
        idempotent=True,
        handler=_user_memory_save,
        result=_result(
            {
                "outcome": {"type": "string", "enum": list(_OUTCOME_NOTES)},
                "key": STRING,
                "current_value": {"type": ["string", "null"]},
                "note": STRING,
                "proposal_id": STRING,
                "reason": STRING,
            },
            ["outcome", "key", "current_value", "note"],
        ),
    ),
    MemoryTool(
        name="memory_search",
        title="Search memory",
        description=(
            "Search everything remembered beyond what is in your prompt: older daily notes, "
            "MEMORY.md, facts and their history, past conversations. Use it before saying you "
            "do not know, and whenever the owner refers to something earlier. Matching ignores "
            "diacritics and case ('Ha Noi' finds 'Hà Nội'). Returns hits with kind, path, "
            "line, date and text, best first; read around a hit with memory_get. `entities` "
            "names the people the query matched: search again with what a hit says of them "
            "for a question that needs two memories."
        ),
        parameters=_object(
            {
                "query": _text(MAX_QUERY_CHARS, "Words to look for, e.g. 'dentist appointment'."),
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_SEARCH_LIMIT,
                    "description": "How many hits at most (default 10).",
                },
                "since": {**DATE, "description": "Only hits dated on or after this day."},
                "until": {**DATE, "description": "Only hits dated on or before this day."},
                "kinds": {
                    "type": "array",
                    "items": {
                        "type": "string",
                        "enum": ["note", "memory", "fact", "conversation"],
                    },
                    "uniqueItems": True,
                    "maxItems": 4,
                    "description": "Only these kinds of source (default: all).",
                },
            },
            ["query"],
        ),
        read_only=True,
        destructive=False,
        idempotent=True,
        handler=_memory_search,
        result=_result(
            {"hits": HITS, "count": INTEGER, "entities": STRINGS, "note": STRING},
            ["hits", "count", "entities"],
        ),
    ),
    MemoryTool(
        name="memory_get",
        title="Read a memory file",
        description=(
            "Read lines of a file in the memory workspace, e.g. the context around a "
            "memory_search hit. Give the path exactly as the hit shows it (e.g. "
            "'memory/2026-11-29.md'), the first line to read and how many lines. It reads "
            "memory files only (MEMORY.md, USER.md, DREAMS.md, .md files under memory/, and "
            "the other paths memory_search gives), nothing else in the workspace or outside it."
        ),
        parameters=_object(
            {
                "path": _text(500, "Workspace-relative path, e.g. 'MEMORY.md'."),
                "from_line": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "First line to read, 1-based (default 1).",
                },
                "lines": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_GET_LINES,
                    "description": "How many lines (default: up to 2000).",
                },
            },
            ["path"],
        ),
        read_only=True,
        destructive=False,
        idempotent=True,
        handler=_memory_get,
        result=_result(
            {
                "path": STRING,
                "from_line": INTEGER,
                "to_line": INTEGER,
                "total_lines": INTEGER,
                "text": STRING,
            },
        ),
    ),
    MemoryTool(
        name="memory_proposals",
        title="List proposals waiting for the owner",
        description=(
            "List the changes that wait for the owner's decision: facts that would contradict "
            "what the owner said, changes proposed by unattended jobs, held MEMORY.md edits. "
            "Read-only: you cannot approve or reject anything; only the owner decides, on "
            "their own channel. Use it to tell the owner what is waiting, or to avoid "
            "proposing the same change twice."
        ),
        parameters=_object(
            {
                "include_decided": {
                    "type": "boolean",
                    "description": "Also list approved, rejected and stale ones (default false).",
                }
            }
        ),
        read_only=True,
        destructive=False,
        idempotent=True,
        handler=_memory_proposals,
        result=_result(
            {"proposals": RECORDS, "count": INTEGER, "unreadable": INTEGER},
            ["proposals", "count"],
        ),
    ),
)

BY_NAME: dict[str, MemoryTool] = {tool.name: tool for tool in TOOLS}

OPENCLAW_CORPORA = ("memory", "wiki", "all", "sessions")
"""OpenClaw's `corpus` for memory_search: trinho has no wiki, so `wiki` finds nothing; `memory`
and `all` search everything trinho keeps; `sessions` (OpenClaw's own transcript search) is an
empty answer flagged unavailable, as OpenClaw gives when it is off."""

OPENCLAW_GET_CORPORA = ("memory", "wiki", "all")


@on_records
def _openclaw_search(records: Records, args: dict[str, Any], actor: Actor) -> ToolResult:
    from trinho import search
    from trinho.search.base import MAX_LIMIT

    corpus = args.get("corpus")
    if corpus == "wiki":
        return ToolResult.ok({"results": []})
    if corpus == "sessions":
        return ToolResult.ok(oc_format.sessions_unavailable())
    # OpenClaw sets no most: a larger ask gets the most trinho ranks.
    limit = min(int(args.get("maxResults", 10)), MAX_LIMIT)
    hits = records.find(search.Query(args["query"], limit)).hits
    floor = args.get("minScore")
    results = []
    for hit in hits:
        shown = hit.to_json()
        if floor is not None and shown["score"] < floor:  # the score the model was shown
            continue
        results.append(
            {
                "path": shown["path"],
                "startLine": hit.line,
                "endLine": hit.line + hit.text.count("\n"),
                "score": shown["score"],
                "snippet": hit.text,
                "source": "sessions" if hit.kind == "conversation" else "memory",
            }
        )
    return ToolResult.ok({"results": results})


@on_records
def _openclaw_get(records: Records, args: dict[str, Any], actor: Actor) -> ToolResult:
    """OpenClaw's read: a `status` always, and a refusal is a result the model reads, not a
    failed call."""
    path = args["path"]
    if args.get("corpus") == "wiki":
        return ToolResult.ok(oc_format.not_found(path))
    try:
        shown = records.shown_path(path)
    except TrinhoError as exc:
        return ToolResult.ok(
            oc_format.read_error(path, oc_format.MEMORY_PATH_NOT_ALLOWED, str(exc))
        )
    try:
        text = records.file_text(path)
    except (TrinhoError, OSError) as exc:
        message = str(public_error(exc, records.root))
        return ToolResult.ok(oc_format.read_error(shown, oc_format.MEMORY_READ_FAILED, message))
    if text is None:
        return ToolResult.ok(oc_format.not_found(shown))
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    count = args.get("lines")
    return ToolResult.ok(
        oc_format.excerpt(
            shown, lines, int(args.get("from", 1)), None if count is None else int(count)
        )
    )


CORPUS: dict[str, Any] = {
    "type": "string",
    "enum": list(OPENCLAW_CORPORA),
    "description": "Where to look: 'memory' or 'all' (everything trinho keeps, saved "
    "conversations included); 'wiki' has nothing in trinho; 'sessions' (OpenClaw's session "
    "transcripts) answers unavailable.",
}
GET_CORPUS: dict[str, Any] = {
    "type": "string",
    "enum": list(OPENCLAW_GET_CORPORA),
    "description": "Where to read: 'memory' or 'all' (trinho's files); 'wiki' has nothing in "
    "trinho.",
}

_SEARCH = BY_NAME["memory_search"]
_GET = BY_NAME["memory_get"]
_OPENCLAW_SEARCH = replace(
    _SEARCH,
    parameters=_object(
        {
            "query": _SEARCH.parameters["properties"]["query"],
            "maxResults": {
                "type": "integer",
                "minimum": 1,
                "description": "How many results at most (default 10).",
            },
            "minScore": {
                "type": "number",
                "description": "Leave out results scoring below this (the score each result "
                "carries: higher is better, not bounded to 1).",
            },
            "corpus": CORPUS,
        },
        ["query"],
    ),
    description=_SEARCH.description.replace(
        "Returns hits with kind, path, line, date and text",
        "Returns results with path, startLine, endLine, score, snippet and source",
    )
    + " If the answer has disabled=true or unavailable=true, tell the owner, with its warning "
    "and action.",
    handler=_openclaw_search,
    result=_result(
        {
            "results": {
                "type": "array",
                "items": _result(
                    {
                        "path": STRING,
                        "startLine": INTEGER,
                        "endLine": INTEGER,
                        "score": {"type": "number"},
                        "snippet": STRING,
                        "source": {"type": "string", "enum": ["memory", "sessions"]},
                    },
                ),
            },
            "disabled": {"type": "boolean"},
            "unavailable": {"type": "boolean"},
            "error": STRING,
            "warning": STRING,
            "action": STRING,
        },
        ["results"],
    ),
)

_OPENCLAW_GET = replace(
    _GET,
    parameters=_object(
        {
            "path": _GET.parameters["properties"]["path"],
            "from": _GET.parameters["properties"]["from_line"],
            "lines": {
                "type": "integer",
                "minimum": 1,
                "description": f"How many lines (default {oc_format.GET_LINES}).",
            },
            "corpus": GET_CORPUS,
        },
        ["path"],
    ),
    description=(
        "Read lines of a memory file, e.g. around a memory_search result: the path exactly as "
        f"the result shows it, the first line (from) and how many lines (default "
        f"{oc_format.GET_LINES}, at most {oc_format.GET_CHARS:,} characters). Read status: "
        "'ok' means the text is the excerpt asked for (truncated=true and nextFrom say "
        "where more follows); 'not_found' means the file does not exist; 'error' means the "
        "read was refused or failed (code and error say why; MEMORY_PATH_NOT_ALLOWED: not a "
        "memory file), not that memory is empty. It reads memory files only: MEMORY.md, "
        "USER.md, DREAMS.md, .md files under memory/, and the other paths memory_search gives."
    ),
    handler=_openclaw_get,
    result=_result(
        {
            "status": {"type": "string", "enum": ["ok", "not_found", "error"]},
            "path": STRING,
            "text": STRING,
            "from": INTEGER,
            "lines": INTEGER,
            "truncated": {"type": "boolean"},
            "nextFrom": INTEGER,
            "code": STRING,
            "error": STRING,
        },
        ["status", "path", "text"],
    ),
)
OPENCLAW_TOOLS: tuple[MemoryTool, ...] = tuple(
    {"memory_search": _OPENCLAW_SEARCH, "memory_get": _OPENCLAW_GET}.get(tool.name, tool)
    for tool in TOOLS
)

_PROFILE_TOOLS: dict[str, tuple[MemoryTool, ...]] = {
    "default": TOOLS,
    "openclaw": OPENCLAW_TOOLS,
}


def profile_tools(profile: ToolProfile | str = "default") -> tuple[MemoryTool, ...]:
    """The tools as `profile` gives them; an unknown profile is a keyed error."""
    chosen = _PROFILE_TOOLS.get(profile)
    if chosen is None:
        raise TrinhoError.keyed(
            "error.tools.bad_profile", profile=profile, profiles=", ".join(PROFILES)
        )
    return chosen


def config_profile(ws: Workspace, given: str | None = None) -> str:
    """The profile to use: `given` (a flag or argument) wins over the workspace config's
    `[tools] profile`, and that over `default`."""
    if given is not None:
        return given
    return ws.config.tools.profile


def _parse_args(raw: object) -> dict[str, Any] | str:
    """The arguments as a dict, or an error message (OpenAI passes them as a JSON string)."""
    if raw is None:
        return {}
    if isinstance(raw, str):
        if not raw.strip():
            return {}
        try:
            parsed = json.loads(raw)
        except json.JSONDecodeError as exc:
            return f"arguments are not valid JSON ({exc.msg} at character {exc.pos})"
        if not isinstance(parsed, dict):
            return "arguments must be a JSON object"
        return parsed
    if not isinstance(raw, Mapping):
        return "arguments must be a JSON object"
    return dict(raw)


_KIND_WORDS = {
    "string": "text",
    "integer": "integer",
    "number": "number",
    "boolean": "true or false",
    "array": "list",
}


def _argument_words(name: str, prop: Mapping[str, Any], required: bool) -> str:
    if "enum" in prop:
        kind = "one of " + ", ".join(repr(v) for v in prop["enum"])
    elif prop.get("format") == "date":
        kind = "date YYYY-MM-DD"
    elif prop["type"] == "array" and "enum" in prop.get("items", {}):
        kind = "list of " + ", ".join(repr(v) for v in prop["items"]["enum"])
    else:
        kind = _KIND_WORDS[prop["type"]]
    words = _constraint_words(prop, frozenset())
    return (
        f"{name} ({'required' if required else 'optional'}, {kind}{', ' + words if words else ''})"
    )


def usage(tool: MemoryTool) -> str:
    """The tool's arguments in a line a model can fix its call by."""
    required = tool.parameters.get("required", ())
    properties: Mapping[str, Any] = tool.parameters["properties"]
    if not properties:
        return "no arguments"
    shown = "; ".join(_argument_words(n, p, n in required) for n, p in properties.items())
    optional = (
        "; an optional one may be left out or null" if set(properties) - set(required) else ""
    )
    return f"{shown}{optional}."


def call(
    memory: ToolTarget,
    name: str,
    args: Mapping[str, Any] | str | None,
    actor: Actor,
    profile: ToolProfile | str = "default",
) -> ToolResult:
    """Run tool `name` on `memory` for `actor`, with the arguments and results `profile`
    speaks. Never raises: every failure is an error result."""
    try:
        by_name = {tool.name: tool for tool in profile_tools(profile)}
    except TrinhoError as exc:
        return ToolResult.error(f"{name}: {exc}")
    spec = by_name.get(name)
    if spec is None:
        return ToolResult.error(f"unknown tool {name!r}; the tools are: {', '.join(by_name)}")
    parsed = _parse_args(args)
    if isinstance(parsed, str):
        return ToolResult.error(f"{name}: {parsed}")
    required = spec.parameters.get("required", ())
    # Many models send null for an optional argument they mean to leave out.
    parsed = {k: v for k, v in parsed.items() if v is not None or k in required}
    problems = jsonargs.check(parsed, spec.parameters)
    if problems:
        return ToolResult.error(
            f"{name}: invalid arguments: {'; '.join(problems)}. Fix them and call {name} "
            f"again; it takes {usage(spec)}"
        )
    records = as_records(memory)
    try:
        return spec.handler(records, parsed, actor)
    except Exception as exc:  # the host must never see an exception from a tool call
        if not isinstance(exc, TrinhoError | OSError):
            log.exception("tool %s failed", name)
        return ToolResult.error(f"{name}: {public_error(exc, records.root)}")


SENT_MAX_LENGTH = 500
"""The longest `maxLength` a schema sent to a model keeps. Local servers turn a schema into a
grammar with one nested optional per character allowed: llama.cpp's parser fails on a few
thousand, and its server then crashes. A longer bound is said in the description instead; the
dispatcher enforces it either way."""


def sent_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """`schema` as models get it: each `maxLength` over `SENT_MAX_LENGTH` left out and said in
    the property's description. Pure; the dispatcher keeps checking the declared schema."""
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if isinstance(value, Mapping):
            out[key] = sent_schema(value)
        elif isinstance(value, list):
            out[key] = [sent_schema(v) if isinstance(v, Mapping) else v for v in value]
        else:
            out[key] = value
    limit = out.get("maxLength")
    if isinstance(limit, int) and limit > SENT_MAX_LENGTH:
        del out["maxLength"]
        said = f"At most {limit:,} characters."
        out["description"] = f"{out['description']} {said}" if "description" in out else said
    return out


def _openai(tool: MemoryTool) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": sent_schema(tool.parameters),
        },
    }


def _openai_strict(tool: MemoryTool) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": strict_schema(tool.parameters),
            "strict": True,
        },
    }


def _responses(tool: MemoryTool) -> dict[str, Any]:
    return {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": strict_schema(tool.parameters),
        "strict": True,
    }


def _anthropic(tool: MemoryTool) -> dict[str, Any]:
    return {
        "name": tool.name,
        "description": tool.description,
        "input_schema": subset_schema(tool.parameters, ANTHROPIC_STRICT_KEYWORDS),
    }


def _mcp(tool: MemoryTool) -> dict[str, Any]:
    """The tool as MCP's `tools/list` names it (camelCase), output schema included."""
    listed: dict[str, Any] = {
        "name": tool.name,
        "title": tool.title,
        "description": tool.description,
        "inputSchema": sent_schema(tool.parameters),
        "annotations": {
            "title": tool.title,
            "readOnlyHint": tool.read_only,
            "destructiveHint": tool.destructive,
            "idempotentHint": tool.idempotent,
            "openWorldHint": False,
        },
    }
    if tool.result is not None:
        listed["outputSchema"] = dict(tool.result)
    return listed


OPENAI_STRICT_KEYWORDS = frozenset(
    {
        "type", "description", "properties", "required", "additionalProperties", "enum",
        "pattern", "format", "minimum", "maximum", "items", "maxItems",
    }
)  # fmt: skip
"""What OpenAI's strict mode (Chat Completions and Responses) accepts of the tools' keywords:
not minLength, maxLength or uniqueItems. The dispatcher checks those anyway."""

ANTHROPIC_STRICT_KEYWORDS = frozenset(
    {
        "type", "description", "properties", "required", "additionalProperties", "enum",
        "format", "items",
    }
)  # fmt: skip
"""What Anthropic's strict tool use keeps (`anthropic.transform_schema` moves the rest, lengths,
patterns and bounds, into descriptions); the dispatcher checks the rest anyway."""


def _constraint_words(schema: Mapping[str, Any], kept: frozenset[str]) -> str:
    """The constraints of `schema` a subset drops, in words for the model to read."""
    words: list[str] = []
    low, high = schema.get("minLength"), schema.get("maxLength")
    if "minLength" not in kept and "maxLength" not in kept and (low or high):
        words.append(
            f"{low or 0:,} to {high:,} characters" if high else f"at least {low} characters"
        )
    if "pattern" in schema and "pattern" not in kept and "format" not in schema:
        words.append(f"matching {schema['pattern']}")
    low, high = schema.get("minimum"), schema.get("maximum")
    if "minimum" not in kept and (low is not None or high is not None):
        words.append(f"from {low} to {high}" if high is not None else f"at least {low}")
    if "maxItems" in schema and "maxItems" not in kept:
        words.append(f"at most {schema['maxItems']} items")
    if schema.get("uniqueItems") and "uniqueItems" not in kept:
        words.append("no item twice")
    return ", ".join(words)


def subset_schema(
    schema: Mapping[str, Any], kept: frozenset[str], nullable: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """`schema` with only the `kept` keywords, what it drops said in its description; the
    properties named in `nullable` also take null (strict mode's way of leaving one out)."""
    out = {key: value for key, value in schema.items() if key in kept}
    words = _constraint_words(schema, kept)
    if words:
        out["description"] = f"{schema.get('description', '')} ({words})".lstrip()
    if "items" in out:
        out["items"] = subset_schema(out["items"], kept)
    if "properties" in out:
        out["properties"] = {
            name: _nullable(subset_schema(prop, kept))
            if name in nullable
            else subset_schema(prop, kept)
            for name, prop in out["properties"].items()
        }
    return out


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {**schema, "type": [schema["type"], "null"]}


def strict_schema(parameters: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments' schema for OpenAI's strict mode: every property required, the optional
    ones nullable (the dispatcher reads null as not given), only the keywords strict allows."""
    properties: Mapping[str, Any] = parameters["properties"]
    optional = frozenset(properties) - frozenset(parameters.get("required", ()))
    out = subset_schema(parameters, OPENAI_STRICT_KEYWORDS, optional)
    out["required"] = list(properties)
    return out


_EXPORTERS: dict[str, Callable[[MemoryTool], dict[str, Any]]] = {
    "openai": _openai,
    "openai-strict": _openai_strict,
    "responses": _responses,
    "anthropic": _anthropic,
    "mcp": _mcp,
}


def export(fmt: ToolFormat | str, profile: ToolProfile | str = "default") -> list[dict[str, Any]]:
    """The tool definitions in a model API's format: `openai` (Chat Completions), `openai-strict`
    (the same with `strict: true`), `responses` (OpenAI's Responses API, strict), `anthropic`
    (Messages, within strict tool use's subset) or `mcp` (as `tools/list` gives them), with
    the argument names `profile` speaks (see `PROFILES`)."""
    exporter = _EXPORTERS.get(fmt)
    if exporter is None:
        raise TrinhoError.keyed("error.tools.bad_format", format=fmt, formats=", ".join(FORMATS))
    return [exporter(tool) for tool in profile_tools(profile)]


def model_specs(profile: ToolProfile | str = "default") -> tuple[ToolSpec, ...]:
    """The tools as `trinho.models` values, for a chat loop over any configured model."""
    from trinho.models.base import ToolSpec

    return tuple(
        ToolSpec(t.name, t.description, sent_schema(t.parameters)) for t in profile_tools(profile)
    )


def call_model_tool(memory: ToolTarget, tool_call: ToolCall, actor: Actor) -> ToolResult:
    """Run a tool call as a `trinho.models` backend returned it (arguments already parsed)."""
    if tool_call.error is not None:
        return ToolResult.error(f"{tool_call.name}: {tool_call.error}")
    return call(memory, tool_call.name, dict(tool_call.arguments), actor)
