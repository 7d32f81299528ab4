"""Vietnamese look-ups by class: exact, no diacritics, synonyms, dates written as words, mixed
Vietnamese/English, paraphrase. The set (bench/data/vi_search.json) is trinho's own sentences.

Every note is saved on its own day, among the distractors of a few weeks of the synthetic
workspace (bench/synth.py: its Vietnamese and English vocabulary, in random order); each query
must find its note. Prints hit@1 and hit@10 (the note among the first ten hits) by class,
lexical and, with --embedder, hybrid.

    .venv/bin/python bench/vietnamese.py [--embedder e5|local] [--years 0.05]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from locomo import CachedEmbedder
from synth import make_workspace
from trinho.notes.store import save_note
from trinho.search import Query, SearchIndex
from trinho.search.vectors import Embedder
from trinho.workspace import Workspace

SET = Path(__file__).resolve().parent / "data" / "vi_search.json"
CLASSES = ("exact", "no_diacritics", "synonym", "date_words", "mixed", "paraphrase")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--embedder", choices=["e5", "local"])
    parser.add_argument("--years", type=float, default=0.05, help="of synthetic distractors")
    args = parser.parse_args(argv)
    data = json.loads(SET.read_text(encoding="utf-8"))
    embedder: Embedder | None = None
    if args.embedder == "e5":
        from trinho.search.e5 import E5Embedder

        embedder = CachedEmbedder(E5Embedder())
    elif args.embedder == "local":
        from trinho.search.embedder import BertEmbedder

        embedder = CachedEmbedder(BertEmbedder())
    start = datetime(2026, 1, 1, 3, tzinfo=UTC)
    with tempfile.TemporaryDirectory() as tmp:
        now = [start]
        made = make_workspace(Path(tmp) / "ws", years=args.years)
        ws = Workspace(made.root, made.config, lambda: now[0])
        line_of: dict[str, str] = {}
        for i, (name, text) in enumerate(data["notes"].items()):
            now[0] = start + timedelta(days=i)
            line_of[name] = text
            save_note(ws, text)
        systems: list[tuple[str, Embedder | None]] = [("lexical", None)]
        if embedder is not None:
            systems.append((f"hybrid {args.embedder}", embedder))
        with SearchIndex(ws) as index:
            total = index.count()
        print(f"{len(data['notes'])} notes among {total} entries, {len(data['queries'])} queries")
        print(f"{'class':<15}{'n':>4}" + "".join(f"{s + ' @1':>16}{'@10':>6}" for s, _ in systems))
        table: dict[str, dict[str, list[tuple[bool, bool]]]] = defaultdict(dict)
        misses: list[str] = []
        for name, emb in systems:
            with SearchIndex(ws, embedder=emb) as index:
                for q in data["queries"]:
                    hits = [h.text for h in index.search(Query(q["query"], limit=10))]
                    rank = next((i for i, h in enumerate(hits) if line_of[q["note"]] in h), None)
                    table[q["class"]].setdefault(name, []).append((rank == 0, rank is not None))
                    if rank is None:
                        misses.append(f"  {name}: [{q['class']}] {q['query']}")
        for cls in CLASSES:
            row = table[cls]
            n = len(next(iter(row.values())))
            cells = ""
            for name, _ in systems:
                got = row[name]
                cells += f"{sum(a for a, _ in got) / n:>16.2f}{sum(b for _, b in got) / n:>6.2f}"
            print(f"{cls:<15}{n:>4}{cells}")
        print("not in the first ten:\n" + "\n".join(misses) if misses else "every query found")
    return 0


if __name__ == "__main__":
    sys.exit(main())
