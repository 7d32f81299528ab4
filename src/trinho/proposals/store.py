"""The memory_proposals queue: changes that wait for a person, and the decisions on them.

Only a person decides: `approve` and `reject` are called by the CLI and the channels' decider;
no agent tool reaches them. Approving dispatches by kind to one of the appliers the caller
passes (`trinho.review.appliers.APPLIERS` for the built-in kinds), so this module knows no kind.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal, Self, cast

from trinho import fields as records
from trinho.boundary import public_error
from trinho.durable import atomic_write_text, read_regular, sibling_lock
from trinho.errors import BrokenFile, NotFound, TrinhoError
from trinho.i18n import t
from trinho.proposals.format import check_kind, clean_text, identity
from trinho.proposals.format import content_hash as content_hash  # the queue's hash, as before
from trinho.textnorm import nfc, one_line
from trinho.workspace import Workspace

ProposalStatus = Literal["pending", "approved", "rejected", "stale", "reverted"]
STATUSES: tuple[ProposalStatus, ...] = ("pending", "approved", "rejected", "stale", "reverted")
"""`reverted`: approved, then taken back, by an undo of the condensation run (`revert`) or by
the person right after approving (`take_back`); the approval's `decided_at`, `decided_by` and
`decision_note` stay as they were."""

TAKE_BACK_WINDOW = timedelta(minutes=15)
"""How long after an approval the person who made it may take it back in one step."""
MINUTE = timedelta(minutes=1)

_ID_RE = re.compile(r"^[0-9a-f]{10}$")
MAX_REASON_CHARS = 2000
MAX_ORIGIN_CHARS = 200
MAX_WHY_CHARS = 500
MAX_SOURCE_CHARS = 200
"""A source's quoted line is one line of at most this many characters (longer: cut, with …)."""
MAX_SOURCES = 20
SourceKind = Literal["note", "turn", "memory", "fact"]
SOURCE_KINDS: tuple[SourceKind, ...] = ("note", "turn", "memory", "fact")


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
    def from_json(cls, data: object, where: records.Where) -> Source:
        fields = records.as_object(data, where)
        kind = records.choice(fields, "kind", SOURCE_KINDS, where)
        ref = records.typed(fields, "ref", str, where)
        return cls.quoted(kind, ref, records.typed(fields, "text", str, where))


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
    def from_json(cls, data: object, where: records.Where) -> Self:
        """A proposal as stored; refused when its change no longer matches its hash."""
        fields = records.as_object(data, where)
        status = records.choice(fields, "status", STATUSES, where)
        kind = records.typed(fields, "kind", str, where)
        change = records.typed(fields, "change", dict, where)
        digest = records.typed(fields, "content_hash", str, where)
        if content_hash(kind, change) != digest:
            raise TrinhoError.keyed("error.proposal.hash_mismatch", path=where)
        return cls(
            id=records.typed(fields, "id", str, where),
            kind=kind,
            change=change,
            reason=records.typed(fields, "reason", str, where),
            origin=records.typed(fields, "origin", str, where),
            created_at=records.moment(fields, "created_at", where),
            status=cast(ProposalStatus, status),
            content_hash=digest,
            decided_at=records.maybe_moment(fields, "decided_at", where),
            decided_by=records.maybe(fields, "decided_by", str, where),
            decision_note=records.maybe(fields, "decision_note", str, where),
            why=records.maybe(fields, "why", str, where),
            sources=tuple(
                Source.from_json(s, where) for s in records.items(fields, "sources", where)
            ),
            reverted_at=records.maybe_moment(fields, "reverted_at", where),
            reverted_by=records.maybe(fields, "reverted_by", str, where),
        )


@dataclass(frozen=True)
class ApplyResult:
    """What an applier did: `ok` False means the change no longer fits (the proposal is stale)."""

    ok: bool
    message: str


Applier = Callable[[Workspace, Proposal], ApplyResult]
"""Applies an approved proposal of one kind; runs with the proposal's lock held."""


@dataclass(frozen=True)
class Submitted:
    """The result of proposing: the proposal, and whether it is new.

    `created` is False when an identical proposal is already pending, or when the owner already
    rejected it from the same origin (then `proposal.status` is "rejected").
    """

    proposal: Proposal
    created: bool


