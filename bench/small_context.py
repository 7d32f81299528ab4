"""The small-context week of issue 44 against the strict fake llama.cpp server, at several
contexts, beside a baseline commit measured in the same run.

    .venv/bin/python bench/small_context.py                      # 1024 2048 4096 8192
    .venv/bin/python bench/small_context.py --baseline e710c4b --contexts 2048

For each context it condenses `tests/data/weeks/small_context.json` (17 MEMORY.md entries, 13
notes in Vietnamese and English) through the llama.cpp adapter against
`tests/support/fake_model_server.py` in llama.cpp mode (its tokenizer, its refusal of a prompt
over `n_ctx`), with a model that adds one entry for each chunk's first note and accepts every
screened line, and prints the outcome, the calls with their prompt and `max_tokens` in the
fake's tokens, how many passed the context, and the prompts sent. `--baseline COMMIT` runs the
same against that commit's `src` (taken with `git archive`, its catalogs compiled) first.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WEEK = json.loads((ROOT / "tests" / "data" / "weeks" / "small_context.json").read_text("utf-8"))


def model(body: dict[str, Any]) -> dict[str, Any]:
    from support.fake_model_server import openai_reply

    user = body["messages"][-1]["content"]
    if body["messages"][0]["content"].startswith("You check"):
        count = len(re.findall(r"^\d+\. ", user, re.MULTILINE))
        return openai_reply("\n".join(f"{n}. ACCEPT" for n in range(1, count + 1)))
    day = re.findall(r"^### (\S+)$", user, re.MULTILINE)[0]
    note = re.findall(r"^- \d\d:\d\d \[note\] (.*)$", user, re.MULTILINE)[0]
    return openai_reply(f"ADD - {day}: {note}")


def measure(context: int) -> str:
    """One condensation of the week at `context` tokens, on the trinho this process imports."""
    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import TZ, FixedClock
    from support.fake_model_server import FakeServer, Reply, fake_prompt_tokens
    from trinho.channels import ConsoleChannel
    from trinho.condense import run_condensation
    from trinho.errors import TrinhoError
    from trinho.notes.store import save_note
    from trinho.workspace import init_workspace, open_workspace

    for var in ("OLLAMA_HOST", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        os.environ.pop(var, None)
    os.environ["TRINHO_MODEL"] = "llamacpp:m"
    with tempfile.TemporaryDirectory() as tmp:
        clock = FixedClock()
        ws = init_workspace(Path(tmp) / "ws", timezone=TZ, clock=clock).workspace
        config = ws.internal / "config.toml"
        config.write_text(config.read_text() + f"\n[condense]\ncontext_tokens = {context}\n")
        ws = open_workspace(ws.root, clock)
        ws.memory_file.write_text(WEEK["memory"], encoding="utf-8")
        for at, text in WEEK["notes"]:
            clock.set(at)
            save_note(ws, text)
        clock.set(WEEK["now"])
        with FakeServer(Reply(model), context_tokens=context, llamacpp=True) as srv:
            os.environ["TRINHO_BASE_URL"] = f"{srv.url}/v1"
            try:
                report = run_condensation(ws, channel=ConsoleChannel(ws.locale, io.StringIO()))
            except TrinhoError as exc:
                return f"refused before any call: {exc}"
        bodies = [s.body for s in srv.posts if s.path.endswith("/chat/completions")]
        over = sum(fake_prompt_tokens(b) + int(b["max_tokens"]) > context for b in bodies)
        sizes = ", ".join(f"{fake_prompt_tokens(b)}+{b['max_tokens']}" for b in bodies)
        return (
            f"{report.outcome}: {report.chunks} rewrite call(s), {len(bodies)} calls "
            f"(prompt+max_tokens {sizes}), {over} over the context, "
            f"prompts {', '.join(report.prompts)}, {len(report.changes)} change(s)"
        )


def baseline_src(commit: str, into: Path) -> Path:
    """`commit`'s src, extracted under `into`, its catalogs compiled."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", commit, "src"], capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    pybabel = Path(sys.executable).with_name("pybabel")
    locale = into / "src" / "trinho" / "i18n" / "locale"
    subprocess.run(
        [str(pybabel), "compile", "-d", str(locale), "-D", "trinho"],
        capture_output=True,
        check=True,
    )
    return into / "src"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--contexts", type=int, nargs="+", default=[1024, 2048, 4096, 8192])
    parser.add_argument("--baseline", help="a commit to measure first, for comparison")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        print(measure(args.one))
        return 0
    runs: list[tuple[str, str]] = [("this tree", str(ROOT / "src"))]
    with tempfile.TemporaryDirectory() as tmp:
        if args.baseline:
            runs.insert(
                0, (f"baseline {args.baseline}", str(baseline_src(args.baseline, Path(tmp))))
            )
        for label, src in runs:
            print(f"== {label} ==")
            for context in args.contexts:
                done = subprocess.run(
                    [sys.executable, __file__, "--one", str(context)],
                    env={**os.environ, "PYTHONPATH": src},
                    capture_output=True,
                    text=True,
                    check=False,
                )
                said = done.stdout.strip() or done.stderr.strip().splitlines()[-1]
                print(f"  context {context}: {said}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
