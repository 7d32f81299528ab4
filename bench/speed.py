"""Search speed on a synthetic ten-year workspace, beside raw SQLite FTS5 on the same index.

Reports the cold index build, the update after one new note, the full freshness sweep a new
process makes, and search p50/p95 over 1,000 varied queries: trinho's search (with its
per-search freshness check), and the same terms sent straight to FTS5 (no join, no re-ranking).

With --semantic, the index also holds a vector for every entry and searches fuse both sides.
The vectors come from a hashing embedder (384 dimensions, a seeded random unit vector per
text): embedding 200,000 entries with a real model would take hours on this CPU, and what is
measured here is the search around the model (the cosine scan, the fusion, the reads). With
--query-model e5 each search also embeds its query with the real model, inside the timed
search (the vector it returns is thrown away for the hash one, so the documents' vectors stay
comparable): the figure a user waits for. The query is embedded beside the lexical search, on
a worker thread, and the vectors scanned there too; `--sequential` also times the search that
does both first. The in-memory cache of query vectors is off here (each query is searched
twice, and a cached second search would hide the model's cost). `--query-model e5` alone
times only the model.

    .venv/bin/python bench/speed.py [--years 10] [--queries 1000] [--semantic] [--query-model e5]
        [--sequential] [--without-neighbours]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import functools
import hashlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synth import END, make_workspace, queries
from trinho.notes.store import save_note
from trinho.search import Query, SearchIndex, vectors
from trinho.search.index import INDEX_FILE
from trinho.search.rank import Tuning
from trinho.search.vectors import Embedder, VectorStore, nearest_in
from trinho.workspace import Workspace

if TYPE_CHECKING:
    from trinho.search.vectors import Matrix


T = TypeVar("T")


class HashEmbedder:
    """A stand-in model: a seeded random unit vector per text, as a real model's are."""

    name = "bench:hash384"

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.hashed(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.hashed(text)

    @staticmethod
    def hashed(text: str) -> list[float]:
        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
        vector = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
        return list(vector / np.linalg.norm(vector))


class RealQueries(HashEmbedder):
    """The hash vectors, but every query is also embedded by a real model (and counted)."""

    def __init__(self, model: Embedder) -> None:
        self.model = model
        self.calls = 0

    def embed_query(self, text: str) -> list[float]:
        self.model.embed_query(text)
        self.calls += 1
        return self.hashed(text)


class EmbeddedFirst(VectorStore):
    """The query embedded and the vectors scanned before the lexical search instead of beside
    it: the baseline of `--sequential`."""

    def query_vector_beside(self, text: str) -> concurrent.futures.Future[Matrix]:
        return done(self.query_vector(text))

    def nearest_beside(
        self, query: concurrent.futures.Future[Matrix], limit: int
    ) -> concurrent.futures.Future[list[tuple[str, float]]]:
        return done(nearest_in(self.loaded(), query.result(), limit, self.shortlist))


def done(value: T) -> concurrent.futures.Future[T]:
    out: concurrent.futures.Future[T] = concurrent.futures.Future()
    out.set_result(value)
    return out


WITHOUT_NEIGHBOURS = Tuning(answer_weight=0.0, dense_neighbours=0.0)


DAY = " hôm 20/11"
"""What `--dated` adds to every query: a day inside the synthetic workspace's last weeks."""


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p50 = statistics.median(ordered)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return p50 * 1000, p95 * 1000


def timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--years", type=float, default=10)
    parser.add_argument("--queries", type=int, default=1_000)
    parser.add_argument("--semantic", action="store_true")
    parser.add_argument("--query-model", choices=["e5", "local"])
    parser.add_argument(
        "--sequential",
        action="store_true",
        help="also time, interleaved, the search that embeds its query before the lexical "
        "search instead of beside it",
    )
    parser.add_argument(
        "--without-neighbours",
        action="store_true",
        help="also time, interleaved, the search without the neighbouring-turn rules",
    )
    parser.add_argument(
        "--dated",
        action="store_true",
        help="also time, interleaved, every query with a day named (`hôm 20/11`), raw and "
        "through trinho: the span it names is one more FTS5 search (issue 43)",
    )
    args = parser.parse_args(argv)
    vectors.QUERY_CACHE = 0
    with tempfile.TemporaryDirectory() as tmp:
        made = time.perf_counter()
        ws = make_workspace(Path(tmp) / "ws", years=args.years)
        made = time.perf_counter() - made
        notes = sum(1 for _ in (ws.root / "memory").iterdir())
        print(f"synthetic workspace: {notes} daily files, written in {made:.1f} s")

        start = time.perf_counter()
        embedder: HashEmbedder | None = None
        if args.semantic:
            embedder = HashEmbedder()
            if args.query_model:
                embedder = RealQueries(query_model(args.query_model))
        index = SearchIndex(ws, embedder=embedder)
        build = time.perf_counter() - start
        if index.vectors is not None:
            embedded = timed(index.vectors.sync)
            print(f"hash vectors for every entry: {embedded:.1f} s")
        docs = index.count()
        size = (ws.internal / INDEX_FILE).stat().st_size / 1e6
        print(f"cold build: {build:.1f} s for {docs:,} entries ({size:.0f} MB)")

        sweep = timed(index.refresh)
        note = timed(lambda: save_note(ws, "Một ghi chú mới về chuyến đi Đà Lạt"))
        seen = index.search(Query("Đà Lạt ghi chú mới", limit=1))
        assert seen and "ghi chú mới" in seen[0].text, "the new note was not found"
        print(f"full freshness sweep (first search of a process): {sweep * 1000:.1f} ms")
        print(f"save one note, index updated at once: {note * 1000:.1f} ms")

        texts = queries(args.queries)
        variants = compared(args, ws, embedder)
        runs: list[tuple[str, list[float], Callable[[str], object]]] = [
            ("raw FTS5 (baseline)", [], lambda q: index.raw_fts(q, 10)),
            ("trinho, no check", [], stale_search(index)),
            ("trinho search", [], lambda q: index.search(Query(q, limit=10))),
        ]
        for label, other in variants:
            runs.append((label, [], stale_search(other)))
        runs += dated_runs(index, args.dated)
        # Interleaved query by query, so a burst of load on the machine hits all alike; the
        # order rotates, so none of them always finds the pages warmed by another.
        for i, q in enumerate(texts):
            turn = i % len(runs)
            for _, samples, run in runs[turn:] + runs[:turn]:
                samples.append(timed(lambda run=run, q=q: run(q)))  # type: ignore[misc]
        for _, other in variants:
            other.close()
        index.close()
    figures = {label: percentiles(samples) for label, samples, _ in runs}
    width = max(len(label) for label in figures)
    print(f"\n{len(texts)} queries{'':<{width - 8}} {'p50 ms':>8} {'p95 ms':>8}")
    for label, (p50, p95) in figures.items():
        print(f"{label:<{width}} {p50:>8.2f} {p95:>8.2f}")
    (r50, r95), (o50, o95) = figures["raw FTS5 (baseline)"], figures["trinho search"]
    print(f"overhead vs raw FTS5: p50 {o50 / r50:.2f}x, p95 {o95 / r95:.2f}x")
    print_dated(figures)
    if isinstance(embedder, RealQueries):
        print(
            f"{args.query_model} was called {embedder.calls} times for "
            f"{len(runs) - 1} x {len(texts)} searches (each starts it beside the lexical "
            "search; one whose first hits all hold every term does not wait for it)"
        )
    elif args.query_model:
        model = query_model(args.query_model)
        spent = [timed(functools.partial(model.embed_query, q)) for q in texts[:200]]
        q50, q95 = percentiles(spent)
        print(
            f"{args.query_model} query embedding (200 queries): p50 {q50:.2f} ms, p95 {q95:.2f} ms"
        )
    return 0


def dated_runs(
    index: SearchIndex, wanted: bool
) -> list[tuple[str, list[float], Callable[[str], object]]]:
    """Every query with a day named, raw and through trinho (the span is one more search)."""
    if not wanted:
        return []
    return [
        ("raw FTS5, a day named", [], lambda q: index.raw_fts(q + DAY, 10)),
        (
            "trinho search, a day named",
            [],
            lambda q: index.search(Query(q + DAY, limit=10, today=END)),
        ),
    ]


def print_dated(figures: dict[str, tuple[float, float]]) -> None:
    if "raw FTS5, a day named" not in figures:
        return
    (r50, r95) = figures["raw FTS5, a day named"]
    (t50, t95) = figures["trinho search, a day named"]
    print(f"a day named, vs raw FTS5 of its words: p50 {t50 / r50:.2f}x, p95 {t95 / r95:.2f}x")


def stale_search(index: SearchIndex) -> Callable[[str], object]:
    """Ten hits, without the freshness check."""
    return lambda q: index.search(Query(q, limit=10), fresh=False)


def compared(
    args: argparse.Namespace, ws: Workspace, embedder: HashEmbedder | None
) -> list[tuple[str, SearchIndex]]:
    """The searches timed beside trinho's own (each with its vectors loaded before timing)."""
    out: list[tuple[str, SearchIndex]] = []
    if args.sequential and embedder is not None:
        first = SearchIndex(ws, embedder=embedder)
        first.vectors = EmbeddedFirst(first.conn, embedder)
        out.append(("no check, embedded and scanned first", first))
    if args.without_neighbours:
        other = SearchIndex(ws, embedder=embedder, tuning=WITHOUT_NEIGHBOURS)
        out.append(("no check, without the neighbouring-turn rules", other))
    for _, index in out:
        index.search(Query("Đà Lạt ghi chú mới", limit=1))
    return out


def query_model(kind: str) -> Embedder:
    if kind == "e5":
        from trinho.search.e5 import E5Embedder

        return E5Embedder()
    from trinho.search.embedder import BertEmbedder

    return BertEmbedder()


if __name__ == "__main__":
    sys.exit(main())
