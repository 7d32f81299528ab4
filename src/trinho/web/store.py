"""Where the review page reads and decides: one owner's desk, on either backend.

The page's logic (`trinho.web.app`) and its HTML (`trinho.web.pages`) are the same for both; a
`Desk` is what differs. `FileDesk` is the file workspace, each call the one the page made
before there was a second backend. `PgDesk` is one owner of the PostgreSQL store, through
`trinho.pg.store.PgRecords` and the database's transcripts and archive: every read and every
decision names that owner, and row-level security keeps it to their rows.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from pathlib import Path, PurePosixPath
from typing import Protocol, TypeVar
from urllib.parse import quote

from trinho.clock import parse_day
from trinho.condense.rules.explain import memory_ref_now
from trinho.config import Config
from trinho.conversations.store import StoredTurn, read_day
from trinho.errors import TrinhoError
from trinho.facts.rules import Fact
from trinho.facts.store import list_facts
from trinho.memory import store as memory_store
from trinho.pg.archive import PgArchive
from trinho.pg.connect import Database, check_owner
from trinho.pg.held import with_its_run
from trinho.pg.logins import login_valid, redeem_login
from trinho.pg.owners import require_owner
from trinho.pg.store import PgRecords
from trinho.pg.transcripts import PgTranscripts
from trinho.pg.workcopy import run_on_copy
from trinho.proposals import store as proposals
from trinho.proposals.store import ApplyResult, Proposal
from trinho.review.appliers import APPLIERS, TAKERS
from trinho.search import Hit, Query, memory_get, readable_path, search
from trinho.web import pages
from trinho.workspace import ARCHIVE_FILE, MEMORY_FILE, NOTES_DIR, Workspace, validate_slug

T = TypeVar("T")

SEARCH_LIMIT = 20
"""The hits a search of the page asks for."""


class Desk(Protocol):
    """One owner's review: what waits, the decisions, the facts, search, and the memory the
    cards and hits link to."""

    @property
    def user(self) -> str:
        """The owner's user id, whose facts the page shows first (`[owner] user`)."""
        ...

    @property
    def root(self) -> Path | None:
        """The workspace folder an error's paths are shown relative to (None: a database)."""
        ...

    @property
    def takes_back(self) -> bool:
        """Whether a bulk approval can be taken back here (its short undo)."""
        ...

    def now(self) -> datetime: ...

    def waiting(self) -> list[Proposal]: ...

    def get_proposal(self, proposal_id: str) -> Proposal: ...

    def approve(
        self, proposal_id: str, by: str, content_hash: str | None
    ) -> tuple[Proposal, ApplyResult]: ...

    def reject(
        self, proposal_id: str, by: str, note: str | None, content_hash: str | None
    ) -> Proposal: ...

    def take_back(self, proposal_id: str, by: str) -> tuple[Proposal, ApplyResult]: ...

    def reopen(self, proposal_id: str, by: str) -> Proposal:
        """Take back a rejection just made: the proposal waits again."""
        ...

    def facts(self, user: str) -> list[Fact]: ...

    def search(self, query: str) -> list[Hit]: ...

    def file_lines(self, path: str) -> list[str]:
        """A file for the page, as a tool call may read it ([] when there is none)."""
        ...

    def turns(self, path: str) -> list[pages.SaidTurn]: ...


