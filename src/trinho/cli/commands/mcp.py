"""`trinho mcp`: serve the agent tools and memory files to MCP clients."""

from __future__ import annotations

import click

from trinho.cli.app import caller_options, cli, emit, json_option, profile_option, say, state
from trinho.errors import TrinhoError
from trinho.i18n import N_, t
from trinho.mcp import server as mcp_server
from trinho.tools.service import Actor
from trinho.workspace import CONFIG_PATH


@cli.command()
@click.option("--http", "use_http", is_flag=True, help="Streamable HTTP instead of stdio.")
@click.option(
    "--host", default=mcp_server.DEFAULT_HOST, show_default=True, help="HTTP address to bind."
)
@click.option(
    "--port", default=mcp_server.DEFAULT_PORT, show_default=True, type=click.IntRange(1, 65535)
)
@click.option(
    "--init-token",
    is_flag=True,
    help="Write a new bearer token into the config ([mcp] token) if it has none, and exit.",
)
@caller_options
@profile_option
@json_option
def mcp(
    use_http: bool,
    host: str,
    port: int,
    init_token: bool,
    actor_kind: str,
    agent: str,
    profile: str | None,
    as_json: bool,
) -> None:
    """Serve the tools and resources over MCP: stdio by default, or --http with a bearer token.

    Over HTTP every request must carry `Authorization: Bearer TOKEN`, TOKEN being `[mcp] token`
    in the workspace config; `trinho mcp --init-token` creates one.
    """
    try:
        ws = state().workspace()
    except TrinhoError as exc:
        if init_token or use_http:
            raise
        # A client started us over stdio and shows only what comes back on stdout: answer its
        # requests with the reason, instead of a connection that closes with no word.
        say(f"trinho: error: {exc}", err=True)
        mcp_server.refuse_stdio(str(exc))
        raise SystemExit(1) from None
    if init_token:
        token, created = mcp_server.init_token(ws)
        path = ws.root / CONFIG_PATH
        key = N_("mcp.token_created") if created else N_("mcp.token_exists")
        emit(
            as_json,
            {"path": str(path), "created": created, "token": token},
            t(ws.locale, key, path=path, token=token),
        )
        return
    actor = Actor("job" if actor_kind == "job" else "chat", agent)
    if use_http:
        mcp_server.serve_http(ws, actor, host, port, profile)
    else:
        mcp_server.serve_stdio(ws, actor, profile)
