"""The default channel: the announcement printed to a stream; decisions go through the CLI."""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import TextIO

from trinho.channels.base import ChannelError, Notification, ReviewQueue, SentReceipt
from trinho.channels.render import console_text
from trinho.textnorm import printable


class ConsoleChannel:
    """Writes each notification, every change included, to `stream` (stderr by default, so
    a command's `--json` output on stdout stays one document). With a `queue`, each change
    reads as the queue describes it (its risk, the reason in words with the model's own,
    who proposed, where from), the same as on every other review surface."""

    def __init__(
        self, locale: str = "en", stream: TextIO | None = None, queue: ReviewQueue | None = None
    ) -> None:
        self.locale = locale
        self.stream = stream
        self.queue = queue

    @property
    def name(self) -> str:
        return "console"

    def _described(self, notification: Notification) -> Notification:
        if self.queue is None or not notification.items:
            return notification
        return replace(notification, items=tuple(self.queue.described(notification.items)))

    def send(self, notification: Notification) -> SentReceipt:
        stream = self.stream if self.stream is not None else sys.stderr
        try:
            text = console_text(self._described(notification), self.locale)
            stream.write(printable(text))
            stream.flush()
        except (OSError, ValueError) as exc:
            raise ChannelError.keyed("error.channel.console", error=str(exc)) from exc
        return SentReceipt(channel=self.name, ref=notification.id)

    def close(self) -> None:
        """Nothing to release: the stream belongs to the caller."""
