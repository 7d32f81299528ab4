"""What a channel carries and the narrow seams around it: plain values and Protocols.

A channel only announces and relays; it never decides. Decisions go through a `Decider`
injected by the caller (the proposals queue), which refuses a proposal whose content changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, Self, runtime_checkable

from trinho import fields
from trinho.errors import TrinhoError

MAX_ID_LENGTH = 200


class ChannelError(TrinhoError):
    """A send that failed (network, server, refused token); the outbox retries it later."""


def _check_id(value: str, what: str) -> str:
    if not value or len(value) > MAX_ID_LENGTH or not value.isprintable() or value != value.strip():
        raise ValueError(
            f"{what} {value[:80]!r} must be 1-{MAX_ID_LENGTH} printable characters "
            "without surrounding spaces"
        )
    return value


@dataclass(frozen=True)
class NotificationItem:
    """One change that waits for the owner: a proposal, shown as old -> new with its reason.

    `content_hash` is the proposal's content hash when it was announced; a decision carries it
    back so the queue can refuse a proposal that changed since.
    `kind` is the change's class: removed, edited, strange_date, malformed, suspicious, fact...

    `risk` is `trinho.review.risk.Risk` as a number (0 removes a line, 1 archives, 2 replaces
    what the owner said, 3 edits, 4 adds); `approve` and `keep` the buttons' labels, named by
    their effect; `who` who proposed, in words; `source` the line it was drawn from. Items
    announced before these existed have None (`item_risk` then reads the risk from the kind).
    """

    proposal_id: str
    content_hash: str
    kind: str
    old: str | None
    new: str | None
    reason: str
    risk: int | None = None
    approve: str | None = None
    keep: str | None = None
    who: str | None = None
    source: str | None = None

    def __post_init__(self) -> None:
        _check_id(self.proposal_id, "proposal id")
        _check_id(self.content_hash, "content hash")
        _check_id(self.kind, "change kind")

    def to_json(self) -> dict[str, Any]:
        return {
            "proposal_id": self.proposal_id,
            "content_hash": self.content_hash,
            "kind": self.kind,
            "old": self.old,
            "new": self.new,
            "reason": self.reason,
            **{
                name: value
                for name, value in (
                    ("risk", self.risk),
                    ("approve", self.approve),
                    ("keep", self.keep),
                    ("who", self.who),
                    ("source", self.source),
                )
                if value is not None
            },
        }

    @classmethod
    def from_json(cls, data: object, where: fields.Where) -> Self:
        table = fields.as_object(data, where)
        return cls(
            proposal_id=fields.typed(table, "proposal_id", str, where),
            content_hash=fields.typed(table, "content_hash", str, where),
            kind=fields.typed(table, "kind", str, where),
            old=fields.maybe(table, "old", str, where),
            new=fields.maybe(table, "new", str, where),
            reason=fields.maybe(table, "reason", str, where) or "",
            risk=fields.maybe(table, "risk", int, where),
            approve=fields.maybe(table, "approve", str, where),
            keep=fields.maybe(table, "keep", str, where),
            who=fields.maybe(table, "who", str, where),
            source=fields.maybe(table, "source", str, where),
        )


@dataclass(frozen=True)
class Notification:
    """One announcement: a condensation run or a daily digest, with what waits.

    `id` is stable for what it announces ("condense:2026-W48", "digest:2026-11-29"), so the
    outbox can announce it once however many times a run is retried.
    """

    id: str
    title: str
    summary: str
    items: tuple[NotificationItem, ...] = field(default=())

    def __post_init__(self) -> None:
        _check_id(self.id, "notification id")

    @property
    def key(self) -> str:
        return notification_key(self.id)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "summary": self.summary,
            "items": [item.to_json() for item in self.items],
        }

    @classmethod
    def from_json(cls, data: object, where: fields.Where) -> Self:
        table = fields.as_object(data, where)
        return cls(
            id=fields.typed(table, "id", str, where),
            title=fields.maybe(table, "title", str, where) or "",
            summary=fields.maybe(table, "summary", str, where) or "",
            items=tuple(
                NotificationItem.from_json(item, f"{where}: items[{n}]")
                for n, item in enumerate(fields.items(table, "items", where))
            ),
        )


def notification_key(notification_id: str) -> str:
    """A short fixed-length key for an id: file names and button data stay small and safe."""
    return hashlib.sha256(notification_id.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class SentReceipt:
    """Proof that a channel accepted a notification: which channel, and its message reference."""

    channel: str
    ref: str


class Channel(Protocol):
    """Somewhere the owner reads announcements. `send` raises ChannelError when it failed;
    `close` releases connections and threads (call it when done; it is safe to call twice)."""

    @property
    def name(self) -> str: ...

    def send(self, notification: Notification) -> SentReceipt: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class DecisionOutcome:
    """What a decision did: ok, or refused (stale, unknown, already decided) and why."""

    ok: bool
    message: str


class Decider(Protocol):
    """Applies the owner's decision on one proposal; refuses when `content_hash` no longer
    matches the proposal (it changed since it was announced)."""

    def decide(
        self, proposal_id: str, content_hash: str, approve: bool, by: str
    ) -> DecisionOutcome: ...


@runtime_checkable
class TakesBack(Decider, Protocol):
    """A decider that can take back an approval the owner just made (a short undo): what it
    changed put back, unless it was changed since or the short time for it has passed."""

    take_back_minutes: int
    """How long after an approval it may be taken back."""

    def take_back(self, proposal_id: str, by: str) -> DecisionOutcome: ...


@runtime_checkable
class ReviewQueue(Decider, Protocol):
    """A decider that also knows the queue: where each proposal stands now ("pending",
    "approved", "rejected", "stale"; an unknown id is left out), and each announced change as
    the owner should read it today (its risk, buttons named by effect, who proposed, where from),
    so a review shows only what still waits, riskiest first, whenever it was announced."""

    def states(self, proposal_ids: Sequence[str]) -> Mapping[str, str]: ...

    def described(self, items: Sequence[NotificationItem]) -> tuple[NotificationItem, ...]: ...


class MessageHandler(Protocol):
    """Answers a text message from the owner (a chat agent); None sends no reply.

    `ref` names the message (its inbox entry): a message replayed after a crash carries the
    same ref, so the handler can tell a turn it already recorded."""

    def __call__(self, text: str, ref: str | None = None) -> str | None: ...


class NotificationLookup(Protocol):
    """Finds an announced notification by its key (the outbox is one)."""

    def find(self, key: str) -> Notification | None: ...
