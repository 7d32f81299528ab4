"""`trinho tools`: the agent tools' definitions as JSON, for wiring into any model API."""

from __future__ import annotations

import click

from trinho.cli.app import cli, profile_option, say, state
from trinho.textnorm import json_text
from trinho.tools import service as tools_mod
from trinho.workspace import CONFIG_PATH


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
    if profile is None and (state().workspace_dir / CONFIG_PATH).is_file():
        profile = tools_mod.config_profile(state().workspace())
    say(json_text(tools_mod.export(fmt, profile or "default"), indent=2))
