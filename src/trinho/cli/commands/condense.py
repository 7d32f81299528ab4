"""`trinho condense`: the weekly condensation run, its report, and `--undo RUN_ID`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from trinho.channels.held import HeldChannel
from trinho.cli.app import cli, emit, json_option, owner_option, state
from trinho.cli.terminal import progress_shown
from trinho.condense.rules.report import render_report
from trinho.condense.rules.undo import UndoPlan, render_plan
from trinho.condense.run import run_condensation
from trinho.condense.store.apply import plan_dict, preview_undo, undo_run
from trinho.errors import TrinhoError
from trinho.i18n import N_, t

if TYPE_CHECKING:
    from trinho.channels import Channel
    from trinho.workspace import Workspace


@cli.command(name="condense")
@click.option("--dry-run", is_flag=True, help="Call the model and show the report; write nothing.")
@click.option("--force", is_flag=True, help="Run again in a week already condensed.")
@click.option(
    "--undo",
    "undo_id",
    metavar="RUN_ID",
    help=(
        "Restore the MEMORY.md run RUN_ID replaced (keeping what OpenClaw promoted since), take"
        " back its changes and approvals, withdraw its pending proposals; with --dry-run, say"
        " what it would do."
    ),
)
@owner_option
@json_option
def condense(
    dry_run: bool, force: bool, undo_id: str | None, owner: str | None, as_json: bool
) -> None:
    """Condense this week's notes and conversations into MEMORY.md (once per ISO week).

    Changes that may lose something are held as proposals and announced once; the model is
    TRINHO_MODEL or [model] name in the config.
    """
    ws = state().working(owner)
    if undo_id is not None:
        if force:
            raise TrinhoError.keyed("error.condense.undo_alone")
        if dry_run:
            plan = preview_undo(ws, undo_id)
            lines = [t(ws.locale, "condense.undo.preview", run=undo_id)]
            emit(
                as_json,
                {"run_id": undo_id} | plan_dict(plan),
                lambda: _lines(lines, plan, ws.locale),
            )
            return
        undone = undo_run(ws, undo_id)

        def human_undo() -> str:
            if undone.restored_from is not None:
                key = N_("condense.undone")
            elif undone.kept_current is not None:
                key = N_("condense.undone_removed")
            else:
                key = N_("condense.undone_absent")
            lines = [
                t(
                    ws.locale,
                    key,
                    run=undone.run_id,
                    path=undone.restored_from,
                    kept=undone.kept_current,
                )
            ]
            if undone.changed_since and undone.kept_current is not None:
                lines.append(t(ws.locale, "condense.undone_changed", kept=undone.kept_current))
            return _lines(lines, undone.plan, ws.locale, undone.kept_current)

        emit(as_json, undone.to_dict(), human_undo)
        return
    channel: Channel | None = None
    if not dry_run:
        channel = HeldChannel() if state().copied else _review_channel(ws)
    try:
        with progress_shown(ws.locale, as_json):
            report = run_condensation(ws, force=force, dry_run=dry_run, channel=channel)
    finally:
        if channel is not None:
            channel.close()
    emit(as_json, report.to_dict(), lambda: render_report(report, ws.locale))


def _lines(head: list[str], plan: UndoPlan | None, locale: str, kept: str | None = None) -> str:
    """The undo's first lines, then everything it reverts, withdraws and keeps."""
    return "\n".join([*head, *(render_plan(plan, locale, kept) if plan is not None else ())])


def _review_channel(ws: Workspace) -> Channel | None:
    """The configured channel, able to describe each held change as the queue reads it (its
    risk, buttons named by effect) when it announces them; None when its configuration is
    broken (the run then keeps the announcement in the outbox and says why)."""
    from trinho.channels import channel_from_config
    from trinho.review.service import QueueDecider

    try:
        return channel_from_config(ws, decider=QueueDecider(ws))
    except TrinhoError:
        return None
