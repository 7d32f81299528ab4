"""A channel that sends nothing now: each notification stays in the outbox for later.

A job for one owner of a database of many runs on a working copy, in a worker that has no
channel of that owner's: what it announces waits in the owner's outbox, in the database, for
the owner's own channel to send it. The deployment's channel is never used for an owner's
announcement, so no owner's news reaches another's chat.
"""

from __future__ import annotations

from trinho.channels.base import ChannelError, Notification, SentReceipt


class HeldChannel:
    @property
    def name(self) -> str:
        return "held"

    def send(self, notification: Notification) -> SentReceipt:
        raise ChannelError.keyed("channel.held")

    def close(self) -> None:
        """Nothing to release."""
