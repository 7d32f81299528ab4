"""What the scheduler and the chat agent cost, beside the floor they cannot go under.

1. Scheduler: `plan()` over 20 jobs after a year of downtime (one catch-up run per job),
   beside the baseline that enumerates every missed slot (what a per-slot catch-up would do).
2. Agent turn: `run_turn` with a scripted model making one memory_save call (context built,
   tools dispatched, both turns recorded), beside the floor: `save_note` + two `record_turn`
   calls, the same durable writes without the agent.

Run: .venv/bin/python bench/bench_service.py [--turns 200] [--plans 2000]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from datetime import time as wall
from pathlib import Path
from zoneinfo import ZoneInfo

from trinho.conversations.agent import run_turn
from trinho.conversations.store import record_turn
from trinho.models import ChatRequest, ChatResponse, ScriptedModel, ToolCall
from trinho.notes.store import save_note
from trinho.schedule.plan import JobSpec, JobState, Schedule, plan
from trinho.tools.service import Actor
from trinho.workspace import init_workspace

TZ = ZoneInfo("Asia/Ho_Chi_Minh")


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.95) - 1]


def row(label: str, p50: float, p95: float, unit: str, scale: float) -> str:
    return f"  {label:<52} p50 {p50 * scale:9.2f} {unit}   p95 {p95 * scale:9.2f} {unit}"


def bench_scheduler(repeat: int) -> list[str]:
    jobs = [
        JobSpec(
            f"job{i}", "prompt", Schedule(frozenset({i % 7, (i * 3) % 7}), wall(i % 24, 0)), "p"
        )
        for i in range(20)
    ]
    now = datetime(2026, 11, 29, 14, 5, tzinfo=TZ)
    state = {job.name: JobState(covered_until=now - timedelta(days=365)) for job in jobs}

    def ours() -> object:
        return plan(jobs, state, now)

    def every_slot() -> list[list[datetime]]:
        return [job.schedule.slots_between(state[job.name].covered_until, now) for job in jobs]

    due = len(plan(jobs, state, now).due)
    missed = sum(len(slots) for slots in every_slot())
    return [
        f"Scheduler: 20 jobs, one year down ({missed} missed slots, {due} runs owed):",
        row("baseline: enumerate every missed slot", *timed(every_slot, repeat), "us", 1e6),
        row("plan(): latest slot per job", *timed(ours, repeat), "us", 1e6),
    ]


def bench_turns(repeat: int) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        ws = init_workspace(Path(tmp) / "ws", timezone="Asia/Ho_Chi_Minh").workspace
        (ws.root / "MEMORY.md").write_text(
            "".join(f"- 2026-11-{1 + i % 28:02d}: mục {i} về Hà Nội\n" for i in range(300)),
            "utf-8",
        )
        call = ChatResponse("", (ToolCall("c", "memory_save", {"text": "Mua hoa cho mẹ"}),))

        def reply(request: ChatRequest) -> ChatResponse | str:
            last = request.messages[-1]
            return "Đã nhớ." if last.role == "tool" else call

        model = ScriptedModel(reply)

        def floor() -> object:
            record_turn(ws, "user", "nhớ mua hoa cho mẹ")
            save_note(ws, "Mua hoa cho mẹ")
            return record_turn(ws, "assistant", "Đã nhớ.")

        def turn() -> object:
            return run_turn(ws, model, "nhớ mua hoa cho mẹ", actor=Actor("chat"))

        base = timed(floor, repeat)
        ours = timed(turn, repeat)
    return [
        "Chat turn (300-entry MEMORY.md, one memory_save call, scripted model):",
        row("baseline: save_note + 2 record_turn (the writes)", *base, "ms", 1e3),
        row("run_turn (context, tools, transcript)", *ours, "ms", 1e3),
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--plans", type=int, default=2000)
    args = parser.parse_args()
    print("\n".join(bench_scheduler(args.plans) + bench_turns(args.turns)))


if __name__ == "__main__":
    main()
