"""Evidence recall on LoCoMo (dev half): trinho search beside plain BM25 over single turns.

Each conversation is imported into its own workspace as transcripts at its session times
(`ref` = `dia_id`; a shared photo's caption is appended to the text). Every question of
categories 1-4 is asked; recall@k is the share of its evidence turns among the first k
distinct refs of the hits, averaged over questions. The data is read in place, never copied.

    .venv/bin/python bench/locomo.py [--data ../shared/datasets/locomo-dev] [--semantic ...]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from rank_bm25 import BM25Okapi

from trinho.search import Query, SearchIndex
from trinho.search.local_embedder import BertEmbedder
from trinho.search.vectors import Embedder, OpenAIEmbedder
from trinho.transcripts import Turn, import_turns
from trinho.workspace import init_workspace

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = next(
    (
        base / "shared" / "datasets" / "locomo-dev"
        for base in (ROOT.parent, ROOT.parent.parent)
        if (base / "shared" / "datasets" / "locomo-dev").is_dir()
    ),
    ROOT.parent / "shared" / "datasets" / "locomo-dev",
)
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Question:
    text: str
    evidence: frozenset[str]
    category: int


@dataclass(frozen=True)
class Conversation:
    name: str
    turns: list[Turn]
    questions: list[Question]


def parse_when(text: str) -> datetime:
    """`1:56 pm on 8 May, 2023` as an aware instant (UTC: the data has no zone)."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def load(path: Path) -> Conversation:
    data = json.loads(path.read_text(encoding="utf-8"))
    conv = data.get("conversation", data)
    turns: list[Turn] = []
    number = 1
    while f"session_{number}_date_time" in conv:
        session = conv.get(f"session_{number}")
        if isinstance(session, list):
            start = parse_when(conv[f"session_{number}_date_time"])
            for i, raw in enumerate(session):
                text = raw["text"]
                if raw.get("blip_caption"):
                    text += f" [photo: {raw['blip_caption']}]"
                at = start + timedelta(seconds=30 * i)
                turns.append(Turn(at, raw["speaker"], text, raw["dia_id"]))
        number += 1
    questions = []
    for qa in data["qa"]:
        if qa.get("category") not in (1, 2, 3, 4):
            continue
        evidence = frozenset(
            part for item in qa.get("evidence", []) for part in re.split(r"[;,\s]+", item) if part
        )
        questions.append(Question(str(qa["question"]), evidence, int(qa["category"])))
    return Conversation(path.stem, turns, questions)


def first_refs(ranked: Sequence[Sequence[str]], k: int) -> list[str]:
    """Flatten hits' refs in rank order, keeping the first k distinct ones."""
    out: list[str] = []
    for refs in ranked:
        for ref in refs:
            if ref not in out:
                out.append(ref)
            if len(out) == k:
                return out
    return out


def session_of(ref: str) -> str:
    return ref.split(":", 1)[0]


@dataclass
class Totals:
    r5: float = 0.0
    r10: float = 0.0
    s5: float = 0.0
    n: int = 0

    def add(self, evidence: frozenset[str], ranked: Sequence[Sequence[str]]) -> None:
        if not evidence:
            return
        top10 = first_refs(ranked, 10)
        top5 = top10[:5]
        sessions = {session_of(e) for e in evidence}
        self.r5 += len(evidence & set(top5)) / len(evidence)
        self.r10 += len(evidence & set(top10)) / len(evidence)
        self.s5 += len(sessions & {session_of(r) for r in top5}) / len(sessions)
        self.n += 1

    def row(self, name: str) -> str:
        n = max(self.n, 1)
        return f"{name:<28} {self.r5 / n:>9.3f} {self.r10 / n:>10.3f} {self.s5 / n:>12.3f}"


def bm25_baseline(conv: Conversation) -> Callable[[str], list[list[str]]]:
    """Plain BM25 (rank-bm25 Okapi) over single turns: lower-cased words, no stemming."""
    corpus = [_WORD.findall(turn.text.lower()) for turn in conv.turns]
    model = BM25Okapi(corpus)
    refs = [turn.ref or "" for turn in conv.turns]

    def ask(question: str) -> list[list[str]]:
        scores = model.get_scores(_WORD.findall(question.lower()))
        order = sorted(range(len(refs)), key=lambda i: -scores[i])[:10]
        return [[refs[i]] for i in order]

    return ask


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument(
        "--embedder",
        choices=["local", "openai"],
        help="also run hybrid search with this embedder (local: numpy MiniLM; openai: --base-url)",
    )
    parser.add_argument("--base-url", default="http://127.0.0.1:11434/v1")
    parser.add_argument("--model", default="nomic-embed-text")
    args = parser.parse_args(argv)
    embedder: Embedder | None = None
    if args.embedder == "local":
        embedder = BertEmbedder()
    elif args.embedder == "openai":
        embedder = OpenAIEmbedder(args.base_url, args.model)
    files = sorted(args.data.glob("*.json"))
    if not files:
        print(f"no LoCoMo files in {args.data}", file=sys.stderr)
        return 1
    ours, base, hybrid = Totals(), Totals(), Totals()
    by_cat: dict[int, Totals] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            conv = load(path)
            ws = init_workspace(Path(tmp) / conv.name, timezone="UTC").workspace
            import_turns(ws, conv.turns)
            baseline = bm25_baseline(conv)
            with SearchIndex(ws) as index:
                for q in conv.questions:
                    hits = index.search(Query(q.text, limit=10), fresh=False)
                    ranked = [list(h.refs) for h in hits]
                    ours.add(q.evidence, ranked)
                    by_cat.setdefault(q.category, Totals()).add(q.evidence, ranked)
                    base.add(q.evidence, baseline(q.text))
            if embedder is not None:
                with SearchIndex(ws, embedder=embedder) as index:
                    for q in conv.questions:
                        hits = index.search(Query(q.text, limit=10), fresh=False)
                        hybrid.add(q.evidence, [list(h.refs) for h in hits])
    print(f"LoCoMo dev: {len(files)} conversations, {ours.n} questions (categories 1-4)")
    print(f"{'system':<28} {'recall@5':>9} {'recall@10':>10} {'session@5':>12}")
    print(base.row("plain BM25, single turns"))
    print(ours.row("trinho search (lexical)"))
    if embedder is not None:
        print(hybrid.row(f"hybrid, {args.embedder} embedder"))
    for cat in sorted(by_cat):
        print(by_cat[cat].row(f"  trinho, category {cat}"))
    n = max(ours.n, 1)
    print(f"recall@10 gain over baseline: {(ours.r10 - base.r10) / n:+.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
