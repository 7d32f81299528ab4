"""`trinho demo`: a short, deterministic walkthrough of what trinho does, in a throwaway workspace.

The walkthrough is a list of steps (`STEPS`); each step gets the shared `DemoContext` and returns
the lines it shows. Later features add a step by appending to the list.
"""

from __future__ import annotations

import io
import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

from trinho import memory_md, notes, transcripts
from trinho.errors import TrinhoError
from trinho.i18n import t
from trinho.workspace import Workspace, init_workspace

START = "2026-11-29T08:15:00+07:00"
ZONE = "Asia/Ho_Chi_Minh"


class StepClock:
    """The demo's clock: fixed, moved on by the steps, so every run prints the same."""

    def __init__(self, iso: str) -> None:
        self.now = datetime.fromisoformat(iso)

    def __call__(self) -> datetime:
        return self.now

    def set(self, iso: str) -> None:
        self.now = datetime.fromisoformat(iso)


@dataclass
class DemoContext:
    """What the steps share: the temporary folder, the clock, the workspace once made."""

    root: Path
    locale: str
    clock: StepClock = field(default_factory=lambda: StepClock(START))
    workspace: Workspace | None = None

    @property
    def ws(self) -> Workspace:
        assert self.workspace is not None, "the init step runs first"
        return self.workspace

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


def _file_lines(path: Path) -> list[str]:
    return ["    | " + line for line in path.read_text(encoding="utf-8").splitlines()]


def step_init(ctx: DemoContext) -> list[str]:
    result = init_workspace(ctx.root / "ws", timezone=ZONE, locale=ctx.locale, clock=ctx.clock)
    ctx.workspace = result.workspace
    again = init_workspace(ctx.root / "ws", clock=ctx.clock)
    return [
        f"$ trinho init --tz {ZONE}",
        ctx.text("demo.created", created=", ".join(result.created)),
        ctx.text("demo.init_again", created=len(again.created)),
    ]


def step_notes(ctx: DemoContext) -> list[str]:
    said = [
        (START, "Mẹ thích hoa sen trắng; sinh nhật mẹ là ngày 12/3"),
        ("2026-11-29T14:05:00+07:00", "Prefers meetings after 10am, never on Fridays"),
        ("2026-11-29T21:40:00+07:00", "Two lines typed at once:\n- 09:00 this is not a new entry"),
    ]
    lines = []
    for at, text in said:
        ctx.clock.set(at)
        saved = notes.save_note(ctx.ws, text)
        lines.append(f"$ trinho note {json.dumps(text, ensure_ascii=False)}")
        lines.append("  " + ctx.text("note.saved", path=saved.path, line=saved.line.split("\n")[0]))
    path = ctx.ws.note_path(ctx.ws.today())
    lines.append(ctx.text("demo.file", path=ctx.ws.relative(path)))
    return lines + _file_lines(path)


def step_listing(ctx: DemoContext) -> list[str]:
    day = ctx.ws.today()
    entries = notes.read_notes(ctx.ws, day).entries
    lines = [f"$ trinho notes --date {day.isoformat()}"]
    lines += [f"  {e.time}  {json.dumps(e.text, ensure_ascii=False)}" for e in entries]
    lines.append(ctx.text("demo.entries", count=len(entries)))
    return lines


IMPORT_LINES = [
    {
        "at": "2026-11-27T20:00:00+07:00",
        "role": "user",
        "text": "Nhắc tôi gọi cho anh Đức",
        "ref": "m1",
    },
    {
        "at": "2026-11-27T20:00:05+07:00",
        "role": "assistant",
        "text": "Được, tôi sẽ nhắc.",
        "ref": "m2",
    },
    {"at": "2026-11-27T17:30:00Z", "role": "user", "text": "Late call booked", "ref": "m3"},
    {"at": "2026-11-28T09:00:00+07:00", "role": "user", "text": "Good morning", "ref": "m4"},
]


def step_import(ctx: DemoContext) -> list[str]:
    source = ctx.root / "turns.jsonl"
    source.write_text(
        "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in IMPORT_LINES),
        encoding="utf-8",
    )
    first = transcripts.import_turns(ctx.ws, transcripts.read_import_file(source))
    again = transcripts.import_turns(ctx.ws, transcripts.read_import_file(source))
    lines = ["$ trinho import conversations turns.jsonl"]
    lines.append("  " + ctx.text("import.done", **vars(first)))
    lines.append("$ trinho import conversations turns.jsonl")
    lines.append("  " + ctx.text("import.done", **vars(again)))
    lines.append(ctx.text("demo.filed"))
    for stored in transcripts.read_turns(ctx.ws, date(2026, 11, 27), date(2026, 11, 28)):
        turn = stored.turn
        lines.append(f"  {stored.path}:{stored.line}  {turn.role}: {turn.text}  (ref {turn.ref})")
    return lines


