"""The facts store: one file per fact under `users/<user>/facts/<key>.md`, and reading them back.

`save_fact` reads the fact under its lock, lets `trinho.facts.rules.reconcile` decide (the
table of docs/rules.md) and applies the decision durably, so two writers never lose each
other's update. After writing it tells the workspace (`ws.written`), never the search index.
In an OpenClaw workspace each write of an owner's fact also rewrites `memory/facts.md`, the
generated digest OpenClaw's own memory_search reads (`write_facts_digest`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from trinho.boundary import public_error
from trinho.durable import atomic_write_text, read_regular, sibling_lock
from trinho.errors import BrokenFile, NotFound, TrinhoError
from trinho.facts.format import fact_digest, fact_target, parse_fact, read_fact_change, render_fact
from trinho.facts.plan import (
    Propose,
    Proposer,
    approval_source,
    incoming,
    plan_approval,
    plan_save,
)
from trinho.facts.render import (
    DEFAULT_INDEX_CHARS,
    FactsIndex,
    build_index,
    current_facts,
    render_facts_digest,
)
from trinho.facts.rules import ActorKind, Basis, Fact, FactOutcome, FactVersion, take_back
from trinho.i18n import t
from trinho.openclaw.files import DIGEST_MARK, FACTS_DIGEST, is_digest, openclaw_enabled
from trinho.proposals.format import ApplyResult, Proposal
from trinho.proposals.format import Source as ProposalSource
from trinho.proposals.plan import Apply, result_of
from trinho.proposals.store import proposal_path, submit_planned
from trinho.workspace import Workspace, validate_slug

FACTS_DIR = "facts"


def facts_dir(ws: Workspace, user: str | None = None) -> Path:
    return ws.user_dir(user or ws.config.owner) / FACTS_DIR


def fact_path(ws: Workspace, key: str, user: str | None = None) -> Path:
    validate_slug(key, "fact key")
    return ws.confine(facts_dir(ws, user) / f"{key}.md")


def load_fact(ws: Workspace, key: str, user: str | None = None) -> Fact | None:
    """The fact, or None when it has no file yet."""
    path = fact_path(ws, key, user)
    if not path.exists():
        return None
    return _read(path, ws.shown(path), key)


_PARSED: dict[Path, tuple[tuple[int, int, int], Fact]] = {}
"""Facts already parsed by this process, keyed by file identity, so building the index every
turn costs a stat per file. An atomic replace gives a new inode, so no stale entry survives."""


def _read_cached(path: Path, where: str, key: str) -> Fact:
    info = path.stat()
    stamp = (info.st_ino, info.st_mtime_ns, info.st_size)
    hit = _PARSED.get(path)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    fact = _read(path, where, key)
    _PARSED[path] = (stamp, fact)
    return fact


def _read(path: Path, where: str, key: str) -> Fact:
    try:
        text = read_regular(path).decode("utf-8")
    except UnicodeDecodeError:
        raise TrinhoError.keyed("error.fact.not_utf8", where=where) from None
    return parse_fact(text, where, expected_key=key)


def _write(ws: Workspace, path: Path, fact: Fact, user: str) -> None:
    atomic_write_text(path, render_fact(fact))
    ws.written([ws.shown(path)])
    if user == ws.config.owner:
        write_facts_digest(ws)


def write_facts_digest(ws: Workspace) -> bool:
    """Rewrite `memory/facts.md` from the owner's current facts, atomically, in an OpenClaw
    workspace; True when it changed. A file there that trinho did not generate (no mark on its
    first line) is somebody's own and is left alone."""
    if not openclaw_enabled(ws):
        return False
    path = ws.path(FACTS_DIGEST)
    with ws.lock(path):
        if path.exists() and not is_digest(path):
            return False
        entries = current_facts(list_facts(ws).facts, ws.today())
        text = render_facts_digest(entries, DIGEST_MARK, ws.locale)
        if path.is_file() and read_regular(path) == text.encode("utf-8"):
            return False
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, text)
    ws.written([FACTS_DIGEST])
    return True


@dataclass(frozen=True)
class Saved:
    """What a save did: the outcome, the fact as it is now, and the proposal when one was made."""

    outcome: FactOutcome
    fact: Fact | None
    proposal: Proposal | None = None
    proposal_created: bool = False


def save_fact(
    ws: Workspace,
    key: str,
    value: str,
    *,
    user: str | None = None,
    basis: Basis = "user",
    actor: ActorKind = "chat",
    valid_from: date | None = None,
    valid_to: date | None = None,
    source: str | None = None,
    origin: str | None = None,
    why: str | None = None,
    sources: Iterable[ProposalSource] = (),
) -> Saved:
    """user_memory_save: reconcile under the fact's lock and apply the decision durably.

    `origin` names who proposes when the decision is a proposal (e.g. "agent:main",
    "job:nightly"); it defaults to the actor. `why` and `sources` (the proposer's reason and
    the turns or notes it drew the fact from) are kept on that proposal for the owner.
    """
    user = user or ws.config.owner
    validate_slug(user, "user id")
    path = fact_path(ws, key, user)
    now, today = ws.now(), ws.today()
    wanted = incoming(key, value, basis, actor, source, valid_from, valid_to, now, today)
    proposer = Proposer(origin or actor, why, tuple(sources))
    with sibling_lock(path):
        current = _read(path, ws.shown(path), key) if path.exists() else None
        plan = plan_save(user, current, wanted, actor, today, ws.locale, proposer)
        if isinstance(plan, Propose):
            submitted = submit_planned(ws, plan.submission)
            return Saved("proposed", current, submitted.proposal, submitted.created)
        if plan.write is not None:
            _write(ws, path, plan.write, user)
    return Saved(plan.outcome, plan.fact)


