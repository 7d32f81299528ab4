"""`trinho demo`: one week of an owner's life replayed through the real parts, in a throwaway
workspace.

The week is package data (`demo_data/week.json`): the facts and MEMORY.md trinho starts
from, what the owner says in the week, in Vietnamese and English, and the replies and tool
calls recorded for the assistant and a nightly job. Each message of the owner goes through the
real agent loop (`trinho.conversations.agent.ChatSession` with the memory tools), the nightly
job through the real job runner, then the real weekly condensation runs. All three are played by the
configured model (TRINHO_MODEL, or `[model] name` in the owner's workspace config) when there
is one, else by a scripted model answering with the recorded replies. The owner decides what
the gate held; the demo ends with MEMORY.md, the facts and their history, a search and the
next turn's context. Every step says what happened in this run, whoever played it.

The walkthrough is a list of steps (`STEPS`); each step gets the shared `DemoContext` and
returns the lines it shows. A feature adds a step by appending to the list.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any

from trinho.channels import ConsoleChannel, Outbox
from trinho.condense import RunReport, run_condensation
from trinho.condense.rules.gate import Change
from trinho.condense.rules.report import render_report
from trinho.condense.rules.rewrite import MEMORY_BEGIN
from trinho.condense.store.prompts import load_prompt
from trinho.config.files import read_config
from trinho.context.run import build_context
from trinho.conversations.agent import ChatSession, ToolUse
from trinho.errors import TrinhoError
from trinho.facts.store import list_facts
from trinho.i18n import N_, t
from trinho.i18n.keys import FACT_OUTCOME, GATE_CLASS
from trinho.memory import format as memory_md
from trinho.memory import store as memory_store
from trinho.models import (
    ChatModel,
    ChatRequest,
    ChatResponse,
    ScriptedModel,
    ToolCall,
    build_model,
    load_model,
    resolve_model,
)
from trinho.proposals import store as proposals
from trinho.review.appliers import APPLIERS
from trinho.review.render import fact_history_text, proposal_reason, proposals_text
from trinho.schedule.jobs import WorkspaceJobRunner
from trinho.schedule.plan import DueRun
from trinho.search import notify_written
from trinho.textnorm import match_key
from trinho.tools import service as tools
from trinho.workspace import CONFIG_PATH, Config, Workspace, init_workspace

ZONE = "Asia/Ho_Chi_Minh"
START = "2026-09-15T08:00:00+07:00"
DATA = "demo_data"
SCRIPTED_NAME = "scripted:recorded"
MODEL_ENV = "TRINHO_MODEL"
RECORDED = "recorded"
"""Who made step 2's calls, whatever the model: they set the scene before the week."""


def data_text(name: str) -> str:
    """A file of the demo's package data (the week, the recorded model replies)."""
    return resources.files("trinho").joinpath(DATA, name).read_text(encoding="utf-8")


def load_week() -> dict[str, Any]:
    week: dict[str, Any] = json.loads(data_text("week.json"))
    return week


class StepClock:
    """The demo's clock: fixed, moved on by the steps, so every run prints the same."""

    def __init__(self, iso: str) -> None:
        self.now = datetime.fromisoformat(iso)

    def __call__(self) -> datetime:
        return self.now

    def set(self, iso: str) -> None:
        self.now = datetime.fromisoformat(iso)


def recorded_model() -> ScriptedModel:
    """The scripted model: the recorded edit script for rewrite calls (the recorded whole file
    under `[condense] protocol = "file"`), the recorded verdicts for screening calls (told
    apart by their instructions)."""
    script, whole = data_text("rewrite.ops.txt"), data_text("rewrite.md")
    screen = data_text("screen.txt")
    screen_prompt = load_prompt("screen").text

    def reply(request: ChatRequest) -> str:
        if request.messages[0].text == screen_prompt:
            return screen
        return whole if MEMORY_BEGIN in request.messages[-1].text else script

    return ScriptedModel(reply, name=SCRIPTED_NAME)


