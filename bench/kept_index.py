"""What one `memory_search` costs a server: a new index opened for the call (as every tool call
did before the index was kept), beside the index the process keeps open (`kept_index`), on
the synthetic workspace. Both look at every file first (a hand edit is seen at once).

    .venv/bin/python bench/kept_index.py [--years 10] [--calls 30] [--semantic]

With --semantic the index holds a hash vector per entry (`bench/speed.py`'s stand-in model).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from speed import HashEmbedder, percentiles
from synth import make_workspace, queries
from trinho.search import Query, SearchIndex, service


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--years", type=float, default=10)
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--semantic", action="store_true")
    args = parser.parse_args(argv)
    embedder = HashEmbedder() if args.semantic else None
    service.configured_embedder = lambda ws: embedder
    with tempfile.TemporaryDirectory() as tmp:
        ws = make_workspace(Path(tmp) / "ws", years=args.years)
        with SearchIndex(ws, embedder=embedder) as index:
            if index.vectors is not None:
                index.vectors.sync()
        texts = queries(args.calls)
        opened: list[float] = []
        kept: list[float] = []
        for text in texts:
            start = time.perf_counter()
            with SearchIndex(ws, embedder=embedder) as index:
                index.find(Query(text, limit=10))
            opened.append(time.perf_counter() - start)
            start = time.perf_counter()
            service.find(ws, text)
            kept.append(time.perf_counter() - start)
        service.close_kept()
    o50, o95 = percentiles(opened)
    k50, k95 = percentiles(kept)
    print(f"{args.calls} calls, {args.years:g} years{' with vectors' if embedder else ''}")
    print(f"a new index each call  p50 {o50:9.1f} ms  p95 {o95:9.1f} ms")
    print(f"the kept index         p50 {k50:9.1f} ms  p95 {k95:9.1f} ms")
    print("(the kept index's first call opens it: its p95 includes that)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
