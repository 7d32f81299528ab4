"""`trinho tools`: the agent tools' definitions as JSON, for wiring into any model API."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from trinho.boundary import public_error
from trinho.cli.app import (
    State,
    caller_options,
    cli,
    emit,
    owner_option,
    profile_option,
    say,
    state,
)
from trinho.errors import TrinhoError
from trinho.textnorm import json_text, one_line
from trinho.tools import service as tools_mod
from trinho.tools.args import Request, parse_request, request_id

KEPT_WORKSPACES = 16
"""How many workspaces `trinho call --serve` keeps open at once (one a gateway's agent)."""


@cli.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(tools_mod.FORMATS),
    default="openai",
    show_default=True,
    help="Tool format of the model API.",
)
@profile_option
def tools(fmt: tools_mod.ToolFormat, profile: str | None) -> None:
    """Print the agent tools (memory_save, user_memory_save, ...) as one JSON list."""
    found = state().settings() if profile is None else None
    if found is not None:  # the config's profile, whatever store it names
        profile = tools_mod.config_profile(found)
    say(json_text(tools_mod.export(fmt, profile or "default"), indent=2))


@cli.command("call")
@click.argument("tool", required=False)
@click.option(
    "--args",
    "raw_args",
    default=None,
    help="The tool's arguments as one JSON object. Default: read from standard input.",
)
@click.option(
    "--serve",
    is_flag=True,
    help="Keep running: read one JSON request a line on standard input ({id, workspace, "
    "agent, as, tool, params}) and answer each with one JSON line, in order.",
)
@caller_options
@profile_option
@owner_option
def call(
    tool: str | None,
    raw_args: str | None,
    serve: bool,
    actor_kind: str,
    agent: str,
    profile: str | None,
    owner: str | None,
) -> None:
    """Call one agent tool and print its result as one JSON line: a host that runs trinho
    per call gets what MCP would give, with no server to keep.

    The line is {"is_error", "text", "data"}; a tool error exits 1 after printing it. With
    --serve, one process answers many calls (the OpenClaw plugin keeps one per gateway), each
    line as the one-call form would answer it, with the request's id.
    """
    if serve:
        if tool is not None or raw_args is not None:
            raise TrinhoError.keyed("error.serve.no_tool")
        serve_calls(owner, profile)
        return
    if tool is None:
        raise click.UsageError("Missing argument 'TOOL'.")
    given = sys.stdin.read() if raw_args is None else raw_args
    answer = called(state(), tool, given, actor_kind, agent, profile, owner)
    emit(True, answer, "")
    if answer["is_error"]:
        raise SystemExit(1)


def called(
    st: State,
    tool: str,
    given: str | dict[str, Any],
    actor_kind: str,
    agent: str,
    profile: str | None,
    owner: str | None,
) -> dict[str, Any]:
    """One call, as `trinho call` and each `--serve` request make it: the one place a call
    is decided."""
    memory, chosen = owner_memory(st, owner, profile)
    actor = tools_mod.Actor("job" if actor_kind == "job" else "chat", agent)
    host: tuple[tools_mod.MemoryTool, ...] = ()
    if chosen == "openclaw":  # the plugin's doors for the agent's own file writes
        from trinho.integrations.files import HOST_TOOLS as host
    result = tools_mod.call(memory, tool, given, actor, chosen, host_tools=host)
    return {"is_error": result.is_error, "text": result.text, "data": result.data}


def serve_calls(owner: str | None, profile: str | None) -> None:
    """Answer each request line until standard input ends. A line that is no request, or a
    call that cannot start (no workspace there), is answered {"id", "error"}; the loop goes
    on. Workspaces stay open between calls, with their search index."""
    from trinho.search import close_kept

    opened: dict[str, State] = {}
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            answer = _serve_one(line, opened, owner, profile)
            emit(True, answer, "")
            sys.stdout.flush()  # the plugin waits for this line
    finally:
        close_kept()


def _serve_one(
    line: str, opened: dict[str, State], owner: str | None, profile: str | None
) -> dict[str, Any]:
    st: State | None = None
    try:
        request: Request = parse_request(line)
        st = opened.pop(request.workspace, None) or State(Path(request.workspace))
        opened[request.workspace] = st  # the newest last: the oldest is closed first
        while len(opened) > KEPT_WORKSPACES:
            opened.pop(next(iter(opened))).close_databases()
        answer = called(
            st,
            request.tool,
            request.params,
            request.kind,
            request.agent,
            request.profile or profile,
            owner,
        )
        return {"id": request.id, **answer}
    except Exception as exc:  # one request's failure, never the loop's
        # The host named the workspace: its path is said as given, to the host only.
        shown = exc if isinstance(exc, TrinhoError) else public_error(exc, None)
        locale = st.locale() if st is not None else "en"
        return {"id": request_id(line), "error": one_line(shown.localized(locale))}


def owner_memory(
    st: State, owner: str | None, profile: str | None
) -> tuple[tools_mod.ToolTarget, str]:
    """What the tool works on, and the profile: the file workspace, or on a database one
    owner's records (the workspace's config gives the profile, the user and the budgets)."""
    url = st.database_url()
    if url is None:
        ws = st.working(owner)
        return ws, tools_mod.config_profile(ws, profile)
    records = st.database_records(url, owner)
    home = st.settings()
    return records, profile or (tools_mod.config_profile(home) if home is not None else "default")