def _recorded_calls(event: dict[str, Any]) -> ChatResponse:
    return ChatResponse(
        tool_calls=tuple(
            ToolCall(f"call_{n}", call["tool"], call["args"])
            for n, call in enumerate(event["calls"], 1)
        )
    )


def recorded_chat(week: dict[str, Any]) -> ScriptedModel:
    """The scripted assistant of the week's chat: for each message of the owner, in order, the
    recorded tool calls (when there are any), then the recorded reply."""
    replies: list[ChatResponse | str] = []
    for event in week["events"]:
        if "owner" not in event:
            continue
        if event["calls"]:
            replies.append(_recorded_calls(event))
        replies.append(event.get("reply", ""))
    return ScriptedModel(replies, name=SCRIPTED_NAME)


def recorded_job(event: dict[str, Any]) -> ScriptedModel:
    """The scripted model of one nightly job: its recorded tool calls, then its answer."""
    return ScriptedModel(
        [_recorded_calls(event), ChatResponse(text=event["answer"])], name=SCRIPTED_NAME
    )


@dataclass(frozen=True)
class Player:
    """Who plays the week's chat, the nightly job and the condensation: a configured model, or
    (`model` None) the scripted one with the recorded replies."""

    model: ChatModel | None
    name: str
    source: str | None = None
    """Where the model was named (TRINHO_MODEL, a config's `[model] name`); None: recorded."""

    @property
    def scripted(self) -> bool:
        return self.model is None


SCRIPTED = Player(None, SCRIPTED_NAME)


class Witness:
    """A model seen through: every answer is kept, so the demo can show the tool calls a turn
    made with their arguments (the agent loop reports only what each call answered)."""

    def __init__(self, inner: ChatModel) -> None:
        self.inner = inner
        self.answers: list[ChatResponse] = []

    @property
    def name(self) -> str:
        return self.inner.name

    def chat(self, request: ChatRequest) -> ChatResponse:
        answer = self.inner.chat(request)
        self.answers.append(answer)
        return answer

    def ran(self) -> list[ToolCall]:
        """The calls the agent loop ran since `answers` was last cleared: those of every answer
        but the last, the one it stopped at without running any."""
        return [call for answer in self.answers[:-1] for call in answer.tool_calls]


@dataclass
class DemoContext:
    """What the steps share: the folder, the clock, the workspace once made, who plays the
    model, and the summary that `--json` prints."""

    root: Path
    locale: str
    player: Player
    week: dict[str, Any] = field(default_factory=load_week)
    clock: StepClock = field(default_factory=lambda: StepClock(START))
    workspace: Workspace | None = None
    report: RunReport | None = None
    summary: dict[str, Any] = field(default_factory=dict)

    @property
    def ws(self) -> Workspace:
        assert self.workspace is not None, "the init step runs first"
        return self.workspace

    @property
    def scripted(self) -> bool:
        return self.player.scripted

    @property
    def model_name(self) -> str:
        return self.player.name

    def played(self, recorded: Callable[[], ChatModel]) -> ChatModel:
        """The model that plays a part: the configured one, else the part's recorded replies."""
        return self.player.model if self.player.model is not None else recorded()

    def text(self, key: str, **params: object) -> str:
        return t(self.locale, key, **params)


@dataclass(frozen=True)
class Step:
    title_key: str
    run: Callable[[DemoContext], list[str]]


@dataclass(frozen=True)
class ShownStep:
    title: str
    lines: list[str]


def _quoted(lines: str) -> list[str]:
    return ["    | " + line for line in lines.rstrip("\n").split("\n")]


def _args(args: dict[str, Any]) -> str:
    return json.dumps(args, ensure_ascii=False)


