"""`trinho chat`: talk to the assistant in the terminal, with the memory tools."""

from __future__ import annotations

import click

from trinho.cli.app import cli, emit, json_option, say, state
from trinho.errors import TrinhoError
from trinho.i18n import t


@cli.command()
@click.option(
    "-m", "--message", "messages", multiple=True, help="Send this message and exit (repeatable)."
)
@json_option
def chat(messages: tuple[str, ...], as_json: bool) -> None:
    """Chat with the configured model (actor `chat`): every turn is recorded in today's
    transcript, and the model may save notes and facts. Without --message, reads lines from
    the terminal until an empty line or end of input."""
    from trinho.conversations.agent import ChatSession
    from trinho.models import load_model

    ws = state().workspace()
    session = ChatSession(ws, load_model(ws, "chat"))
    if messages:
        turns: list[dict[str, object]] = []
        try:
            for text in messages:
                result = session.ask(text)
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
    say(t(ws.locale, "chat.intro"), err=True)
    while True:
        try:
            text = click.prompt(">", prompt_suffix=" ", default="", show_default=False)
        except (EOFError, click.exceptions.Abort):
            break
        if not text.strip():
            break
        try:
            say(session.ask(text).reply)
        except TrinhoError as exc:  # one turn failed (an overflow, a server down): say so, go on
            say(exc.localized(ws.locale), err=True)
