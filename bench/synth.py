"""A synthetic ten-year workspace for speed benchmarks (search, context assembly).

`make_workspace(root, years=10, seed=0)` writes, straight to disk in trinho's formats, about
3,650 daily note files holding 100,000 entries, 50,000 conversation turns, a 2,000-line
MEMORY.md and 500 facts (users/owner/facts/). Text mixes English and Vietnamese.

    .venv/bin/python bench/synth.py /tmp/ten-years
"""

from __future__ import annotations

import json
import random
import sys
from datetime import date, datetime, time, timedelta
from pathlib import Path

from trinho.facts import Fact, FactVersion, facts_dir, render_fact
from trinho.workspace import Workspace, init_workspace

TIMEZONE = "Asia/Ho_Chi_Minh"
END = date(2026, 11, 29)
NOTES = 100_000
TURNS = 50_000
MEMORY_LINES = 2_000
FACTS = 500


def _words(text: str) -> list[str]:
    return text.split()


ENGLISH = _words("""
meeting dentist flight hotel dinner lunch coffee project deadline report invoice
budget garden painting guitar lesson doctor pharmacy birthday anniversary wedding conference
train ticket passport visa insurance car repair bicycle running marathon swimming yoga book
novel movie concert museum beach mountain hiking camping recipe soup noodles market groceries
rent landlord plumber electrician laptop phone backup password server deploy database release
review interview salary tax bank loan savings stock daughter son wife husband mother father
grandmother friend colleague manager client vendor school homework exam teacher piano violin
cat dog vet medicine allergy vaccine flu cold headache sleep diet coffee tea wine cake gift
""")
VIETNAMESE = _words("""
Hà Nội Đà Nẵng Sài Gòn Huế Hội An Cần Thơ Đà Lạt phở bún chả cà phê sữa đá bánh mì
gia đình bà ngoại ông nội mẹ bố con gái con trai vợ chồng bạn bè đồng nghiệp sếp khách hàng
họp công việc dự án hạn chót báo cáo hoá đơn ngân sách tiền nhà điện nước xe máy sửa chữa
bác sĩ nhà thuốc sinh nhật đám cưới du lịch vé máy bay khách sạn biển núi chợ nấu ăn
""")
NAMES = _words("Lan Minh Tuấn Hoa Alice Bob Carol Dũng Hương Nam Linh Quang")
VERBS = _words(
    "booked called met paid fixed bought planned cancelled visited moved finished started"
)


ONSETS = _words("b c d g h k l m n p r s t v th tr ch ph nh ng kh")
VOWELS = _words("a e i o u ai ao au ea ie oa ou ua")
CODAS = ["", "", "n", "ng", "m", "t", "c", "r", "s", "nd", "st"]
VOCABULARY = 12_000
"""Distinct words: real ones first, then made-up ones, drawn by a Zipf law like real text."""


class Words:
    """Draws words by frequency rank, so a few are common and most are rare.

    Zipf-Mandelbrot, p(rank) ~ 1 / (rank + 50): in real text the first fifty or so ranks are
    stop words, which the index drops, so the content words start further down the curve.
    """

    def __init__(self, rng: random.Random) -> None:
        seen: set[str] = set()
        vocab: list[str] = []
        for word in [*VERBS, *ENGLISH, *VIETNAMESE, *NAMES]:
            if word not in seen:
                seen.add(word)
                vocab.append(word)
        real = vocab[:]
        rng.shuffle(real)
        while len(vocab) < VOCABULARY:
            word = "".join(
                rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS)
                for _ in range(rng.randint(1, 3))
            )
            if word not in seen:
                seen.add(word)
                vocab.append(word)
        # Real words take the top ranks; made-up words fill the long tail.
        self.vocab = real + vocab[len(real) :]
        total = 0.0
        self.cum: list[float] = []
        for rank in range(1, len(self.vocab) + 1):
            total += 1.0 / (rank + 50)
            self.cum.append(total)

    def sentence(self, rng: random.Random, lo: int = 5, hi: int = 16) -> str:
        return " ".join(rng.choices(self.vocab, cum_weights=self.cum, k=rng.randint(lo, hi)))


