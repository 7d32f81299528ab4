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
    Telegram token, announcements are printed on stdout. A stop asked for while starting
    exits 0 as well."""
    from trinho.serve.signals import StopRequest

    stop = StopRequest().install()
    try:
        from trinho.logs import configure_logging

        configure_logging(logging.DEBUG if verbose else logging.INFO)
        from trinho.serve.service import build_service, serve_forever

        service = build_service(state().workspace())
    except BaseException:
        stop.restore()
        raise
    serve_forever(service, stop)
