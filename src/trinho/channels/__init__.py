"""Channels: where the owner hears about held changes and decides them.

`Outbox` announces each notification once; `channel_from_config` picks Telegram when a token
is set and the console otherwise. The Telegram channel is imported lazily (an extra).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trinho.exports import lazy_exports

if TYPE_CHECKING:
    from trinho.channels.base import Channel as Channel
    from trinho.channels.base import ChannelError as ChannelError
    from trinho.channels.base import Decider as Decider
    from trinho.channels.base import DecisionOutcome as DecisionOutcome
    from trinho.channels.base import MessageHandler as MessageHandler
    from trinho.channels.base import Notification as Notification
    from trinho.channels.base import NotificationItem as NotificationItem
    from trinho.channels.base import NotificationLookup as NotificationLookup
    from trinho.channels.base import ReviewQueue as ReviewQueue
    from trinho.channels.base import SentReceipt as SentReceipt
    from trinho.channels.base import notification_key as notification_key
    from trinho.channels.console import ConsoleChannel as ConsoleChannel
    from trinho.channels.factory import channel_from_config as channel_from_config
    from trinho.channels.held import HeldChannel as HeldChannel
    from trinho.channels.outbox import DeliveryReport as DeliveryReport
    from trinho.channels.outbox import EnqueueResult as EnqueueResult
    from trinho.channels.outbox import Outbox as Outbox
    from trinho.channels.outbox import OutboxEntry as OutboxEntry
    from trinho.channels.settings import TelegramSettings as TelegramSettings
    from trinho.channels.settings import telegram_settings as telegram_settings


__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "trinho.channels.base": (
            "Channel",
            "ChannelError",
            "Decider",
            "DecisionOutcome",
            "MessageHandler",
            "Notification",
            "NotificationItem",
            "NotificationLookup",
            "ReviewQueue",
            "SentReceipt",
            "notification_key",
        ),
        "trinho.channels.console": ("ConsoleChannel",),
        "trinho.channels.factory": ("channel_from_config",),
        "trinho.channels.held": ("HeldChannel",),
        "trinho.channels.outbox": ("DeliveryReport", "EnqueueResult", "Outbox", "OutboxEntry"),
        "trinho.channels.settings": ("TelegramSettings", "telegram_settings"),
    },
)
