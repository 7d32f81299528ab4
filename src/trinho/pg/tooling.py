"""What `PgRecords` reads for the agent tools, the MCP server and the review page: the part of
the one `trinho.records.protocol.Records` facade that is not a use case of the stores.

The tools' handlers and the page's logic are the file workspace's own (`trinho.tools.service`,
`trinho.web.app`); what differs is only where a read goes. A memory file is named as the
export names it (`MEMORY.md`, `memory/DAY.md`, `memory/archive.md`, `users/USER/facts/KEY.md`,
`conversations/DAY.jsonl`, `memory_proposals/ID.json`), which is also the path a search hit
shows, so `memory_get` reads back what `memory_search` found. Nothing else is a memory file
here: there is no `.trinho/` to reach, no folder outside the owner's rows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from datetime import date
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Protocol, cast

from trinho.context.assembly import Budgets, Context
from trinho.context.run import records_context
from trinho.errors import NotFound, TrinhoError
from trinho.facts.render import FactsIndex, build_index
from trinho.pg.archive import PgArchive
from trinho.pg.connect import Database
from trinho.pg.held import with_its_run
from trinho.pg.transcripts import PgTranscripts
from trinho.search import Found, Hit, Kind, Query, Snippet
from trinho.search.base import validate_query
from trinho.search.rules import check_get, is_memory_file
from trinho.workspace import ARCHIVE_FILE, MEMORY_FILE, NOTES_DIR

if TYPE_CHECKING:
    from pathlib import Path

    from trinho.pg.store import MemoryVersion, PgRecords
    from trinho.records.protocol import OnFiles, Records

    class Owned(Records, Protocol):
        """What the reads below need of the records they are part of (`PgRecords`)."""

        db: Database
        owner: str
        locale: str
        budgets: Budgets
        files: OnFiles | None

        def memory_version(self) -> MemoryVersion | None: ...

        def note_text(self, day: date) -> str: ...

        def note_file_text(self, name: str) -> str: ...

        def fact_file_text(self, user: str, key: str) -> str | None: ...

        def proposal_file_text(self, proposal_id: str) -> str: ...


PROPOSALS_DIR = "memory_proposals"
"""Where the export puts the proposals, and the name a proposal's file is read by."""
MAX_GET_LINES = 2000
"""The most lines one memory_get gives, as on the file workspace."""
FOLDERS = frozenset({NOTES_DIR, "users", "conversations", PROPOSALS_DIR})
_FACT = re.compile(r"users/([a-z0-9][a-z0-9_-]{0,63})/facts/([a-z0-9][a-z0-9_-]{0,63})\.md")
_TRANSCRIPT = re.compile(r"conversations/([0-9]{4}-[0-9]{2}-[0-9]{2})\.jsonl")
_NOTE = re.compile(rf"{NOTES_DIR}/[^/]+\.md")
_PROPOSAL = re.compile(rf"{PROPOSALS_DIR}/([A-Za-z0-9_-]+)\.json")


def memory_name(path: str) -> str:
    """`path` as the export names the file: relative, `./` and doubled slashes dropped; a
    path that leaves the memory (`..`, absolute) or names internal state (a dot-folder) is
    the keyed error the file workspace gives for it."""
    if "\x00" in path or path != path.encode("utf-8", "replace").decode("utf-8"):
        raise TrinhoError.keyed("error.path.bad_chars", path=ascii(path))
    given = PurePosixPath(path)
    if given.is_absolute() or ".." in given.parts:
        raise TrinhoError.keyed("error.path.not_relative", path=path)
    if any(part.startswith(".") for part in given.parts):
        raise TrinhoError.keyed("error.get.internal", path=path)
    return given.as_posix()


def snippet(shown: str, text: str, from_line: int, lines: int | None) -> Snippet:
    """Lines `from_line`.. of a memory file's `text`, refused as the file workspace refuses
    a read past its end; `lines` at most `MAX_GET_LINES`."""
    all_lines = text.split("\n")
    if all_lines and all_lines[-1] == "":
        all_lines.pop()
    if from_line > max(len(all_lines), 1):
        raise TrinhoError.keyed(
            "error.get.past_end", path=shown, count=len(all_lines), line=from_line
        )
    count = min(lines or MAX_GET_LINES, MAX_GET_LINES)
    chosen = all_lines[from_line - 1 : from_line - 1 + count]
    return Snippet(shown, from_line, from_line - 1 + len(chosen), len(all_lines), "\n".join(chosen))


