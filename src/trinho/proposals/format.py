"""A proposal as a value, its fields checked and its identity computed: pure, so that every
store (the files, PostgreSQL) names, de-duplicates, refuses and writes a proposal alike, and
the pages that show one (review, the web page) read it without importing a store."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Self, cast

from trinho import fields
from trinho.errors import NotFound, TrinhoError
from trinho.textnorm import SHORT_ID, nfc, one_line

_KIND_RE = re.compile(r"^[a-z][a-z0-9_]{0,31}$")

ProposalStatus = Literal["pending", "approved", "rejected", "stale", "reverted"]
STATUSES: tuple[ProposalStatus, ...] = ("pending", "approved", "rejected", "stale", "reverted")
"""`reverted`: approved, then taken back, by an undo of the condensation run (`revert`) or by
the person right after approving (`take_back`); the approval's `decided_at`, `decided_by` and
`decision_note` stay as they were."""

ID_RE = re.compile(r"^[0-9a-f]{10}$")
MAX_REASON_CHARS = 2000
MAX_ORIGIN_CHARS = 200
MAX_WHY_CHARS = 500
MAX_SOURCE_CHARS = 200
"""A source's quoted line is one line of at most this many characters (longer: cut, with …)."""
MAX_SOURCES = 20
SourceKind = Literal["note", "turn", "memory", "fact"]
SOURCE_KINDS: tuple[SourceKind, ...] = ("note", "turn", "memory", "fact")


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


@dataclass(frozen=True)
class Source:
    """Where a proposed change was drawn from, so the owner can check it before deciding.

    `ref` is a workspace-relative path and an anchor (`memory/2026-11-20.md#14:05`, a
    conversation file and a turn index); `text` the line quoted from there, one line.
    """

    kind: SourceKind
    ref: str
    text: str

    @classmethod
    def quoted(cls, kind: str, ref: str, text: str) -> Source:
        """A source with its line made one line of at most `MAX_SOURCE_CHARS` characters."""
        if kind not in SOURCE_KINDS:
            raise ValueError(f"not a kind of source: {kind!r}")
        line = one_line(nfc(text))
        if len(line) > MAX_SOURCE_CHARS:
            line = line[: MAX_SOURCE_CHARS - 1].rstrip() + "…"
        return cls(kind, one_line(ref), line)

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "ref": self.ref, "text": self.text}

    @classmethod
    def from_json(cls, data: object, where: fields.Where) -> Source:
        table = fields.as_object(data, where)
        kind = fields.choice(table, "kind", SOURCE_KINDS, where)
        ref = fields.typed(table, "ref", str, where)
        return cls.quoted(kind, ref, fields.typed(table, "text", str, where))


@dataclass(frozen=True)
class Proposal:
    """One held change; `content_hash` binds a decision (a button, a link) to exactly it."""

    id: str
    kind: str
    change: dict[str, Any]
    reason: str
    origin: str
    created_at: datetime
    status: ProposalStatus
    content_hash: str
    decided_at: datetime | None = None
    decided_by: str | None = None
    decision_note: str | None = None
    why: str | None = None
    """The proposer's own reason (a model's `REMOVE [n] duplicate of ...`), as it gave it."""
    sources: tuple[Source, ...] = ()
    """What the change was drawn from; neither this nor `why` is part of `content_hash`."""
    reverted_at: datetime | None = None
    """When an undo took the approved change back (status `reverted`), and what did it."""
    reverted_by: str | None = None

    def user_or(self, owner: str) -> str:
        """The user the change is about: a fact's user, else the workspace's owner."""
        user = self.change.get("user")
        return user if isinstance(user, str) else owner

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "change": self.change,
            "reason": self.reason,
            "origin": self.origin,
            "created_at": self.created_at.isoformat(),
            "status": self.status,
            "decided_at": self.decided_at.isoformat() if self.decided_at else None,
            "decided_by": self.decided_by,
            "decision_note": self.decision_note,
            "content_hash": self.content_hash,
            "why": self.why,
            "sources": [source.to_json() for source in self.sources],
        } | (
            {"reverted_at": self.reverted_at.isoformat(), "reverted_by": self.reverted_by}
            if self.reverted_at is not None
            else {}
        )

    @classmethod
    def from_json(cls, data: object, where: fields.Where) -> Self:
        """A proposal as stored; refused when its change no longer matches its hash."""
        table = fields.as_object(data, where)
        status = fields.choice(table, "status", STATUSES, where)
        kind = fields.typed(table, "kind", str, where)
        change = fields.typed(table, "change", dict, where)
        digest = fields.typed(table, "content_hash", str, where)
        if content_hash(kind, change) != digest:
            raise TrinhoError.keyed("error.proposal.hash_mismatch", path=where)
        return cls(
            id=fields.typed(table, "id", str, where),
            kind=kind,
            change=change,
            reason=fields.typed(table, "reason", str, where),
            origin=fields.typed(table, "origin", str, where),
            created_at=fields.moment(table, "created_at", where),
            status=cast(ProposalStatus, status),
            content_hash=digest,
            decided_at=fields.maybe_moment(table, "decided_at", where),
            decided_by=fields.maybe(table, "decided_by", str, where),
            decision_note=fields.maybe(table, "decision_note", str, where),
            why=fields.maybe(table, "why", str, where),
            sources=tuple(
                Source.from_json(s, where) for s in fields.items(table, "sources", where)
            ),
            reverted_at=fields.maybe_moment(table, "reverted_at", where),
            reverted_by=fields.maybe(table, "reverted_by", str, where),
        )