def step_init(ctx: DemoContext) -> list[str]:
    result = init_workspace(
        ctx.root, timezone=ZONE, locale=ctx.locale, clock=ctx.clock, on_written=notify_written
    )
    ctx.workspace = result.workspace
    player = ctx.player
    ctx.summary["model"] = {
        "name": player.name,
        "scripted": player.scripted,
        "source": player.source,
    }
    ctx.summary["played_by"] = {
        "before": RECORDED,
        "chat": player.name,
        "job": player.name,
        "condensation": player.name,
    }
    if player.scripted:
        said = ctx.text(
            "demo.model.scripted", name=player.name, env=MODEL_ENV, data=f"trinho/{DATA}/"
        )
    else:
        said = ctx.text("demo.model.configured", name=player.name, source=player.source)
    return [ctx.text("demo.created", created=", ".join(result.created)), said]


def _parsed(use: ToolUse) -> tools.ToolResult:
    """A tool call's result as the agent loop reported it (its text is the data, as JSON)."""
    if use.is_error:
        return tools.ToolResult(use.result, True)
    return tools.ToolResult(use.result, False, json.loads(use.result))


def _call(ctx: DemoContext, name: str, args: dict[str, Any], actor: tools.Actor) -> list[str]:
    """One tool call made by the demo itself (step 2, the scene before the week)."""
    return _shown_call(ctx, name, args, tools.call(ctx.ws, name, args, actor), actor, RECORDED)


def _shown_call(
    ctx: DemoContext,
    name: str,
    args: dict[str, Any],
    result: tools.ToolResult,
    actor: tools.Actor,
    by: str,
) -> list[str]:
    """One tool call, as the assistant (or the demo) made it, and what it answered."""
    ctx.summary.setdefault("tool_calls", []).append(
        {
            "at": ctx.ws.now().isoformat(),
            "tool": name,
            "actor": actor.origin,
            "args": args,
            "result": result.data if result.data is not None else result.text,
            "by": by,
        }
    )
    lines = [f"  -> {name} {_args(args)}"]
    if result.is_error or result.data is None:
        return [*lines, "     " + ctx.text("demo.tool.error", error=result.text)]
    return lines + ["     " + line for line in _answered(ctx, name, args, result.data)]


def _answered(ctx: DemoContext, name: str, args: dict[str, Any], data: dict[str, Any]) -> list[str]:
    """What a tool that worked answered, in a line or two."""
    if name == "memory_save":
        return [ctx.text("demo.tool.saved", path=data["path"], line=data["line"])]
    if name == "memory_search":
        return [ctx.text("demo.tool.found", count=data["count"])]
    if name == "memory_get":
        return [
            ctx.text(
                "demo.tool.read", path=data["path"], start=data["from_line"], end=data["to_line"]
            )
        ]
    if name == "memory_proposals":
        return [ctx.text("demo.tool.listed", count=data["count"])]
    outcome, fact, value = str(data["outcome"]), data["key"], args.get("value")
    if outcome != "proposed":
        return [ctx.text(FACT_OUTCOME[outcome], fact=fact, value=value)]
    said = ctx.text("fact.outcome.proposed", id=data["proposal_id"], fact=fact, value=value)
    reason = proposal_reason(proposals.get_proposal(ctx.ws, data["proposal_id"]), ctx.locale)
    return [said, ctx.text("demo.tool.why", reason=reason)]


def step_before(ctx: DemoContext) -> list[str]:
    """What trinho already knew: facts the owner stated in the autumn, and a MEMORY.md. Set up
    by the demo itself, the same whoever plays the week."""
    owner = tools.Actor("chat")
    lines = [] if ctx.scripted else [ctx.text("demo.before.recorded", name=ctx.model_name)]
    for said in ctx.week["before"]:
        ctx.clock.set(said["at"])
        args = {"key": said["key"], "value": said["value"], "basis": "user"}
        lines.append(f"{said['at'][:10]}  " + ctx.text("demo.owner_stated"))
        lines += _call(ctx, "user_memory_save", args, owner)
    before = data_text("MEMORY.md")
    with memory_store.editing(ctx.ws) as memory:
        memory.replace(before)
    ctx.summary["memory_before"] = before
    lines.append(ctx.text("demo.file", path="MEMORY.md"))
    return lines + _quoted(before)


