"""The promises both backends keep, as one small Protocol, and the file workspace behind it.

`Records` is what the tests run on both backends (tests/pg/test_records.py): the same calls,
the same outcomes, the same files. `FileRecords` is the file stores as they are, unchanged,
seen through it; `trinho.pg.store.PgRecords` is the database.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import date
from typing import Any, Protocol

from trinho.facts import store as facts
from trinho.facts.rules import ActorKind, Basis, Fact
from trinho.facts.store import Saved
from trinho.memory import store as memory
from trinho.notes import store as notes
from trinho.notes.store import SavedNote
from trinho.proposals import store as proposals
from trinho.proposals.store import ApplyResult, Proposal, Submitted
from trinho.workspace import Workspace


class Records(Protocol):
    """One owner's core records: daily notes, MEMORY.md, facts, proposals and decisions."""

    def save_note(self, text: str) -> SavedNote: ...

    def note_text(self, day: date) -> str: ...

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
    ) -> Saved: ...

    def load_fact(self, key: str, user: str | None = None) -> Fact | None: ...

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
    """The file workspace's stores behind `Records`: each call is the file store's own."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws

    def save_note(self, text: str) -> SavedNote:
        return notes.save_note(self.ws, text)

    def note_text(self, day: date) -> str:
        return notes.render_note_file(notes.read_notes(self.ws, day)) if self._has(day) else ""

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
        )

    def load_fact(self, key: str, user: str | None = None) -> Fact | None:
        return facts.load_fact(self.ws, key, user)

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
        return proposals.list_proposals(self.ws, include_decided=include_decided).proposals

    def approve(
        self, proposal_id: str, by: str, *, content_hash: str | None = None
    ) -> tuple[Proposal, ApplyResult]:
        appliers = {"fact": facts.apply_fact_proposal}
        return proposals.approve(
            self.ws, proposal_id, by, appliers=appliers, content_hash=content_hash
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
