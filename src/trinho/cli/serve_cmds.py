"""`trinho serve`: run the channel, the chat agent, the scheduler and the outbox until stopped."""

from __future__ import annotations

import logging

import click

from trinho.cli.app import cli, state


@cli.command()
@click.option("--verbose", is_flag=True, help="Also log debug lines.")
def serve(verbose: bool) -> None:
    """Run until SIGTERM or Ctrl-C: Telegram polling (or the console), the chat agent, the
    weekly condensation and nightly jobs on schedule, announcements through the outbox, and
    the MCP HTTP server when `[mcp] http = true`. Logs JSON lines on stderr; without a
    Telegram token, announcements are printed on stdout."""
    from trinho.service import build_service, configure_logging, serve_forever

    configure_logging(logging.DEBUG if verbose else logging.INFO)
    serve_forever(build_service(state().workspace()))
