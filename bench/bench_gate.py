"""Time the gate on a 10,000-entry MEMORY.md beside plain difflib on the same two files.

Usage: python bench/bench_gate.py [--entries 10000] [--runs 7] [--seed 1]

Two rewrites are measured: a realistic week (a few percent of entries added, removed, edited
and re-dated) and a heavy one (10% removed, 10% edited, 10% added), the case that would expose
a quadratic edit search. The baseline, `difflib.unified_diff`, only lists differing lines; the
gate also pairs entries, finds edits, checks dates and places held lines. Times are CPU time of
this process (`time.process_time`), so other work on a shared machine does not inflate them.
"""

from __future__ import annotations

import argparse
import difflib
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable
from datetime import date, timedelta

from trinho.condense.rules import match as match_module
from trinho.condense.rules.gate import gate

TODAY = date(2026, 11, 29)
SINCE = TODAY - timedelta(days=6)
VOCABULARY = (
    "thích uống cà phê sữa đá buổi sáng con gái tên Mai học lớp ba sống ở Đà Nẵng "
    "làm việc tại công ty hậu cần dị ứng tôm chạy bộ chủ nhật mẹ sinh nhật tháng "
    "likes green tea works remote on fridays allergic to shrimp runs every sunday "
    "daughter plays piano birthday in march prefers window seats reads history books "
    "meeting with the bank about the loan car needs service doctor appointment"
)
WORDS = VOCABULARY.split()


SENTENCE_WORDS = (5, 12)


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(*SENTENCE_WORDS)))


def make_old(rng: random.Random, entries: int) -> list[str]:
    lines = ["# Trí nhớ dài hạn", "Viết tay: đừng xoá các dòng này.", ""]
    start = date(2016, 1, 1)
    for i in range(entries):
        if i % 500 == 0:
            lines += ["", f"## Phần {i // 500 + 1}"]
        day = start + timedelta(days=rng.randrange(3800))
        lines.append(f"- {day.isoformat()}: {sentence(rng)} #{i}")
    return [*lines, ""]


def make_new(
    rng: random.Random, old: list[str], removed: float, edited: float, added: float, redated: float
) -> list[str]:
    new: list[str] = []
    for line in old:
        if not line.startswith("- "):
            new.append(line)
            continue
        roll = rng.random()
        day, text = line[2:].split(": ", 1)
        if roll < removed:
            continue
        if roll < removed + edited:
            words = text.split()
            words[rng.randrange(len(words) - 1)] = rng.choice(WORDS)
            new.append(f"- {day}: {' '.join(words)}")
        elif roll < removed + edited + redated:
            new.append(f"- {(SINCE + timedelta(days=rng.randrange(7))).isoformat()}: {text}")
        else:
            new.append(line)
        if rng.random() < added:
            day = SINCE + timedelta(days=rng.randrange(7))
            new.append(f"- {day.isoformat()}: {sentence(rng)} (new)")
    return new


def p50(func: Callable[[], object], runs: int) -> tuple[float, object]:
    times = []
    result: object = None
    for _ in range(runs):
        start = time.process_time()
        result = func()
        times.append(time.process_time() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--long", action="store_true", help="entries of about 2,000 characters (300-320 words)"
    )
    parser.add_argument(
        "--edit-key-chars",
        type=int,
        help="compare this many characters of two entries for an edit (default: the gate's own "
        "EDIT_KEY_CHARS); a large value shows the uncapped cost",
    )
    args = parser.parse_args()
    global SENTENCE_WORDS
    if args.long:
        SENTENCE_WORDS = (300, 320)
    if args.edit_key_chars is not None:
        match_module.EDIT_KEY_CHARS = args.edit_key_chars
    rng = random.Random(args.seed)
    old_lines = make_old(rng, args.entries)
    old = "\n".join(old_lines)
    scenarios = {
        "week (1% removed, 1% edited, 2% re-dated, 2% added)": (0.01, 0.01, 0.02, 0.02),
        "heavy (10% removed, 10% edited, 10% added)": (0.10, 0.10, 0.10, 0.0),
    }
    print(
        f"MEMORY.md: {args.entries} entries, {len(old.encode()) / 1e6:.2f} MB; "
        f"p50 CPU time of {args.runs} runs; edits compared on "
        f"{match_module.EDIT_KEY_CHARS} characters"
    )
    print(f"{'rewrite':<54} {'gate':>9} {'difflib':>9} {'ratio':>6}  changes")
    for name, (removed, edited, added, redated) in scenarios.items():
        new = "\n".join(make_new(rng, old_lines, removed, edited, added, redated))
        gate_time, result = p50(lambda new=new: gate(old, new, TODAY, SINCE), args.runs)
        diff_time, _ = p50(
            lambda new=new: list(difflib.unified_diff(old.split("\n"), new.split("\n"))),
            args.runs,
        )
        counts = Counter(f"{c.cls}/{c.action}" for c in result.changes)  # type: ignore[attr-defined]
        summary = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        print(
            f"{name:<54} {gate_time * 1000:>7.0f}ms {diff_time * 1000:>7.0f}ms "
            f"{gate_time / diff_time:>5.1f}x  {summary}"
        )


if __name__ == "__main__":
    main()