@dataclass(frozen=True)
class ProposalListing:
    proposals: list[Proposal]
    broken: list[BrokenFile]


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
    if not _ID_RE.fullmatch(value):
        shown = value if len(value) <= 40 else value[:37] + "..."
        raise TrinhoError.keyed("error.proposal.bad_id", value=shown)
    return value


MIN_PREFIX = 4
_PREFIX_RE = re.compile(r"^[0-9a-f]{1,10}$")
MAX_NAMED = 5
"""How many candidates an ambiguous prefix names."""


def resolve_id(ws: Workspace, given: str) -> str:
    """The proposal id `given` names in the workspace's queue (`resolve_in`)."""
    root = ws.proposals_root

    def starting(prefix: str) -> list[str]:
        return [p.stem for p in root.glob(f"{prefix}*.json") if _ID_RE.fullmatch(p.stem)]

    return resolve_in(given, starting, root)


def resolve_in(given: str, starting: Callable[[str], Iterable[str]], place: object) -> str:
    """The proposal id `given` names: the id itself, or the one id it is a prefix of (at least
    `MIN_PREFIX` hex digits), among the ids `starting(prefix)` gives. A prefix that names none
    is not found in `place`; one that names several is refused, naming them, so a decision
    never lands on a proposal the owner did not mean. Every store resolves through this."""
    value = given.strip().lower()
    if _ID_RE.fullmatch(value):
        return value
    if not _PREFIX_RE.fullmatch(value):
        return validate_id(given)  # the bad-id error, as before
    if len(value) < MIN_PREFIX:
        raise TrinhoError.keyed("error.proposal.short_prefix", value=given, minimum=MIN_PREFIX)
    found = sorted(starting(value))
    if not found:
        raise NotFound.keyed("error.proposal.not_found", id=given, folder=place)
    if len(found) > 1:
        named = ", ".join(found[:MAX_NAMED]) + (", …" if len(found) > MAX_NAMED else "")
        raise TrinhoError.keyed("error.proposal.ambiguous", value=given, ids=named)
    return found[0]


def proposal_path(ws: Workspace, proposal_id: str) -> Path:
    return ws.confine(ws.proposals_root / f"{validate_id(proposal_id)}.json")


def submit(
    ws: Workspace,
    kind: str,
    change: Mapping[str, Any],
    *,
    reason: str,
    origin: str,
    context: Collection[str] = (),
    why: str | None = None,
    sources: Iterable[Source] = (),
) -> Submitted:
    """Queue a change for the owner, unless it is already pending or was rejected from `origin`.

    `context` names keys of `change` that record the state it was made against (a fact's value
    then), not what it changes: a rejection stands whatever they hold now, so the owner is not
    asked again just because something else was saved in between.

    `why` (the proposer's own words) and `sources` (what it was drawn from) are kept beside
    the change for the owner to read; they do not make a change a different one.
    """
    check_kind(kind)
    why = clean_why(why)
    kept_sources = clean_sources(sources)
    reason = clean_text(reason, "proposal reason", MAX_REASON_CHARS)
    origin = clean_text(origin, "proposal origin", MAX_ORIGIN_CHARS)
    plain: dict[str, Any] = json.loads(json.dumps(dict(change), ensure_ascii=False))
    digest = content_hash(kind, plain)
    same = identity(kind, plain, context)
    with sibling_lock(ws.proposals_root / "queue"):
        for existing in list_proposals(ws).proposals:
            if existing.status == "pending" and existing.content_hash == digest:
                return Submitted(existing, created=False)
            if (
                existing.status == "rejected"
                and existing.origin == origin
                and identity(existing.kind, existing.change, context) == same
            ):
                return Submitted(existing, created=False)
        created_at = ws.now()
        new_id = fresh_id(digest, origin, created_at, lambda i: proposal_path(ws, i).exists())
        proposal = Proposal(
            id=new_id,
            kind=kind,
            change=plain,
            reason=reason,
            origin=origin,
            created_at=created_at,
            status="pending",
            content_hash=digest,
            why=why,
            sources=kept_sources,
        )
        _write(ws, proposal)
    return Submitted(proposal, created=True)


