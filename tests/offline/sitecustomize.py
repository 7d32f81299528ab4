"""The guard that keeps tests off the internet, in pytest and in every Python it starts.

conftest.py loads this file, and puts its folder first on PYTHONPATH so that each Python
subprocess a test starts (the CLI, the MCP server) imports it at startup as `sitecustomize`.
Connecting anywhere but loopback, or looking up any host name but localhost (a DNS query
would already leave the machine), raises at once with the address in the message.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from typing import Any

MESSAGE = "test tried to reach the internet"


def is_local_host(host: object) -> bool:
    """localhost, or a numeric address (resolving one sends no query anywhere)."""
    if host is None:
        return True
    name = host.decode() if isinstance(host, bytes) else str(host)
    if name in ("", "localhost") or name.endswith(".localhost"):
        return True
    try:
        ipaddress.ip_address(name.split("%", 1)[0])
    except ValueError:
        return False
    return True


def is_local_address(address: Any) -> bool:
    """A unix socket path, localhost, or a loopback address."""
    if isinstance(address, str | bytes):
        return True
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def install() -> None:
    """Guard connect, connect_ex and getaddrinfo for the rest of this process (idempotent)."""
    if getattr(socket, "_trinho_offline", False):
        return
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def refuse_outside(sock: socket.SocketType, address: Any) -> None:
        """Close the socket first: callers such as socket.create_connection close theirs only
        on an OSError, so a refused one would otherwise be left open (a ResourceWarning)."""
        if not is_local_address(address):
            sock.close()
            raise RuntimeError(f"{MESSAGE}: {address!r}")

    def connect(self: socket.SocketType, address: Any) -> None:
        refuse_outside(self, address)
        real_connect(self, address)

    def connect_ex(self: socket.SocketType, address: Any) -> int:
        refuse_outside(self, address)
        return real_connect_ex(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if not is_local_host(host):
            raise RuntimeError(f"{MESSAGE}: looked up {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = getaddrinfo
    socket._trinho_offline = True  # type: ignore[attr-defined]


install()


def _no_fsync_when_asked() -> None:
    """conftest.py sets TRINHO_TEST_FSYNC=off outside the tests marked `durability`: the
    processes such a test starts skip fsync too (the suite waits on the disk otherwise)."""
    if os.environ.get("TRINHO_TEST_FSYNC") == "off":
        os.fsync = lambda fd: None


_no_fsync_when_asked()
