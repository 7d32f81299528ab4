"""A harder Vietnamese set (issue 43): paraphrases written from the meaning, not the words, and
questions naming a day that the note says only relatively. Recall@5 by class.

Every note of bench/data/vi_hard.json is saved on its own `day`, among a synthetic year of
distractors (bench/synth.py: about 27 notes and 14 turns a day), and each paraphrase note lies
within a day of a date note, so a date question's span holds near misses too. A date question is
asked on its `today`. Printed: recall@5 (the note among the first five hits) by class, lexical
and, with --embedder, hybrid; each with the days asked and said (the default) and without them.

    .venv/bin/python bench/vietnamese_hard.py [--embedder e5] [--years 1]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from datetime import UTC, date, datetime, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from locomo import CachedEmbedder
from synth import make_workspace
from trinho.notes.store import save_note
from trinho.search import Query, SearchIndex
from trinho.search.rank import Tuning
from trinho.search.vectors import Embedder
from trinho.workspace import Workspace

SET = Path(__file__).resolve().parent / "data" / "vi_hard.json"
CLASSES = ("paraphrase", "date")
K = 5


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--embedder", choices=["e5"])
    parser.add_argument("--years", type=float, default=1.0, help="of synthetic distractors")
    args = parser.parse_args(argv)
    data = json.loads(SET.read_text(encoding="utf-8"))
    embedder: Embedder | None = None
    if args.embedder == "e5":
        from trinho.search.e5 import E5Embedder

        embedder = CachedEmbedder(E5Embedder())
    with tempfile.TemporaryDirectory() as tmp:
        made = make_workspace(Path(tmp) / "ws", years=args.years)
        now = [datetime.now(UTC)]
        ws = Workspace(made.root, made.config, lambda: now[0])
        for note in sorted(data["notes"].values(), key=lambda n: n["day"]):
            now[0] = datetime.combine(date.fromisoformat(note["day"]), time(21), tzinfo=ws.tz)
            save_note(ws, note["text"])
        with SearchIndex(ws) as index:
            total = index.count()
        print(f"{len(data['notes'])} notes among {total} entries, {len(data['queries'])} queries")
        systems: list[tuple[str, Embedder | None, Tuning]] = [
            ("lexical", None, Tuning()),
            ("lexical, no days", None, Tuning(date_weight=0.0)),
        ]
        if embedder is not None:
            systems += [
                (f"hybrid {args.embedder}", embedder, Tuning()),
                (f"hybrid {args.embedder}, no days", embedder, Tuning(date_weight=0.0)),
            ]
        print(f"recall@{K}".ljust(22) + "".join(f"{c:>14}" for c in CLASSES) + "   n")
        misses: list[str] = []
        for name, emb, tuning in systems:
            found: dict[str, list[bool]] = {c: [] for c in CLASSES}
            with SearchIndex(ws, embedder=emb, tuning=tuning) as index:
                for q in data["queries"]:
                    today = date.fromisoformat(q["today"]) if "today" in q else None
                    hits = index.search(Query(q["query"], limit=K, today=today), fresh=False)
                    hit = any(data["notes"][q["note"]]["text"] in h.text for h in hits)
                    found[q["class"]].append(hit)
                    if not hit and tuning == Tuning():
                        misses.append(f"  {name}: [{q['class']}] {q['query']}")
            cells = "".join(f"{sum(v) / len(v):>14.2f}" for v in found.values())
            print(f"{name:<22}{cells}   " + "/".join(str(len(v)) for v in found.values()))
        print(f"not in the first {K}:\n" + "\n".join(misses) if misses else "every query found")
    return 0


if __name__ == "__main__":
    sys.exit(main())
