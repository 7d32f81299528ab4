"""`trinho context`: the prompt parts as the model would get them this turn."""

from __future__ import annotations

import click

from trinho.cli.app import cli, emit, json_option, owner_option, state
from trinho.i18n import t


@cli.command()
@click.option("--user", default=None, help="Whose facts (default: the owner).")
@owner_option
@json_option
def context(user: str | None, owner: str | None, as_json: bool) -> None:
    """Show the system block (MEMORY.md, facts) and the preamble (yesterday's, today's notes)."""
    ctx = state().records(owner).prompt_context(user)
    locale = state().locale()

    def human() -> str:
        return "\n".join(
            [
                t(locale, "context.cli_system", tokens=ctx.tokens["system"]),
                ctx.system,
                t(locale, "context.cli_preamble", tokens=ctx.tokens["preamble"]),
                ctx.preamble.rstrip("\n"),
            ]
        )

    emit(as_json, ctx.to_json(), human)
