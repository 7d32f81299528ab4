"""The review page's one-time login codes for the owners of a database (`trinho owners login`).

The operator hands each owner a link; the code in it is random (192 bits), good for one login
within ten minutes, and kept only as its SHA-256 (a fast hash is enough for a code this
random: nobody guesses it, and the table alone signs nobody in). Each code is checked under
its owner's row-level security, against that owner's live codes only, compared in constant
time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime, timedelta
from urllib.parse import quote

from trinho.pg.connect import Database, check_owner

LOGIN_LIFETIME = timedelta(minutes=10)


def site_url(host: str, port: int) -> str:
    """The review page's address on `host`:`port` (an IPv6 address in brackets)."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def login_link(base: str, owner: str, code: str) -> str:
    """The link that signs `owner` in to the review page at `base` with `code`."""
    return f"{base.rstrip('/')}/login?owner={quote(owner, safe='')}&code={code}"


def code_hash(code: str) -> str:
    return hashlib.sha256(code.encode("utf-8")).hexdigest()


def issue_login(db: Database, owner: str, now: datetime) -> str:
    """A new login code for `owner`, good once until ten minutes from `now`; the owner's
    used and expired codes are cleared in the same transaction."""
    check_owner(owner)
    code = secrets.token_urlsafe(24)
    with db.owner_tx(owner) as conn:
        conn.execute(
            "DELETE FROM web_logins WHERE owner_id = %s AND (used_at IS NOT NULL"
            " OR expires_at <= %s)",
            (owner, now),
        )
        conn.execute(
            "INSERT INTO web_logins (owner_id, code_hash, expires_at) VALUES (%s, %s, %s)",
            (owner, code_hash(code), now + LOGIN_LIFETIME),
        )
    return code


def _live(db: Database, owner: str, code: str, now: datetime, *, use: bool) -> bool:
    given = code_hash(code).encode()
    with db.owner_tx(owner) as conn:
        rows = conn.execute(
            "SELECT code_hash FROM web_logins WHERE owner_id = %s AND used_at IS NULL"
            " AND expires_at > %s FOR UPDATE",
            (owner, now),
        ).fetchall()
        found = None
        for (stored,) in rows:
            if hmac.compare_digest(given, str(stored).encode()):
                found = stored
        if found is not None and use:
            conn.execute(
                "UPDATE web_logins SET used_at = %s WHERE owner_id = %s AND code_hash = %s",
                (now, owner, found),
            )
    return found is not None


def login_valid(db: Database, owner: str, code: str, now: datetime) -> bool:
    """Whether `code` is one of `owner`'s live codes (unused, not expired), leaving it so."""
    return _live(db, check_owner(owner), code, now, use=False)


def redeem_login(db: Database, owner: str, code: str, now: datetime) -> bool:
    """Use `code` up: True once for a live code of `owner`'s, False ever after (and for any
    other code, or another owner's)."""
    return _live(db, check_owner(owner), code, now, use=True)
