"""`trinho context`: the prompt parts as the model would get them this turn."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

import click

from trinho.cli.app import cli, emit, json_option, owner_option, state
from trinho.context.assembly import Budgets, Context, ContextInputs, assemble, fact_lines
from trinho.context.run import budgets_from_config, build_context, note_lines
from trinho.i18n import t

if TYPE_CHECKING:
    from trinho.pg.protocol import Records


def _from_records(records: Records, user: str | None) -> Context:
    """The prompt parts assembled from one owner's records in the database, as
    `build_context` assembles them from the files, with the workspace's `[context]` budgets
    when it has a config. OpenClaw's session files and the over-budget warning are the file
    workspace's alone so far."""
    locale = state().locale()
    today = records.today()
    yesterday = today - timedelta(days=1)
    inputs = ContextInputs(
        memory_text=records.memory_text(),
        facts=fact_lines(records.list_facts(user).facts, today, locale),
        yesterday=note_lines(yesterday, records.read_notes(yesterday).items),
        today=note_lines(today, records.read_notes(today).items),
        loaded_by_openclaw=(),
    )
    ws = state().settings()
    return assemble(inputs, budgets_from_config(ws) if ws is not None else Budgets(), locale)


@cli.command()
@click.option("--user", default=None, help="Whose facts (default: the owner).")
@owner_option
@json_option
def context(user: str | None, owner: str | None, as_json: bool) -> None:
    """Show the system block (MEMORY.md, facts) and the preamble (yesterday's, today's notes)."""
    from trinho.pg.protocol import FileRecords

    records = state().records(owner)
    if isinstance(records, FileRecords):
        ctx = build_context(records.ws, user)
    else:
        ctx = _from_records(records, user)
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
