"""Benchmark memory_save and conversation import, each next to a plain baseline in the same run.

    python bench/bench_notes.py [--notes 2000] [--per-day 50] [--turns 20000] [--dir DIR]

save_note (lock + UTF-8 check of the day file + one append + fsync) is timed call by call and
shown as p50/p95 beside two baselines: a plain open/append/close with no lock or fsync, and the
same append followed by fsync (the floor any durable append pays). Import throughput (turns/s,
parsing the JSON lines file included) is shown beside writing the same JSON lines straight to
per-day files with no validation, lock, dedup or fsync.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections import defaultdict
from datetime import datetime, timedelta
from pathlib import Path

from trinho.conversations import store as transcripts
from trinho.notes import store as notes
from trinho.workspace import init_workspace

START = datetime.fromisoformat("2026-01-01T08:00:00+07:00")


class StepClock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def percentile(samples: list[float], q: float) -> float:
    return (
        statistics.quantiles(samples, n=100, method="inclusive")[q - 1] if q < 100 else max(samples)
    )


def note_text(i: int) -> str:
    return f"Ghi chú số {i}: gặp anh Đức ở quán cà phê lúc 10 giờ, nhớ mang tài liệu"


def bench_save_note(root: Path, count: int, per_day: int) -> dict[str, list[float]]:
    clock = StepClock()
    ws = init_workspace(root / "ws", timezone="Asia/Ho_Chi_Minh", clock=clock).workspace
    plain_dir = root / "plain"
    synced_dir = root / "synced"
    plain_dir.mkdir()
    synced_dir.mkdir()
    times: dict[str, list[float]] = {"plain append": [], "append + fsync": [], "save_note": []}
    for i in range(count):
        clock.now = START + timedelta(days=i // per_day, minutes=i % per_day)
        line = (f"- {clock.now:%H:%M} {note_text(i)}\n").encode()
        day = f"{clock.now:%Y-%m-%d}.md"

        t0 = time.perf_counter()
        with open(plain_dir / day, "ab") as handle:
            handle.write(line)
        t1 = time.perf_counter()
        with open(synced_dir / day, "ab") as handle:
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())
        t2 = time.perf_counter()
        notes.save_note(ws, note_text(i))
        t3 = time.perf_counter()

        times["plain append"].append(t1 - t0)
        times["append + fsync"].append(t2 - t1)
        times["save_note"].append(t3 - t2)
    return times


def make_turns_file(path: Path, count: int) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for i in range(count):
            at = START + timedelta(minutes=7 * i)
            record = {
                "at": at.isoformat(),
                "role": "user" if i % 2 else "assistant",
                "text": f"Lượt {i}: hôm nay trời Hà Nội se lạnh, nhớ mặc áo ấm nhé",
                "ref": f"tg-{i}",
            }
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def bench_import(root: Path, count: int) -> tuple[float, float, int]:
    source = root / "turns.jsonl"
    make_turns_file(source, count)
    ws = init_workspace(root / "iws", timezone="Asia/Ho_Chi_Minh").workspace

    t0 = time.perf_counter()
    by_day: dict[str, list[str]] = defaultdict(list)
    with source.open(encoding="utf-8") as handle:
        for line in handle:
            by_day[line[8:18]].append(line)  # the date part of "at" (already owner-zone)
    out = root / "baseline"
    out.mkdir()
    for day, lines in by_day.items():
        with open(out / f"{day}.jsonl", "a", encoding="utf-8") as target:
            target.writelines(lines)
    baseline = time.perf_counter() - t0

    t0 = time.perf_counter()
    report = transcripts.import_turns(ws, transcripts.read_import_file(source))
    ours = time.perf_counter() - t0
    assert report.imported == count
    return count / baseline, count / ours, report.days


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--per-day", type=int, default=50)
    parser.add_argument("--turns", type=int, default=20_000)
    parser.add_argument(
        "--dir", type=Path, default=None, help="where to write (default: a temp dir)"
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="trinho-bench-", dir=args.dir) as folder:
        root = Path(folder)
        times = bench_save_note(root, args.notes, args.per_day)
        print(f"save_note: {args.notes} notes, {args.per_day} per day file, in {root.parent}")
        print(f"  {'':<16}{'p50 (ms)':>10}{'p95 (ms)':>10}{'mean (ms)':>11}")
        for name, samples in times.items():
            print(
                f"  {name:<16}{statistics.median(samples) * 1e3:>10.3f}"
                f"{percentile(samples, 95) * 1e3:>10.3f}{statistics.fmean(samples) * 1e3:>11.3f}"
            )
        base_rate, our_rate, days = bench_import(root, args.turns)
        print(f"import: {args.turns} turns over {days} days")
        print(f"  {'':<28}{'turns/s':>10}")
        print(f"  {'plain write (baseline)':<28}{base_rate:>10,.0f}")
        print(f"  {'import_turns':<28}{our_rate:>10,.0f}")


if __name__ == "__main__":
    main()