class FileDesk:
    """The file workspace: decisions through `trinho.proposals.store` with the built-in
    appliers, as `trinho approve` makes them."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws

    @property
    def user(self) -> str:
        return self.ws.config.owner

    @property
    def root(self) -> Path | None:
        return self.ws.root

    @property
    def takes_back(self) -> bool:
        return True

    def now(self) -> datetime:
        return self.ws.now()

    def waiting(self) -> list[Proposal]:
        waiting = proposals.list_proposals(self.ws, include_decided=False).proposals
        try:
            memory_text = memory_store.read_text(self.ws)
        except (TrinhoError, OSError):  # unreadable: the queue still shows, with no line numbers
            memory_text = ""
        return sources_now(waiting, memory_text)

    def get_proposal(self, proposal_id: str) -> Proposal:
        return proposals.get_proposal(self.ws, proposal_id)

    def approve(
        self, proposal_id: str, by: str, content_hash: str | None
    ) -> tuple[Proposal, ApplyResult]:
        return proposals.approve(
            self.ws, proposal_id, by, appliers=APPLIERS, content_hash=content_hash
        )

    def reject(
        self, proposal_id: str, by: str, note: str | None, content_hash: str | None
    ) -> Proposal:
        return proposals.reject(self.ws, proposal_id, by, note, content_hash=content_hash)

    def take_back(self, proposal_id: str, by: str) -> tuple[Proposal, ApplyResult]:
        return proposals.take_back(self.ws, proposal_id, by, takers=TAKERS)

    def reopen(self, proposal_id: str, by: str) -> Proposal:
        return proposals.reopen(self.ws, proposal_id, by)

    def facts(self, user: str) -> list[Fact]:
        return list_facts(self.ws, validate_slug(user, "user id")).facts

    def search(self, query: str) -> list[Hit]:
        return search(self.ws, query, SEARCH_LIMIT)

    def file_lines(self, path: str) -> list[str]:
        """`.trinho/` (the tokens) is never shown in a browser, even to the owner."""
        shown = readable_path(self.ws, path)
        if not self.ws.path(path).is_file():
            return []
        return memory_get(self.ws, shown).text.split("\n")

    def turns(self, path: str) -> list[pages.SaidTurn]:
        stored = read_day(self.ws, conversation_day(path))
        return said_turns(stored, lambda at: at.astimezone(self.ws.tz))


class OnCopy(Protocol):
    """Runs file code on one owner's working copy and checks in what it wrote
    (`trinho.pg.workcopy.run_on_copy`)."""

    def __call__(self, job: Callable[[Workspace], T]) -> T: ...


class PgDesk:
    """One owner of the PostgreSQL store. What needs a condensation run's files (a held
    archive or rewrite approved, a bulk approval taken back) is done on the owner's working
    copy by the file desk, when the page has one (`on_copy`); else it is refused."""

    def __init__(self, records: PgRecords, on_copy: OnCopy | None = None) -> None:
        self.records = records
        self.on_copy = on_copy
        self.transcripts = PgTranscripts(
            records.db, records.owner, clock=records.now, timezone=records.tz.key
        )

    @property
    def user(self) -> str:
        return self.records.user

    @property
    def root(self) -> Path | None:
        return None

    @property
    def takes_back(self) -> bool:
        return self.on_copy is not None

    def now(self) -> datetime:
        return self.records.now()

    def waiting(self) -> list[Proposal]:
        waiting = self.records.proposals(include_decided=False)
        return sources_now(waiting, self.records.memory_text())

    def get_proposal(self, proposal_id: str) -> Proposal:
        return self.records.get_proposal(proposal_id)

    def approve(
        self, proposal_id: str, by: str, content_hash: str | None
    ) -> tuple[Proposal, ApplyResult]:
        if self.on_copy is not None and with_its_run(self.records.get_proposal(proposal_id)):
            return self.on_copy(lambda ws: FileDesk(ws).approve(proposal_id, by, content_hash))
        return self.records.approve(proposal_id, by, content_hash=content_hash)

    def reject(
        self, proposal_id: str, by: str, note: str | None, content_hash: str | None
    ) -> Proposal:
        return self.records.reject(proposal_id, by, note, content_hash=content_hash)

    def take_back(self, proposal_id: str, by: str) -> tuple[Proposal, ApplyResult]:
        if self.on_copy is None:
            raise TrinhoError.keyed("error.web.pg_take_back", id=proposal_id)
        return self.on_copy(lambda ws: FileDesk(ws).take_back(proposal_id, by))

    def reopen(self, proposal_id: str, by: str) -> Proposal:
        if self.on_copy is None:
            raise TrinhoError.keyed("error.web.pg_take_back", id=proposal_id)
        return self.on_copy(lambda ws: FileDesk(ws).reopen(proposal_id, by))

    def facts(self, user: str) -> list[Fact]:
        return self.records.list_facts(validate_slug(user, "user id")).facts

    def search(self, query: str) -> list[Hit]:
        return self.records.search(Query(query, SEARCH_LIMIT))

    def file_lines(self, path: str) -> list[str]:
        """MEMORY.md, memory/archive.md or a day's note, from the database; any other path is
        no file here, and a dot-folder is never shown."""
        parts = PurePosixPath(path).parts
        if any(p.startswith(".") for p in parts):
            raise TrinhoError.keyed("error.get.internal", path=path)
        if path == MEMORY_FILE:
            text = self.records.memory_text()
        elif path == ARCHIVE_FILE:
            text = PgArchive(self.records.db, self.records.owner).archived_text()
        elif len(parts) == 2 and parts[0] == NOTES_DIR and path.endswith(".md"):
            text = self.records.note_file_text(path)
        else:
            raise TrinhoError.keyed("error.get.no_file", path=path)
        if not text:
            return []
        lines = text.split("\n")
        return lines[:-1] if lines[-1] == "" else lines

    def turns(self, path: str) -> list[pages.SaidTurn]:
        stored = self.transcripts.read_day(conversation_day(path))
        return said_turns(stored, lambda at: at.astimezone(self.records.tz))


@dataclass
class Owners:
    """The owners of a PostgreSQL store, each signing in with a code of their own
    (`trinho.pg.logins`) into a session that reads and decides their records only."""

    db: Database
    now: Callable[[], datetime]
    user: str
    locale: str
    zones: dict[str, str] = field(default_factory=dict)
    config: Config | None = None
    config_text: str | None = None
    """The deployment's config: given, what needs a run's files is done on working copies."""

    def code_valid(self, owner: str, code: str) -> bool:
        return _known_owner(owner) and login_valid(self.db, owner, code, self.now())

    def redeem(self, owner: str, code: str) -> bool:
        return _known_owner(owner) and redeem_login(self.db, owner, code, self.now())

    def desk(self, owner: str) -> PgDesk:
        zone = self.zones.get(owner) or self.zones.setdefault(owner, require_owner(self.db, owner))
        records = PgRecords(
            self.db, owner, clock=self.now, timezone=zone, user=self.user, locale=self.locale
        )
        return PgDesk(records, self._on_copy(owner) if self.config is not None else None)

    def _on_copy(self, owner: str) -> OnCopy:
        config, text = self.config, self.config_text
        assert config is not None

        def run(job: Callable[[Workspace], T]) -> T:
            return run_on_copy(self.db, owner, config, text, job, clock=self.now)

        return run


def _known_owner(owner: str) -> bool:
    """Whether `owner` is written as an owner id may be (a link's, typed by anyone)."""
    try:
        check_owner(owner)
    except TrinhoError:
        return False
    return True


def sources_now(waiting: list[Proposal], memory_text: str) -> list[Proposal]:
    """The proposals with each MEMORY.md source anchored on `memory_text`, the file as it is
    when the page is drawn (`memory_ref_now`): a card never names a line number the file no
    longer has there."""
    return [
        replace(
            p,
            sources=tuple(
                replace(s, ref=memory_ref_now(s.ref, s.text, memory_text))
                if s.kind == "memory"
                else s
                for s in p.sources
            ),
        )
        for p in waiting
    ]


_CONVERSATION = re.compile(r"conversations/(\d{4}-\d{2}-\d{2})\.jsonl")
_NOTE_TIME = re.compile(r"\d{1,2}:\d{2}")


def conversation_day(path: str) -> date:
    """The day of `conversations/YYYY-MM-DD.jsonl`; any other path is refused."""
    found = _CONVERSATION.fullmatch(path)
    if found is None:
        raise TrinhoError.keyed("error.web.not_a_conversation", path=path)
    return parse_day(found.group(1), "conversation day")


def said_turns(
    stored: list[StoredTurn], local: Callable[[datetime], datetime]
) -> list[pages.SaidTurn]:
    """A day's conversation as the page shows it, its times in the owner's zone."""
    return [
        pages.SaidTurn(s.line, s.turn.role, local(s.turn.at).strftime("%H:%M"), s.turn.text)
        for s in stored
    ]


def source_link(desk: Desk, ref: str) -> str:
    """Where a source's `path#anchor` opens: a conversation turn rendered (`#T<line>`), a fact
    in the facts page, any other file at the line its anchor names (a line number, or a
    note's `HH:MM`)."""
    path, _, anchor = ref.partition("#")
    if _CONVERSATION.fullmatch(path):
        line = anchor.removeprefix("L") if anchor.removeprefix("L").isdigit() else "1"
        return f"/turn?path={quote(path, safe='/')}#T{line}"
    fact = pages.fact_link(path)
    if fact is not None:
        return fact
    lines = desk.file_lines(path)
    digits = anchor.removeprefix("L")
    number = int(digits) if digits.isdigit() else None
    if number is None and _NOTE_TIME.fullmatch(anchor):
        number = next(
            (n for n, line in enumerate(lines, 1) if line.lstrip("- ").startswith(anchor)), None
        )
    target = f"/file?path={quote(path, safe='/')}"
    return f"{target}#L{number}" if number else target
