"""How much of the exact dense top ten the Hamming shortlist keeps, on real e5 vectors.

Reads the e5 vectors that bench/locomo.py and bench/vietnamese.py cached under bench/out/
(documents and queries of the LoCoMo dev half and the Vietnamese set; run one of them with
`--embedder e5` first). For shortlists of a growing share of the vectors, prints the mean
overlap between the exact ten nearest (float cosines over every vector) and the ten best of
the shortlist scored with the int8 codes, as `trinho.search.vectors` searches.

    .venv/bin/python bench/shortlist_quality.py
"""

from __future__ import annotations

import sqlite3
import statistics
import sys
from pathlib import Path

import numpy as np

from trinho.search.vectors import cosines, load_vectors, shortlist

OUT = Path(__file__).resolve().parent / "out"


def main() -> int:
    found = sorted(OUT.glob("embeddings-e5*.sqlite"))
    if not found:
        print("no cached e5 vectors: run bench/locomo.py --embedder e5 first", file=sys.stderr)
        return 1
    db = sqlite3.connect(found[0])
    docs = dict(db.execute("SELECT key, vec FROM v WHERE side = 'd'").fetchall())
    queries = [
        np.frombuffer(v, np.float32) for (v,) in db.execute("SELECT vec FROM v WHERE side = 'q'")
    ]
    keys = sorted(docs)
    loaded = load_vectors(keys, [docs[k] for k in keys])
    matrix = np.frombuffer(b"".join(docs[k] for k in keys), np.float32).reshape(len(keys), -1)
    print(f"{len(keys)} document vectors, {len(queries)} queries")
    for share in (0.013, 0.03, 0.05, 0.1):
        size = max(10, int(share * len(keys)))
        overlap = []
        for raw in queries:
            query = raw / np.linalg.norm(raw)
            exact = set(np.argsort(-(matrix @ query))[:10].tolist())
            positions = shortlist(loaded, query, size)
            best = positions[np.argsort(-cosines(loaded, query, positions))[:10]]
            overlap.append(len(exact & set(best.tolist())) / 10)
        mean = statistics.fmean(overlap)
        print(f"shortlist {share:.1%} ({size}): overlap with the exact top ten {mean:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
