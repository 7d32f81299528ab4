"""`trinho tools`: the agent tools' definitions as JSON, for wiring into any model API."""

from __future__ import annotations

import json
import sys

import click

from trinho import tools as tools_mod
from trinho.cli.app import cli


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
    sys.stdout.write(json.dumps(tools_mod.export(fmt), ensure_ascii=False, indent=2) + "\n")
