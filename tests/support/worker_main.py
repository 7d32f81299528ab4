"""A worker in a process of its own, for the fault tests: `python worker_main.py URL HOME GATE
[NOW]`.

It runs `trinho.pg.jobs.run_worker` on the workspace config at HOME, with the fixed clock of
the tests (at NOW when given) and a scripted model whose first rewrite waits until the file
GATE exists: the test kills the process while it waits, in the middle of a condensation.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))

from support.condense_weeks import NOW, two_roles, vi_good_rewrite
from trinho.models import ChatRequest
from trinho.pg.jobs import Deployment, run_worker
from trinho.workspace import open_workspace

SCRIPT = Path(__file__)
"""This file, to run as the worker's process."""


def worker_path() -> str:
    """The worker process's PYTHONPATH: the tests, and the trinho these tests import (a
    worktree's source, not the one the environment installed)."""
    import os

    import trinho

    return os.pathsep.join([str(Path(__file__).parents[1]), str(Path(trinho.__file__).parents[1])])


def main(url: str, home: str, gate: str, now: str = NOW) -> None:
    from datetime import datetime

    moment = datetime.fromisoformat(now)
    ws = open_workspace(home, lambda: moment)

    def waiting(request: ChatRequest) -> str:
        Path(gate + ".reached").touch()
        while not Path(gate).exists():
            time.sleep(0.05)
        return vi_good_rewrite()

    model = two_roles(waiting)
    text = (ws.internal / "config.toml").read_text(encoding="utf-8")
    run_worker(
        Deployment(url, ws.config, text, clock=lambda: moment, model=model),
        heartbeat=0.5,
        stalled_after=2,
    )


if __name__ == "__main__":
    main(*sys.argv[1:5])
