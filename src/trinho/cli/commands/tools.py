"""`trinho tools`: the agent tools' definitions as JSON, for wiring into any model API."""

from __future__ import annotations

import sys

import click

from trinho.cli.app import caller_options, cli, emit, owner_option, profile_option, say, state
from trinho.textnorm import json_text
from trinho.tools import service as tools_mod


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
@click.argument("tool")
@click.option(
    "--args",
    "raw_args",
    default=None,
    help="The tool's arguments as one JSON object. Default: read from standard input.",
)
@caller_options
@profile_option
@owner_option
def call(
    tool: str,
    raw_args: str | None,
    actor_kind: str,
    agent: str,
    profile: str | None,
    owner: str | None,
) -> None:
    """Call one agent tool and print its result as one JSON line: a host that runs trinho
    per call (the OpenClaw plugin) gets what MCP would give, with no server to keep.

    The line is {"is_error", "text", "data"}; a tool error exits 1 after printing it.
    """
    memory, chosen = owner_memory(owner, profile)
    given = sys.stdin.read() if raw_args is None else raw_args
    actor = tools_mod.Actor("job" if actor_kind == "job" else "chat", agent)
    result = tools_mod.call(memory, tool, given, actor, chosen)
    emit(True, {"is_error": result.is_error, "text": result.text, "data": result.data}, "")
    if result.is_error:
        raise SystemExit(1)


def owner_memory(owner: str | None, profile: str | None) -> tuple[tools_mod.ToolTarget, str]:
    """What the tool works on, and the profile: the file workspace, or on a database one
    owner's records (the workspace's config gives the profile, the user and the budgets)."""
    url = state().database_url()
    if url is None:
        ws = state().working(owner)
        return ws, tools_mod.config_profile(ws, profile)
    records = state().database_records(url, owner)
    home = state().settings()
    return records, profile or (tools_mod.config_profile(home) if home is not None else "default")