@dataclass(frozen=True)
class ApplyResult:
    """What an applier did: `ok` False means the change no longer fits (the proposal is stale)."""

    ok: bool
    message: str


@dataclass(frozen=True)
class Submitted:
    """The result of proposing: the proposal, and whether it is new.

    `created` is False when an identical proposal is already pending, or when the owner already
    rejected it from the same origin (then `proposal.status` is "rejected").
    """

    proposal: Proposal
    created: bool


def fresh_id(digest: str, origin: str, created_at: datetime, taken: Callable[[str], bool]) -> str:
    """A new proposal's id: ten hex digits of its hash, origin and instant, salted past any id
    `taken` says is in use, so every store names the same proposal the same way."""
    salt = 0
    while True:
        seed = f"{digest}\n{origin}\n{created_at.isoformat()}\n{salt}"
        candidate = hashlib.sha256(seed.encode()).hexdigest()[:10]
        if not taken(candidate):
            return candidate
        salt += 1


def validate_id(value: str) -> str:
    if not ID_RE.fullmatch(value):
        shown = value if len(value) <= 40 else value[:37] + "..."
        raise TrinhoError.keyed("error.proposal.bad_id", value=shown, shown=SHORT_ID)
    return value


_PREFIX_RE = re.compile(r"^[0-9a-f]{1,10}$")
MAX_NAMED = 5
"""How many candidates an ambiguous prefix names."""


def resolve_in(given: str, starting: Callable[[str], Iterable[str]], place: object) -> str:
    """The proposal id `given` names: the id itself, or the one id it is a prefix of (at least
    `SHORT_ID` hex digits, as the owner is shown it), among the ids `starting(prefix)` gives.
    A prefix that names none is not found in `place`; one that names several is refused,
    naming them, so a decision never lands on a proposal the owner did not mean. Every store
    resolves through this."""
    value = given.strip().lower()
    if ID_RE.fullmatch(value):
        return value
    if not _PREFIX_RE.fullmatch(value):
        return validate_id(given)  # the bad-id error, as before
    if len(value) < SHORT_ID:
        raise TrinhoError.keyed("error.proposal.short_prefix", value=given, minimum=SHORT_ID)
    found = sorted(starting(value))
    if not found:
        raise NotFound.keyed("error.proposal.not_found", id=given, folder=place)
    if len(found) > 1:
        named = ", ".join(found[:MAX_NAMED]) + (", …" if len(found) > MAX_NAMED else "")
        raise TrinhoError.keyed("error.proposal.ambiguous", value=given, ids=named)
    return found[0]


def clean_why(value: str | None) -> str | None:
    """The proposer's reason, one line, cut to `MAX_WHY_CHARS`; None when it gave none."""
    if value is None:
        return None
    line = one_line(nfc(value))
    if len(line) > MAX_WHY_CHARS:
        line = line[: MAX_WHY_CHARS - 1].rstrip() + "…"
    return line or None


def clean_sources(sources: Iterable[Source]) -> tuple[Source, ...]:
    """The sources once each, in the order given, at most `MAX_SOURCES`."""
    kept: list[Source] = []
    for source in sources:
        clean = Source.quoted(source.kind, source.ref, source.text)
        if clean.kind in SOURCE_KINDS and clean.text and clean not in kept:
            kept.append(clean)
    return tuple(kept[:MAX_SOURCES])


def proposal_text(proposal: Proposal) -> str:
    """The proposal's file text: `to_json`, with `why` and `sources` only when there are any,
    so a proposal without them is written byte for byte as before they existed."""
    data = proposal.to_json()
    if proposal.why is None and not proposal.sources:
        del data["why"], data["sources"]
    return json.dumps(data, ensure_ascii=False, indent=2, sort_keys=False) + "\n"
