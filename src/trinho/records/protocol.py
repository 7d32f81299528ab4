"""The promises both backends keep, as one small Protocol, and the file workspace behind it.

`Records` is what the tests run on both backends (tests/pg/test_pg_records.py): the same calls,
the same outcomes, the same files. `FileRecords` is the file stores as they are, unchanged,
seen through it; `trinho.pg.store.PgRecords` is the database.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from datetime import date
from typing import Any, Protocol

from trinho.facts import store as facts
from trinho.facts.rules import ActorKind, Basis, Fact
from trinho.facts.store import FactListing, Saved
from trinho.memory import store as memory
from trinho.notes import store as notes
from trinho.notes.format import NoteFile, render_note_file
from trinho.notes.store import SavedNote
from trinho.proposals import store as proposals
from trinho.proposals.store import (
    Applier,
    ApplyResult,
    Proposal,
    ProposalListing,
    Source,
    Submitted,
)
from trinho.search import Hit, Query, kept_index
from trinho.workspace import Workspace


class Records(Protocol):
    """One owner's core records: daily notes, MEMORY.md, facts, proposals and decisions.
    The everyday commands work through this, so they work on either backend alike."""

    @property
    def user(self) -> str:
        """Whose facts a call is about when it names none (the `[owner] user`)."""
        ...

    def today(self) -> date: ...

    def save_note(self, text: str) -> SavedNote: ...

    def note_text(self, day: date) -> str: ...

    def read_notes(self, day: date) -> NoteFile: ...

    def search(self, query: Query) -> list[Hit]: ...

    def memory_text(self) -> str: ...

    def write_memory(self, text: str, run: str | None = None) -> int: ...

    def save_fact(
        self,
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
        sources: Iterable[Source] = (),
    ) -> Saved: ...

    def load_fact(self, key: str, user: str | None = None) -> Fact | None: ...

    def list_facts(self, user: str | None = None) -> FactListing: ...

    def submit(
        self,
        kind: str,
        change: Mapping[str, Any],
        *,
        reason: str,
        origin: str,
        context: Collection[str] = (),
    ) -> Submitted: ...

    def proposals(self, *, include_decided: bool = True) -> list[Proposal]: ...

    def list_proposals(self, *, include_decided: bool = True) -> ProposalListing: ...

    def get_proposal(self, proposal_id: str) -> Proposal: ...

    def resolve_id(self, given: str) -> str: ...

    def approve(
        self, proposal_id: str, by: str, *, content_hash: str | None = None
    ) -> tuple[Proposal, ApplyResult]: ...

    def reject(
        self,
        proposal_id: str,
        by: str,
        reason: str | None = None,
        *,
        content_hash: str | None = None,
    ) -> Proposal: ...


class FileRecords:
    """The file workspace's stores behind `Records`: each call is the file store's own.
    `appliers` are what an approval may apply (the CLI passes every built-in kind's)."""

    def __init__(self, ws: Workspace, appliers: Mapping[str, Applier] | None = None) -> None:
        self.ws = ws
        self.appliers = dict(appliers or {"fact": facts.apply_fact_proposal})

    @property
    def user(self) -> str:
        return self.ws.config.owner

    def today(self) -> date:
        return self.ws.today()

    def save_note(self, text: str) -> SavedNote:
        return notes.save_note(self.ws, text)

    def note_text(self, day: date) -> str:
        return render_note_file(notes.read_notes(self.ws, day)) if self._has(day) else ""

    def read_notes(self, day: date) -> NoteFile:
        return notes.read_notes(self.ws, day)

    def search(self, query: Query) -> list[Hit]:
        with kept_index(self.ws) as index:
            return index.find(query, fresh=False).hits

    def _has(self, day: date) -> bool:
        return self.ws.note_path(day).exists()

    def memory_text(self) -> str:
        return memory.read_text(self.ws)

    def write_memory(self, text: str, run: str | None = None) -> int:
        """The file keeps no versions: 1 says one was written (the run is the journal's)."""
        with memory.editing(self.ws) as editing:
            editing.replace(text)
        return 1

    def save_fact(
        self,
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
        sources: Iterable[Source] = (),
    ) -> Saved:
        return facts.save_fact(
            self.ws,
            key,
            value,
            user=user,
            basis=basis,
            actor=actor,
            valid_from=valid_from,
            valid_to=valid_to,
            source=source,
            origin=origin,
            why=why,
            sources=sources,
        )

    def load_fact(self, key: str, user: str | None = None) -> Fact | None:
        return facts.load_fact(self.ws, key, user)

    def list_facts(self, user: str | None = None) -> FactListing:
        return facts.list_facts(self.ws, user)

    def submit(
        self,
        kind: str,
        change: Mapping[str, Any],
        *,
        reason: str,
        origin: str,
        context: Collection[str] = (),
    ) -> Submitted:
        return proposals.submit(
            self.ws, kind, change, reason=reason, origin=origin, context=context
        )

    def proposals(self, *, include_decided: bool = True) -> list[Proposal]:
        return self.list_proposals(include_decided=include_decided).proposals

    def list_proposals(self, *, include_decided: bool = True) -> ProposalListing:
        return proposals.list_proposals(self.ws, include_decided=include_decided)

    def get_proposal(self, proposal_id: str) -> Proposal:
        return proposals.get_proposal(self.ws, proposal_id)

    def resolve_id(self, given: str) -> str:
        return proposals.resolve_id(self.ws, given)

    def approve(
        self, proposal_id: str, by: str, *, content_hash: str | None = None
    ) -> tuple[Proposal, ApplyResult]:
        return proposals.approve(
            self.ws, proposal_id, by, appliers=self.appliers, content_hash=content_hash
        )

    def reject(
        self,
        proposal_id: str,
        by: str,
        reason: str | None = None,
        *,
        content_hash: str | None = None,
    ) -> Proposal:
        return proposals.reject(self.ws, proposal_id, by, reason, content_hash=content_hash)
