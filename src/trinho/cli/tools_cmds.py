"""`trinho tools`: the agent tools' definitions as JSON, for wiring into any model API."""

from __future__ import annotations

import click

from trinho import tools as tools_mod
from trinho.cli.app import cli, say
from trinho.textnorm import json_text


@cli.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(tools_mod.FORMATS),
    default="openai",
    show_default=True,
    help="Tool format of the model API.",
)
def tools(fmt: tools_mod.ToolFormat) -> None:
    """Print the agent tools (memory_save, user_memory_save, ...) as one JSON list."""
    say(json_text(tools_mod.export(fmt), indent=2))
