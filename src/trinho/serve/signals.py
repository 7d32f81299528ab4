"""SIGTERM and SIGINT as a request to stop, caught from the first moment of `trinho serve`.

`trinho serve` spends its first second importing and building its parts; a stop asked for then
(a `systemctl restart` right after a start) must end the same way as a later one: exit 0 with
JSON log lines, not death by the signal with nothing said. This module is light to import so
the handler is installed before anything heavy is.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class StopRequest:
    """Set once SIGTERM or SIGINT arrives; remembers which. The handler only records: the
    service logs and stops from its main loop, where doing so is safe."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.signal: str | None = None
        self._previous: dict[int, Any] = {}

    def install(self) -> StopRequest:
        for sig in STOP_SIGNALS:
            self._previous[sig] = signal.signal(sig, self._on_signal)
        return self

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.signal = signal.Signals(signum).name
        self.event.set()

    def restore(self) -> None:
        """The handlers as they were before `install` (tests run several services)."""
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous.clear()
