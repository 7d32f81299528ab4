"""`trinho demo`: one week of an owner's life replayed through the real parts, in a throwaway
workspace.

The week is package data (`demo_data/week.json`): what the owner said, in Vietnamese and
English, and the memory tools the assistant called, through `trinho.tools.call` as the chat
agent or as a nightly job. Then the real weekly condensation runs, with the model named by
TRINHO_MODEL or, without it, a scripted model answering with replies recorded in
`demo_data/` (a rewrite and a screening answer). The owner decides what the gate held; the
demo ends with MEMORY.md, the facts and their history, a search and the next turn's context.

The walkthrough is a list of steps (`STEPS`); each step gets the shared `DemoContext` and
returns the lines it shows. A feature adds a step by appending to the list.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any

from trinho import memory_md, memory_store, proposals, tools, transcripts
from trinho.appliers import APPLIERS
from trinho.channels import ConsoleChannel, Outbox
from trinho.condense import RunReport, run_condensation
from trinho.condense.prompts import load_prompt
from trinho.condense.report import render_report
from trinho.condense.rewrite import MEMORY_BEGIN
from trinho.context_shell import build_context
from trinho.errors import TrinhoError
from trinho.facts.store import list_facts
from trinho.i18n import t
from trinho.jobs import WorkspaceJobRunner
from trinho.listings import fact_history_text, proposal_reason, proposals_text
from trinho.models import (
    ChatModel,
    ChatRequest,
    ChatResponse,
    ScriptedModel,
    ToolCall,
    load_model,
)
from trinho.scheduler import DueRun, jobs_from_config
from trinho.search import notify_written
from trinho.textnorm import match_key
from trinho.workspace import Workspace, init_workspace

ZONE = "Asia/Ho_Chi_Minh"
START = "2026-09-15T08:00:00+07:00"
DATA = "demo_data"
SCRIPTED_NAME = "scripted:recorded"
MODEL_ENV = "TRINHO_MODEL"


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


@dataclass
class DemoContext:
    """What the steps share: the folder, the clock, the workspace once made, the model, and the
    summary that `--json` prints."""

    root: Path
    locale: str
    model: ChatModel | None
    model_name: str
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
        return self.model is not None

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
    model_key = "demo.model.scripted" if ctx.scripted else "demo.model.configured"
    ctx.summary["model"] = {"name": ctx.model_name, "scripted": ctx.scripted}
    return [
        ctx.text("demo.created", created=", ".join(result.created)),
        ctx.text(model_key, name=ctx.model_name, env=MODEL_ENV, data=f"trinho/{DATA}/"),
    ]


def _call(ctx: DemoContext, name: str, args: dict[str, Any], actor: tools.Actor) -> list[str]:
    """One tool call, as the assistant (or a job) makes it, and what it answered."""
    result = tools.call(ctx.ws, name, args, actor)
    ctx.summary.setdefault("tool_calls", []).append(
        {
            "at": ctx.ws.now().isoformat(),
            "tool": name,
            "actor": actor.origin,
            "args": args,
            "result": result.data if result.data is not None else result.text,
        }
    )
    lines = [f"  -> {name} {_args(args)}"]
    data = result.data
    if result.is_error or data is None:
        return [*lines, "     " + ctx.text("demo.tool.error", error=result.text)]
    if name == "memory_save":
        return [*lines, "     " + ctx.text("demo.tool.saved", path=data["path"], line=data["line"])]
    outcome = str(data["outcome"])
    if outcome == "proposed":
        said = ctx.text(
            "fact.outcome.proposed", id=data["proposal_id"], fact=args["key"], value=args["value"]
        )
        reason = proposal_reason(proposals.get_proposal(ctx.ws, data["proposal_id"]), ctx.locale)
        return [*lines, "     " + said, "     " + ctx.text("demo.tool.why", reason=reason)]
    said = ctx.text(f"fact.outcome.{outcome}", fact=args["key"], value=args["value"])
    return [*lines, "     " + said]


def step_before(ctx: DemoContext) -> list[str]:
    """What trinho already knew: facts the owner stated in the autumn, and a MEMORY.md."""
    owner = tools.Actor("chat")
    lines = []
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
    """Monday to Sunday: the owner talks, the assistant calls the memory tools; one night a
    job does too, and what a job finds waits for the owner."""
    lines: list[str] = []
    for event in ctx.week["events"]:
        ctx.clock.set(event["at"])
        stamp = ctx.clock.now.strftime("%Y-%m-%d %H:%M")
        if "job" in event:
            lines.append(f"{stamp}  " + ctx.text("demo.job", job=event["job"]))
            lines += _nightly(ctx, event)
            continue
        actor = tools.Actor("chat")
        transcripts.record_turn(ctx.ws, "user", event["owner"])
        lines.append(f"{stamp}  " + ctx.text("demo.owner_said", text=event["owner"]))
        for call in event["calls"]:
            lines += _call(ctx, call["tool"], call["args"], actor)
        if "reply" in event:
            transcripts.record_turn(ctx.ws, "assistant", event["reply"])
            lines.append("  " + ctx.text("demo.assistant_said", text=event["reply"]))
    return lines


def _nightly(ctx: DemoContext, event: dict[str, Any]) -> list[str]:
    """The built-in nightly job, run as the scheduler runs it: the model reads the last day's
    conversations with the memory tools, as actor `job`, so what it saves becomes a proposal.
    The scripted model makes the recorded tool calls; TRINHO_MODEL's model decides for itself."""
    spec = next(job for job in jobs_from_config(ctx.ws.config) if job.name == event["job"])
    recorded = None
    if ctx.scripted:
        calls = tuple(
            ToolCall(f"call_{n}", call["tool"], call["args"])
            for n, call in enumerate(event["calls"], 1)
        )
        recorded = ScriptedModel(
            [ChatResponse(tool_calls=calls), ChatResponse(text=event["answer"])],
            name=SCRIPTED_NAME,
        )

    def model_for(run: DueRun) -> ChatModel:
        return load_model(ctx.ws, "job", run=run.run_id, model=recorded)

    before = {p.id for p in proposals.list_proposals(ctx.ws).proposals}
    done = WorkspaceJobRunner(ctx.ws, model_for)(DueRun(spec, ctx.clock.now))
    lines = [f"  -> {call['tool']} {_args(call['args'])}" for call in event["calls"] if recorded]
    lines.append("     " + done)
    for p in proposals.list_proposals(ctx.ws).proposals:
        if p.id in before:
            continue
        ctx.summary.setdefault("job_proposals", []).append(p.id)
        said = ctx.text(
            "fact.outcome.proposed", id=p.id, fact=p.change.get("key"), value=p.change.get("value")
        )
        why = ctx.text("demo.tool.why", reason=proposal_reason(p, ctx.locale))
        lines += ["     " + said, "     " + why]
    return lines


