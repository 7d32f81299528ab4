"""Who may use the review page: a one-time login code, sessions, CSRF tokens, Host and Origin.

The login code is printed once at start, is good for ten minutes and for one login; a session
is a random cookie value with a CSRF token of its own that every POST must carry. On a store
of many owners the codes are the database's (`trinho.pg.logins`), and each session is bound
to the one owner whose code opened it. Time comes
from the workspace clock, so these rules are tested without waiting.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from trinho.web.guard import allowed_hosts as allowed_hosts
from trinho.web.guard import is_loopback as is_loopback
from trinho.web.guard import request_allowed as request_allowed

CODE_LIFETIME = timedelta(minutes=10)
SESSION_LIFETIME = timedelta(hours=12)
COOKIE = "trinho_web"


def cookie_name(port: int) -> str:
    """The session cookie of the page on `port`. Browsers send a cookie to every port of its
    host, so the name carries the port: pages on two ports never take each other's session."""
    return f"{COOKIE}_{port}"


FETCH_SITES = frozenset({"same-origin", "none"})


def fetch_allowed(site: str | None) -> bool:
    """`Sec-Fetch-Site` (sent by every current browser, and not settable by a page): only this
    page itself or the owner's own navigation (typed, a bookmark) is served; a page on another
    port of this host is `same-site`, and gets nothing even though its cookie would be sent."""
    return site is None or site.lower() in FETCH_SITES


@dataclass
class Session:
    """A signed-in browser. `owner` is whose review it is, on a store of many owners (None:
    the file workspace, which is one owner's); it is set at login and never changes."""

    csrf: str
    expires: datetime
    notices: list[str] = field(default_factory=list)
    owner: str | None = None


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
        return self.open(None)

    def open(self, owner: str | None) -> str:
        """A new session of `owner`'s (None: the file workspace's), its id for the cookie;
        called once a login code was checked and used up."""
        sid = secrets.token_urlsafe(32)
        csrf = secrets.token_urlsafe(24)
        self.sessions[sid] = Session(csrf, self.now() + SESSION_LIFETIME, owner=owner)
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
