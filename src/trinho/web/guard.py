"""The one Host and Origin policy of every HTTP server trinho runs (the review page, MCP over
HTTP): a request is served only when its Host is exactly one this server answers as, port
included, and its Origin (when sent) is the same. Beyond loopback, a name is answered only when
the config lists it (`allowed_hosts`): DNS rebinding and pages of other sites or other local
ports get nothing.

The policy is pure (`allowed_hosts`, `request_allowed`); `HostCheck` is the ASGI middleware
that applies it, with no web framework, so each server wraps its app in the same one.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
WILDCARDS = frozenset({"0.0.0.0", "::", "[::]", ""})
"""Addresses that bind every interface: no browser names a server so, so none is a Host."""


def is_loopback(host: str) -> bool:
    """Whether binding `host` keeps the server on this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def _with_port(name: str, port: int) -> str:
    """`name` as a Host value: `name:port` unless it already names its port."""
    name = name.strip().lower()
    if name.startswith("["):
        return name if "]:" in name else f"{name}:{port}"
    if name.count(":") == 1:
        return name
    return f"{_bracketed(name)}:{port}"


def allowed_hosts(host: str, port: int, extra: tuple[str, ...] = ()) -> frozenset[str]:
    """The Host values a server bound to `host`:`port` answers: the loopback names and the
    bound address (a wildcard is no name), each at exactly `port`, and the names `extra` lists
    (`name` at this port, or `name:port` as given)."""
    names = set(LOOPBACK_NAMES)
    if host.strip("[]") not in WILDCARDS:
        names.add(_bracketed(host))
    allowed = {f"{name.lower()}:{port}" for name in names}
    return frozenset(allowed | {_with_port(name, port) for name in extra})


def request_allowed(hosts: frozenset[str], host: str | None, origin: str | None) -> bool:
    """A request is served only for a known Host, and an Origin (when sent) of the same."""
    if host is None or host.lower() not in hosts:
        return False
    if origin is None:
        return True
    return origin.lower() in {f"http://{h}" for h in hosts}


Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


async def plain_response(send: Send, status: int, text: str) -> None:
    """A short text/plain answer, sent without any framework."""
    body = text.encode("utf-8")
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", b"%d" % len(body)),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class HostCheck:
    """Refuse any request whose Host is not this server's (421) or whose Origin is foreign
    (403), before it reaches a page or a tool."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str]) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
            host, origin = headers.get("host"), headers.get("origin")
            if not request_allowed(self.hosts, host, None):
                await plain_response(send, 421, "misdirected request")
                return
            if not request_allowed(self.hosts, host, origin):
                await plain_response(send, 403, "foreign origin")
                return
        await self.app(scope, receive, send)
