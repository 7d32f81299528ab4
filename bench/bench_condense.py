"""Output and input tokens of one weekly condensation run, edit script against whole file.

Usage: python bench/bench_condense.py [--memory-sizes 200,2000,10000] [--weeks 50,500]
                                      [--protocols ops,file] [--notes-per-line 4]
                                      [--max-output 4096] [--context 128000] [--seed 1]
                                      [--max-context 1000000] [--quick]

Each protocol x MEMORY.md size x week size runs `run_condensation` end to end in a fresh
temporary workspace: a MEMORY.md of that many dated entries, then that many notes spread over
the 7 days of the window, with a scripted model standing in for the real one. Its replies are
generated from each request. The rewrite writes one change per `--notes-per-line` notes of
its chunk, mostly additions dated inside the window, some re-dated entries, a few edits and
removals of lines it read: under `[condense] protocol = "ops"` as an edit script over the
numbered MEMORY.md of the system message, under `"file"` as the whole MEMORY.md it was given
with the same changes made. Screening accepts every line. Tokens are the same estimate the
budget uses (one per 4 UTF-8 bytes), prompt and answer.

`--max-output` is written into `[model] max_output_tokens`. `[condense] context_tokens` is set
per run to the larger of `--context` and what the run needs (for `file`, the whole week in one
call beside MEMORY.md and its echo; for `ops`, chunks bounded by the output cap beside the
numbered MEMORY.md), at most `--max-context`; a run that cannot fit says why in its row.
Old options: `--sizes` is `--weeks`, `--history` is `--memory-sizes` (one size).
"""

from __future__ import annotations

import argparse
import io
import math
import random
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

from trinho.channels import ConsoleChannel
from trinho.condense import run_condensation
from trinho.condense.rules.chunks import ANSWER_SLACK_TOKENS, Chunk
from trinho.condense.rules.ops import SCRIPT_SLACK_TOKENS, apply_ops, material_for_output, parse_ops
from trinho.condense.rules.rewrite import (
    MEMORY_BEGIN,
    MEMORY_END,
    ops_prefix,
    overhead_tokens,
    week_frame_tokens,
)
from trinho.condense.store.collect import DEFAULT_CONTEXT_TOKENS, Span, collect, window
from trinho.condense.store.prompts import FILE_REWRITE_VERSION, load_prompt
from trinho.context.run import budgets_from_config
from trinho.models import ChatRequest, ScriptedModel, estimate_tokens
from trinho.workspace import Workspace, init_workspace, open_workspace

NOW = datetime.fromisoformat("2026-11-29T21:00:00+07:00")
HISTORY_START = date(2020, 1, 1)
CONTEXT_MARGIN = 64
"""Tokens added to the context a run needs, against rounding in the budget arithmetic."""
FLAT_RATIO = 1.1
TOKENS_PER_CHANGE = 40
WORDS = [
    "đi",
    "chợ",
    "mua",
    "rau",
    "cá",
    "thịt",
    "gặp",
    "anh",
    "Đức",
    "bàn",
    "hợp",
    "đồng",
    "mới",
    "con",
    "gái",
    "Mai",
    "học",
    "bơi",
    "mẹ",
    "khám",
    "răng",
    "chiều",
    "thứ",
    "năm",
    "uống",
    "trà",
    "xanh",
    "chạy",
    "bộ",
    "năm",
    "cây",
    "số",
    "call",
    "the",
    "bank",
    "about",
    "the",
    "loan",
    "dentist",
    "on",
    "thursday",
    "dinner",
    "with",
    "Tom",
    "tennis",
    "wednesday",
    "book",
    "flights",
    "to",
    "Lisbon",
]
_ITEM_RE = re.compile(r"^- (\d\d:\d\d) \[note\] (.*)$")
_NUMBERED_RE = re.compile(r"^\[(\d+)\](?: (.*))?$")
_ENTRY_RE = re.compile(r"^- \d{4}-\d\d-\d\d: ")


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14)))


