"""Model calls and tokens of one weekly condensation run as the week's notes grow.

Usage: python bench/bench_condense.py [--sizes 50,500,1000,2000,5000] [--history 200]
                                      [--notes-per-line 4] [--context 128000] [--seed 1]

Each size runs `run_condensation` end to end in a fresh temporary workspace: a MEMORY.md of
`--history` entries, then that many notes spread over the 7 days of the window, with the
scripted model standing in for the real one. Its replies are generated from each request:
the rewrite returns the MEMORY.md it was given plus one new dated entry per
`--notes-per-line` notes of its chunk; screening accepts every line. Tokens are the same
estimate the budget uses (4 characters a token), prompt and answer. Printed beside each run
is the goal: at most 2 + ceil(new lines / 50) model calls. `--context` is the model's context
budget (`[condense] context_tokens`; default the product's default).
"""

from __future__ import annotations

import argparse
import io
import math
import random
import re
import tempfile
from datetime import date, datetime, timedelta
from pathlib import Path

from trinho.channels import ConsoleChannel
from trinho.condense import run_condensation
from trinho.condense.collect import DEFAULT_CONTEXT_TOKENS
from trinho.condense.rewrite import MEMORY_BEGIN, MEMORY_END
from trinho.models import ChatRequest, ScriptedModel
from trinho.workspace import init_workspace, open_workspace

NOW = datetime.fromisoformat("2026-11-29T21:00:00+07:00")
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
_ITEM_RE = re.compile(r"^- (\d\d:\d\d) \[note\] (.*)$", re.MULTILINE)


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14)))


def make_workspace(root: Path, history: int, notes: int, rng: random.Random) -> Path:
    ws = init_workspace(root, timezone="Asia/Ho_Chi_Minh", clock=lambda: NOW).workspace
    start = date(2020, 1, 1)
    lines = ["# Trí nhớ dài hạn", "", "Viết tay: giữ nguyên.", ""]
    for i in range(history):
        lines.append(f"- {start + timedelta(days=i * 2)}: {sentence(rng)} #{i}")
    ws.memory_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for day in range(7):
        when = NOW.date() - timedelta(days=6 - day)
        count = notes // 7 + (1 if day < notes % 7 else 0)
        body = "".join(
            f"- {8 + n * 12 // max(count, 1):02d}:{n % 60:02d} {sentence(rng)}\n"
            for n in range(count)
        )
        ws.note_path(when).write_text(body, encoding="utf-8")
    return ws.root


def scripted(notes_per_line: int) -> ScriptedModel:
    def reply(request: ChatRequest) -> str:
        body = request.messages[-1].text
        if MEMORY_BEGIN not in body:  # a screening request
            count = len(re.findall(r"^\d+\. ", body, re.MULTILINE))
            return "\n".join(f"{n}. ACCEPT" for n in range(1, count + 1))
        memory = body.split(MEMORY_BEGIN + "\n", 1)[1].split("\n" + MEMORY_END, 1)[0]
        added: list[str] = []
        day = ""
        for number, line in enumerate(body.split(MEMORY_END, 1)[1].split("\n")):
            if line.startswith("### "):
                day = line[4:]
            elif (m := _ITEM_RE.match(line)) and number % notes_per_line == 0:
                added.append(f"- {day}: {m.group(2)[:60]} ({m.group(1)})")
        return "\n".join([memory, *added]) + "\n"

    return ScriptedModel(reply)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="50,500,1000,2000,5000")
    parser.add_argument("--history", type=int, default=200)
    parser.add_argument("--notes-per-line", type=int, default=4)
    parser.add_argument("--context", type=int, default=DEFAULT_CONTEXT_TOKENS)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(
        f"MEMORY.md of {args.history} entries; one new line per {args.notes_per_line} notes; "
        f"[condense] context_tokens = {args.context}"
    )
    print(
        f"{'notes':>6} {'new lines':>9} {'rewrite':>7} {'screen':>6} {'calls':>5} "
        f"{'goal':>5} {'ok':>3} {'tokens in':>10} {'tokens out':>10} {'tok/note':>8} "
        f"{'days unread':>11}"
    )
    for size in (int(s) for s in args.sizes.split(",")):
        rng = random.Random(args.seed)
        with tempfile.TemporaryDirectory() as tmp:
            root = make_workspace(Path(tmp) / "ws", args.history, size, rng)
            config = root / ".trinho" / "config.toml"
            config.write_text(
                config.read_text() + f"\n[condense]\ncontext_tokens = {args.context}\n"
            )
            ws = open_workspace(root, lambda: NOW)
            report = run_condensation(
                ws, model=scripted(args.notes_per_line), channel=ConsoleChannel("en", io.StringIO())
            )
        by = {c.purpose: c for c in report.calls}
        new_lines = len(report.screening)
        goal = 2 + math.ceil(new_lines / 50)
        tokens_in = sum(c.input_tokens for c in report.calls)
        tokens_out = sum(c.output_tokens for c in report.calls)
        unread = sum(not d.used for d in report.days)
        print(
            f"{size:>6} {new_lines:>9} {by['rewrite'].calls:>7} "
            f"{by['screen'].calls if 'screen' in by else 0:>6} {report.model_calls:>5} "
            f"{goal:>5} {'yes' if report.model_calls <= goal else 'NO':>3} {tokens_in:>10} "
            f"{tokens_out:>10} {(tokens_in + tokens_out) / size:>8.0f} {unread:>11}"
        )


if __name__ == "__main__":
    main()