def step_week(ctx: DemoContext) -> list[str]:
    """Monday to Sunday: each message of the owner goes through the agent loop, which answers
    with the memory tools at hand; one night a job runs, and what it finds waits for the
    owner."""
    seen = Witness(ctx.played(lambda: recorded_chat(ctx.week)))
    session = ChatSession(ctx.ws, load_model(ctx.ws, "chat", model=seen))
    lines: list[str] = []
    for event in ctx.week["events"]:
        ctx.clock.set(event["at"])
        stamp = ctx.clock.now.strftime("%Y-%m-%d %H:%M")
        if "job" in event:
            lines.append(f"{stamp}  " + ctx.text("demo.job", job=event["job"]))
            lines += _nightly(ctx, event)
        else:
            lines.append(f"{stamp}  " + ctx.text("demo.owner_said", text=event["owner"]))
            lines += _chat_turn(ctx, session, seen, event["owner"])
    return lines


def _chat_turn(ctx: DemoContext, session: ChatSession, seen: Witness, text: str) -> list[str]:
    """One message of the owner through the agent loop: the calls its model made, what each
    answered, and the reply."""
    seen.answers.clear()
    turn = session.ask(text)
    lines: list[str] = []
    calls = seen.ran()
    for call, use in zip(calls, turn.tool_uses, strict=True):
        args = dict(call.arguments)
        lines += _shown_call(ctx, call.name, args, _parsed(use), session.actor, seen.name)
    if not calls:
        lines.append("  " + ctx.text("demo.no_tool"))
    if turn.reply:
        reply = ctx.text("demo.assistant_said", text=turn.reply)
        lines += ["  " + line for line in reply.split("\n")]
    else:
        lines.append("  " + ctx.text("demo.no_reply"))
    ctx.summary.setdefault("turns", []).append(
        {
            "at": ctx.ws.now().isoformat(),
            "owner": text,
            "by": seen.name,
            "tools": [call.name for call in calls],
            "reply": turn.reply,
            "model_calls": turn.model_calls,
        }
    )
    return lines


def _nightly(ctx: DemoContext, event: dict[str, Any]) -> list[str]:
    """The built-in nightly job, run as the scheduler runs it: the model reads the last day's
    conversations with the memory tools, as actor `job`, so what it saves becomes a proposal.
    The scripted model makes the recorded tool calls; a configured model decides for itself."""
    spec = next(job for job in ctx.ws.config.jobs if job.name == event["job"])
    seen = Witness(ctx.played(lambda: recorded_job(event)))

    def model_for(run: DueRun) -> ChatModel:
        return load_model(ctx.ws, "job", run=run.run_id, model=seen)

    before = {p.id for p in proposals.list_proposals(ctx.ws).proposals}
    done = WorkspaceJobRunner(ctx.ws, model_for)(DueRun(spec, ctx.clock.now))
    calls = seen.ran()
    lines = [f"  -> {call.name} {_args(dict(call.arguments))}" for call in calls]
    lines.append("     " + done)
    made = [p for p in proposals.list_proposals(ctx.ws).proposals if p.id not in before]
    for p in made:
        ctx.summary.setdefault("job_proposals", []).append(p.id)
        said = ctx.text(
            "fact.outcome.proposed", id=p.id, fact=p.change.get("key"), value=p.change.get("value")
        )
        why = ctx.text("demo.tool.why", reason=proposal_reason(p, ctx.locale))
        lines += ["     " + said, "     " + why]
    ctx.summary.setdefault("jobs", []).append(
        {
            "at": ctx.ws.now().isoformat(),
            "job": spec.name,
            "by": seen.name,
            "calls": [{"tool": call.name, "args": dict(call.arguments)} for call in calls],
            "done": done,
            "proposals": [p.id for p in made],
        }
    )
    return lines


