"""Sizing against a real llama.cpp-compatible server: the estimate's error per part, a
condensation and a ten-turn chat at the server's context, in Vietnamese and in English.

The condensation reads the small-context week of issue 44 (`tests/data/weeks/small_context.json`:
17 MEMORY.md entries, 13 notes in Vietnamese and English). The parts measured include the
rewrite instructions as an owner's run sends them (the prompt and the request's headings, in
English and in Vietnamese), full and compact.

Run by bench/real_model.sh for each model and `--n_ctx`; usable on its own:

    .venv/bin/python bench/real_sizes.py --base-url http://127.0.0.1:8089/v1 --model M --n-ctx 2048

The checks are the promises, not the model's quality: the estimate never more than 10% under
the server's tokenizer on this text, no traceback, the condensation either runs or refuses in
one line naming the part that did not fit, every chat turn answered (exit 0), nothing refused
by the server for length. Exits 1 when one is broken.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import urllib.request
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from real_model import MEMORY, NOTES, TRINHO, TURNS, Checks, run
from trinho.condense.rules.rewrite import MEMORY_BEGIN, MEMORY_END
from trinho.condense.store.prompts import SMALL_REWRITE, load_prompt
from trinho.context.budget import estimate_tokens
from trinho.i18n import t
from trinho.tools import service as tools

SMALL_WEEK = json.loads(
    (
        Path(__file__).resolve().parent.parent / "tests" / "data" / "weeks" / "small_context.json"
    ).read_text(encoding="utf-8")
)

CHAT = {
    "vi": [
        "Chào bạn, mình là Minh.",
        "Tuần này mình có hẹn gì với ngân hàng?",
        "Mai tập bơi vào những ngày nào?",
        "Nhắc mình gọi cho mẹ tối chủ nhật nhé.",
        "Mình bị dị ứng gì?",
    ],
    "en": [
        "What book did I finish this week?",
        "When is the warehouse cutover?",
        "Please remember that my favourite drink is iced milk coffee.",
        "What do you know about my daughter Mai?",
        "Thanks, that is all for today.",
    ],
}


def server_count(base_url: str, text: str) -> int | None:
    root = base_url.rstrip("/").removesuffix("/v1")
    for path, body in (
        ("/extras/tokenize/count", {"input": text}),
        ("/tokenize", {"content": text}),
    ):
        request = urllib.request.Request(
            root + path,
            data=json.dumps(body).encode(),
            headers={"content-type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                data: Any = json.loads(answer.read())
        except OSError:
            continue
        if isinstance(data.get("count"), int):
            return int(data["count"])
        if isinstance(data.get("tokens"), list):
            return len(data["tokens"])
    return None


def parts() -> dict[str, str]:
    vi = [text for _, text in NOTES if any(not c.isascii() for c in text)]
    en = [text for _, text in NOTES if all(c.isascii() for c in text)]
    schemas = json.dumps(
        [[s.name, s.description, dict(s.parameters)] for s in tools.model_specs()],
        ensure_ascii=False,
    )
    return {
        **{
            f"instructions, {form} ({locale})": instructions(name, locale)
            for form, name in (("full", "rewrite"), ("compact", SMALL_REWRITE))
            for locale in ("en", "vi")
        },
        "MEMORY.md (vi+en)": MEMORY,
        "MEMORY.md, 17 entries (vi+en)": SMALL_WEEK["memory"],
        "notes (vi)": "\n".join(vi),
        "notes (en)": "\n".join(en),
        "turns (vi+en)": "\n".join(text for _, _, text in TURNS),
        "chat messages (vi)": "\n".join(CHAT["vi"]),
        "chat messages (en)": "\n".join(CHAT["en"]),
        "tool schemas (JSON)": schemas,
    }


def instructions(name: str, locale: str) -> str:
    """What an edit-script request holds besides MEMORY.md's lines and the notes: the prompt
    filled in, and the request's headings in the owner's language."""
    today, since = date(2026, 11, 29), date(2026, 11, 23)
    filled = load_prompt(name).fill(today, since, memory_budget=4000, memory_tokens=860)
    week = t(locale, "condense.prompt.week", since=since, today=today, part=1, of=3)
    return "\n".join(
        [filled, "", t(locale, "condense.prompt.memory"), MEMORY_BEGIN, MEMORY_END, week]
    )


def small_week(env: dict[str, str], home: Path) -> None:
    """The workspace of the small-context week, written through trinho's own commands."""
    subprocess.run(
        [TRINHO, "init", "--tz", "Asia/Ho_Chi_Minh", "--locale", "vi"], env=env, check=True
    )
    config = home / ".trinho" / "config.toml"
    with config.open("a", encoding="utf-8") as handle:
        handle.write("\n[model]\nmax_output_tokens = 1024\n\n[condense]\ncontext_tokens = 8192\n")
    (home / "MEMORY.md").write_text(SMALL_WEEK["memory"], encoding="utf-8")
    for at, text in SMALL_WEEK["notes"]:
        subprocess.run(
            [TRINHO, "note", text],
            env={**env, "TRINHO_NOW": at},
            check=True,
            stdout=subprocess.DEVNULL,
        )


