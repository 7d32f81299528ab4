"""What importing trinho costs, this checkout beside an earlier commit, in the same run.

For each module: the wall time of a fresh interpreter importing it (python -c pass as the
floor) and how many trinho modules it loads. The earlier commit is checked out into a
temporary git worktree and put first on the path (`-I` isolation aside, nothing else differs).

Run: .venv/bin/python bench/imports.py [--baseline REF] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

MODULES = (
    "trinho.cli",
    "trinho",
    "trinho.condense.rules.gate",
    "trinho.memory.format",
    "trinho.context.assembly",
    "trinho.schedule.plan",
)


def probe(src: Path, module: str) -> tuple[float, int]:
    """Seconds to import `module` from `src` in a fresh interpreter, and trinho modules loaded."""
    code = (
        "import sys, json, time\n"
        f"sys.path.insert(0, {str(src)!r})\n"
        "t = time.perf_counter()\n"
        f"import {module}\n"
        "t = time.perf_counter() - t\n"
        "print(json.dumps([t, sum(1 for m in sys.modules if m.split('.')[0] == 'trinho')]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True
    ).stdout
    seconds, count = json.loads(out)
    return float(seconds), int(count)


def wall(src: Path, module: str, runs: int) -> tuple[float, float, int]:
    samples, count = [], 0
    for _ in range(runs):
        start = time.perf_counter()
        _, count = probe(src, module)
        samples.append(time.perf_counter() - start)
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))], count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--baseline", default="635a314", help="earlier commit to compare with")
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "baseline"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(old), args.baseline],
            check=True,
        )
        try:
            floor = [0.0] * args.runs
            for i in range(args.runs):
                start = time.perf_counter()
                subprocess.run([sys.executable, "-I", "-c", "pass"], check=True)
                floor[i] = time.perf_counter() - start
            print(f"fresh interpreter, wall ms (p50 / p95), {args.runs} runs each")
            print(f"  {'python -I -c pass':<24} {statistics.median(floor) * 1e3:8.1f}")
            print(f"  {'module':<24} {'baseline ' + args.baseline:>28}   {'this checkout':>28}")
            for module in MODULES:
                cells = []
                for src in (old / "src", ROOT / "src"):
                    p50, p95, count = wall(src, module, args.runs)
                    cells.append(f"{p50 * 1e3:7.1f} / {p95 * 1e3:7.1f} ms {count:3d} mods")
                print(f"  {module:<24} {cells[0]:>28}   {cells[1]:>28}")
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)], check=True
            )


if __name__ == "__main__":
    main()