def step_condense(ctx: DemoContext) -> list[str]:
    """Sunday evening: the real weekly run; the gate, code, decides what applies by itself."""
    ctx.clock.set(ctx.week["condense_at"])
    announced = io.StringIO()
    report = run_condensation(
        ctx.ws,
        model=ctx.played(recorded_model),
        channel=ConsoleChannel(ctx.locale, announced),
    )
    ctx.report = report
    ctx.summary["condensation"] = report.to_dict()
    ctx.summary["announcement"] = announced.getvalue()
    return [
        ctx.text("demo.model.used", name=ctx.model_name),
        "$ trinho condense",
        *render_report(report, ctx.ws.locale).split("\n"),
    ]


def _report(ctx: DemoContext) -> RunReport:
    assert ctx.report is not None, "the condensation step runs first"
    return ctx.report


def step_notify(ctx: DemoContext) -> list[str]:
    """The one announcement of the run, as the console channel printed it; when there is none,
    why, from the run's report."""
    announced = ctx.summary.get("announcement", "")
    entries = Outbox(ctx.ws).entries()
    ctx.summary["notifications"] = [entry.notification.to_json() for entry in entries]
    if announced:
        return [ctx.text("demo.announced", count=len(entries)), *_quoted(announced)]
    if _report(ctx).held:
        return [ctx.text("demo.nothing_new_announced")]
    return [ctx.text("demo.nothing_announced")]


DECISIONS: dict[str, bool] = {"edited": True, "removed": False}
"""What the owner answers per class of held change: yes to an edit (the week showed the
change), no to a removal (the owner still does it). Other held changes are left waiting."""


def step_decide(ctx: DemoContext) -> list[str]:
    """The owner answers: only a person decides, through the proposals queue. What the run
    held and the owner leaves is said to wait, from the queue itself."""
    ctx.clock.set(ctx.week["decide_at"])
    report = _report(ctx)
    asked = [(held.proposal_id, held.change) for held in report.held if held.proposal_id]
    lines: list[str] = []
    decided: list[dict[str, Any]] = []
    for proposal_id, change in asked:
        choice = DECISIONS.get(change.cls)
        if choice is not None:
            said, done = _decide(ctx, proposal_id, change, choice)
            lines += said
            decided.append(done)
    ctx.summary["decisions"] = decided
    waiting = [
        proposal
        for proposal in (proposals.get_proposal(ctx.ws, proposal_id) for proposal_id, _ in asked)
        if proposal.status == "pending"
    ]
    ctx.summary["waiting"] = [{"proposal": p.id, "class": p.change.get("class")} for p in waiting]
    for p in waiting:
        lines.append(
            ctx.text(
                "demo.waits",
                id=p.id,
                cls=ctx.text(GATE_CLASS[str(p.change.get("class"))]),
                reason=proposal_reason(p, ctx.locale),
            )
        )
    if not report.held:
        return [ctx.text("demo.nothing_held")]
    if not asked:
        return [ctx.text("demo.none_asked")]
    return lines if waiting else [*lines, ctx.text("demo.nothing_to_decide")]


def _decide(
    ctx: DemoContext, proposal_id: str, change: Change, approve: bool
) -> tuple[list[str], dict[str, Any]]:
    """The owner's answer to one held change, as `trinho approve` / `trinho reject` give it;
    the recorded reason goes only with the removal of the line it answers."""
    by = f"{ctx.ws.config.owner} (cli)"
    if approve:
        proposal, applied = proposals.approve(ctx.ws, proposal_id, by, appliers=APPLIERS)
        key = N_("proposal.approved") if applied.ok else N_("proposal.stale")
        lines = [
            f"$ trinho approve {proposal.id}",
            ctx.text(key, id=proposal.id, message=applied.message),
        ]
    else:
        recorded = ctx.week["reject"]
        reason = recorded["reason"] if change.old == recorded["old"] else None
        proposal = proposals.reject(ctx.ws, proposal_id, by, reason)
        shown = f' --reason "{reason}"' if reason else ""
        lines = [
            f"$ trinho reject {proposal.id}{shown}",
            ctx.text("proposal.rejected", id=proposal.id),
        ]
    return lines, {"proposal": proposal.id, "class": change.cls, "status": proposal.status}


