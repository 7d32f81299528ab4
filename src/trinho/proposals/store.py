"""The memory_proposals queue: changes that wait for a person, and the decisions on them.

Only a person decides: `approve` and `reject` are called by the CLI and the channels' decider;
no agent tool reaches them. Approving dispatches by kind to one of the appliers the caller
passes (`trinho.review.appliers.APPLIERS` for the built-in kinds), so this module knows no kind.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from trinho.boundary import public_error
from trinho.durable import atomic_write_text, ensure_dir, read_regular, sibling_lock
from trinho.errors import BrokenFile, NotFound, TrinhoError
from trinho.i18n import t
from trinho.proposals.format import (
    ID_RE,
    ApplyResult,
    Proposal,
    Source,
    Submitted,
    fresh_id,
    proposal_text,
    resolve_in,
    validate_id,
)
from trinho.proposals.format import content_hash as content_hash  # the queue's hash, as before
from trinho.proposals.plan import (
    Submission,
    already_submitted,
    applier_for,
    approved,
    check_pending,
    decider,
    rejected,
    rejection_note,
    submission,
)
from trinho.workspace import Workspace

TAKE_BACK_WINDOW = timedelta(minutes=15)
"""How long after an approval the person who made it may take it back in one step."""
MINUTE = timedelta(minutes=1)

Applier = Callable[[Workspace, Proposal], ApplyResult]
"""Applies an approved proposal of one kind; runs with the proposal's lock held."""


@dataclass(frozen=True)
class ProposalListing:
    proposals: list[Proposal]
    broken: list[BrokenFile]


def resolve_id(ws: Workspace, given: str) -> str:
    """The proposal id `given` names in the workspace's queue (`resolve_in`)."""
    root = ws.proposals_root

    def starting(prefix: str) -> list[str]:
        return [p.stem for p in root.glob(f"{prefix}*.json") if ID_RE.fullmatch(p.stem)]

    return resolve_in(given, starting, root)


def proposal_path(ws: Workspace, proposal_id: str) -> Path:
    return ws.confine(ws.proposals_root / f"{validate_id(proposal_id)}.json")


INTENTS_DIR = "approvals"
"""Under `.trinho/`: what an approval that writes another file is about to write, by proposal."""


def intent_path(ws: Workspace, proposal_id: str) -> Path:
    return ws.internal / INTENTS_DIR / f"{validate_id(proposal_id)}.sha256"


def write_intent(ws: Workspace, proposal_id: str, digest: str) -> None:
    """Record, durably and before the applier writes, the digest of what it will write: an
    approval cut off after that write and before its decision was recorded is run again, and
    its applier then finds the file already as the approval left it (`read_intent`) instead
    of applying the change a second time."""
    path = intent_path(ws, proposal_id)
    ensure_dir(path.parent)
    atomic_write_text(path, digest + "\n")


def read_intent(ws: Workspace, proposal_id: str) -> str | None:
    path = intent_path(ws, proposal_id)
    return read_regular(path).decode("ascii").strip() if path.is_file() else None


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
    return submit_planned(
        ws,
        submission(
            kind, change, reason=reason, origin=origin, context=context, why=why, sources=sources
        ),
    )


def submit_planned(ws: Workspace, wanted: Submission) -> Submitted:
    """`submit` of a change already made a `Submission` (`trinho.proposals.plan`)."""
    with sibling_lock(ws.proposals_root / "queue"):
        existing = already_submitted(wanted, list_proposals(ws).proposals)
        if existing is not None:
            return Submitted(existing, created=False)
        created_at = ws.now()
        new_id = fresh_id(
            wanted.digest, wanted.origin, created_at, lambda i: proposal_path(ws, i).exists()
        )
        proposal = wanted.proposal(new_id, created_at)
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
    by = decider(by)
    get_proposal(ws, proposal_id)  # not found: fail before making a lock file
    path = proposal_path(ws, proposal_id)
    with sibling_lock(path):
        proposal = check_pending(get_proposal(ws, proposal_id), content_hash)
        result = applier_for(appliers, proposal, path)(ws, proposal)
        decided = approved(proposal, result, by, ws.now())
        _write(ws, decided)
        intent_path(ws, proposal_id).unlink(missing_ok=True)  # decided: nothing to run again
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
    by = decider(by)
    note = rejection_note(reason)
    get_proposal(ws, proposal_id)  # not found: fail before making a lock file
    path = proposal_path(ws, proposal_id)
    with sibling_lock(path):
        decided = rejected(
            check_pending(get_proposal(ws, proposal_id), content_hash), by, note, ws.now()
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
    by = decider(by)
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
    decider(by)
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


def _write(ws: Workspace, proposal: Proposal) -> None:
    atomic_write_text(proposal_path(ws, proposal.id), proposal_text(proposal))


def _read(path: Path) -> Proposal:
    """Parse a proposal file, naming the file and the field when something is wrong."""
    try:
        data = json.loads(read_regular(path).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TrinhoError.keyed("error.proposal.not_json", path=path, error=str(exc)) from None
    proposal = Proposal.from_json(data, path)
    if not ID_RE.fullmatch(proposal.id) or path.stem != proposal.id:
        raise TrinhoError.keyed("error.proposal.id_mismatch", path=path, id=proposal.id)
    return proposal
