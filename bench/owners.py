"""Many owners in one PostgreSQL database: load, search per owner beside the file store, size.

A first, smaller run of the issue's `bench/owners.py` (which asks for 10,000 owners x 1,000
notes and a week of condensations with workers: not built). Each owner gets `--notes` notes
(`bench/synth.py`'s words: English and Vietnamese, Zipf-distributed), ten a day, written as
day files in trinho's note format, loaded one transaction per owner (the files' text and the
search units `trinho.search.documents` makes of them, as `trinho import workspace` writes
them). Then, for `--sample` owners, the same day files are written into a file workspace and
the same queries (`bench/synth.py`'s) are asked of both: the SQLite index of the workspace and
`trinho.pg.search` on the shared database, one owner at a time, as the application would.

    .venv/bin/python bench/owners.py --url postgresql://trinho_admin@127.0.0.1:5432/owners \
        [--owners 1000] [--notes 1000] [--sample 10] [--queries 100]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
import uuid
from datetime import date, timedelta
from pathlib import Path

import psycopg

from synth import Words, queries
from trinho.notes.store import format_entry
from trinho.pg.connect import Database
from trinho.pg.migrate import migrate
from trinho.pg.owners import add_owner
from trinho.pg.search import add_docs, search
from trinho.pg.store import PgRecords
from trinho.search import Query, SearchIndex
from trinho.search.documents import note_docs
from trinho.workspace import init_workspace, system_clock

PER_DAY = 10
START = date(2025, 12, 1)


def day_files(rng: random.Random, words: Words, notes: int) -> dict[date, str]:
    """`notes` entries, PER_DAY a day from START, as day files' text."""
    files: dict[date, list[str]] = {}
    for n in range(notes):
        day = START + timedelta(days=n // PER_DAY)
        hhmm = f"{8 + (n % PER_DAY):02d}:{rng.randrange(60):02d}"
        files.setdefault(day, []).append(format_entry(hhmm, words.sentence(rng)) + "\n")
    return {day: "".join(lines) for day, lines in files.items()}


def load(db: Database, owner: str, files: dict[date, str]) -> None:
    docs = []
    for day, text in files.items():
        docs.extend(note_docs(f"memory/{day.isoformat()}.md", day, text))
    with db.owner_tx(owner) as conn:
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO note_files (owner_id, name, body) VALUES (%s, %s, %s)",
                [(owner, f"memory/{day.isoformat()}.md", text) for day, text in files.items()],
            )
        add_docs(conn, owner, docs)


def quantiles(took: list[float]) -> tuple[float, float]:
    cut = statistics.quantiles(took, n=20)
    return statistics.median(took) * 1000, cut[18] * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--owners", type=int, default=1_000)
    parser.add_argument("--notes", type=int, default=1_000)
    parser.add_argument("--sample", type=int, default=10)
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args(argv)
    migrate(args.url)
    rng = random.Random(0)
    words = Words(random.Random(0))
    run = uuid.uuid4().hex[:6]
    with psycopg.connect(args.url) as conn:
        size_before = conn.execute("SELECT pg_database_size(current_database())").fetchone()
    sampled: dict[str, dict[date, str]] = {}
    started = time.perf_counter()
    with Database(args.url, max_size=2) as db:
        for i in range(args.owners):
            owner = f"bench-{run}-{i:05d}"
            add_owner(db, owner, "Asia/Ho_Chi_Minh")
            files = day_files(rng, words, args.notes)
            load(db, owner, files)
            if i < args.sample:
                sampled[owner] = files
        loaded = time.perf_counter() - started
        with psycopg.connect(args.url, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE")
            size_after = conn.execute("SELECT pg_database_size(current_database())").fetchone()
        asked = queries(args.queries, seed=1)
        pg_took: list[float] = []
        file_took: list[float] = []
        trip_took: list[float] = []
        with tempfile.TemporaryDirectory() as tmp:
            for owner, files in sampled.items():
                ws = init_workspace(Path(tmp) / owner, timezone="Asia/Ho_Chi_Minh").workspace
                for day, text in files.items():
                    ws.note_path(day).write_text(text, encoding="utf-8")
                records = PgRecords(db, owner, clock=system_clock, timezone="Asia/Ho_Chi_Minh")
                with SearchIndex(ws) as index:
                    index.refresh()
                    for text in asked:
                        start = time.perf_counter()
                        index.search(Query(text, limit=10), fresh=False)
                        file_took.append(time.perf_counter() - start)
                        start = time.perf_counter()
                        search(records, text, 10)
                        pg_took.append(time.perf_counter() - start)
                        start = time.perf_counter()
                        with db.owner_pipeline(owner) as conn:
                            conn.execute("SELECT 1")
                        trip_took.append(time.perf_counter() - start)
    assert size_before is not None and size_after is not None
    total = args.owners * args.notes
    per_owner = (size_after[0] - size_before[0]) / args.owners
    print(f"{args.owners} owners x {args.notes} notes = {total:,} notes, {PER_DAY} a day")
    print(f"load: {loaded:.1f} s, {total / loaded:,.0f} notes/s, one transaction per owner")
    print(f"database growth: {per_owner / 1024:,.0f} KiB per owner ({args.notes} notes)")
    print(f"database size: {size_after[0] / 2**20:,.0f} MiB")
    f50, f95 = quantiles(file_took)
    p50, p95 = quantiles(pg_took)
    n = len(pg_took)
    print(f"search, {n} queries over {len(sampled)} owners (ms)     p50      p95")
    print(f"file store (SQLite index of the workspace)      {f50:>8.2f} {f95:>8.2f}")
    print(f"PostgreSQL (one database, all owners)           {p50:>8.2f} {p95:>8.2f}")
    print(f"ratio PostgreSQL / files                        {p50 / f50:>8.2f} {p95 / f95:>8.2f}")
    t50, t95 = quantiles(trip_took)
    print(f"PostgreSQL, an empty transaction (SELECT 1)     {t50:>8.2f} {t95:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
