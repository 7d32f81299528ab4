"""Facts: cost of a reconciled save and of building the prompt's facts index, side by side with
the floor each one sits on (a bare durable write; reading the same files without parsing).

Run: .venv/bin/python bench/facts_bench.py [--facts N] [--saves N]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from datetime import date, datetime, timedelta
from pathlib import Path

from trinho import facts
from trinho.durable import atomic_write_text
from trinho.workspace import init_workspace

NOW = datetime.fromisoformat("2026-11-29T14:05:00+07:00")


def timed(fn: Callable[[], object], repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def row(name: str, samples: list[float], baseline: list[float]) -> None:
    print(
        f"{name:<36} p50 {pct(samples, 0.5):8.3f} ms  p95 {pct(samples, 0.95):8.3f} ms   "
        f"baseline p50 {pct(baseline, 0.5):8.3f} ms  p95 {pct(baseline, 0.95):8.3f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--facts", type=int, default=1000)
    parser.add_argument("--saves", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ws = init_workspace(Path(tmp) / "ws", timezone="UTC", clock=lambda: NOW).workspace
        folder = facts.facts_dir(ws)
        for i in range(args.facts):
            key = f"fact-{i:05d}"
            history = tuple(
                facts.FactVersion(
                    f"giá trị cũ {i}.{j}",
                    "inferred",
                    date(2020 + j, 1, 1),
                    date(2021 + j, 1, 1),
                    NOW - timedelta(days=900),
                    "job",
                )
                for j in range(3)
            )
            head = facts.FactVersion(f"giá trị {i}", "user", date(2024, 1, 1), None, NOW, "chat")
            fact = facts.Fact(key, head, history)
            atomic_write_text(folder / f"{key}.md", facts.render_fact(fact))
        paths = sorted(folder.glob("*.md"))
        print(f"{args.facts} facts, 4 versions each; baselines: read the bytes / a bare write")

        def cold() -> object:
            facts._PARSED.clear()
            return facts.facts_index(ws)

        row(
            "facts_index cold (parse every file)",
            timed(cold, 5),
            timed(lambda: [p.read_bytes() for p in paths], 5),
        )
        row(
            "facts_index warm (stat every file)",
            timed(lambda: facts.facts_index(ws), 5),
            timed(lambda: [p.read_bytes() for p in paths], 5),
        )
        row(
            "iter_fact_versions (all versions)",
            timed(lambda: list(facts.iter_fact_versions(ws)), 5),
            timed(lambda: [p.read_bytes() for p in paths], 5),
        )
        counter = iter(range(10**9))
        target = folder / "fact-00000.md"
        text = target.read_text(encoding="utf-8")
        row(
            "save_fact (superseded, locked)",
            timed(lambda: facts.save_fact(ws, "fact-00000", f"mới {next(counter)}"), args.saves),
            timed(lambda: atomic_write_text(target.with_name("x.tmp"), text), args.saves),
        )
        row(
            "fact_on (one key, a past date)",
            timed(lambda: facts.fact_on(ws, "fact-00001", date(2021, 6, 1)), args.saves),
            timed(lambda: (folder / "fact-00001.md").read_bytes(), args.saves),
        )


if __name__ == "__main__":
    main()
