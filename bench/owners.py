"""Many owners in one PostgreSQL database: load, search per owner beside the file store, size,
and a week of condensations on the job queue with workers.

Each owner gets `--notes` notes
(`bench/synth.py`'s words: English and Vietnamese, Zipf-distributed), ten a day, written as
day files in trinho's note format, loaded one transaction per owner (the files' text and the
search units `trinho.search.documents` makes of them, as `trinho import workspace` writes
them). Then, for `--sample` owners, the same day files are written into a file workspace and
the same queries (`bench/synth.py`'s) are asked of both: the SQLite index of the workspace and
`trinho.pg.search` on the shared database, one owner at a time, as the application would.
With `--writes N`, N more notes' search units are then written across the other owners, one
transaction each (owners writing between two vacuums), and the sampled owners searched again;
`--gin-fastupdate on` gives the search index PostgreSQL's default pending list first, the
baseline of that. `--reuse` searches (and condenses) the owners an earlier run loaded.

With `--condense N`, the week's condensation is then queued for N owners (`trinho.condense`,
one job per owner) and `--workers` worker processes (`trinho.pg.jobs.run_worker`) empty the
queue, each job on a working copy, with a scripted model (the whole-file protocol: it gives
back MEMORY.md with the week's first note added, and accepts it when screening). Beside it,
the same condensation of the sampled owners on file workspaces, in this process. Printed:
owners per minute, the workers' peak memory, what each owner's run left.

    .venv/bin/python bench/owners.py --url postgresql://trinho_admin@127.0.0.1:5432/owners \
        [--app-url postgresql://trinho_app@127.0.0.1:5432/owners] [--owners 1000] \
        [--notes 1000] [--sample 10] [--queries 100] [--writes 0] [--gin-fastupdate on|off] \
        [--condense 0] [--workers 2] [--reuse]

`--app-url` names the application role (granted by `trinho store migrate --grant`): the
search and the workers connect as it, as deployed.
"""

from __future__ import annotations

import argparse
import io
import multiprocessing
import random
import re
import resource
import statistics
import sys
import tempfile
import time
import uuid
from dataclasses import replace
from datetime import date, datetime, timedelta
from datetime import time as day_time
from pathlib import Path
from zoneinfo import ZoneInfo

import psycopg

from synth import Words, queries
from trinho.channels import ConsoleChannel
from trinho.condense import run_condensation
from trinho.condense.rules.rewrite import MEMORY_BEGIN, MEMORY_END
from trinho.models import ChatRequest, ScriptedModel
from trinho.notes.format import format_entry
from trinho.pg.connect import Database
from trinho.pg.migrate import migrate
from trinho.pg.owners import add_owner, owner_zones
from trinho.pg.search import (
    SEARCH_UNITS,
    add_docs,
    search,
    units_params,
)
from trinho.pg.search import (
    asked as asked_question,
)
from trinho.pg.store import PgRecords
from trinho.search import Query, SearchIndex
from trinho.search.documents import note_docs
from trinho.search.rank import Tuning
from trinho.search.tokenize import query_terms
from trinho.workspace import init_workspace, open_workspace, system_clock

PER_DAY = 10
START = date(2025, 12, 1)
ZONE = "Asia/Ho_Chi_Minh"
MEMORY = """\
# Long-term memory

## People
- 2025-06-01: Sister Lan lives in Hue
- 2025-07-12: Best friend Minh is a nurse
## Habits
- 2025-08-03: Runs every Sunday morning
- 2025-09-20: Drinks green tea, no coffee
"""
NOTE_LINE = re.compile(r"^- (\d\d:\d\d) (.+)$", re.MULTILINE)


def day_files(rng: random.Random, words: Words, notes: int) -> dict[date, str]:
    """`notes` entries, PER_DAY a day from START, as day files' text."""
    files: dict[date, list[str]] = {}
    for n in range(notes):
        day = START + timedelta(days=n // PER_DAY)
        hhmm = f"{8 + (n % PER_DAY):02d}:{rng.randrange(60):02d}"
        files.setdefault(day, []).append(format_entry(hhmm, words.sentence(rng)) + "\n")
    return {day: "".join(lines) for day, lines in files.items()}


def load(db: Database, owner: str, files: dict[date, str]) -> None:
    """The day files and their search units, and a MEMORY.md, in one transaction."""
    docs = []
    for day, text in files.items():
        docs.extend(note_docs(f"memory/{day.isoformat()}.md", day, text))
    with db.owner_tx(owner) as conn:
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO note_files (owner_id, name, body) VALUES (%s, %s, %s)",
                [(owner, f"memory/{day.isoformat()}.md", text) for day, text in files.items()],
            )
        conn.execute(
            "INSERT INTO memory_versions (owner_id, version, body, run, written_at)"
            " VALUES (%s, 1, %s, 'import', now())",
            (owner, MEMORY),
        )
        add_docs(conn, owner, docs)


