"""What the model layer costs around the model itself, each figure beside its baseline.

1. CLI start: importing trinho's CLI (SDKs imported lazily) vs importing it with each SDK.
2. Ledger: a scripted model called directly vs through the ledger (one fsync'd append a call).
3. Adapter: one chat call through the openai SDK adapter vs a bare urllib POST, both to the
   same local fake server on 127.0.0.1.

Run: .venv/bin/python bench/model_overhead.py [--calls N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from support.fake_model_server import FakeServer, Reply, openai_reply  # noqa: E402
from trinho.models import ChatRequest, ScriptedModel, load_model, resolve_model, user  # noqa: E402
from trinho.models.openai_compat import OpenAICompatModel  # noqa: E402
from trinho.workspace import Config, init_workspace  # noqa: E402


def timed(fn: Callable[[], object], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def row(label: str, samples: list[float], unit: float, unit_name: str) -> str:
    p50 = statistics.median(samples) / unit
    p95 = sorted(samples)[int(0.95 * (len(samples) - 1))] / unit
    return f"  {label:<44} p50 {p50:9.2f} {unit_name}   p95 {p95:9.2f} {unit_name}"


def cli_start(runs: int) -> None:
    print("CLI start (fresh interpreter, import only):")
    for label, code in (
        ("baseline: python -c pass", "pass"),
        ("import trinho.cli (SDKs lazy)", "import trinho.cli"),
        ("import trinho.cli + openai", "import trinho.cli, openai"),
        ("import trinho.cli + anthropic", "import trinho.cli, anthropic"),
    ):
        samples = timed(lambda c=code: subprocess.run([sys.executable, "-c", c], check=True), runs)
        print(row(label, samples, 1e-3, "ms"))


def ledger(calls: int) -> None:
    print(f"Ledger ({calls} calls each):")
    with tempfile.TemporaryDirectory() as tmp:
        ws = init_workspace(Path(tmp) / "ws", timezone="UTC").workspace
        request = ChatRequest([user("Ghi nhớ: mẹ thích hoa lan")])
        bare = ScriptedModel(lambda r: "ok")
        print(
            row(
                "baseline: scripted model, no ledger",
                timed(lambda: bare.chat(request), calls),
                1e-6,
                "us",
            )
        )
        wrapped = load_model(ws, "chat", model=ScriptedModel(lambda r: "ok"))
        print(
            row(
                "same through load_model (ledger append)",
                timed(lambda: wrapped.chat(request), calls),
                1e-6,
                "us",
            )
        )


def adapter(calls: int) -> None:
    print(f"Adapter over loopback ({calls} calls each):")
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
    with FakeServer(Reply(openai_reply("ok"))) as srv:
        url = srv.url + "/v1/chat/completions"

        def raw() -> None:
            request = urllib.request.Request(url, data=body, method="POST")
            with urllib.request.urlopen(request, timeout=5) as answer:
                json.loads(answer.read())

        print(row("baseline: urllib POST + json.loads", timed(raw, calls), 1e-3, "ms"))
        env = {"TRINHO_MODEL": "ollama:m", "OLLAMA_HOST": srv.url}
        model = OpenAICompatModel(resolve_model(Config(), env))
        request = ChatRequest([user("hi")])
        print(
            row(
                "OpenAICompatModel.chat (openai SDK)",
                timed(lambda: model.chat(request), calls),
                1e-3,
                "ms",
            )
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--starts", type=int, default=7)
    args = parser.parse_args()
    cli_start(args.starts)
    ledger(args.calls)
    adapter(args.calls)


if __name__ == "__main__":
    main()
