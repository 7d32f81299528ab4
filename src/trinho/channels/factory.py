"""Which channel a workspace uses: Telegram when a token is set, the console otherwise."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TextIO

from trinho.channels.base import Channel, Decider, MessageHandler, ReviewQueue
from trinho.channels.console import ConsoleChannel
from trinho.channels.outbox import Outbox
from trinho.channels.settings import telegram_settings
from trinho.workspace import Workspace


def channel_from_config(
    ws: Workspace,
    *,
    decider: Decider | None = None,
    on_message: MessageHandler | None = None,
    env: Mapping[str, str] | None = None,
    stream: TextIO | None = None,
) -> Channel:
    """The configured channel. A Telegram channel finds announced notifications in the
    workspace's outbox, keeps the owner's messages in its inbox, and handles buttons and
    messages only once started (`start()`)."""
    settings = telegram_settings(ws, env)
    if settings is None:
        queue = decider if isinstance(decider, ReviewQueue) else None
        return ConsoleChannel(ws.locale, stream, queue)
    from trinho.channels.inbox import Inbox
    from trinho.channels.telegram import TelegramChannel

    return TelegramChannel(
        settings,
        locale=ws.locale,
        lookup=Outbox(ws),
        decider=decider,
        on_message=on_message,
        inbox=Inbox(ws),
        review_url=ws.config.web.public_url if ws.config.web.enabled else None,
    )
