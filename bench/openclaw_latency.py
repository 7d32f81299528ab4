"""memory_search through OpenClaw's gateway: trinho's plugin beside OpenClaw's own search.

Usage: TRINHO_OPENCLAW=openclaw-plugin/node_modules/.bin/openclaw \\
       .venv/bin/python bench/openclaw_latency.py [--notes 2000] [--calls 40] [--rounds 5]

One run, one workspace of `--notes` notes (`memory/YYYY-MM-DD.md`, five a day, as OpenClaw's
agents write them), searched twice through the real gateway's `POST /tools/invoke`: first
with OpenClaw's built-in memory (memory-core, full-text: `memory.search.provider none`, its
index built by `openclaw memory index --force`), then with trinho's plugin in the memory
slot (its index built by `trinho index`, its process started by a first call). Each side
gets the same queries: `--calls` one at a time (p50, p95 of each call's time), then `--rounds`
rounds of 8 at once (the median round's wall time). Printed side by side with the ratios;
the goal is p50 <= 1.2x built-in and 8 parallel <= 2x.

Needs Node 24 first on PATH and the openclaw command (`.ci/openclaw-e2e` installs both).
Everything OpenClaw writes goes under a temporary HOME.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "openclaw-plugin"
TRINHO = str(Path(sys.executable).parent / "trinho")
TOKEN = "bench-token"
PER_DAY = 5
PEOPLE = ["Lan", "Minh", "Hoa", "Tuấn", "Mai", "Nam", "Linh", "Quân", "Thảo", "Bảo"]
PLACES = ["Đà Lạt", "Hội An", "Huế", "Sapa", "Nha Trang", "Cần Thơ", "Hà Nội", "Vũng Tàu"]
THINGS = [
    "khám răng",
    "họp nhóm",
    "mua sữa",
    "sửa xe",
    "đóng tiền điện",
    "sinh nhật",
    "chạy bộ",
    "học tiếng Anh",
    "đi chợ",
    "gọi điện cho mẹ",
]
QUERIES = [
    "kham rang",
    "Đà Lạt",
    "sinh nhật Lan",
    "tiền điện",
    "họp nhóm thứ Hai",
    "gọi điện cho mẹ",
    "sửa xe Minh",
    "Hội An",
    "chạy bộ buổi sáng",
    "mua sữa",
]


def notes(count: int, seed: int) -> dict[str, list[str]]:
    """`count` notes, five a day going back from yesterday: {file: lines}."""
    rng = random.Random(seed)
    days: dict[str, list[str]] = {}
    first = date.today() - timedelta(days=1)
    for n in range(count):
        day = first - timedelta(days=n // PER_DAY)
        hour = 8 + (n % PER_DAY) * 2
        text = (
            f"- {hour:02d}:00 {rng.choice(THINGS)} với {rng.choice(PEOPLE)} ở "
            f"{rng.choice(PLACES)}, nhớ {rng.choice(THINGS)}"
        )
        days.setdefault(f"memory/{day.isoformat()}.md", []).append(text)
    return days


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Claw:
    """The openclaw command under its own HOME, and a gateway it started."""

    def __init__(self, openclaw: str, home: Path) -> None:
        self.openclaw = openclaw
        path = f"{Path(TRINHO).parent}{os.pathsep}{os.environ.get('PATH', '')}"
        self.env = {**os.environ, "HOME": str(home), "OPENCLAW_HOME": str(home), "PATH": path}
        for name in ("OPENCLAW_CONFIG_PATH", "OPENCLAW_STATE_DIR", "OPENCLAW_PROFILE"):
            self.env.pop(name, None)
        self.port = free_port()
        self.gateway: subprocess.Popen[bytes] | None = None

    def run(self, *args: str) -> str:
        done = subprocess.run(
            [self.openclaw, *args], env=self.env, capture_output=True, text=True, timeout=900
        )
        if done.returncode != 0:
            sys.exit(f"openclaw_latency: openclaw {' '.join(args)} failed: {done.stderr[-500:]}")
        return done.stdout

    def start(self, log: Path) -> None:
        args = ["gateway", "run", "--port", str(self.port), "--bind", "loopback"]
        args += ["--auth", "token", "--token", TOKEN]
        with log.open("wb") as out:
            self.gateway = subprocess.Popen(
                [self.openclaw, *args], env=self.env, stdout=out, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if self.gateway.poll() is not None:
                sys.exit("openclaw_latency: the gateway stopped: " + log.read_text()[-500:])
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/", timeout=5).close()
                return
            except urllib.error.HTTPError:
                return
            except OSError:
                time.sleep(1)
        sys.exit("openclaw_latency: the gateway did not start")

    def stop(self) -> None:
        if self.gateway is not None and self.gateway.poll() is None:
            self.gateway.terminate()
            try:
                self.gateway.wait(60)
            except subprocess.TimeoutExpired:
                self.gateway.kill()
                self.gateway.wait()

    def search(self, query: str) -> tuple[float, dict[str, Any]]:
        """One memory_search: (seconds, its details)."""
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/tools/invoke",
            data=json.dumps({"tool": "memory_search", "args": {"query": query}}).encode(),
            headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
        )
        started = time.perf_counter()
        with urllib.request.urlopen(request, timeout=300) as answer:
            body = json.loads(answer.read())
        took = time.perf_counter() - started
        if not body.get("ok"):
            sys.exit(f"openclaw_latency: memory_search failed: {body}")
        return took, body["result"]["details"]


@dataclass
class Side:
    name: str
    p50: float
    p95: float
    parallel: float
    hits: int


def measure(name: str, claw: Claw, calls: int, rounds: int) -> Side:
    for query in QUERIES[:3]:  # warm: the first call starts what it needs
        claw.search(query)
    times: list[float] = []
    hits = 0
    for n in range(calls):
        took, details = claw.search(QUERIES[n % len(QUERIES)])
        times.append(took)
        hits += len(details.get("results", []))
    walls: list[float] = []
    with ThreadPoolExecutor(8) as pool:
        for r in range(rounds):
            started = time.perf_counter()
            list(pool.map(claw.search, [QUERIES[(r + i) % len(QUERIES)] for i in range(8)]))
            walls.append(time.perf_counter() - started)
    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    return Side(name, statistics.median(times), p95, statistics.median(walls), hits)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--openclaw", default=os.environ.get("TRINHO_OPENCLAW", ""))
    args = parser.parse_args()
    if not args.openclaw:
        sys.exit("openclaw_latency: name the openclaw command (--openclaw or TRINHO_OPENCLAW)")
    with tempfile.TemporaryDirectory(prefix="openclaw-latency-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        ws = Path(tmp) / "workspace"
        claw = Claw(args.openclaw, home)
        claw.run("setup", "--baseline", "--workspace", str(ws))
        claw.run("config", "set", "memory.search.provider", "none")
        for rel, lines in notes(args.notes, args.seed).items():
            (ws / rel).parent.mkdir(parents=True, exist_ok=True)
            (ws / rel).write_text("\n".join(lines) + "\n", encoding="utf-8")
        sides: list[Side] = []
        claw.run("memory", "index", "--force")
        try:
            claw.start(Path(tmp) / "builtin.log")
            sides.append(measure("OpenClaw built-in", claw, args.calls, args.rounds))
        finally:
            claw.stop()
        source = Path(tmp) / "plugin"
        source.mkdir()
        for name in ("package.json", "openclaw.plugin.json", "dist"):
            copy = shutil.copytree if (PLUGIN / name).is_dir() else shutil.copy
            copy(PLUGIN / name, source / name)
        claw.run("plugins", "install", "--force", "--accept-capabilities", str(source))
        claw.run("config", "set", "plugins.entries.trinho.config.dreaming.enabled", "false")
        subprocess.run([TRINHO, "--workspace", str(ws), "index"], check=True, capture_output=True)
        try:
            claw.start(Path(tmp) / "trinho.log")
            sides.append(measure("trinho plugin", claw, args.calls, args.rounds))
        finally:
            claw.stop()
    base = sides[0]
    print(f"memory_search through POST /tools/invoke, {args.notes} notes, {args.calls} calls")
    print(f"{'':20} {'p50 ms':>8} {'p95 ms':>8} {'8 parallel ms':>14} {'results':>8}")
    for side in sides:
        print(
            f"{side.name:20} {side.p50 * 1000:8.0f} {side.p95 * 1000:8.0f} "
            f"{side.parallel * 1000:14.0f} {side.hits:8d}"
        )
    mine = sides[1]
    print(
        f"trinho / built-in: p50 {mine.p50 / base.p50:.2f}x (goal <= 1.2x), "
        f"p95 {mine.p95 / base.p95:.2f}x, "
        f"8 parallel {mine.parallel / base.parallel:.2f}x (goal <= 2x)"
    )


if __name__ == "__main__":
    main()