def make_workspace(root: Path, history: int, notes: int, seed: int) -> Path:
    """A MEMORY.md of `history` entries dated before the window, and `notes` notes in it.

    The week comes from its own random stream, so every MEMORY.md size gets the same week.
    """
    ws = init_workspace(root, timezone="Asia/Ho_Chi_Minh", clock=lambda: NOW).workspace
    since, _ = window(NOW.date())
    span = min(2 * history, (since - HISTORY_START).days - 1)
    rng = random.Random(f"{seed}-memory")
    lines = ["# Trí nhớ dài hạn", "", "Viết tay: giữ nguyên.", ""]
    for i in range(history):
        when = HISTORY_START + timedelta(days=i * span // max(history, 1))
        lines.append(f"- {when}: {sentence(rng)} #{i}")
    ws.memory_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rng = random.Random(f"{seed}-week")
    for day in range(7):
        when = NOW.date() - timedelta(days=6 - day)
        count = notes // 7 + (1 if day < notes % 7 else 0)
        body = "".join(
            f"- {8 + n * 12 // max(count, 1):02d}:{n % 60:02d} {sentence(rng)}\n"
            for n in range(count)
        )
        ws.note_path(when).write_text(body, encoding="utf-8")
    return ws.root


class Writer:
    """The scripted model's rewrite: one change per `per` notes of a chunk, as an edit script.

    The kind and text of each change come from one random stream and the lines it names from
    another, so two MEMORY.md sizes get the same changes on different lines. A line is named
    by at most one EDIT, DATE or REMOVE per run, as a careful model would.
    """

    def __init__(self, per: int, seed: int) -> None:
        self.per = per
        self.kinds = random.Random(f"{seed}-kinds")
        self.lines = random.Random(f"{seed}-lines")
        self.named: set[int] = set()
        self.changes = 0

    def script(self, memory: Sequence[str], week: str) -> list[str]:
        """Operations over `memory` (its lines, numbered from 1) for the week's text."""
        entries = [n for n, line in enumerate(memory, 1) if _ENTRY_RE.match(line)]
        ops: list[str] = []
        day, seen = "", 0
        for line in week.split("\n"):
            if line.startswith("### "):
                day = line[4:]
            elif (m := _ITEM_RE.match(line)) is not None:
                seen += 1
                if seen % self.per == 0:
                    ops.append(self._op(day, m.group(2)[:60], m.group(1), entries, len(memory)))
        self.changes += len(ops)
        return ops

    def _op(self, day: str, text: str, at: str, entries: list[int], count: int) -> str:
        roll = self.kinds.random()
        free = [n for n in entries if n not in self.named] if roll >= 0.7 else []
        if not free:
            return f"ADD [{self.lines.randint(0, count)}] - {day}: {text} ({at})"
        line = self.lines.choice(free)
        self.named.add(line)
        if roll < 0.85:
            return f"DATE [{line}] {day}"
        if roll < 0.95:
            return f"EDIT [{line}] - {day}: {text} (sửa lại)"
        return f"REMOVE [{line}] not mentioned for years"


def between(text: str) -> str:
    """The MEMORY.md a request shows (the last one marked, numbered or not)."""
    return text.rsplit(MEMORY_BEGIN + "\n", 1)[1].rsplit("\n" + MEMORY_END, 1)[0]


def scripted(writer: Writer) -> ScriptedModel:
    """Answers every request of a run under either protocol, and screens by accepting."""
    views: dict[str, list[str]] = {}

    def numbered(prefix: str) -> list[str]:
        if prefix not in views:  # every call of an ops run shares one prefix
            shown = (_NUMBERED_RE.match(line) for line in between(prefix).split("\n"))
            views.clear()
            views[prefix] = [m.group(2) or "" for m in shown if m is not None]
        return views[prefix]

    def reply(request: ChatRequest) -> str:
        head, body = request.messages[0].text, request.messages[-1].text
        if MEMORY_BEGIN in body:  # the whole-file protocol
            memory = between(body) + "\n"
            lines = memory.split("\n")[:-1]
            ops = writer.script(lines, body.rsplit(MEMORY_END, 1)[1])
            return apply_ops(memory, parse_ops("\n".join(ops), len(lines))).text
        if MEMORY_BEGIN in head:  # the edit-script protocol
            return "\n".join(writer.script(numbered(head), body)) or "NONE"
        count = len(re.findall(r"^\d+\. ", body, re.MULTILINE))
        return "\n".join(f"{n}. ACCEPT" for n in range(1, count + 1))

    return ScriptedModel(reply)


@dataclass(frozen=True)
class Figures:
    protocol: str
    entries: int
    notes: int
    context: int
    changes: int = 0
    applied: int = 0
    held: int = 0
    calls: int = 0
    output_tokens: int = 0
    input_tokens: int = 0
    prefix_tokens: int = 0
    largest_max_tokens: int = 0
    above_cap: int = 0
    seconds: float = 0.0
    why: str = ""
    """Why the run did not read the whole week (or did not run): empty when it did."""

    @property
    def per_change(self) -> float:
        return self.output_tokens / self.changes if self.changes else 0.0

    @property
    def cached_share(self) -> float:
        return self.prefix_tokens / self.input_tokens if self.input_tokens else 0.0


def needed_context(ws: Workspace, protocol: str, max_output: int) -> int:
    """The smallest `[condense] context_tokens` that reads the week as the protocol would at
    its best: whole in one call (file), in chunks bounded only by the output cap (ops)."""
    today = ws.today()
    since, _ = window(today)
    collected = collect(ws, Span(None, ws.now()))
    memory = collected.memory_text
    if protocol == "file":
        prompt = load_prompt("rewrite", FILE_REWRITE_VERSION)
        material = Chunk(1, collected.items).tokens
        fixed = overhead_tokens(prompt, today, since, ws.locale) + ANSWER_SLACK_TOKENS
        return fixed + 2 * estimate_tokens(memory) + math.ceil(material * 3 / 2) + CONTEXT_MARGIN
    budget = budgets_from_config(ws).memory
    prefix = ops_prefix(load_prompt("rewrite"), memory, today, since, ws.locale, budget)
    beside = estimate_tokens(prefix) + week_frame_tokens(today, since, ws.locale)
    room = material_for_output(max_output)
    return beside + SCRIPT_SLACK_TOKENS + math.ceil(room * 7 / 4) + CONTEXT_MARGIN


def configure(root: Path, protocol: str, args: argparse.Namespace) -> int:
    """Write the run's `[model]` and `[condense]` settings; returns its context_tokens."""
    config = root / ".trinho" / "config.toml"
    base = config.read_text(encoding="utf-8")
    model = f"\n[model]\nmax_output_tokens = {args.max_output}\n"
    config.write_text(base + model, encoding="utf-8")
    need = needed_context(open_workspace(root, lambda: NOW), protocol, args.max_output)
    context: int = min(max(args.context, need), args.max_context)
    condense = f'\n[condense]\nprotocol = "{protocol}"\ncontext_tokens = {context}\n'
    config.write_text(base + model + condense, encoding="utf-8")
    return context


def run_one(protocol: str, entries: int, notes: int, args: argparse.Namespace) -> Figures:
    with tempfile.TemporaryDirectory() as tmp:
        root = make_workspace(Path(tmp) / "ws", entries, notes, args.seed)
        context = configure(root, protocol, args)
        ws = open_workspace(root, lambda: NOW)
        writer = Writer(args.notes_per_line, args.seed)
        model = scripted(writer)
        started = time.perf_counter()
        try:
            report = run_condensation(ws, model=model, channel=ConsoleChannel("en", io.StringIO()))
        except Exception as exc:  # a run that cannot fit: its row says why
            return Figures(protocol, entries, notes, context, why=f"{type(exc).__name__}: {exc}")
        seconds = time.perf_counter() - started
    unread = [d.day.isoformat() for d in report.days if not d.used]
    why = report.message if unread or report.outcome != "done" else ""
    requests = model.requests
    return Figures(
        protocol,
        entries,
        notes,
        context,
        changes=writer.changes,
        applied=sum(not rc.change.held for rc in report.changes),
        held=sum(rc.change.held for rc in report.changes),
        calls=report.model_calls,
        output_tokens=sum(c.output_tokens for c in report.calls),
        input_tokens=sum(c.input_tokens for c in report.calls),
        prefix_tokens=sum(estimate_tokens(r.messages[0].text) for r in requests if r.cache_prefix),
        largest_max_tokens=max((r.max_tokens for r in requests), default=0),
        above_cap=sum(r.max_tokens > args.max_output for r in requests),
        seconds=seconds,
        why=why,
    )


COLUMNS = (
    ("protocol", 8),
    ("entries", 7),
    ("notes", 5),
    ("changes", 7),
    ("applied", 7),
    ("held", 4),
    ("calls", 5),
    ("out tokens", 10),
    ("out/change", 10),
    ("max max_tokens", 14),
    ("> cap", 5),
    ("in tokens", 10),
    ("cached", 6),
    ("context", 9),
    ("wall s", 6),
)
HEADER = (
    "| "
    + " | ".join(
        name.ljust(width) if i == 0 else name.rjust(width)
        for i, (name, width) in enumerate(COLUMNS)
    )
    + " |"
)
RULE = (
    "|"
    + "|".join(
        ":" + "-" * (width + 1) if i == 0 else "-" * (width + 1) + ":"
        for i, (_, width) in enumerate(COLUMNS)
    )
    + "|"
)


def row(f: Figures) -> str:
    start = f"| {f.protocol:<8} | {f.entries:>7,} | {f.notes:>5,} |"
    if f.calls == 0:
        return f"{start} did not run: {f.why} (context_tokens {f.context:,}) |"
    line = (
        f"{start} {f.changes:>7,} | {f.applied:>7,} | {f.held:>4,} | {f.calls:>5} | "
        f"{f.output_tokens:>10,} | "
        f"{f.per_change:>10.1f} | {f.largest_max_tokens:>14,} | "
        f"{f.above_cap if f.above_cap else 'no':>5} | {f.input_tokens:>10,} | "
        f"{f.cached_share:>6.0%} | {f.context:>9,} | {f.seconds:>6.2f} |"
    )
    return f"{line} {f.why}" if f.why else line


def _ran(figures: Sequence[Figures], protocol: str) -> list[Figures]:
    return [f for f in figures if f.protocol == protocol and f.calls]


def flat_ratios(figures: Sequence[Figures], protocol: str) -> dict[int, float]:
    """Per week size: output tokens at the largest MEMORY.md that ran over those at the
    smallest."""
    runs = _ran(figures, protocol)
    ratios: dict[int, float] = {}
    for notes in sorted({f.notes for f in runs}):
        same = sorted((f for f in runs if f.notes == notes), key=lambda f: f.entries)
        if len(same) >= 2 and same[0].output_tokens:
            ratios[notes] = same[-1].output_tokens / same[0].output_tokens
    return ratios


def shown_ratios(figures: Sequence[Figures], protocol: str, digits: int) -> str:
    """The ratios of `flat_ratios`, each with the sizes it compares."""
    runs = _ran(figures, protocol)
    shown = []
    for notes, ratio in flat_ratios(figures, protocol).items():
        sizes = sorted(f.entries for f in runs if f.notes == notes)
        span = f"{sizes[-1]:,} vs {sizes[0]:,} entries"
        shown.append(f"{notes:,} notes {ratio:.{digits}f} ({span})")
    return ", ".join(shown) or "n/a"


def average_per_change(runs: Sequence[Figures]) -> float:
    changes = sum(f.changes for f in runs)
    return sum(f.output_tokens for f in runs) / changes if changes else 0.0


def goals(figures: Sequence[Figures], max_output: int) -> tuple[list[str], bool]:
    """The goal lines for the edit script, the whole file's figures beside them, and whether
    every goal was met."""
    lines = ["Goals (protocol ops):"]
    met = True
    ops, whole = _ran(figures, "ops"), _ran(figures, "file")
    if ops:
        ratios = flat_ratios(figures, "ops")
        flat = all(r <= FLAT_RATIO for r in ratios.values())
        lines.append(
            f"  output tokens do not grow with MEMORY.md (same week, <= {FLAT_RATIO}): "
            f"{shown_ratios(figures, 'ops', 3)}: {'yes' if flat and ratios else 'NO'}"
        )
        per = average_per_change(ops)
        lines.append(
            f"  average output tokens per change <= {TOKENS_PER_CHANGE}: {per:.1f}: "
            f"{'yes' if per <= TOKENS_PER_CHANGE else 'NO'}"
        )
        above = sum(f.above_cap for f in ops)
        largest = max(f.largest_max_tokens for f in ops)
        lines.append(
            f"  no request above max_output_tokens ({max_output:,}): largest {largest:,}: "
            f"{'yes' if not above else f'NO ({above} requests)'}"
        )
        met = flat and bool(ratios) and per <= TOKENS_PER_CHANGE and not above
    else:
        lines.append("  no ops run completed")
        met = False
    if whole:
        lines.append("Beside them (protocol file):")
        lines.append(
            f"  output tokens, largest vs smallest MEMORY.md: {shown_ratios(figures, 'file', 1)}"
        )
        lines.append(f"  average output tokens per change: {average_per_change(whole):.1f}")
        above = sum(f.above_cap for f in whole)
        asked = sum(f.calls for f in whole)
        largest = max(f.largest_max_tokens for f in whole)
        lines.append(
            f"  requests above max_output_tokens ({max_output:,}): {above} of {asked} calls, "
            f"largest {largest:,}"
        )
        saved = [
            f"{o.entries:,} x {o.notes:,}: {w.output_tokens / o.output_tokens:.1f}"
            for o in ops
            for w in whole
            if (o.entries, o.notes) == (w.entries, w.notes) and o.output_tokens
        ]
        if saved:
            lines.append("  saved by ops, file/ops output tokens (entries x notes): ")
            lines[-1] += ", ".join(saved)
    return lines, met


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--memory-sizes", "--history", default="200,2000,10000")
    parser.add_argument("--weeks", "--sizes", default="50,500")
    parser.add_argument("--protocols", default="ops,file")
    parser.add_argument("--notes-per-line", type=int, default=4)
    parser.add_argument("--max-output", type=int, default=4096)
    parser.add_argument("--context", type=int, default=DEFAULT_CONTEXT_TOKENS)
    parser.add_argument("--max-context", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="memory sizes 200,2000; weeks 50")
    args = parser.parse_args(argv)
    if args.quick:
        args.memory_sizes, args.weeks = "200,2000", "50"
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Print the table and the goals; 0 when the edit script met every goal, else 1."""
    args = parse_args(argv)
    sizes = [int(s) for s in str(args.memory_sizes).split(",")]
    weeks = [int(s) for s in str(args.weeks).split(",")]
    protocols = [p.strip() for p in args.protocols.split(",")]
    print(
        f"One change per {args.notes_per_line} notes; [model] max_output_tokens = "
        f"{args.max_output}; [condense] context_tokens per run = max({args.context}, what the "
        f"run needs), at most {args.max_context}; seed {args.seed}"
    )
    print(HEADER)
    print(RULE)
    figures: list[Figures] = []
    for entries in sizes:
        for notes in weeks:
            for protocol in protocols:
                figures.append(run_one(protocol, entries, notes, args))
                print(row(figures[-1]), flush=True)
    lines, met = goals(figures, args.max_output)
    print("\n".join(lines))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
