"""`trinho chat`: talk to the assistant in the terminal, with the memory tools."""

from __future__ import annotations

import click

from trinho.cli.app import cli, emit, json_option, say, state
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
        replies: list[str] = []
        for text in messages:
            result = session.ask(text)
            replies.append(result.reply)
            turns.append(
                {
                    "message": text,
                    "reply": result.reply,
                    "tools": [{"name": u.name, "error": u.is_error} for u in result.tool_uses],
                }
            )
        emit(as_json, {"turns": turns}, "\n".join(replies))
        return
    say(t(ws.locale, "chat.intro"), err=True)
    while True:
        try:
            text = click.prompt(">", prompt_suffix=" ", default="", show_default=False)
        except (EOFError, click.exceptions.Abort):
            break
        if not text.strip():
            break
        say(session.ask(text).reply)
