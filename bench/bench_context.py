"""Context assembly time on a synthetic ten-year workspace, beside just reading its files.

Rows, each timed over the same number of runs (p50 / p95, milliseconds):
- baseline: read the bytes of the files the prompt is made of (MEMORY.md, yesterday's and
  today's notes, the fact files), nothing else;
- assemble: the pure `trinho.context.assembly.assemble` on inputs already in memory;
- build_context: what a turn costs: read, parse, the facts index, assemble, the warning state.
Each of the last two twice: right after MEMORY.md changed (nothing reused), and when it has
not changed since the last turn (its parsed, budgeted form is memoized).

    .venv/bin/python bench/bench_context.py [--years 10] [--runs 200] [--workspace DIR]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synth import END, make_workspace
from trinho import facts
from trinho.context import assembly as context_mod
from trinho.context.assembly import Budgets, assemble
from trinho.context.run import build_context, read_inputs
from trinho.workspace import open_workspace


def timed(runs: int, work: Callable[[], object]) -> tuple[float, float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        samples.append((time.perf_counter() - start) * 1000)
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--years", type=float, default=10)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--workspace", type=Path, help="reuse (or create) the workspace here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = args.workspace or Path(scratch) / "ws"
        if not (root / "MEMORY.md").exists():
            started = time.perf_counter()
            make_workspace(root, round(args.years))
            print(f"generated {root} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        moment = datetime.fromisoformat(f"{END.isoformat()}T20:00:00+07:00")
        ws = open_workspace(root, clock=lambda: moment)
        today, yesterday = ws.today(), ws.today() - timedelta(days=1)
        files = [ws.memory_file, ws.note_path(yesterday), ws.note_path(today)]
        files += sorted(facts.facts_dir(ws).glob("*.md"))
        inputs = read_inputs(ws, ws.config.owner)
        budgets = Budgets()
        pure_args = (inputs, budgets, ws.locale)
        runs = args.runs
        context = build_context(ws)

        def cold(work: Callable[[], object]) -> Callable[[], object]:
            """The turn after MEMORY.md changed: nothing parsed is reused."""

            def run() -> object:
                context_mod._memory_part.cache_clear()
                return work()

            return run

        rows = [
            ("baseline: read the files", timed(runs, lambda: [p.read_bytes() for p in files])),
            ("assemble, MEMORY.md changed", timed(runs, cold(lambda: assemble(*pure_args)))),
            ("assemble, MEMORY.md as before", timed(runs, lambda: assemble(*pure_args))),
            ("build_context, MEMORY.md changed", timed(runs, cold(lambda: build_context(ws)))),
            ("build_context, as before", timed(runs, lambda: build_context(ws))),
        ]
        memory_entries = sum(1 for line in files[0].read_text().splitlines() if line[:2] == "- ")
        print(
            f"workspace: {len(list((root / 'memory').iterdir()))} note files, "
            f"{len(inputs.facts)} current facts, "
            f"MEMORY.md {files[0].stat().st_size:,} bytes ({memory_entries} entries), "
            f"{len(inputs.yesterday) + len(inputs.today)} notes yesterday+today"
        )
        print(f"context: tokens {context.tokens}, omitted {context.omitted}, budgets {budgets}")
        base = rows[0][1][0]
        print(f"{'':32} {'p50 ms':>8} {'p95 ms':>8} {'p50 / baseline':>15}")
        for name, (p50, p95) in rows:
            print(f"{name:32} {p50:8.3f} {p95:8.3f} {p50 / base:15.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
