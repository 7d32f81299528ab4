"""Shared fixtures: a temporary workspace, a fixed clock, and a guard that forbids the internet."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from trinho.workspace import Workspace, init_workspace

# No per-example deadline: on a loaded CI machine a slow example is not a failing one.
settings.register_profile("trinho", deadline=None)
settings.load_profile("trinho")

START = datetime.fromisoformat("2026-11-29T14:05:00+07:00")
TZ = "Asia/Ho_Chi_Minh"


class FixedClock:
    """A clock that stands still until a test moves it."""

    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now

    def set(self, iso: str) -> datetime:
        self.now = datetime.fromisoformat(iso)
        return self.now


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every path under root with its bytes (None for folders): to prove nothing changed.

    Empty lock files under .trinho/locks are left out: taking a lock is not writing content.
    """
    return {
        rel: (p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
        if not (rel := p.relative_to(root).as_posix()).startswith(".trinho/locks")
    }


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
def workspace(tmp_path: Path, clock: FixedClock) -> Workspace:
    """An initialised workspace in Asia/Ho_Chi_Minh whose clock is `clock`."""
    return init_workspace(tmp_path / "ws", timezone=TZ, clock=clock).workspace


@pytest.fixture
def cli_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Environment for CLI subprocess or CliRunner tests: a workspace path and a fixed clock."""
    env = {"TRINHO_HOME": str(tmp_path / "ws"), "TRINHO_NOW": START.isoformat()}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env


def _is_local(address: Any) -> bool:
    if isinstance(address, str | bytes):
        return True  # a unix socket path
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True)
def _no_internet(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Any connection to a non-loopback address fails loudly."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def guarded(method: Any) -> Any:
        def connect(self: socket.socket, address: Any) -> Any:
            if not _is_local(address):
                raise RuntimeError(f"test tried to reach the internet: {address!r}")
            return method(self, address)

        return connect

    monkeypatch.setattr(socket.socket, "connect", guarded(real_connect))
    monkeypatch.setattr(socket.socket, "connect_ex", guarded(real_connect_ex))
    yield
