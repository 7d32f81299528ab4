"""The default channel: the announcement printed to a stream; decisions go through the CLI."""

from __future__ import annotations

import sys
from typing import TextIO

from trinho.channels.base import ChannelError, Notification, SentReceipt
from trinho.channels.render import console_text
from trinho.textnorm import printable


class ConsoleChannel:
    """Writes each notification, every change included, to `stream` (stderr by default, so
    a command's `--json` output on stdout stays one document)."""

    def __init__(self, locale: str = "en", stream: TextIO | None = None) -> None:
        self.locale = locale
        self.stream = stream

    @property
    def name(self) -> str:
        return "console"

    def send(self, notification: Notification) -> SentReceipt:
        stream = self.stream if self.stream is not None else sys.stderr
        try:
            stream.write(printable(console_text(notification, self.locale)))
            stream.flush()
        except (OSError, ValueError) as exc:
            raise ChannelError.keyed("error.channel.console", error=str(exc)) from exc
        return SentReceipt(channel=self.name, ref=notification.id)

    def close(self) -> None:
        """Nothing to release: the stream belongs to the caller."""
