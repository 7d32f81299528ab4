"""`trinho demo`: the walkthrough, in a temporary workspace; nothing else is touched."""

from __future__ import annotations

from dataclasses import asdict

import click

from trinho.cli.app import cli, emit, json_option
from trinho.demo import render_demo, run_demo


@cli.command()
@click.option(
    "--locale", type=click.Choice(["en", "vi"]), default="en", help="Language of the walkthrough."
)
@json_option
def demo(locale: str, as_json: bool) -> None:
    """Walk through what trinho does, in a temporary workspace."""
    shown = run_demo(locale)
    emit(as_json, {"steps": [asdict(step) for step in shown]}, lambda: render_demo(shown))