def unaccounted(before: str, after: str, kept_aside: list[str]) -> list[str]:
    """Pure: the entries and hand-written lines of `before` found neither in `after` nor among
    the lines a proposal holds (`kept_aside`). An entry counts as kept whatever its date (the
    gate may move a date later). Empty means nothing was lost."""
    present = set(_keys(after)) | set(_keys("\n".join(kept_aside)))
    return [raw for key, raw in _keys(before).items() if key not in present]


def _keys(text: str) -> dict[tuple[str, str], str]:
    found: dict[tuple[str, str], str] = {}
    for item in memory_md.parse(text).items:
        if isinstance(item, memory_md.Entry):
            found[("entry", item.key)] = item.raw
        elif isinstance(item, memory_md.Loose) and not item.blank:
            found[("loose", match_key(item.raw))] = item.raw
    return found


def step_memory(ctx: DemoContext) -> list[str]:
    """MEMORY.md at the end of the week, and the check that nothing was lost."""
    after = memory_store.read_text(ctx.ws)
    held_old = [
        str(p.change["old"])
        for p in proposals.list_proposals(ctx.ws).proposals
        if p.kind == "memory" and p.change.get("old")
    ]
    missing = unaccounted(ctx.summary["memory_before"], after, held_old)
    ctx.summary["memory_after"] = after
    ctx.summary["lost"] = missing
    lines = [ctx.text("demo.file", path="MEMORY.md"), *_quoted(after)]
    if missing:
        return [*lines, ctx.text("demo.lost", lines="; ".join(missing))]
    return [*lines, ctx.text("demo.nothing_lost")]


def step_facts(ctx: DemoContext) -> list[str]:
    """The shared facts: each value with its interval, the old ones kept in history; and the
    proposals, waiting or decided. Printed by the renderers the commands use."""
    lines: list[str] = []
    shown: list[dict[str, Any]] = []
    today = ctx.ws.today()
    for fact in list_facts(ctx.ws).facts:
        now = fact.value_on(today)
        versions = fact.versions()
        lines += [
            f"$ trinho fact history {fact.key}",
            *fact_history_text(ctx.ws.locale, fact.key, versions).split("\n"),
        ]
        shown.append(
            {
                "key": fact.key,
                "versions": [
                    {
                        "value": v.value,
                        "basis": v.basis,
                        "valid_from": v.valid_from.isoformat(),
                        "valid_to": v.valid_to.isoformat() if v.valid_to else None,
                        "source": v.source,
                        "current": v is now,
                    }
                    for v in versions
                ],
            }
        )
    listed = proposals.list_proposals(ctx.ws, include_decided=True).proposals
    lines += ["$ trinho proposals --all", *proposals_text(ctx.ws.locale, listed).split("\n")]
    ctx.summary["facts"] = shown
    ctx.summary["proposals"] = [
        {
            "id": p.id,
            "kind": p.kind,
            "status": p.status,
            "origin": p.origin,
            "reason": p.reason,
            "change": p.change,
        }
        for p in listed
    ]
    return lines


def step_search(ctx: DemoContext) -> list[str]:
    """memory_search, as the assistant calls it: accents are optional, every kind of file is
    found (MEMORY.md, notes, conversations, facts)."""
    args = {"query": ctx.week["search"], "limit": 5}
    result = tools.call(ctx.ws, "memory_search", args, tools.Actor("chat"))
    if result.data is None:
        raise TrinhoError.keyed("error.demo.search_failed", text=result.text)
    hits: list[dict[str, Any]] = result.data["hits"]
    ctx.summary["search"] = {"query": args["query"], "hits": hits}
    lines = [f"  -> memory_search {_args(args)}"]
    for hit in hits:
        text = " ".join(str(hit["text"]).split())
        lines.append(f"     {hit['kind']:<12}  {hit['path']}:{hit['line']}  {text[:90]}")
    return lines if hits else [*lines, ctx.text("demo.no_hits")]