def run_moment(notes: int) -> datetime:
    """Sunday 21:05 in ZONE of the week that holds the last day of notes: the week's run."""
    last = START + timedelta(days=(notes - 1) // PER_DAY)
    sunday = last + timedelta(days=6 - last.weekday())
    return datetime.combine(sunday, day_time(21, 5), tzinfo=ZoneInfo(ZONE))


def reply(request: ChatRequest) -> str:
    """The scripted model: a rewrite gives back MEMORY.md with the week's first note added
    (dated the run's day); a screening accepts every candidate."""
    system, body = request.messages[0].text, request.messages[-1].text
    if not system.startswith("You maintain MEMORY.md"):
        found = re.findall(r"^\d+\. ", body, re.MULTILINE)
        return "\n".join(f"{n}. ACCEPT" for n in range(1, len(found) + 1))
    start = body.index(MEMORY_BEGIN + "\n") + len(MEMORY_BEGIN) + 1
    memory = body[start : body.index("\n" + MEMORY_END)] + "\n"
    notes = NOTE_LINE.findall(body[body.index("\n" + MEMORY_END) :])
    day = re.findall(r"\b(20\d\d-\d\d-\d\d)\b", body)
    return memory + (f"- {day[-1]}: {notes[0][1]}\n" if notes and day else "")


def deployment_config(folder: Path) -> str:
    """The deployment's workspace config: the whole-file protocol, the bench's zone."""
    ws = init_workspace(folder, timezone=ZONE).workspace
    config = ws.internal / "config.toml"
    config.write_text(config.read_text() + '\n[condense]\nprotocol = "file"\n')
    return config.read_text()


def work(url: str, folder: str, moment: str, name: str) -> None:
    """One worker process: empty the queue of the week's condensations."""
    from trinho.pg.jobs import Deployment, run_worker

    at = datetime.fromisoformat(moment)
    ws = open_workspace(folder, lambda: at)
    text = (ws.internal / "config.toml").read_text()
    model = ScriptedModel(reply)
    run_worker(
        Deployment(url, ws.config, text, clock=lambda: at, model=model), wait=False, name=name
    )


def condense_week(
    url: str, owners: list[str], workers: int, sampled: dict[str, dict[date, str]], notes: int
) -> None:
    """Queue the week's condensation for `owners`, let `workers` processes run it; beside
    it, the same run for the sampled owners on file workspaces."""
    from trinho.pg.jobs import Deployment, opened

    moment = run_moment(notes)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "deployment"
        text = deployment_config(folder)
        ws = open_workspace(folder, lambda: moment)
        deployment = Deployment(url, ws.config, text, clock=lambda: moment)
        started = time.perf_counter()
        with opened(deployment) as queue:
            queued = sum(queue.defer_condense(owner) for owner in owners)
        deferred = time.perf_counter() - started
        context = multiprocessing.get_context("spawn")
        procs = [
            context.Process(target=work, args=(url, str(folder), moment.isoformat(), f"w{n}"))
            for n in range(workers)
        ]
        started = time.perf_counter()
        for proc in procs:
            proc.start()
        for proc in procs:
            proc.join()
        took = time.perf_counter() - started
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        file_took = []
        for owner, files in sampled.items():
            fws = init_workspace(Path(tmp) / f"files-{owner}", timezone=ZONE).workspace
            for day, body in files.items():
                fws.note_path(day).write_text(body, encoding="utf-8")
            fws.memory_file.write_text(MEMORY, encoding="utf-8")
            config = fws.internal / "config.toml"
            config.write_text(config.read_text() + '\n[condense]\nprotocol = "file"\n')
            fws = open_workspace(fws.root, lambda: moment)
            start = time.perf_counter()
            run_condensation(
                fws, model=ScriptedModel(reply), channel=ConsoleChannel("en", io.StringIO())
            )
            file_took.append(time.perf_counter() - start)
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT status::text, count(*) FROM procrastinate.procrastinate_jobs"
            " WHERE task_name = 'trinho.condense' AND args->>'owner' = ANY(%s) GROUP BY 1",
            (owners,),
        ).fetchall()
    statuses: dict[str, int] = dict(rows)
    runs = 0
    with Database(url, max_size=2) as db:
        for owner in owners:
            with db.owner_tx(owner) as conn:
                row = conn.execute(
                    "SELECT count(*) FROM memory_versions WHERE owner_id = %s AND run LIKE '20%%'",
                    (owner,),
                ).fetchone()
            runs += row[0] if row else 0
    n = len(owners)
    print(f"condensation of week {moment.date()} for {n} owners, {workers} workers")
    print(
        f"queued {queued} jobs in {deferred:.1f} s; the workers emptied the queue in {took:.1f} s"
    )
    each = took / n * workers * 1000
    print(f"owners per minute: {n / took * 60:,.0f} ({each:.0f} ms per owner per worker)")
    print(
        f"jobs by status: {statuses}; MEMORY.md versions written by a run: {runs} (one per owner)"
    )
    print(f"peak memory of a worker (maximum resident set): {peak:,.0f} MiB")
    if file_took:
        print(
            f"the same run on a file workspace, {len(file_took)} owners: "
            f"{statistics.median(file_took) * 1000:.0f} ms per owner (median)"
        )


