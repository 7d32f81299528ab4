"""`trinho demo`: a week replayed in a temporary workspace; nothing else is touched."""

from __future__ import annotations

from pathlib import Path

import click

from trinho.cli.app import cli, emit, json_option, state
from trinho.demo.run import DemoRun, pick_player, render_demo, run_demo
from trinho.i18n import t
from trinho.textnorm import printable


@cli.command()
@click.option(
    "--locale", type=click.Choice(["en", "vi"]), default="en", help="Language of the walkthrough."
)
@click.option(
    "--keep",
    type=click.Path(file_okay=False, path_type=Path),
    help="Build the workspace in this new (or empty) folder and leave it there to explore.",
)
@json_option
def demo(locale: str, keep: Path | None, as_json: bool) -> None:
    """Replay one week of an owner's life through trinho, in a temporary workspace.

    The model named by TRINHO_MODEL, or by [model] name in the workspace's config (only
    read), plays the assistant in the chat, the nightly job and the condensation; without
    one, a scripted model answers with recorded replies.
    """
    run = run_demo(locale, keep=keep, player=pick_player(owner=state().workspace_dir))
    emit(as_json, run.summary, lambda: styled(run, locale), styled=True)


def styled(run: DemoRun, locale: str) -> str:
    """Colours for a terminal (click drops them when the output is piped)."""
    held = f"[{t(locale, 'gate.action.held')}]"
    auto = f"[{t(locale, 'gate.action.auto')}]"
    lines = []
    for shown in render_demo(run).split("\n"):
        line = printable(shown)  # the week's text is stored text; only the colours are ours
        bare = line.strip()
        if line[:1].isdigit() and ". " in line[:4]:
            line = click.style(line, bold=True, fg="cyan")
        elif bare.startswith("$ "):
            line = click.style(line, bold=True)
        elif bare.startswith(held):
            line = click.style(line, fg="yellow", bold=True)
        elif bare.startswith(auto):
            line = click.style(line, fg="green")
        elif bare.startswith("-> "):
            line = click.style(line, fg="blue")
        elif bare.startswith("| "):
            line = click.style(line, dim=True)
        lines.append(line)
    return "\n".join(lines)
