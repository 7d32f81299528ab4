"""A proposal's fields checked and its identity computed: pure, so that every store (the
files, PostgreSQL) names, de-duplicates and refuses a proposal alike."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection, Mapping
from typing import Any

from trinho.errors import TrinhoError
from trinho.textnorm import nfc, one_line

_KIND_RE = re.compile(r"^[a-z][a-z0-9_]{0,31}$")


def content_hash(kind: str, change: Mapping[str, Any]) -> str:
    """sha256 over the kind and the canonical JSON of the change."""
    canonical = json.dumps(
        {"kind": kind, "change": change}, sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def identity(kind: str, change: Mapping[str, Any], context: Collection[str]) -> str:
    """The hash of the change without its `context` keys (what held when it was proposed):
    what a rejection is remembered by, so the same change is not asked again."""
    return content_hash(kind, {k: v for k, v in change.items() if k not in context})


def check_kind(kind: str) -> str:
    """A kind names an applier: lowercase letters, digits and `_`."""
    if not _KIND_RE.fullmatch(kind):
        raise ValueError(f"invalid proposal kind {kind!r}: use lowercase letters and digits")
    return kind


def clean_text(value: str, what: str, limit: int) -> str:
    """One NFC line of at most `limit` characters, not empty; else one keyed line."""
    cleaned = one_line(nfc(value))
    if not cleaned:
        raise TrinhoError.keyed("error.proposal.empty_text", what=what)
    if len(cleaned) > limit:
        raise TrinhoError.keyed(
            "error.proposal.text_too_long", what=what, size=len(cleaned), limit=limit
        )
    return cleaned