def step_context(ctx: DemoContext) -> list[str]:
    """Monday morning: what the model reads before the owner's first message."""
    ctx.clock.set(ctx.week["next_turn_at"])
    context = build_context(ctx.ws)
    ctx.summary["context"] = context.to_json()
    lines = [ctx.text("demo.context.system")]
    lines += _quoted(context.system)
    lines.append(ctx.text("demo.context.preamble"))
    return lines + _quoted(context.preamble or "-")


STEPS: list[Step] = [
    Step(N_("demo.step.init"), step_init),
    Step(N_("demo.step.before"), step_before),
    Step(N_("demo.step.week"), step_week),
    Step(N_("demo.step.condense"), step_condense),
    Step(N_("demo.step.notify"), step_notify),
    Step(N_("demo.step.decide"), step_decide),
    Step(N_("demo.step.memory"), step_memory),
    Step(N_("demo.step.facts"), step_facts),
    Step(N_("demo.step.search"), step_search),
    Step(N_("demo.step.context"), step_context),
]


@dataclass(frozen=True)
class DemoRun:
    steps: list[ShownStep]
    summary: dict[str, Any]
    closing: str


def pick_player(env: Mapping[str, str] | None = None, owner: Path | None = None) -> Player:
    """The configured model, when TRINHO_MODEL or the `[model] name` of the config of the
    owner's workspace at `owner` (read, never written) names one; else the recorded replies.

    The model is built as `trinho model check` builds it there (its `[model]` settings), so
    a name that cannot work fails here, before anything is shown."""
    env = os.environ if env is None else env
    config = (read_config(owner) if owner is not None else None) or Config()
    configured = config.model.name
    if env.get(MODEL_ENV, "").strip():
        source = MODEL_ENV
    elif isinstance(configured, str) and configured.strip() and owner is not None:
        source = f"[model] name, {owner / CONFIG_PATH}"
    else:
        return SCRIPTED
    settings = resolve_model(config, env)
    return Player(build_model(settings), settings.name, source)


@contextmanager
def _folder(keep: Path | None) -> Iterator[Path]:
    """A temporary folder removed afterwards, or `keep`, which must be new or empty."""
    if keep is None:
        with tempfile.TemporaryDirectory(prefix="trinho-demo-") as folder:
            yield Path(folder) / "ws"
        return
    if keep.exists() and (not keep.is_dir() or any(keep.iterdir())):
        raise TrinhoError.keyed("error.demo.keep_not_empty", folder=keep)
    made = not keep.exists()
    try:
        yield keep
    except BaseException:
        if made:  # a run cut short leaves no half-made workspace behind
            shutil.rmtree(keep, ignore_errors=True)
        raise


def run_demo(
    locale: str = "en",
    steps: list[Step] | None = None,
    *,
    keep: Path | None = None,
    player: Player | None = None,
) -> DemoRun:
    """Run the steps in a temporary workspace (or in `keep`, which is then left in place).

    `player` plays the model's parts (default: `pick_player()`, from TRINHO_MODEL).
    """
    shown = []
    with _folder(keep) as root:
        ctx = DemoContext(root, locale, player or pick_player())
        for number, step in enumerate(STEPS if steps is None else steps, start=1):
            title = f"{number}. {t(locale, step.title_key)}"
            shown.append(ShownStep(title, step.run(ctx)))
    if keep is None:
        closing = t(locale, "demo.removed")
    else:
        closing = t(locale, "demo.kept", path=keep.resolve())
    summary = {**ctx.summary, "workspace": str(keep) if keep else None}
    summary["steps"] = [{"title": s.title, "lines": s.lines} for s in shown]
    return DemoRun(shown, summary, closing)


def render_demo(run: DemoRun) -> str:
    body = "\n\n".join("\n".join([s.title, *s.lines]) for s in run.steps)
    return f"{body}\n\n{run.closing}"