MEMORY_TEXT = """# Về chủ nhân
- 2026-03-12: Sinh nhật mẹ; mẹ thích hoa sen trắng
- 2026-11-22: Prefers meetings after 10am
Typed by hand, not an entry: kept as it is.

## Work
- 2026-02-30: a date that does not exist
"""


def step_memory(ctx: DemoContext) -> list[str]:
    ctx.ws.memory_file.write_text(MEMORY_TEXT, encoding="utf-8")
    doc = memory_md.read_memory(ctx.ws)
    lines = []
    for item in doc.items:
        if isinstance(item, memory_md.Entry):
            when = item.date.isoformat() if item.date else ctx.text("demo.bad_date")
            lines.append(f"  {item.line:>2} entry    {when}: {item.text}")
        elif isinstance(item, memory_md.Heading):
            lines.append(f"  {item.line:>2} heading  {'#' * item.level} {item.title}")
        elif not item.blank:
            lines.append(f"  {item.line:>2} loose    {item.raw}")
    same = memory_md.render(doc) == MEMORY_TEXT
    return [*lines, ctx.text("demo.round_trip", same=same)]


def step_refusals(ctx: DemoContext) -> list[str]:
    lines = []
    for attempt in (
        lambda: notes.save_note(ctx.ws, "   "),
        lambda: notes.save_note(ctx.ws, "x" * (notes.MAX_NOTE_CHARS + 1)),
        lambda: ctx.ws.path("../outside.md"),
    ):
        try:
            attempt()
        except TrinhoError as exc:
            lines.append(f"  trinho: error: {str(exc).replace(str(ctx.ws.root), '<ws>')}")
    return lines


CONDENSED = """# Về chủ nhân
- 2026-03-12: Sinh nhật mẹ; mẹ thích hoa sen trắng
- 2026-11-29: Prefers meetings after 10am
- 2026-11-27: Nhắc gọi cho anh Đức
Typed by hand, not an entry: kept as it is.

## Work
Hope this helps!
"""


def step_condense(ctx: DemoContext) -> list[str]:
    """A weekly run with a scripted model whose rewrite edits, drops and chatters."""
    from trinho.channels import ConsoleChannel
    from trinho.condense import run_condensation
    from trinho.condense.report import render_report
    from trinho.models import ChatRequest, ScriptedModel

    def reply(request: ChatRequest) -> str:
        if request.messages[0].text.startswith("You maintain MEMORY.md"):
            return CONDENSED
        count = sum(line[:1].isdigit() for line in request.messages[-1].text.split("\n"))
        return "\n".join(f"{n}. ACCEPT" for n in range(1, count + 1))

    announced = io.StringIO()
    channel = ConsoleChannel(ctx.locale, announced)
    report = run_condensation(ctx.ws, model=ScriptedModel(reply), channel=channel)
    again = run_condensation(ctx.ws, model=ScriptedModel([]), channel=channel)
    lines = [
        "$ trinho condense",
        *("  " + line for line in render_report(report, ctx.locale).split("\n")),
    ]
    lines.append(ctx.text("demo.file", path="MEMORY.md"))
    lines += _file_lines(ctx.ws.memory_file)
    lines.append(ctx.text("demo.announced"))
    lines += ["    | " + line for line in announced.getvalue().rstrip("\n").split("\n")]
    lines += ["$ trinho condense", "  " + render_report(again, ctx.locale).split("\n")[0]]
    return lines


STEPS: list[Step] = [
    Step("demo.step.init", step_init),
    Step("demo.step.notes", step_notes),
    Step("demo.step.listing", step_listing),
    Step("demo.step.import", step_import),
    Step("demo.step.memory", step_memory),
    Step("demo.step.refusals", step_refusals),
    Step("demo.step.condense", step_condense),
]


def run_demo(locale: str = "en", steps: list[Step] | None = None) -> list[ShownStep]:
    """Run the steps in a temporary workspace that is removed afterwards."""
    shown = []
    with tempfile.TemporaryDirectory(prefix="trinho-demo-") as folder:
        ctx = DemoContext(Path(folder), locale)
        for number, step in enumerate(STEPS if steps is None else steps, start=1):
            title = f"{number}. {t(locale, step.title_key)}"
            shown.append(ShownStep(title, step.run(ctx)))
    return shown


def render_demo(shown: list[ShownStep]) -> str:
    return "\n\n".join("\n".join([s.title, *s.lines]) for s in shown)
