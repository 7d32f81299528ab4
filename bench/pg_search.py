"""Search in PostgreSQL beside the SQLite index, on LoCoMo's dev half: recall@10 of each.

The same documents on both sides: each conversation is imported into a workspace
(`bench/locomo.py`'s loading), and the units `trinho.search.documents` makes of its
transcripts are written into the database for one owner per conversation
(`trinho.pg.search.add_docs`), so the figure compares the two engines, not two corpora (the
PostgreSQL stores do not hold transcripts yet). The SQLite side is the file index as
`bench/locomo.py` runs it, without its ranking boosts ("lexical, as before") and with them
(the default); the PostgreSQL side likewise, the boosts being the same pure functions.

    .venv/bin/python bench/pg_search.py --url postgresql://trinho_admin@127.0.0.1:5432/bench

The URL names a database the role owns (the schema is migrated, owners are added).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from datetime import date
from pathlib import Path

from locomo import CATEGORIES, DEFAULT_DATA, load, recall10
from trinho.conversations.store import import_turns
from trinho.pg.connect import Database
from trinho.pg.migrate import migrate
from trinho.pg.owners import add_owner
from trinho.pg.search import add_docs, search
from trinho.pg.store import PgRecords
from trinho.search import Query, SearchIndex
from trinho.search.documents import conversation_docs
from trinho.search.rank import Tuning
from trinho.workspace import init_workspace


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--url", required=True)
    args = parser.parse_args(argv)
    files = sorted(args.data.glob("*.json"))
    if not files:
        print(f"no LoCoMo files in {args.data}", file=sys.stderr)
        return 1
    migrate(args.url)
    plain = Tuning(speaker_boost=1.0, when_boost=1.0, per_session=0)
    rows: dict[str, list[tuple[int, float]]] = {k: [] for k in ("plain", "default", "pg", "pgd")}
    took: dict[str, list[float]] = {k: [] for k in rows}
    run = uuid.uuid4().hex[:8]
    with tempfile.TemporaryDirectory() as tmp, Database(args.url) as db:
        for path in files:
            conv = load(path)
            ws = init_workspace(Path(tmp) / conv.name, timezone="UTC").workspace
            import_turns(ws, conv.turns)
            owner = f"locomo-{run}-{conv.name.lower()}"
            add_owner(db, owner)
            records = PgRecords(db, owner, clock=ws.now, timezone="UTC")
            docs = []
            for day_file in sorted((ws.root / "conversations").glob("*.jsonl")):
                day = date.fromisoformat(day_file.stem)
                text = day_file.read_text(encoding="utf-8")
                docs.extend(conversation_docs(f"conversations/{day_file.name}", day, text))
            with db.owner_tx(owner) as conn:
                add_docs(conn, owner, docs)
            asked = [q for q in conv.questions if q.evidence]
            for name, tuning in (("plain", plain), ("default", Tuning(per_session=0))):
                with SearchIndex(ws, tuning=tuning) as index:
                    for q in asked:
                        start = time.perf_counter()
                        hits = index.search(Query(q.text, limit=10), fresh=False)
                        took[name].append(time.perf_counter() - start)
                        got = recall10(q.evidence, [list(h.refs) for h in hits])
                        rows[name].append((q.category, got))
            for name, tuning in (("pg", plain), ("pgd", Tuning(per_session=0))):
                for q in asked:
                    start = time.perf_counter()
                    hits = search(records, q.text, 10, tuning)
                    took[name].append(time.perf_counter() - start)
                    got = recall10(q.evidence, [list(h.refs) for h in hits])
                    rows[name].append((q.category, got))
    print(f"LoCoMo dev: {len(files)} conversations, {len(rows['pg'])} questions; recall@10")
    header = " ".join(f"{h:>11}" for h in ("overall", *CATEGORIES.values()))
    print(f"{'':<44}{header}")
    labels = {
        "plain": "SQLite index, lexical, no boosts",
        "default": "SQLite index, lexical default (boosts)",
        "pg": "PostgreSQL, BM25, no boosts",
        "pgd": "PostgreSQL, BM25 + the same boosts",
    }
    for name in ("plain", "pg", "default", "pgd"):
        cells = [statistics.fmean(r for _, r in rows[name])]
        cells += [statistics.fmean(r for c, r in rows[name] if c == cat) for cat in CATEGORIES]
        print(f"{labels[name]:<44}" + " ".join(f"{c:>11.3f}" for c in cells))
    print("\nper query (ms)                                   p50         p95")
    for name in ("plain", "pg", "default", "pgd"):
        cut = statistics.quantiles(took[name], n=20)
        p50, p95 = statistics.median(took[name]) * 1000, cut[18] * 1000
        print(f"{labels[name]:<44} {p50:>11.2f} {p95:>11.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
