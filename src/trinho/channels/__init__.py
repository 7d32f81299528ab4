"""Channels: where the owner hears about held changes and decides them.

`Outbox` announces each notification once; `channel_from_config` picks Telegram when a token
is set and the console otherwise. The Telegram channel is imported lazily (an extra).
"""

from trinho.channels.base import (
    Channel,
    ChannelError,
    Decider,
    DecisionOutcome,
    MessageHandler,
    Notification,
    NotificationItem,
    NotificationLookup,
    SentReceipt,
    notification_key,
)
from trinho.channels.console import ConsoleChannel
from trinho.channels.factory import channel_from_config
from trinho.channels.outbox import DeliveryReport, EnqueueResult, Outbox, OutboxEntry
from trinho.channels.settings import TelegramSettings, telegram_settings

__all__ = [
    "Channel",
    "ChannelError",
    "ConsoleChannel",
    "Decider",
    "DecisionOutcome",
    "DeliveryReport",
    "EnqueueResult",
    "MessageHandler",
    "Notification",
    "NotificationItem",
    "NotificationLookup",
    "Outbox",
    "OutboxEntry",
    "SentReceipt",
    "TelegramSettings",
    "channel_from_config",
    "notification_key",
    "telegram_settings",
]