def estimate_errors(base_url: str, checks: Checks) -> None:
    print("  the estimate against the server's tokenizer, per part:")
    for name, text in parts().items():
        real = server_count(base_url, text)
        estimate = estimate_tokens(text)
        if real is None:
            print(f"    {name:28s} estimate {estimate:5d}, the server has no tokenizer")
            continue
        error = (estimate - real) / real * 100
        print(f"    {name:28s} server {real:5d}  estimate {estimate:5d}  error {error:+6.1f}%")
        checks.require(error >= -10, f"estimate of {name}: never more than 10% under")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--n-ctx", type=int, required=True)
    parser.add_argument(
        "--max-output", type=int, default=256, help="[model] max_output_tokens for the chat"
    )
    parser.add_argument(
        "--condense-output",
        type=int,
        default=512,
        help="[model] max_output_tokens for the condensation",
    )
    parser.add_argument("--no-chat", action="store_true", help="the estimate and condense only")
    parser.add_argument(
        "--timeout", type=float, help="[model] timeout, in seconds (a slow or loaded machine)"
    )
    args = parser.parse_args()
    checks = Checks()
    print(f"== {args.model}, --n_ctx {args.n_ctx} ==")
    estimate_errors(args.base_url, checks)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "ws"
        env = {
            **os.environ,
            "TRINHO_HOME": str(home),
            "TRINHO_NOW": SMALL_WEEK["now"],
            "TRINHO_MODEL": f"llamacpp:{args.model}",
            "TRINHO_BASE_URL": args.base_url,
        }
        with contextlib.redirect_stdout(io.StringIO()):
            small_week(env, home)
        config = home / ".trinho" / "config.toml"
        text = config.read_text(encoding="utf-8")
        text = text.replace("context_tokens = 8192", f"context_tokens = {args.n_ctx}")
        output = "max_output_tokens = {}"
        if args.timeout is not None:
            limit = "max_output_tokens = 1024\n"  # in the [model] table the week wrote
            text = text.replace(limit, f"{limit}timeout = {args.timeout}\n")
        config.write_text(text.replace(output.format(1024), output.format(args.condense_output)))
        code, out, err, seconds = run(env, "condense", "--json")
        checks.require("Traceback" not in out + err, "condense: no traceback")
        if code == 0:
            report = json.loads(out)
            script = report.get("script") or {}
            print(
                f"  condense: {report.get('chunks', 0)} chunk(s), "
                f"{script.get('operations', 0)} operations read, {seconds:.0f} s, "
                f"prompts {', '.join(report.get('prompts') or ())}"
            )
            checks.require(True, "condense: ran")
        else:
            checks.require(args.n_ctx < 2048, "condense: runs from a 2,048-token context up")
            line = err.strip().splitlines()
            print(f"  condense refused in {seconds:.0f} s: {err.strip()[:400]}")
            checks.require(len(line) == 1, "condense: one line when it cannot run")
            checks.require(
                "exceeds the available context" not in err, "condense: not refused by the server"
            )
        config.write_text(text.replace(output.format(1024), output.format(args.max_output)))
        for lang in () if args.no_chat else ("vi", "en"):
            messages = [a for m in CHAT[lang] for a in ("-m", m)]
            code, out, err, seconds = run(env, "chat", "--json", *messages, *messages)
            checks.require("Traceback" not in out + err, f"chat ({lang}): no traceback")
            checks.require(
                code == 0, f"chat ({lang}): ten turns answered, exit 0 ({err.strip()[:200]})"
            )
            turns = json.loads(out)["turns"] if out.strip() else []
            cut = sum(bool(t.get("cut")) for t in turns)
            print(
                f"  chat ({lang}): {len(turns)} turns in {seconds:.0f} s, "
                f"{cut} cut at the length limit"
            )
        usage = home / ".trinho" / "usage.jsonl"
        lines = usage.read_text(encoding="utf-8").splitlines() if usage.exists() else []
        records = [json.loads(line) for line in lines if line]
        refused = sum(r.get("failure") == "context_exceeded" for r in records)
        print(f"  calls: {len(records)}, refused for length by the server: {refused}")
    print(f"  {'all checks pass' if not checks.broken else 'BROKEN: ' + '; '.join(checks.broken)}")
    return 1 if checks.broken else 0


if __name__ == "__main__":
    sys.exit(main())