def make_workspace(root: Path | str, years: int = 10, seed: int = 0) -> Workspace:
    """Write the synthetic workspace under `root` (created) and return it opened."""
    rng = random.Random(seed)
    words = Words(rng)
    ws = init_workspace(Path(root), timezone=TIMEZONE).workspace
    days = [END - timedelta(days=i) for i in range(round(365 * years))][::-1]
    scale = len(days) / 3650
    notes_per_day = _spread(rng, round(NOTES * scale), len(days))
    turns_per_day = _spread(rng, round(TURNS * scale), len(days))
    (ws.root / "memory").mkdir(exist_ok=True)
    (ws.root / "conversations").mkdir(exist_ok=True)
    for day, n_notes, n_turns in zip(days, notes_per_day, turns_per_day, strict=True):
        minutes = sorted(rng.sample(range(24 * 60), n_notes))
        lines = [f"- {m // 60:02d}:{m % 60:02d} {words.sentence(rng)}" for m in minutes]
        if rng.random() < 0.02:
            lines.append(f"  {words.sentence(rng)}")
        ws.note_path(day).write_text("\n".join(lines) + "\n", encoding="utf-8")
        start = datetime.combine(day, time(9), tzinfo=ws.tz)
        turns = []
        for i in range(n_turns):
            at = start + timedelta(minutes=3 * i)
            role = "user" if i % 2 == 0 else "assistant"
            turns.append(
                json.dumps(
                    {"at": at.isoformat(), "role": role, "text": words.sentence(rng, 6, 30)},
                    ensure_ascii=False,
                )
            )
        if turns:
            ws.conversation_path(day).write_text("\n".join(turns) + "\n", encoding="utf-8")
    memory = ["# Memory", ""]
    while len(memory) < MEMORY_LINES:
        if rng.random() < 0.03:
            memory.extend(["", f"## {rng.choice(ENGLISH).title()}"])
        else:
            memory.append(f"- {rng.choice(days).isoformat()}: {words.sentence(rng, 4, 12)}")
    ws.memory_file.write_text("\n".join(memory[:MEMORY_LINES]) + "\n", encoding="utf-8")
    _write_facts(ws, rng, words, days)
    return ws


def _write_facts(ws: Workspace, rng: random.Random, words: Words, days: list[date]) -> None:
    """FACTS fact files in the facts store's format, a third of them with older versions."""
    folder = facts_dir(ws)
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(FACTS):
        key = f"{words.vocab[number % 200].lower()}-{number}"
        key = "".join(ch if ch.isascii() and (ch.isalnum() or ch == "-") else "x" for ch in key)
        starts = sorted(rng.sample(days, rng.choice((1, 1, 2, 3))))
        versions = []
        for i, start in enumerate(starts):
            end = starts[i + 1] if i + 1 < len(starts) else None
            versions.append(
                FactVersion(
                    value=words.sentence(rng, 2, 8),
                    basis=rng.choice(("user", "inferred")),
                    valid_from=start,
                    valid_to=end,
                    recorded_at=datetime.combine(start, time(12), tzinfo=ws.tz),
                    source="chat",
                )
            )
        fact = Fact(key, versions[-1], tuple(versions[:-1]))
        (folder / f"{key}.md").write_text(render_fact(fact), encoding="utf-8")


def _spread(rng: random.Random, total: int, buckets: int) -> list[int]:
    """`total` items over `buckets` days, uneven like real life, each day at least 1."""
    counts = [1] * buckets
    for _ in range(total - buckets):
        counts[rng.randrange(buckets)] += 1
    return counts


def queries(count: int = 1_000, seed: int = 1) -> list[str]:
    """Varied queries of one to five words: half common, half drawn from the whole vocabulary,
    English and Vietnamese, 30% typed without diacritics."""
    from trinho.search.tokenize import fold

    rng = random.Random(seed)
    words = Words(random.Random(0))
    out = []
    for _ in range(count):
        picked = [
            rng.choices(words.vocab, cum_weights=words.cum)[0]
            if rng.random() < 0.5
            else rng.choice(words.vocab)
            for _ in range(rng.randint(1, 5))
        ]
        text = " ".join(picked)
        out.append(" ".join(fold(w) for w in picked) if rng.random() < 0.3 else text)
    return out


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "ten-years")
    made = make_workspace(target)
    print(f"wrote a synthetic workspace at {made.root}")
