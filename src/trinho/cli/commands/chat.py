"""`trinho chat`: talk to the assistant in the terminal, with the memory tools."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from trinho.cli.app import cli, emit, json_option, owner_option, say, state
from trinho.cli.terminal import progress_shown
from trinho.errors import TrinhoError
from trinho.i18n import t
from trinho.models.progress import Step

if TYPE_CHECKING:
    from trinho.conversations.agent import ExtraTool, TurnResult
    from trinho.workspace import Workspace


Ask = Callable[[str], "TurnResult"]


def _extra_tools(ws: Workspace, model: str) -> tuple[ExtraTool, ...]:
    """Claude's memory tool over the workspace, for an `anthropic:` model when
    `[tools] claude_memory` asks for it."""
    if not (model.startswith("anthropic:") and ws.config.tools.claude_memory):
        return ()
    from trinho.conversations.agent import ExtraTool
    from trinho.integrations.store import MEMORY_SPEC, run_command

    return (ExtraTool(MEMORY_SPEC, lambda w, args, actor: run_command(w, args, "claude")),)


def _turns(owner: str | None) -> tuple[Ask, str]:
    """How a turn is asked, and the owner's locale: on the file workspace, its chat session;
    on a database, each turn on its own working copy of the owner's records, checked in when
    the turn ends (its transcript lines, a note or fact it saved), the conversation's history
    carried from one turn to the next."""
    from trinho.conversations.agent import ChatSession
    from trinho.models import load_model

    if state().database_url() is None:
        ws = state().working(owner)
        model = load_model(ws, "chat")
        return ChatSession(ws, model, extra=_extra_tools(ws, model.name)).ask, ws.locale
    from trinho.cli.app import choose_owner
    from trinho.cli.commands.worker import deployment
    from trinho.models.base import Message
    from trinho.pg.connect import Database
    from trinho.pg.workcopy import run_on_copy

    found = deployment()
    db = Database(found.url, max_size=2)
    click.get_current_context().find_root().call_on_close(db.close)
    chosen, _ = choose_owner(db, owner)
    history: list[Message] = []

    def ask(text: str) -> TurnResult:
        def turn(ws: Workspace) -> tuple[TurnResult, list[Message]]:
            session = ChatSession(ws, load_model(ws, "chat"))
            session.history = list(history)
            return session.ask(text), session.history

        result, history[:] = run_on_copy(
            db, chosen, found.config, found.config_text, turn, clock=found.clock
        )
        return result

    return ask, state().locale()


def thought(ask: Ask, text: str, locale: str, quiet: bool = False) -> TurnResult:
    """The turn's result, a "thinking" line on the terminal meanwhile, wiped before the reply."""
    with progress_shown(locale, quiet, Step("thinking")):
        return ask(text)


@cli.command()
@click.option(
    "-m", "--message", "messages", multiple=True, help="Send this message and exit (repeatable)."
)
@owner_option
@json_option
def chat(messages: tuple[str, ...], owner: str | None, as_json: bool) -> None:
    """Chat with the configured model (actor `chat`): every turn is recorded in today's
    transcript, and the model may save notes and facts. Without --message, reads lines from
    the terminal until an empty line or end of input."""
    ask, locale = _turns(owner)
    if messages:
        turns: list[dict[str, object]] = []
        try:
            for text in messages:
                result = thought(ask, text, locale, as_json)
                if not as_json:  # shown as it comes: a later turn that fails loses none
                    say(result.reply)
                turn: dict[str, object] = {
                    "message": text,
                    "reply": result.reply,
                    "tools": [{"name": u.name, "error": u.is_error} for u in result.tool_uses],
                }
                if result.cut:  # the server stopped it at its length limit
                    turn["cut"] = True
                turns.append(turn)
        finally:
            if as_json:
                emit(True, {"turns": turns}, "")
        return
    say(t(locale, "chat.intro"), err=True)
    while True:
        try:
            text = click.prompt(">", prompt_suffix=" ", default="", show_default=False)
        except (EOFError, click.exceptions.Abort):
            break
        if not text.strip():
            break
        try:
            say(thought(ask, text, locale).reply)
        except TrinhoError as exc:  # one turn failed (an overflow, a server down): say so, go on
            say(exc.localized(locale), err=True)