def get_proposal(ws: Workspace, proposal_id: str) -> Proposal:
    path = proposal_path(ws, proposal_id)
    if not path.exists():
        raise NotFound.keyed("error.proposal.not_found", id=proposal_id, folder=path.parent)
    return _read(path)


def list_proposals(ws: Workspace, *, include_decided: bool = True) -> ProposalListing:
    """Every proposal, oldest first; files that do not parse are reported, not fatal."""
    root = ws.proposals_root
    found: list[Proposal] = []
    broken: list[BrokenFile] = []
    if root.is_dir():
        for path in sorted(root.glob("*.json")):
            if path.name.startswith("."):
                continue
            try:
                proposal = _read(ws.confine(path))
            except (TrinhoError, OSError) as exc:  # unreadable: listed as broken, not fatal
                broken.append(BrokenFile(str(path), str(public_error(exc, ws.root))))
                continue
            if include_decided or proposal.status == "pending":
                found.append(proposal)
    found.sort(key=lambda p: (p.created_at, p.id))
    return ProposalListing(found, broken)


def approve(
    ws: Workspace,
    proposal_id: str,
    by: str,
    *,
    appliers: Mapping[str, Applier],
    content_hash: str | None = None,
) -> tuple[Proposal, ApplyResult]:
    """A person approves: apply the change through its kind's applier, or mark it stale.

    `appliers` maps each kind to its applier (`trinho.review.appliers.APPLIERS`: the built-in
    kinds).
    `content_hash`, when given (a button bound to what was announced), must be the proposal's.
    """
    by = clean_text(by, "decided by", MAX_ORIGIN_CHARS)
    get_proposal(ws, proposal_id)  # not found: fail before making a lock file
    path = proposal_path(ws, proposal_id)
    with sibling_lock(path):
        proposal = _pending(ws, proposal_id, content_hash)
        applier = appliers.get(proposal.kind)
        if applier is None:
            raise TrinhoError.keyed("error.proposal.no_applier", path=path, kind=proposal.kind)
        result = applier(ws, proposal)
        decided = replace(
            proposal,
            status="approved" if result.ok else "stale",
            decided_at=ws.now(),
            decided_by=by,
            decision_note=result.message,
        )
        _write(ws, decided)
    return decided, result


def reject(
    ws: Workspace,
    proposal_id: str,
    by: str,
    reason: str | None = None,
    *,
    content_hash: str | None = None,
) -> Proposal:
    """A person rejects: nothing is applied, and the same origin will not propose it again."""
    by = clean_text(by, "decided by", MAX_ORIGIN_CHARS)
    note = clean_text(reason, "rejection reason", MAX_REASON_CHARS) if reason else None
    get_proposal(ws, proposal_id)  # not found: fail before making a lock file
    path = proposal_path(ws, proposal_id)
    with sibling_lock(path):
        proposal = _pending(ws, proposal_id, content_hash)
        decided = replace(
            proposal, status="rejected", decided_at=ws.now(), decided_by=by, decision_note=note
        )
        _write(ws, decided)
    return decided


def expire(ws: Workspace, proposal_id: str, by: str, note: str) -> Proposal | None:
    """Mark a pending proposal stale without applying anything: what it would change is no
    longer there (code finds it, no person decides), or the run that made it was undone (it is
    withdrawn). None when it was decided meanwhile."""
    path = proposal_path(ws, proposal_id)
    with sibling_lock(path):
        proposal = get_proposal(ws, proposal_id)
        if proposal.status != "pending":
            return None
        decided = replace(
            proposal, status="stale", decided_at=ws.now(), decided_by=by, decision_note=note
        )
        _write(ws, decided)
    return decided


def revert(ws: Workspace, proposal_id: str, by: str) -> Proposal | None:
    """Mark an approved proposal `reverted`: an undo of the run put MEMORY.md back to before
    the change (code finds it, no person decides). The approval's fields stay. None when it
    is not approved (reverted already, or never approved)."""
    path = proposal_path(ws, proposal_id)
    with sibling_lock(path):
        proposal = get_proposal(ws, proposal_id)
        if proposal.status != "approved":
            return None
        reverted = replace(proposal, status="reverted", reverted_at=ws.now(), reverted_by=by)
        _write(ws, reverted)
    return reverted