def quantiles(took: list[float]) -> tuple[float, float]:
    cut = statistics.quantiles(took, n=20)
    return statistics.median(took) * 1000, cut[18] * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument(
        "--app-url",
        help="The application role's URL, granted (`trinho store migrate --grant`): the search"
        " and the workers connect as it, as deployed (default: --url).",
    )
    parser.add_argument("--owners", type=int, default=1_000)
    parser.add_argument("--notes", type=int, default=1_000)
    parser.add_argument("--sample", type=int, default=10)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--condense", type=int, default=0, help="Owners to condense (0: none).")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--writes",
        type=int,
        default=0,
        help="Then write this many notes across the owners not sampled, one transaction each,"
        " as owners keep writing between two vacuums, and search the sampled ones again.",
    )
    parser.add_argument(
        "--gin-fastupdate",
        choices=("on", "off"),
        help="Set the search index's pending list on or off first (default: as migrated,"
        " off): `on` is PostgreSQL's default, the baseline of `--writes`.",
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="Search and condense the owners an earlier run loaded, no load: the first"
        " --sample of them are searched (their day files made again from the same seed).",
    )
    args = parser.parse_args(argv)
    migrate(args.url)
    app = args.app_url or args.url
    if args.gin_fastupdate:
        with psycopg.connect(args.url, autocommit=True) as conn:
            conn.execute(f"ALTER INDEX search_terms_tsv SET (fastupdate = {args.gin_fastupdate})")
    if args.reuse:
        with Database(args.url, max_size=2) as db:
            earlier = sorted(o for o in owner_zones(db) if o.startswith("bench-"))
        runs = {o.rsplit("-", 1)[0] for o in earlier}
        rng, words = random.Random(0), Words(random.Random(0))
        sampled = {}
        if len(runs) == 1:  # the owners of one run, in the order they were loaded
            sampled = {o: day_files(rng, words, args.notes) for o in earlier[: args.sample]}
        elif args.sample:
            print(f"{len(runs)} earlier runs in the database: no search (one run's owners only)")
        if sampled:
            compare_search(args.url, app, sampled, args.queries)
        if args.condense:
            condense_week(app, earlier[: args.condense], args.workers, sampled, args.notes)
        return 0
    rng = random.Random(0)
    words = Words(random.Random(0))
    run = uuid.uuid4().hex[:6]
    with psycopg.connect(args.url) as conn:
        size_before = conn.execute("SELECT pg_database_size(current_database())").fetchone()
    sampled = {}
    made: list[str] = []
    started = time.perf_counter()
    with Database(args.url, max_size=2) as db:
        for i in range(args.owners):
            owner = f"bench-{run}-{i:05d}"
            add_owner(db, owner, ZONE)
            made.append(owner)
            files = day_files(rng, words, args.notes)
            load(db, owner, files)
            if i < args.sample:
                sampled[owner] = files
        loaded = time.perf_counter() - started
    with psycopg.connect(args.url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
        size_after = conn.execute("SELECT pg_database_size(current_database())").fetchone()
    assert size_before is not None and size_after is not None
    total = args.owners * args.notes
    per_owner = (size_after[0] - size_before[0]) / args.owners
    print(f"{args.owners} owners x {args.notes} notes = {total:,} notes, {PER_DAY} a day")
    print(f"load: {loaded:.1f} s, {total / loaded:,.0f} notes/s, one transaction per owner")
    print(f"database growth: {per_owner / 1024:,.0f} KiB per owner ({args.notes} notes)")
    print(f"database size: {size_after[0] / 2**20:,.0f} MiB")
    compare_search(args.url, app, sampled, args.queries)
    if args.writes:  # by the other owners: the sampled ones' files stay the workspaces'
        write_notes(app, made[len(sampled) :] or made, args.writes)
        compare_search(args.url, app, sampled, args.queries)
    if args.condense:
        condense_week(app, made[: args.condense], args.workers, sampled, args.notes)
    return 0


def write_notes(app: str, owners: list[str], count: int) -> None:
    """`count` notes' search units (what the index gets of a note) written as the
    application role, one transaction each, round the owners: what a day of many owners'
    notes leaves in the index before a vacuum. Printed: the writes' times."""
    rng, words = random.Random(1), Words(random.Random(1))
    took = []
    day = START + timedelta(days=3650)
    with Database(app, max_size=2) as served:
        for n in range(count):
            owner = owners[n % len(owners)]
            text = format_entry(f"{n % 24:02d}:00", words.sentence(rng)) + "\n"
            docs = note_docs(f"memory/{day.isoformat()}.md", day, text)
            docs = [replace(d, line=n // len(owners) + 1) for d in docs]
            start = time.perf_counter()
            with served.owner_tx(owner) as conn:
                add_docs(conn, owner, docs)
            took.append(time.perf_counter() - start)
    w50, w95 = quantiles(took)
    print(f"{count} notes written across {len(owners)} owners: p50 {w50:.2f} ms, p95 {w95:.2f} ms")


def compare_search(url: str, app: str, sampled: dict[str, dict[date, str]], asked: int) -> None:
    """The same questions asked of each sampled owner's file workspace (its SQLite index) and
    of the database as `app`, one after the other; printed side by side."""
    with psycopg.connect(url) as conn:
        buffers = conn.execute("SHOW shared_buffers").fetchone()
        options = conn.execute(
            "SELECT coalesce(array_to_string(reloptions, ','), 'default options')"
            " FROM pg_class WHERE relname = 'search_terms_tsv'"
        ).fetchone()
    questions = queries(asked, seed=1)
    pg_took: list[float] = []
    file_took: list[float] = []
    trip_took: list[float] = []
    statement_took: list[float] = []
    with tempfile.TemporaryDirectory() as tmp, Database(app, max_size=2) as served:
        for owner, files in sampled.items():
            ws = init_workspace(Path(tmp) / owner, timezone="Asia/Ho_Chi_Minh").workspace
            for day, text in files.items():
                ws.note_path(day).write_text(text, encoding="utf-8")
            records = PgRecords(served, owner, clock=system_clock, timezone="Asia/Ho_Chi_Minh")
            with SearchIndex(ws) as index:
                index.refresh()
                for text in questions:
                    start = time.perf_counter()
                    index.search(Query(text, limit=10), fresh=False)
                    file_took.append(time.perf_counter() - start)
                    start = time.perf_counter()
                    search(records, text, 10)
                    pg_took.append(time.perf_counter() - start)
                    start = time.perf_counter()
                    with served.statement(owner) as conn:
                        conn.execute("SELECT 1").fetchall()
                    trip_took.append(time.perf_counter() - start)
                    terms = query_terms(text)
                    if terms:  # the search's first statement alone, no ranking after it
                        pool = asked_question(text, Tuning(), records.today()).pool(10)
                        params = units_params(owner, terms, pool)
                        start = time.perf_counter()
                        with served.statement(owner) as conn:
                            conn.execute(SEARCH_UNITS, params).fetchall()
                        statement_took.append(time.perf_counter() - start)
    f50, f95 = quantiles(file_took)
    p50, p95 = quantiles(pg_took)
    n = len(pg_took)
    print(f"the search's GIN index: {options[0] if options else '?'}")
    print(f"search, {n} queries over {len(sampled)} owners (ms)     p50      p95")
    print(f"file store (SQLite index of the workspace)      {f50:>8.2f} {f95:>8.2f}")
    print(f"PostgreSQL (shared_buffers {buffers[0] if buffers else '?'})".ljust(48)
          + f"{p50:>8.2f} {p95:>8.2f}")  # fmt: skip
    print(f"ratio PostgreSQL / files                        {p50 / f50:>8.2f} {p95 / f95:>8.2f}")
    t50, t95 = quantiles(trip_took)
    print(f"PostgreSQL, one statement (SELECT 1)            {t50:>8.2f} {t95:>8.2f}")
    s50, s95 = quantiles(statement_took)
    print(f"PostgreSQL, the search's statement alone        {s50:>8.2f} {s95:>8.2f}")


if __name__ == "__main__":
    sys.exit(main())
