"""Who may use the review page: a one-time login code, sessions, CSRF tokens, Host and Origin.

The login code is printed once at start, is good for ten minutes and for one login; a session
is a random cookie value with a CSRF token of its own that every POST must carry. Time comes
from the workspace clock, so these rules are tested without waiting.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

CODE_LIFETIME = timedelta(minutes=10)
SESSION_LIFETIME = timedelta(hours=12)
COOKIE = "trinho_web"


def is_loopback(host: str) -> bool:
    """Whether binding `host` keeps the page on this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def allowed_hosts(host: str, port: int) -> frozenset[str]:
    """The Host header values a request may carry: the bound address, and loopback names."""
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    names = {shown, "127.0.0.1", "localhost", "[::1]"}
    return frozenset(f"{name}:{port}" for name in names)


def request_allowed(hosts: frozenset[str], host: str | None, origin: str | None) -> bool:
    """A request is served only for a known Host, and an Origin (when sent) of the same."""
    if host is None or host.lower() not in hosts:
        return False
    if origin is None:
        return True
    return origin.lower() in {f"http://{h}" for h in hosts}


@dataclass
class Session:
    csrf: str
    expires: datetime
    notices: list[str] = field(default_factory=list)


@dataclass
class Guard:
    """The login code and the open sessions of one server."""

    now: Callable[[], datetime]
    code: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    code_expires: datetime | None = None
    code_used: bool = False
    sessions: dict[str, Session] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.code_expires is None:
            self.code_expires = self.now() + CODE_LIFETIME

    def code_valid(self, given: str) -> bool:
        """The code is right, unused, and not older than ten minutes."""
        assert self.code_expires is not None
        return (
            not self.code_used
            and self.now() < self.code_expires
            and hmac.compare_digest(given.encode(), self.code.encode())
        )

    def login(self, given: str) -> str | None:
        """A new session id for the right code (which is then used up), else None."""
        if not self.code_valid(given):
            return None
        self.code_used = True
        sid = secrets.token_urlsafe(32)
        self.sessions[sid] = Session(secrets.token_urlsafe(24), self.now() + SESSION_LIFETIME)
        return sid

    def session(self, sid: str | None) -> Session | None:
        if sid is None:
            return None
        found = self.sessions.get(sid)
        if found is None or self.now() >= found.expires:
            self.sessions.pop(sid, None)
            return None
        return found


def csrf_ok(session: Session, given: object) -> bool:
    return isinstance(given, str) and hmac.compare_digest(given.encode(), session.csrf.encode())
