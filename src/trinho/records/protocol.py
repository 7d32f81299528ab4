"""The promises both backends keep, as one Protocol, and the file workspace behind it.

`Records` is the one facade every command, page, tool and MCP resource works through, so none
asks which backend it has: `FileRecords` is the file stores as they are, unchanged, seen
through it; `trinho.pg.store.PgRecords` is the database. What one backend may lack is a method
that says so (`on_files` gives None), never a question about the class.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from datetime import date, datetime
from pathlib import Path
from typing import Any, Protocol, TypeVar
from zoneinfo import ZoneInfo

from trinho.context.assembly import Context
from trinho.context.run import build_context
from trinho.durable import read_regular
from trinho.errors import TrinhoError
from trinho.facts import store as facts
from trinho.facts.rules import ActorKind, Basis, Fact
from trinho.facts.store import FactListing, Saved
from trinho.memory import store as memory
from trinho.notes import store as notes
from trinho.notes.format import NoteFile, render_note_file
from trinho.notes.store import SavedNote, decode
from trinho.proposals import store as proposals
from trinho.proposals.format import ApplyResult, Proposal, Source, Submitted
from trinho.proposals.store import Applier, ProposalListing
from trinho.search import Found, Hit, Query, Snippet, kept_index
from trinho.workspace import Workspace

T = TypeVar("T")


class OnFiles(Protocol):
    """Runs file code on one owner's files and keeps what it wrote: the file workspace itself,
    or a database owner's working copy checked back in (`trinho.pg.workcopy.run_on_copy`)."""

    def __call__(self, job: Callable[[Workspace], T]) -> T: ...


class Records(Protocol):
    """One owner's records: daily notes, MEMORY.md, facts, proposals and decisions, and what
    the tools, the MCP server and the review page read of them. Every command, page and
    service works through this, so each works on either backend alike."""

    @property
    def user(self) -> str:
        """Whose facts a call is about when it names none (the `[owner] user`)."""
        ...

    @property
    def root(self) -> Path | None:
        """The folder an error sent to a client must not name (None: there is none)."""
        ...

    @property
    def tz(self) -> ZoneInfo:
        """The owner's time zone, which the times shown to them are in."""
        ...

    @property
    def locale(self) -> str:
        """The owner's language, which what is said to them is in."""
        ...

    def now(self) -> datetime: ...

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

    def needs_its_run(self, proposal_id: str) -> bool:
        """Whether `approve` here leaves the proposal to its condensation run's files (a held
        archive or rewrite on the database), to be approved on `on_files`."""
        ...

    def on_files(self) -> OnFiles | None:
        """Where file code runs on this owner's files (a condensation run's pages and undo, a
        held approval, a decision taken back); None when there is nowhere."""
        ...

    def find(self, query: Query) -> Found:
        """memory_search: the hits, the people the query named, and why each ranks there."""
        ...

    def search_batch(self, queries: Iterable[Query]) -> Iterator[list[Hit]]:
        """Each query's hits in turn, from one look at the index."""
        ...

    def shown_path(self, path: str) -> str:
        """`path` as a hit shows it, when it names memory a model may read; a keyed error
        when it does not (outside the memory, or internal state)."""
        ...

    def memory_get(self, path: str, from_line: int = 1, lines: int | None = None) -> Snippet:
        """memory_get: lines of the memory file `path` names."""
        ...

    def file_text(self, path: str) -> str | None:
        """The whole text of the memory file `path` names; None when there is none."""
        ...

    def file_lines(self, path: str) -> list[str]:
        """A file for the review page, as a tool call may read it ([] when there is none)."""
        ...

    def day_text(self, day: date) -> str:
        """The day's note file as it is written ("" when there is none)."""
        ...

    def facts_index_text(self, user: str) -> str:
        """The facts index as `trinho facts` shows it."""
        ...

    def prompt_context(self, user: str | None) -> Context:
        """The system block and preamble of the next turn."""
        ...


class FileRecords:
    """The file workspace's stores behind `Records`: each call is the file store's own.
    `appliers` are what an approval may apply (the CLI passes every built-in kind's)."""

    def __init__(self, ws: Workspace, appliers: Mapping[str, Applier] | None = None) -> None:
        self.ws = ws
        self.appliers = dict(appliers or {"fact": facts.apply_fact_proposal})

    @property
    def user(self) -> str:
        return self.ws.config.owner

    @property
    def root(self) -> Path:
        return self.ws.root

    @property
    def tz(self) -> ZoneInfo:
        return self.ws.tz

    @property
    def locale(self) -> str:
        return self.ws.locale

    def now(self) -> datetime:
        return self.ws.now()

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

    def needs_its_run(self, proposal_id: str) -> bool:
        """Never: the file store's own approval applies every held class."""
        return False

    def on_files(self) -> OnFiles | None:
        ws = self.ws

        def here(job: Callable[[Workspace], T]) -> T:
            return job(ws)

        return here

    def find(self, query: Query) -> Found:
        from trinho import search  # the index and its stemmer load only when searching

        return search.find(self.ws, query.text, query.limit, query.since, query.until, query.kinds)

    def search_batch(self, queries: Iterable[Query]) -> Iterator[list[Hit]]:
        from trinho.search import SearchIndex, configured_embedder

        with SearchIndex(self.ws, embedder=configured_embedder(self.ws)) as index:
            index.refresh()
            for item in queries:
                yield index.search(item, fresh=False)

    def shown_path(self, path: str) -> str:
        from trinho import search

        return search.readable_path(self.ws, path)

    def memory_get(self, path: str, from_line: int = 1, lines: int | None = None) -> Snippet:
        from trinho import search

        return search.memory_get(self.ws, path, from_line, lines)

    def file_text(self, path: str) -> str | None:
        target = self.ws.path(path)
        if not target.exists():
            return None
        if target.is_dir():
            raise TrinhoError.keyed("error.get.folder", path=path.rstrip("/") or path)
        return decode(read_regular(target), path)

    def file_lines(self, path: str) -> list[str]:
        """`.trinho/` (the tokens) is never shown in a browser, even to the owner."""
        shown = self.shown_path(path)
        if not self.ws.path(path).is_file():
            return []
        return self.memory_get(shown).text.split("\n")

    def day_text(self, day: date) -> str:
        path = self.ws.note_path(day)
        return decode(read_regular(path), self.ws.relative(path)) if path.exists() else ""

    def facts_index_text(self, user: str) -> str:
        return facts.facts_index(self.ws, user).text

    def prompt_context(self, user: str | None) -> Context:
        return build_context(self.ws, user)
