"""Button data for Telegram callbacks: small, bound to what it decides, and signed.

Data is `op|key|index|hash|mac`: the operation, the notification's key, the change's index in
it, the first characters of that change's content hash, and an HMAC over the rest keyed by a
secret derived from the bot token. The notification's content never changes once enqueued, so
(key, index) names one proposal; a button whose MAC fails was not made by us (forged); one
whose notification or hash no longer matches is stale. Always at most 64 bytes.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Op = Literal["A", "R", "K", "V", "y", "n", "S", "U"]
"""Approve the small changes the list shows, ask to keep what the list shows as it is, keep
(reject) what that confirmation listed, review (show change `index`), approve one, reject one,
show the list again, take back the decision just made. A bulk button (A, K) carries, in place
of a change's hash, the `set_hash` of the proposals it covers: it decides those or nothing."""

OPS: dict[str, Op] = {
    "A": "A", "R": "R", "K": "K", "V": "V", "y": "y", "n": "n", "S": "S", "U": "U",
}  # fmt: skip
MAX_DATA_BYTES = 64
HASH_CHARS = 10
MAC_CHARS = 11
_DATA_RE = re.compile(
    r"^([ARKVynSU])\|([0-9a-f]{16})\|([0-9]{1,6})\|([0-9A-Za-z_-]{0,10})\|([0-9A-Za-z_-]{11})$"
)
"""ASCII only: Unicode digits or letters would pass `\\d` and `\\w`, then break the MAC check."""


@dataclass(frozen=True)
class CallbackAction:
    op: Op
    key: str
    index: int
    short_hash: str


def callback_secret(token: str) -> bytes:
    """The signing key: derived from the bot token, so no extra secret has to be stored."""
    return hashlib.sha256(b"trinho-callback\0" + token.encode("utf-8")).digest()


def short_hash(content_hash: str) -> str:
    """The part of a content hash a button carries."""
    kept = re.sub(r"[^0-9A-Za-z_-]", "", content_hash)
    return kept[:HASH_CHARS]


def set_hash(proposal_ids: Iterable[str]) -> str:
    """What a bulk button carries of the proposals it covers: a short hash of their ids (in
    any order), so a press decides exactly the set its screen showed, or nothing."""
    body = "\n".join(sorted(set(proposal_ids))).encode("utf-8")
    digest = hashlib.sha256(b"trinho-bulk\0" + body).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii")[:HASH_CHARS]


def _mac(secret: bytes, body: str) -> str:
    digest = hmac.new(secret, body.encode("ascii"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii")[:MAC_CHARS]


def encode(secret: bytes, action: CallbackAction) -> str:
    body = f"{action.op}|{action.key}|{action.index}|{action.short_hash}"
    data = f"{body}|{_mac(secret, body)}"
    if len(data.encode("ascii")) > MAX_DATA_BYTES or not _DATA_RE.fullmatch(data):
        raise ValueError(f"cannot encode callback {action!r}")
    return data


def decode(secret: bytes, data: str | None) -> CallbackAction | None:
    """The action a button carries, or None when it is malformed or its MAC is wrong."""
    if data is None or not data.isascii():
        return None
    match = _DATA_RE.fullmatch(data)
    if match is None:
        return None
    op, key, index, hashed, mac = match.groups()
    body = f"{op}|{key}|{index}|{hashed}"
    if not hmac.compare_digest(_mac(secret, body), mac):
        return None
    return CallbackAction(op=OPS[op], key=key, index=int(index), short_hash=hashed)