def apply_fact_proposal(ws: Workspace, proposal: Proposal) -> ApplyResult:
    """Approving speaks as the owner: save with basis `user`, unless the fact changed since
    (`trinho.facts.plan.plan_approval`)."""
    change = read_fact_change(proposal.change, str(proposal_path(ws, proposal.id)))
    path = fact_path(ws, change.key, change.user)
    with sibling_lock(path):
        current = _read(path, ws.shown(path), change.key) if path.exists() else None
        plan = plan_approval(change, proposal.id, current, ws.now(), ws.today(), ws.locale)
        if isinstance(plan, Apply) and plan.write is not None:
            _write(ws, path, plan.write, change.user)
    return result_of(plan)


def take_back_fact_proposal(ws: Workspace, proposal: Proposal) -> ApplyResult:
    """Taking back an approval: the fact as it was just before it, the approved value kept in
    the history as withdrawn (`trinho.facts.rules.take_back`); not done when the fact changed
    since (the owner decides again, by hand)."""
    change = proposal.change
    user, key = fact_target(change, str(proposal_path(ws, proposal.id)))
    path = fact_path(ws, key, user)
    base = change.get("base")
    with sibling_lock(path):
        current = _read(path, ws.shown(path), key) if path.exists() else None
        outcome, after = take_back(
            current, approval_source(proposal.id), lambda before: fact_digest(before) == base
        )
        if outcome == "changed":
            return ApplyResult(False, t(ws.locale, "fact.take_back.changed", fact=key))
        if after is not None:
            _write(ws, path, after, user)
    return ApplyResult(True, t(ws.locale, "fact.take_back.done", fact=key))


# ---- reading ----------------------------------------------------------------------------------


def get_fact(ws: Workspace, key: str, user: str | None = None) -> Fact:
    fact = load_fact(ws, key, user)
    if fact is None:
        raise NotFound.keyed("error.fact.not_found", key=key, user=user or ws.config.owner)
    return fact


def fact_on(
    ws: Workspace, key: str, day: date | None = None, user: str | None = None
) -> FactVersion:
    """The value on `day` (default today); NotFound when nothing held then."""
    day = day or ws.today()
    version = get_fact(ws, key, user).value_on(day)
    if version is None:
        raise NotFound.keyed("error.fact.no_value_on", key=key, day=day)
    return version


@dataclass(frozen=True)
class FactListing:
    facts: list[Fact]
    broken: list[BrokenFile]


def list_facts(ws: Workspace, user: str | None = None) -> FactListing:
    """Every fact of the user, by key; a broken file is reported and the others still read."""
    folder = facts_dir(ws, user)
    facts: list[Fact] = []
    broken: list[BrokenFile] = []
    if folder.is_dir():
        base = ws.shown(folder)
        for path in sorted(folder.glob("*.md")):
            where = f"{base}/{path.name}"
            try:
                key = validate_slug(path.stem, "file name", where)
                facts.append(_read_cached(ws.confine(path), where, key))
            except (TrinhoError, OSError) as exc:  # unreadable: reported, the others read
                broken.append(BrokenFile(where, str(public_error(exc, ws.root))))
    return FactListing(facts, broken)


@dataclass(frozen=True)
class VersionRef:
    """One version of one fact, with where it is written (for search hits to point at)."""

    key: str
    value: str
    basis: Basis
    valid_from: date
    valid_to: date | None
    recorded_at: datetime
    source: str
    path: str
    line: int
    current: bool


def iter_fact_versions(ws: Workspace, user: str | None = None) -> Iterator[VersionRef]:
    """Every version (history and head) of every readable fact, by key, oldest first."""
    base = ws.shown(facts_dir(ws, user))
    today = ws.today()
    for fact in list_facts(ws, user).facts:
        path = f"{base}/{fact.key}.md"
        now = fact.value_on(today)
        for v in fact.versions():
            yield VersionRef(
                fact.key,
                v.value,
                v.basis,
                v.valid_from,
                v.valid_to,
                v.recorded_at,
                v.source,
                path,
                v.line,
                v is now,
            )


def facts_index(
    ws: Workspace, user: str | None = None, max_chars: int = DEFAULT_INDEX_CHARS
) -> FactsIndex:
    """The facts index as `trinho facts` shows it: `key: value (basis, since D)`, by key, capped.

    The prompt does not use this cap: `trinho.context.assembly.assemble` fits the same lines in its
    facts token budget.
    """
    listing = list_facts(ws, user)
    entries, lines, omitted = build_index(listing.facts, ws.today(), ws.locale, max_chars)
    return FactsIndex(tuple(entries), tuple(lines), omitted, tuple(listing.broken), ws.locale)
