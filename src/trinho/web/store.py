"""Where the review page reads: one owner's records, on either backend.

The page's logic (`trinho.web.app`) and its HTML (`trinho.web.pages`) are the same for both;
it reads and decides through `trinho.records.protocol.Records` (the decisions that need the
owner's files through `trinho.review.decide`). On the database, `Owners` gives each signed-in
owner their `PgRecords`: every read and every decision names that owner, and row-level
security keeps it to their rows.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import quote

from trinho.clock import parse_day
from trinho.condense.rules.explain import memory_ref_now
from trinho.config import Config
from trinho.conversations.store import StoredTurn, parse_transcript
from trinho.errors import TrinhoError
from trinho.facts.rules import Fact
from trinho.pg.connect import Database, check_owner
from trinho.pg.logins import login_valid, redeem_login
from trinho.pg.owners import require_owner
from trinho.pg.store import PgRecords
from trinho.pg.workcopy import run_on_copy
from trinho.proposals.format import Proposal
from trinho.search import Hit, Query
from trinho.web import pages
from trinho.workspace import Workspace, validate_slug

if TYPE_CHECKING:
    from trinho.records.protocol import OnFiles, Records

T = TypeVar("T")

SEARCH_LIMIT = 20
"""The hits a search of the page asks for."""


def waiting(records: Records) -> list[Proposal]:
    """What waits for the owner, each MEMORY.md source anchored on the file as it is now."""
    waiting = records.proposals(include_decided=False)
    try:
        memory_text = records.memory_text()
    except (TrinhoError, OSError):  # unreadable: the queue still shows, with no line numbers
        memory_text = ""
    return sources_now(waiting, memory_text)


def facts(records: Records, user: str) -> list[Fact]:
    return records.list_facts(validate_slug(user, "user id")).facts


def search(records: Records, query: str) -> list[Hit]:
    return records.search(Query(query, SEARCH_LIMIT))


def turns(records: Records, path: str) -> list[pages.SaidTurn]:
    """A day's conversation as the page shows it: its file, as a tool call reads it, parsed
    as every backend parses a transcript."""
    conversation_day(path)  # any other path is refused, before anything is read
    stored = parse_transcript((records.file_text(path) or "").encode("utf-8"), path)
    return said_turns(stored, lambda at: at.astimezone(records.tz))


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

    def records(self, owner: str) -> PgRecords:
        """The owner's records; what needs a run's files is done on their working copy when
        the page has the deployment's config, else refused."""
        zone = self.zones.get(owner) or self.zones.setdefault(owner, require_owner(self.db, owner))
        return PgRecords(
            self.db,
            owner,
            clock=self.now,
            timezone=zone,
            user=self.user,
            locale=self.locale,
            files=self._on_copy(owner) if self.config is not None else None,
        )

    def _on_copy(self, owner: str) -> OnFiles:
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


def source_link(records: Records, ref: str) -> str:
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
    lines = records.file_lines(path)
    digits = anchor.removeprefix("L")
    number = int(digits) if digits.isdigit() else None
    if number is None and _NOTE_TIME.fullmatch(anchor):
        number = next(
            (n for n, line in enumerate(lines, 1) if line.lstrip("- ").startswith(anchor)), None
        )
    target = f"/file?path={quote(path, safe='/')}"
    return f"{target}#L{number}" if number else target
