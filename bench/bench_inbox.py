"""What the durable inbox costs: a 100-message burst answered through the real
python-telegram-bot against the fake Bot API, with the inbox on disk and kept in memory.

Each message is answered by an echo handler (no model), so the figure is the channel's own
cost: polling, the fsync'd appends (the update, the reply, the sent part, done), the sends.
Reports the time from the burst to the last reply and the fsyncs per message, both ways, in
the same run.

Run: .venv/bin/python bench/bench_inbox.py [--messages 100] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from support.fake_bot_api import FakeBotApi
from trinho.channels import TelegramSettings
from trinho.channels.inbox import Inbox, MemoryInbox
from trinho.channels.telegram import TelegramChannel
from trinho.workspace import init_workspace

OWNER = 77
FSYNCS = [0]
_fsync = os.fsync


def counting_fsync(fd: int) -> None:
    FSYNCS[0] += 1
    _fsync(fd)


def burst(messages: int, durable: bool) -> tuple[float, int]:
    """Seconds from the burst to the last reply, and the fsyncs made meanwhile."""
    with tempfile.TemporaryDirectory() as tmp, FakeBotApi() as api:
        ws = init_workspace(Path(tmp) / "ws", timezone="Asia/Ho_Chi_Minh").workspace
        inbox = Inbox(ws) if durable else MemoryInbox(ws.now)
        settings = TelegramSettings(token="123456:BENCH", owner_id=OWNER, base_url=api.base_url)

        def echo(text: str, ref: str | None = None) -> str:
            return f"re: {text}"

        with TelegramChannel(settings, on_message=echo, inbox=inbox, timeout=10) as channel:
            channel.start(poll_timeout=1)
            api.wait_for(lambda: any(c.method == "getUpdates" for c in api.calls))
            FSYNCS[0] = 0
            start = time.perf_counter()
            for n in range(messages):
                api.say(f"msg-{n}", user_id=OWNER, chat_id=OWNER)
            api.wait_for(lambda: len(api.ok_calls("sendMessage")) >= messages, timeout=300)
            return time.perf_counter() - start, FSYNCS[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    os.fsync = counting_fsync
    print(f"{args.messages}-message burst, median of {args.rounds} rounds")
    print(f"{'inbox':<10} {'last reply (s)':>15} {'ms/message':>11} {'fsyncs/message':>15}")
    for label, durable in (("on disk", True), ("in memory", False)):
        results = [burst(args.messages, durable) for _ in range(args.rounds)]
        seconds = statistics.median(r[0] for r in results)
        fsyncs = statistics.median(r[1] for r in results) / args.messages
        per = 1000 * seconds / args.messages
        print(f"{label:<10} {seconds:>15.2f} {per:>11.1f} {fsyncs:>15.2f}")


if __name__ == "__main__":
    main()