def step_condense(ctx: DemoContext) -> list[str]:
    """Sunday evening: the real weekly run; the gate, code, decides what applies by itself."""
    ctx.clock.set(ctx.week["condense_at"])
    announced = io.StringIO()
    report = run_condensation(
        ctx.ws, model=ctx.model, channel=ConsoleChannel(ctx.locale, announced)
    )
    ctx.report = report
    ctx.summary["condensation"] = report.to_dict()
    ctx.summary["announcement"] = announced.getvalue()
    return [
        ctx.text("demo.model.used", name=ctx.model_name),
        "$ trinho condense",
        *render_report(report, ctx.ws.locale).split("\n"),
    ]


def step_notify(ctx: DemoContext) -> list[str]:
    """The one announcement of the run, as the console channel printed it."""
    announced = ctx.summary.get("announcement", "")
    entries = Outbox(ctx.ws).entries()
    ctx.summary["notifications"] = [entry.notification.to_json() for entry in entries]
    if not announced:
        return [ctx.text("demo.nothing_announced")]
    return [ctx.text("demo.announced", count=len(entries)), *_quoted(announced)]


DECISIONS: dict[str, bool] = {"edited": True, "removed": False}
"""What the owner answers per class of held change: yes to the edit (the week showed the
change), no to the removal (the owner still does it). Other held changes are left waiting."""


def step_decide(ctx: DemoContext) -> list[str]:
    """The owner answers: only a person decides, through the proposals queue."""
    ctx.clock.set(ctx.week["decide_at"])
    report = ctx.report
    assert report is not None, "the condensation step runs first"
    by = f"{ctx.ws.config.owner} (cli)"
    lines: list[str] = []
    decided: list[dict[str, Any]] = []
    for held in report.held:
        choice = DECISIONS.get(held.change.cls)
        if held.proposal_id is None or choice is None:
            continue
        if choice:
            proposal, applied = proposals.approve(ctx.ws, held.proposal_id, by, appliers=APPLIERS)
            key = "proposal.approved" if applied.ok else "proposal.stale"
            lines.append(f"$ trinho approve {proposal.id}")
            lines.append(ctx.text(key, id=proposal.id, message=applied.message))
        else:
            reason = ctx.week["reject_reason"] if held.change.cls == "removed" else None
            proposal = proposals.reject(ctx.ws, held.proposal_id, by, reason)
            shown = f' --reason "{reason}"' if reason else ""
            lines.append(f"$ trinho reject {proposal.id}{shown}")
            lines.append(ctx.text("proposal.rejected", id=proposal.id))
        decided.append(
            {"proposal": proposal.id, "class": held.change.cls, "status": proposal.status}
        )
    ctx.summary["decisions"] = decided
    return lines or [ctx.text("demo.nothing_to_decide")]


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
    Step("demo.step.init", step_init),
    Step("demo.step.before", step_before),
    Step("demo.step.week", step_week),
    Step("demo.step.condense", step_condense),
    Step("demo.step.notify", step_notify),
    Step("demo.step.decide", step_decide),
    Step("demo.step.memory", step_memory),
    Step("demo.step.facts", step_facts),
    Step("demo.step.search", step_search),
    Step("demo.step.context", step_context),
]


@dataclass(frozen=True)
class DemoRun:
    steps: list[ShownStep]
    summary: dict[str, Any]
    closing: str


def pick_model(env: dict[str, str] | None = None) -> tuple[ChatModel | None, str]:
    """The configured model when TRINHO_MODEL is set (None: the pipeline loads it), else the
    scripted one with the recorded replies."""
    named = (os.environ if env is None else env).get(MODEL_ENV, "").strip()
    if named:
        return None, named
    return recorded_model(), SCRIPTED_NAME


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
    model: ChatModel | None = None,
) -> DemoRun:
    """Run the steps in a temporary workspace (or in `keep`, which is then left in place).

    `model` replaces the choice made from TRINHO_MODEL (tests).
    """
    chosen, name = (model, model.name) if model is not None else pick_model()
    shown = []
    with _folder(keep) as root:
        ctx = DemoContext(root, locale, chosen, name)
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
