"""Channels: where the owner hears about held changes and decides them.

`Outbox` announces each notification once; `channel_from_config` picks Telegram when a token
is set and the console otherwise. The Telegram channel is imported lazily (an extra).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
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

_EXPORTS = {
    "Channel": "trinho.channels.base",
    "ChannelError": "trinho.channels.base",
    "ConsoleChannel": "trinho.channels.console",
    "Decider": "trinho.channels.base",
    "DecisionOutcome": "trinho.channels.base",
    "DeliveryReport": "trinho.channels.outbox",
    "EnqueueResult": "trinho.channels.outbox",
    "MessageHandler": "trinho.channels.base",
    "Notification": "trinho.channels.base",
    "NotificationItem": "trinho.channels.base",
    "NotificationLookup": "trinho.channels.base",
    "Outbox": "trinho.channels.outbox",
    "OutboxEntry": "trinho.channels.outbox",
    "SentReceipt": "trinho.channels.base",
    "TelegramSettings": "trinho.channels.settings",
    "channel_from_config": "trinho.channels.factory",
    "notification_key": "trinho.channels.base",
    "telegram_settings": "trinho.channels.settings",
}
"""Public name -> the module that defines it, imported on first use so that importing
one module of the package loads nothing else."""

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


def __getattr__(name: str) -> object:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
