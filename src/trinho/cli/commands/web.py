"""`trinho web`: the review page in the browser, for the owner only."""

from __future__ import annotations

import click

from trinho.boundary import require_extra
from trinho.cli.app import cli, say, state
from trinho.i18n import t


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", default=8766, show_default=True, type=click.IntRange(1, 65535))
def web(host: str, port: int) -> None:
    """Serve the review page: what waits for you with its diffs, the runs with undo, MEMORY.md,
    facts and search. The first line printed is a one-time login link (10 minutes).

    Beyond loopback (`--host` other than 127.0.0.1) it is served only with `[web] token` set
    in the config, which the login then asks for.
    """
    ws = state().workspace()
    require_extra("web", "trinho web")
    from trinho.web import app as web_app
    from trinho.web.auth import Guard

    token = web_app.required_token(ws, host)
    guard = Guard(ws.now)
    app = web_app.web_app(ws, guard, host, port, token)
    say(t(ws.locale, "web.login_link", url=web_app.login_url(host, port, guard)))
    web_app.serve(host, port, app)