class PgReads:
    """The reads of `PgRecords` that are no use case of the stores: what the tools, the MCP
    resources and prompts, and the review page read, and where file code runs (`files`: the
    owner's working copy, when the caller has the deployment's config to make one)."""

    @property
    def root(self) -> Path | None:
        return None

    def needs_its_run(self: Owned, proposal_id: str) -> bool:
        return with_its_run(self.get_proposal(proposal_id))

    def on_files(self: Owned) -> OnFiles | None:
        return self.files

    def find(self: Owned, query: Query) -> Found:
        from trinho.pg import search

        validate_query(query)
        found, named = search.find(
            cast("PgRecords", self),
            query.text,
            query.limit,
            since=query.since,
            until=query.until,
            kinds=query.kinds,
            today=query.today,
        )
        hits = [
            Hit(cast(Kind, h.kind), h.path, h.line, h.day, h.text, h.score, h.refs) for h in found
        ]
        return Found(hits, tuple(named), tuple(h.why for h in found))

    def search_batch(self: Owned, queries: Iterable[Query]) -> Iterator[list[Hit]]:
        """Each query as the tool asks it: the database's index is never stale."""
        for item in queries:
            yield self.search(item)

    def shown_path(self, path: str) -> str:
        """The memory file `path` names, refused as on the file workspace when it is none
        (`trinho.search.rules.is_memory_file`): a proposal's file is read by
        memory_proposals, not by memory_get."""
        name = memory_name(path)
        if not is_memory_file(name, MEMORY_FILE, ("users",)):
            raise TrinhoError.keyed("error.get.not_memory", path=path)
        return name

    def memory_get(self: Owned, path: str, from_line: int = 1, lines: int | None = None) -> Snippet:
        check_get(path, from_line, lines)
        text = self.file_text(path)
        if text is None:
            raise TrinhoError.keyed("error.get.no_file", path=path)
        return snippet(memory_name(path), text, from_line, lines)

    def file_text(self: Owned, path: str) -> str | None:
        name = memory_name(path)
        if name in FOLDERS or (name.startswith("users/") and not name.endswith(".md")):
            raise TrinhoError.keyed("error.get.folder", path=path.rstrip("/") or path)
        if name == MEMORY_FILE:
            latest = self.memory_version()
            return latest.text if latest is not None else None
        if name == ARCHIVE_FILE:
            archive = PgArchive(self.db, self.owner)
            return archive.archived_text() if archive.exists() else None
        fact = _FACT.fullmatch(name)
        if fact is not None:
            return self.fact_file_text(fact.group(1), fact.group(2))
        transcript = _TRANSCRIPT.fullmatch(name)
        if transcript is not None:
            day = date.fromisoformat(transcript.group(1))
            turns = PgTranscripts(self.db, self.owner, clock=self.now, timezone=self.tz.key)
            return turns.day_text(day) or None
        proposal = _PROPOSAL.fullmatch(name)
        if proposal is not None:
            try:
                return self.proposal_file_text(proposal.group(1))
            except NotFound:
                return None
        return (self.note_file_text(name) or None) if _NOTE.fullmatch(name) else None

    def file_lines(self: Owned, path: str) -> list[str]:
        """MEMORY.md, memory/archive.md or a day's note, from the database; any other path is
        no file here, and a dot-folder is never shown."""
        parts = PurePosixPath(path).parts
        if any(p.startswith(".") for p in parts):
            raise TrinhoError.keyed("error.get.internal", path=path)
        if path == MEMORY_FILE:
            text = self.memory_text()
        elif path == ARCHIVE_FILE:
            text = PgArchive(self.db, self.owner).archived_text()
        elif len(parts) == 2 and parts[0] == NOTES_DIR and path.endswith(".md"):
            text = self.note_file_text(path)
        else:
            raise TrinhoError.keyed("error.get.no_file", path=path)
        if not text:
            return []
        lines = text.split("\n")
        return lines[:-1] if lines[-1] == "" else lines

    def day_text(self: Owned, day: date) -> str:
        return self.note_text(day)

    def facts_index_text(self: Owned, user: str) -> str:
        listing = self.list_facts(user)
        entries, lines, omitted = build_index(listing.facts, self.today(), self.locale)
        return FactsIndex(tuple(entries), tuple(lines), omitted, (), self.locale).text

    def prompt_context(self: Owned, user: str | None) -> Context:
        return records_context(self, user, self.locale, self.budgets)