def take_back(
    ws: Workspace,
    proposal_id: str,
    by: str,
    *,
    takers: Mapping[str, Applier],
    window: timedelta = TAKE_BACK_WINDOW,
) -> tuple[Proposal, ApplyResult]:
    """A person takes back an approval they just made: its kind's taker
    (`trinho.review.appliers.TAKERS`) puts back what it changed, and the proposal is marked
    `reverted` by `by`. Only within `window` of the approval (a short undo: later, the
    memory has moved on and the owner decides again by hand). Not done, and the proposal left
    approved, when what it changed was changed since. Run twice, it takes back once."""
    by = clean_text(by, "decided by", MAX_ORIGIN_CHARS)
    get_proposal(ws, proposal_id)  # not found: fail before making a lock file
    path = proposal_path(ws, proposal_id)
    with sibling_lock(path):
        proposal = get_proposal(ws, proposal_id)
        if proposal.status == "reverted" and proposal.reverted_by == by:
            return proposal, ApplyResult(True, t(ws.locale, "proposal.take_back.already"))
        if proposal.status != "approved" or proposal.decided_at is None:
            raise TrinhoError.keyed(
                "error.proposal.not_approved", id=proposal_id, status=proposal.status
            )
        if ws.now() - proposal.decided_at > window:
            raise TrinhoError.keyed(
                "error.proposal.take_back_late", id=proposal_id, minutes=window // MINUTE
            )
        taker = takers.get(proposal.kind)
        if taker is None:
            raise TrinhoError.keyed("error.proposal.no_applier", path=path, kind=proposal.kind)
        result = taker(ws, proposal)
        if not result.ok:
            return proposal, result
        reverted = replace(proposal, status="reverted", reverted_at=ws.now(), reverted_by=by)
        _write(ws, reverted)
    return reverted, result


def reopen(
    ws: Workspace, proposal_id: str, by: str, *, window: timedelta = TAKE_BACK_WINDOW
) -> Proposal:
    """A person takes back a rejection they just made: the proposal waits again, as it was
    (a rejection applied nothing, so nothing is put back). Only within `window` of the
    rejection; run twice, it reopens once."""
    clean_text(by, "decided by", MAX_ORIGIN_CHARS)
    get_proposal(ws, proposal_id)  # not found: fail before making a lock file
    path = proposal_path(ws, proposal_id)
    with sibling_lock(path):
        proposal = get_proposal(ws, proposal_id)
        if proposal.status == "pending":
            return proposal
        if proposal.status != "rejected" or proposal.decided_at is None:
            raise TrinhoError.keyed(
                "error.proposal.not_rejected", id=proposal_id, status=proposal.status
            )
        if ws.now() - proposal.decided_at > window:
            raise TrinhoError.keyed(
                "error.proposal.take_back_late", id=proposal_id, minutes=window // MINUTE
            )
        waiting = replace(
            proposal, status="pending", decided_at=None, decided_by=None, decision_note=None
        )
        _write(ws, waiting)
    return waiting


def _pending(ws: Workspace, proposal_id: str, expected_hash: str | None) -> Proposal:
    proposal = get_proposal(ws, proposal_id)
    if expected_hash is not None and expected_hash != proposal.content_hash:
        raise TrinhoError.keyed("error.proposal.changed", id=proposal_id)
    if proposal.status != "pending":
        if proposal.decided_by:
            raise TrinhoError.keyed(
                "error.proposal.decided_by",
                id=proposal_id,
                status=proposal.status,
                by=proposal.decided_by,
            )
        raise TrinhoError.keyed("error.proposal.decided", id=proposal_id, status=proposal.status)
    return proposal


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


def _write(ws: Workspace, proposal: Proposal) -> None:
    atomic_write_text(proposal_path(ws, proposal.id), proposal_text(proposal))


def _read(path: Path) -> Proposal:
    """Parse a proposal file, naming the file and the field when something is wrong."""
    try:
        data = json.loads(read_regular(path).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TrinhoError.keyed("error.proposal.not_json", path=path, error=str(exc)) from None
    proposal = Proposal.from_json(data, path)
    if not _ID_RE.fullmatch(proposal.id) or path.stem != proposal.id:
        raise TrinhoError.keyed("error.proposal.id_mismatch", path=path, id=proposal.id)
    return proposal
