"""`trinho serve`: run the channel, the chat agent, the scheduler and the outbox until stopped."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import click

from trinho.cli.app import cli, state

if TYPE_CHECKING:
    from trinho.serve.service import Runs


@cli.command()
@click.option("--verbose", is_flag=True, help="Also log debug lines.")
def serve(verbose: bool) -> None:
    """Run until SIGTERM or Ctrl-C: Telegram polling (or the console), the chat agent, the
    weekly condensation and nightly jobs on schedule, announcements through the outbox, and
    the MCP HTTP server when `[mcp] http = true`. Logs JSON lines on stderr; without a
    Telegram token, announcements are printed on stdout. A stop asked for while starting
    exits 0 as well.

    On a PostgreSQL store it runs one Telegram bot for every owner: a user an owner has
    (`trinho owners telegram ID USER_ID`) chats with that owner's memory and decides that
    owner's changes; each owner's announcements go to their chat; strangers are refused.
    The jobs there are the queue's (`trinho worker`)."""
    from trinho.serve.signals import StopRequest

    stop = StopRequest().install()
    try:
        from trinho.logs import configure_logging

        configure_logging(logging.DEBUG if verbose else logging.INFO)
        from trinho.serve.service import build_service, serve_forever

        url = state().database_url()
        service: Runs = build_service(state().workspace()) if url is None else _owners(url)
    except BaseException:
        stop.restore()
        raise
    serve_forever(service, stop)


def _owners(url: str) -> Runs:
    """The bot of many owners over the database at `url`: `[telegram]` (or the env) names
    the bot; the workspace's config, when there is one, is each owner's working copy's."""
    from trinho.channels.settings import bot_settings
    from trinho.config import Config
    from trinho.pg.connect import Database
    from trinho.pg.telegram import OwnersBot, OwnersService
    from trinho.workspace import clock_from_env

    st = state()
    ws = st.settings()
    settings = bot_settings(ws)
    config_file = ws.internal / "config.toml" if ws is not None else None
    config_text = (
        config_file.read_text(encoding="utf-8")
        if config_file is not None and config_file.is_file()
        else None
    )
    config = ws.config if ws is not None else Config()
    db = Database(url, max_size=4)
    click.get_current_context().find_root().call_on_close(db.close)
    bot = OwnersBot(
        settings,
        db,
        config=config,
        config_text=config_text,
        clock=clock_from_env(),
        locale=st.locale(),
    )
    return OwnersService(bot, grace=config.service.stop_grace)
