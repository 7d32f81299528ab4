"""Owners' bearer tokens for the MCP server over HTTP, stored as their SHA-256 only.

A token is `OWNER.SECRET`: the owner's id, then 32 random bytes (URL-safe base64). The id
says which row to read, in a transaction that names that owner (row-level security shows the
server no other owner's hash), so finding a token costs one row however many owners there
are, and the table can be distributed by owner like every other. The secret is what proves
it: its hash is compared in constant time, and a token whose owner is unknown is compared
against a hash all the same, so no answer says which owners exist.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

from trinho.errors import TrinhoError
from trinho.pg.connect import Database, check_owner
from trinho.textnorm import SLUG_PATTERN

SECRET_BYTES = 32
_SLUG = re.compile(SLUG_PATTERN)
_NO_HASH = bytes(32)
"""Compared against when a token names no owner with a token, so that answer takes as long."""


def digest(token: str) -> bytes:
    """What the table keeps of a token: its SHA-256."""
    return hashlib.sha256(token.encode("utf-8")).digest()


def token_owner_id(token: str) -> str | None:
    """The owner a token names (None when it is not `OWNER.SECRET`)."""
    owner, dot, secret = token.rpartition(".")
    return owner if dot and secret and _SLUG.fullmatch(owner) else None


def issue_token(db: Database, owner: str) -> str:
    """A new token for `owner`, replacing any they had; returned once, stored as its hash."""
    check_owner(owner)
    token = f"{owner}.{secrets.token_urlsafe(SECRET_BYTES)}"
    with db.owner_tx(owner) as conn:
        if conn.execute("SELECT 1 FROM owners WHERE owner_id = %s", (owner,)).fetchone() is None:
            raise TrinhoError.keyed("error.owner.unknown", owner=owner)
        conn.execute(
            "INSERT INTO owner_tokens (owner_id, token_sha256) VALUES (%s, %s)"
            " ON CONFLICT (owner_id) DO UPDATE SET token_sha256 = excluded.token_sha256,"
            " issued_at = now()",
            (owner, digest(token)),
        )
    return token


def revoke_token(db: Database, owner: str) -> bool:
    """Remove the owner's token; whether they had one (unknown owner: a keyed error)."""
    check_owner(owner)
    with db.owner_tx(owner) as conn:
        if conn.execute("SELECT 1 FROM owners WHERE owner_id = %s", (owner,)).fetchone() is None:
            raise TrinhoError.keyed("error.owner.unknown", owner=owner)
        gone = conn.execute("DELETE FROM owner_tokens WHERE owner_id = %s", (owner,)).rowcount
    return bool(gone)


def verify_token(db: Database, token: str) -> str | None:
    """The owner `token` is the current token of, else None (unknown, revoked, or wrong)."""
    owner = token_owner_id(token)
    stored = None
    if owner is not None:
        with db.owner_tx(owner) as conn:
            row = conn.execute(
                "SELECT token_sha256 FROM owner_tokens WHERE owner_id = %s", (owner,)
            ).fetchone()
        stored = bytes(row[0]) if row else None
    matches = hmac.compare_digest(digest(token), stored or _NO_HASH)
    return owner if matches and stored is not None else None
