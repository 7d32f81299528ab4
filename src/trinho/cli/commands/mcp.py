"""`trinho mcp`: serve the agent tools and memory files to MCP clients."""

from __future__ import annotations

import click

from trinho.cli.app import (
    OWNER_ENV,
    caller_options,
    cli,
    emit,
    json_option,
    owner_option,
    profile_option,
    say,
    state,
)
from trinho.errors import TrinhoError
from trinho.i18n import N_, t
from trinho.mcp import server as mcp_server
from trinho.tools.service import Actor
from trinho.workspace import CONFIG_PATH, Workspace


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
@owner_option
@json_option
def mcp(
    use_http: bool,
    host: str,
    port: int,
    init_token: bool,
    actor_kind: str,
    agent: str,
    profile: str | None,
    owner: str | None,
    as_json: bool,
) -> None:
    """Serve the tools and resources over MCP: stdio by default, or --http with a bearer token.

    Over HTTP every request must carry `Authorization: Bearer TOKEN`, TOKEN being `[mcp] token`
    in the workspace config; `trinho mcp --init-token` creates one. With a PostgreSQL store,
    --http serves every owner: TOKEN is an owner's, from `trinho owners token ID`; over stdio
    it serves the owner --owner names.
    """
    actor = Actor("job" if actor_kind == "job" else "chat", agent)
    url = state().database_url() if not init_token else None
    if url is not None and use_http:
        _serve_owners(url, actor, host, port, profile)
        return
    try:
        if url is not None:  # stdio on a database: one owner's records, as `trinho call`
            from trinho.cli.commands.tools import owner_memory

            records, chosen = owner_memory(state(), owner, profile)
            assert not isinstance(records, Workspace)
            mcp_server.serve_records_stdio(records, actor, chosen)
            return
        if owner is not None:
            raise TrinhoError.keyed("error.owner.files", owner=owner, env=OWNER_ENV)
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
    if use_http:
        mcp_server.serve_http(ws, actor, host, port, profile)
    else:
        mcp_server.serve_stdio(ws, actor, profile)


def _serve_owners(url: str, actor: Actor, host: str, port: int, profile: str | None) -> None:
    """`--http` on a PostgreSQL store: every owner, each request as its token's owner, with
    the serving workspace config's settings when there is one."""
    from trinho.context.assembly import Budgets
    from trinho.context.run import budgets_from_config
    from trinho.workspace import clock_from_env

    ws = state().settings()
    settings = mcp_server.OwnerSettings(
        clock=clock_from_env(),
        user=ws.config.owner if ws is not None else "owner",
        locale=state().locale(),
        budgets=budgets_from_config(ws) if ws is not None else Budgets(),
    )
    chosen = profile or (ws.config.tools.profile if ws is not None else "default")
    extra = ws.config.mcp.allowed_hosts if ws is not None else ()
    mcp_server.serve_owners_http(url, actor, settings, host, port, chosen, extra)
