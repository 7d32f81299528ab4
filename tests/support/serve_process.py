"""`trinho serve` as a real process, for the end-to-end tests of both stores: the command line
that runs it, a model that answers `msg-N` with `re: msg-N` (and can kill the service inside a
turn), and the ways a test stops it."""

from __future__ import annotations

import contextlib
import functools
import re
import signal
import subprocess
from collections.abc import Callable, Iterator

from support.fake_bot_api import FakeBotApi
from support.fake_model_server import FakeServer, Reply, Seen, openai_reply, refusal_for

SERVE = "import sys; from trinho.cli import main; sys.exit(main())"


def sigterm_while_building(module: str, name: str) -> str:
    """A program that runs `trinho` with `module.name` (what `serve` builds first) sending the
    process SIGTERM as it is called: a stop while starting, before anything runs."""
    return f"""
import os, signal, sys
import {module}

build = {module}.{name}

def sigterm_while_starting(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGTERM)
    return build(*args, **kwargs)

{module}.{name} = sigterm_while_starting
from trinho.cli import main
sys.exit(main())
"""


MSG = re.compile(r"msg-(\d+)")


class EchoModel(FakeServer):
    """Answers `msg-N` with `re: msg-N`; `kill_at` kills the service at that model request,
    after the turn's user line is recorded and before its reply exists. A body the real
    servers would refuse is refused here too."""

    def __init__(self) -> None:
        super().__init__(Reply(openai_reply("unused")))
        self.kill_at: set[int] = set()
        self.victim: subprocess.Popen[str] | None = None
        self.count = 0

    def _next(self, seen: Seen) -> Reply:
        if not seen.path.startswith("/v1"):  # a probe of the server's own endpoints: 404
            return super()._next(seen)
        with self._lock:
            self.requests.append(seen)
            self.count += 1
            kill = self.count in self.kill_at
        if kill and self.victim is not None:
            self.victim.kill()
            self.victim.wait()
            return Reply(openai_reply("never read"))
        refused = refusal_for(seen.path, seen.body, self.context_tokens)
        if refused is not None:
            return refused
        return Reply(openai_reply(f"re: msg-{number_in(seen)}"))


def number_in(seen: Seen) -> str:
    """The N of the last `msg-N` in the request's last message."""
    last = seen.body["messages"][-1]["content"]
    (number,) = MSG.findall(str(last))[-1:]
    return str(number)


@contextlib.contextmanager
def reaped(proc: subprocess.Popen[str]) -> Iterator[subprocess.Popen[str]]:
    """The service for the block; killed and reaped if the block leaves it running."""
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def terminated(proc: subprocess.Popen[str], timeout: float = 60) -> tuple[str, str]:
    """SIGTERM, as a service manager stops it; what it printed."""
    proc.send_signal(signal.SIGTERM)
    return proc.communicate(timeout=timeout)


def answers(api: FakeBotApi) -> list[str]:
    """Every reply Telegram took, in order."""
    return [str(c.params["text"]) for c in api.ok_calls("sendMessage")]


def ended_or_answered(proc: subprocess.Popen[str], api: FakeBotApi, count: int) -> bool:
    return proc.poll() is not None or len(answers(api)) >= count


def run_until_answered(
    api: FakeBotApi, start: Callable[[], subprocess.Popen[str]], count: int
) -> int:
    """Start `serve` again after each kill until `count` answers arrived; the restarts made.
    `start` runs the service and tells the killer which process to kill."""
    restarts = 0
    while True:
        proc = start()
        try:
            api.wait_for(functools.partial(ended_or_answered, proc, api, count), 60)
            if proc.poll() is None:
                terminated(proc, timeout=30)
                assert proc.returncode == 0
                return restarts
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.communicate()
        assert proc.returncode == -signal.SIGKILL
        restarts += 1
