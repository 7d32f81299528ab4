"""`trinho worker`: take every owner's jobs from the queue in the database (the operator's).

Any number of workers, on any number of machines, share the queue (`trinho.pg.jobs`). The
config every owner's jobs read is this workspace's (its model, its schedule), in each owner's
zone; the memory they work on is the owner's, in the database.
"""

from __future__ import annotations

import os
import socket

import click

from trinho.cli.app import cli, say, state
from trinho.errors import TrinhoError
from trinho.i18n import N_, t
from trinho.pg.jobs import Deployment
from trinho.workspace import CONFIG_PATH, clock_from_env


def deployment() -> Deployment:
    """The deployment this command runs in: the database, and the config of the workspace."""
    from trinho.config import Config

    url = state().database_url()
    if url is None:
        raise TrinhoError.keyed("error.store.no_url", config=CONFIG_PATH)
    home = state().settings()
    path = home.root / CONFIG_PATH if home is not None else None
    text = path.read_text(encoding="utf-8") if path is not None and path.is_file() else None
    return Deployment(url, home.config if home is not None else Config(), text, clock_from_env())


@cli.command()
@click.option("--once", is_flag=True, help="Run the jobs waiting now, then stop (for cron).")
@click.option("--name", help="The worker's name in the queue (default: host and process id).")
def worker(once: bool, name: str | None) -> None:
    """Take every owner's jobs from the queue in the PostgreSQL store, one at a time.

    Each minute one of the workers defers a pass for each owner who owes a run (the weekly
    condensation, the nightly facts, the digest), and puts back the jobs of a worker that
    stopped answering. Stops on Ctrl-C or SIGTERM.
    """
    from trinho.pg.jobs import run_worker

    found = deployment()
    named = name or f"{socket.gethostname()}-{os.getpid()}"
    key = N_("worker.once") if once else N_("worker.started")
    say(t(state().locale(), key, name=named), err=True)
    run_worker(found, wait=not once, name=named)
