"""The real `trinho` CLI in a subprocess whose stderr is a pseudo-terminal, read as it comes.

stdout stays a pipe, so a test sees what a command prints apart from what it draws on the
terminal; the terminal's width is set, so a test can hold the drawing to it.
"""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
import threading
from collections.abc import Callable, Mapping

TRINHO = [sys.executable, "-c", "import sys, trinho.cli; sys.exit(trinho.cli.main())"]


class PtyRun:
    """`trinho *args` running, its stderr on a terminal `width` columns wide (None: stderr is a
    pipe, not a terminal)."""

    def __init__(self, args: list[str], env: Mapping[str, str], width: int | None = 60) -> None:
        self._chunks: list[bytes] = []
        self._changed = threading.Condition()
        self._reader: threading.Thread | None = None
        self._master: int | None = None
        stderr: int = subprocess.PIPE
        if width is not None:
            self._master, slave = pty.openpty()
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, width, 0, 0))
            stderr = slave
        self.process = subprocess.Popen(
            [*TRINHO, *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=dict(env),
        )
        if self._master is not None:
            os.close(stderr)
            self._reader = threading.Thread(target=self._read, daemon=True)
            self._reader.start()

    def _read(self) -> None:
        assert self._master is not None
        while True:
            try:
                chunk = os.read(self._master, 4096)
            except OSError:  # the child closed its end
                chunk = b""
            with self._changed:
                if not chunk:
                    self._chunks.append(b"")
                    self._changed.notify_all()
                    return
                self._chunks.append(chunk)
                self._changed.notify_all()

    def terminal(self) -> str:
        """What the terminal received so far."""
        with self._changed:
            return b"".join(self._chunks).decode("utf-8", "replace")

    def wait_for(self, seen: Callable[[str], bool], timeout: float = 60.0) -> bool:
        """Wait until `seen(terminal text)`; False when the command ended without it (or the
        generous `timeout` passed: a hung command, not a slow one)."""
        with self._changed:
            return self._changed.wait_for(
                lambda: (
                    seen(b"".join(self._chunks).decode("utf-8", "replace"))
                    or (bool(self._chunks) and self._chunks[-1] == b"")
                ),
                timeout,
            ) and seen(b"".join(self._chunks).decode("utf-8", "replace"))

    def finish(self) -> tuple[int, str, str]:
        """The exit code, stdout, and stderr (the terminal's text, or the pipe's)."""
        out, err = self.process.communicate(timeout=120)
        if self._reader is not None:
            self._reader.join(timeout=30)
            assert self._master is not None
            os.close(self._master)
            return self.process.returncode, out.decode(), self.terminal()
        return self.process.returncode, out.decode(), err.decode()
