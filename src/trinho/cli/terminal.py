"""The progress line on a terminal: what a model's work is at, redrawn on stderr.

The events and the line's text are `trinho.models.progress`; this is the shell around them: a clock,
the terminal's width, and a thread that redraws the line every half second, so its seconds
tick while a call blocks the command.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from trinho.models.progress import Event, Progress, Step, advance, notify, observed, render

TICK = 0.5
"""Seconds between redraws while nothing happens: the seconds shown never lag one behind."""
FALLBACK_WIDTH = 80


class ProgressLine:
    """An `Observer` drawing the state as one line, `\\r` then the line padded over the last
    one; `close` wipes it, leaving the terminal as it was for what the command prints next."""

    def __init__(
        self,
        locale: str,
        stream: TextIO,
        clock: Callable[[], float] = time.monotonic,
        tick: float = TICK,
    ) -> None:
        self.locale = locale
        self.tick = tick
        self.stream = stream
        self.clock = clock
        self.started = clock()
        self.state = Progress()
        self.shown = 0
        """Characters on the line now, to be covered by the next drawing."""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker = threading.Thread(target=self._tick, name="trinho-progress", daemon=True)
        self._ticker.start()

    def __call__(self, event: Event, /) -> None:
        with self._lock:
            self.state = advance(self.state, event)
            self._draw()

    def close(self) -> None:
        self._stop.set()
        self._ticker.join()
        with self._lock:
            self.state = Progress()
            self._draw()

    def _tick(self) -> None:
        while not self._stop.wait(self.tick):
            with self._lock:
                self._draw()

    def _draw(self) -> None:
        """Write the line if it changed; a broken terminal ends the drawing, not the work."""
        line = render(self.state, self.locale, self.clock() - self.started, self._width())
        if not line and not self.shown:
            return
        text = "\r" + line.ljust(self.shown) + ("\r" if not line else "")
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            self._stop.set()
        self.shown = len(line)

    def _width(self) -> int:
        try:
            return os.get_terminal_size(self.stream.fileno()).columns or FALLBACK_WIDTH
        except (OSError, ValueError):
            return FALLBACK_WIDTH


@contextmanager
def progress_shown(locale: str, quiet: bool, first: Step | None = None) -> Iterator[None]:
    """Show the model's progress on stderr while the block runs, starting at step `first`:
    only on a terminal, and never when `quiet` (`--json`)."""
    if quiet or not sys.stderr.isatty():
        yield
        return
    line = ProgressLine(locale, sys.stderr)
    try:
        with observed(line):
            if first is not None:
                notify(first)
            yield
    finally:
        line.close()
