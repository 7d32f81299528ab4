"""The PostgreSQL stores of one owner: daily notes, MEMORY.md, facts, proposals.

The same promises as the file stores, with a transaction where the files use a locked,
fsync'd append or an atomic replace: a save is acknowledged once it is committed, and a
crash before the commit leaves nothing of it. The use cases are the file stores' own planners
(`trinho.facts.plan`, `trinho.proposals.plan`, `trinho.condense.rules.held`: given what was
read, what to write), so both backends decide alike and this module only locks, reads and
writes; the same tests run on both (the `backend` fixture of tests/support/backends.py).

Every write also replaces the search units of what it wrote (`trinho.pg.search`), in the same
transaction: a saved note is found at once, and a rolled-back one never.

Serialisation: a day file's row is locked `FOR UPDATE`; a fact, MEMORY.md and the proposal
queue take a transaction-scoped advisory lock on (owner, what), as the file stores take a file
lock. Instants are stored as `timestamptz` (UTC) and given back in the owner's zone, as the
file stores write them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, cast
from zoneinfo import ZoneInfo

from trinho.condense.rules.held import KIND as MEMORY_KIND
from trinho.condense.rules.held import check_approvable, held_change, plan_held
from trinho.context.assembly import Budgets
from trinho.errors import NotFound, TrinhoError
from trinho.facts.format import read_fact_change, render_fact
from trinho.facts.plan import KIND as FACT_KIND
from trinho.facts.plan import Propose, Proposer, incoming, plan_approval, plan_save
from trinho.facts.rules import ActorKind, Basis, Fact, FactVersion
from trinho.facts.store import FactListing, Saved
from trinho.notes.format import NoteFile, format_entry, parse_note_file, validate_note_text
from trinho.notes.journal import counted_at
from trinho.notes.store import SavedNote
from trinho.pg.connect import Database, check_owner
from trinho.pg.held import refuse_with_its_run, undone_run
from trinho.pg.search import fact_path, replace_path_docs
from trinho.pg.search import find as find_units
from trinho.pg.tooling import PgReads
from trinho.proposals.format import (
    ApplyResult,
    Proposal,
    ProposalStatus,
    Source,
    Submitted,
    fresh_id,
    proposal_text,
    resolve_in,
    validate_id,
)
from trinho.proposals.plan import (
    Apply,
    Submission,
    already_submitted,
    applier_for,
    approved,
    check_pending,
    decider,
    rejected,
    rejection_note,
    result_of,
    submission,
)
from trinho.proposals.store import ProposalListing
from trinho.search.base import Hit, Query, validate_query
from trinho.search.documents import Kind, fact_docs, memory_docs, note_docs
from trinho.textnorm import validate_slug
from trinho.workspace import MEMORY_FILE, NOTES_DIR, READ_FLOOR_FILE, parse_floor

if TYPE_CHECKING:
    import psycopg

    from trinho.records.protocol import OnFiles

Clock = Callable[[], datetime]
PROPOSALS_PLACE = "the database"
"""Where a proposal not found was looked for, as the error names it."""


VERSION_COLUMNS = (
    "value",
    "basis",
    "valid_from",
    "valid_to",
    "recorded_at",
    "source",
    "confirmed_on",
)
"""A fact version's columns in `fact_versions`, each named as the `FactVersion` field it holds."""


def _lock(conn: psycopg.Connection, *what: str) -> None:
    """A transaction-scoped lock on (owner, what...): the file stores' file lock."""
    conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", ("\x1f".join(what),))


def note_name(day: date) -> str:
    return f"{NOTES_DIR}/{day.isoformat()}.md"


@dataclass(frozen=True)
class MemoryVersion:
    """One version of MEMORY.md; `text` None: the file removed by it."""

    version: int
    text: str | None
    run: str | None
    written_at: datetime


class PgRecords(PgReads):
    """One owner's records in the database, behind `trinho.records.protocol.Records`. `user`
    is whose facts a save is about when it names none (the workspace's `[owner] user`);
    `clock` and `zone` make `HH:MM` and the stored instants, as a workspace's clock and time
    zone do. `budgets` are the prompt's (a workspace config's `[context]`, else the defaults);
    `files` runs file code on the owner's working copy, when the caller can make one."""

    def __init__(
        self,
        db: Database,
        owner: str,
        *,
        clock: Clock,
        timezone: str,
        user: str = "owner",
        locale: str = "en",
        budgets: Budgets | None = None,
        files: OnFiles | None = None,
    ) -> None:
        self.db = db
        self.owner = check_owner(owner)
        self._clock = clock
        self.tz = ZoneInfo(timezone)
        self.user = validate_slug(user, "user id")
        self.locale = locale
        self.budgets = budgets or Budgets()
        self.files = files

    def now(self) -> datetime:
        return self._clock().astimezone(self.tz)

    def today(self) -> date:
        return self.now().date()

    def _local(self, moment: datetime) -> datetime:
        return moment.astimezone(self.tz)

    # ---- daily notes ---------------------------------------------------------------------------

    def save_note(self, text: str) -> SavedNote:
        """memory_save: append `- HH:MM text` to today's note, acknowledged with the commit
        that appends it (the day's row locked), the instant it counts at recorded beside: when
        it was saved, or the read floor when the clock reads behind it (set back), so the next
        run reads it, as the file store counts it (`trinho.notes.journal.counted_at`)."""
        normalized = validate_note_text(text)
        now = self.now()
        day, hhmm = now.date(), now.strftime("%H:%M")
        entry = format_entry(hhmm, normalized)
        name = note_name(day)
        with self.db.owner_tx(self.owner) as conn:
            conn.execute(
                "INSERT INTO note_files (owner_id, name, body) VALUES (%s, %s, '')"
                " ON CONFLICT DO NOTHING",
                (self.owner, name),
            )
            row = conn.execute(
                "SELECT body FROM note_files WHERE owner_id = %s AND name = %s FOR UPDATE",
                (self.owner, name),
            ).fetchone()
            assert row is not None
            before: str = row[0]
            gap = "\n" if before and not before.endswith("\n") else ""
            start = before.count("\n") + 1 + (1 if gap else 0) if before else 1
            after = before + gap + entry + "\n"
            conn.execute(
                "UPDATE note_files SET body = %s WHERE owner_id = %s AND name = %s",
                (after, self.owner, name),
            )
            replace_path_docs(conn, self.owner, name, note_docs(name, day, after))
            floor = conn.execute(
                "SELECT body FROM owner_files WHERE owner_id = %s AND name = %s",
                (self.owner, READ_FLOOR_FILE),
            ).fetchone()
            counts = counted_at(now, parse_floor(floor[0]) if floor else None)
            conn.execute(
                "INSERT INTO note_acks (owner_id, day, seq, hhmm, note, saved_at)"
                " SELECT %s, %s, coalesce(max(seq), 0) + 1, %s, %s, %s FROM note_acks"
                " WHERE owner_id = %s AND day = %s",
                (self.owner, day, hhmm, normalized, counts, self.owner, day),
            )
        return SavedNote(name, entry, day, hhmm, start)

    def note_text(self, day: date) -> str:
        """The day file's text ("" when there is none)."""
        return self.note_file_text(note_name(day))

    def note_file_text(self, name: str) -> str:
        with self.db.owner_tx(self.owner) as conn:
            row = conn.execute(
                "SELECT body FROM note_files WHERE owner_id = %s AND name = %s",
                (self.owner, name),
            ).fetchone()
        return row[0] if row else ""

    def note_files(self) -> dict[str, str]:
        """Every day file, by its workspace-relative name."""
        with self.db.owner_tx(self.owner) as conn:
            rows = conn.execute(
                "SELECT name, body FROM note_files WHERE owner_id = %s ORDER BY name",
                (self.owner,),
            ).fetchall()
        return dict(rows)

    def acknowledged(self, day: date) -> list[tuple[str, str, datetime]]:
        """The day's acknowledged notes, in order: (HH:MM, text, instant saved)."""
        with self.db.owner_tx(self.owner) as conn:
            rows = conn.execute(
                "SELECT hhmm, note, saved_at FROM note_acks WHERE owner_id = %s AND day = %s"
                " ORDER BY seq",
                (self.owner, day),
            ).fetchall()
        return [(hhmm, note, self._local(at)) for hhmm, note, at in rows]

    def read_notes(self, day: date) -> NoteFile:
        """The day file as the notes' own parser reads it (empty when there is none)."""
        return parse_note_file(self.note_text(day))

    def note_entries(self, day: date) -> list[tuple[str, str]]:
        """The day file's entries as parsed by the notes' own parser: (HH:MM, text)."""
        return [(e.time, e.text) for e in parse_note_file(self.note_text(day)).entries]

    def search(self, query: Query) -> list[Hit]:
        """memory_search over the owner's units (`trinho.pg.search`), refused as the file
        index refuses a query (no terms, a bad limit, days out of order)."""
        validate_query(query)
        found, _ = find_units(
            self,
            query.text,
            query.limit,
            since=query.since,
            until=query.until,
            kinds=query.kinds,
            today=query.today,
            explain=False,
        )
        return [
            Hit(cast(Kind, h.kind), h.path, h.line, h.day, h.text, h.score, h.refs) for h in found
        ]

    # ---- MEMORY.md -----------------------------------------------------------------------------

    def memory_text(self) -> str:
        """MEMORY.md's text now: its latest version ("" when there is none, or it was removed)."""
        latest = self.memory_version()
        return (latest.text or "") if latest else ""

    def memory_version(self) -> MemoryVersion | None:
        with self.db.owner_tx(self.owner) as conn:
            row = conn.execute(
                "SELECT version, body, run, written_at FROM memory_versions WHERE owner_id = %s"
                " ORDER BY version DESC LIMIT 1",
                (self.owner,),
            ).fetchone()
        return MemoryVersion(row[0], row[1], row[2], self._local(row[3])) if row else None

    def write_memory(
        self, text: str, run: str | None = None, *, expected: int | None = None
    ) -> int:
        """Replace MEMORY.md: a new version, kept beside the old ones; its number. With
        `expected`, only if the latest version is still that one (0: none yet), so a run that
        read version N never overwrites a write made since (refused in one line)."""
        with self.db.owner_tx(self.owner) as conn:
            return self.write_memory_in(conn, text, run, expected)

    def memory_in(self, conn: psycopg.Connection) -> tuple[int, str]:
        """MEMORY.md's latest version and text in the transaction `conn`, its lock held (0,
        "": none yet), for a write in the same transaction (an approval)."""
        _lock(conn, self.owner, "memory")
        row = conn.execute(
            "SELECT version, body FROM memory_versions WHERE owner_id = %s"
            " ORDER BY version DESC LIMIT 1",
            (self.owner,),
        ).fetchone()
        return (row[0], row[1] or "") if row else (0, "")

    def write_memory_in(
        self, conn: psycopg.Connection, text: str | None, run: str | None, expected: int | None
    ) -> int:
        """`write_memory` in the transaction `conn`; `text` None removes MEMORY.md (a version
        with no text, as the undo of the run that wrote the first one leaves it)."""
        latest, _ = self.memory_in(conn)
        if expected is not None and expected != latest:
            raise TrinhoError.keyed("error.store.memory_moved", read=expected, now=latest)
        conn.execute(
            "INSERT INTO memory_versions (owner_id, version, body, run, written_at)"
            " VALUES (%s, %s, %s, %s, %s)",
            (self.owner, latest + 1, text, run, self.now()),
        )
        docs = memory_docs(MEMORY_FILE, text) if text is not None else []
        replace_path_docs(conn, self.owner, MEMORY_FILE, docs)
        return latest + 1

    # ---- facts ---------------------------------------------------------------------------------

    def load_fact(self, key: str, user: str | None = None) -> Fact | None:
        user = validate_slug(user or self.user, "user id")
        validate_slug(key, "fact key")
        with self.db.owner_tx(self.owner) as conn:
            return self._fact(conn, user, key)

    def fact_keys(self) -> list[tuple[str, str]]:
        """Every (user, key) with a fact, in order."""
        with self.db.owner_tx(self.owner) as conn:
            rows = conn.execute(
                "SELECT user_id, key FROM facts WHERE owner_id = %s ORDER BY user_id, key",
                (self.owner,),
            ).fetchall()
        return [(user, key) for user, key in rows]

    def list_facts(self, user: str | None = None) -> FactListing:
        """Every fact of the user, by key, read in one transaction (no file can be broken)."""
        user = validate_slug(user or self.user, "user id")
        with self.db.owner_tx(self.owner) as conn:
            keys = conn.execute(
                "SELECT key FROM facts WHERE owner_id = %s AND user_id = %s ORDER BY key",
                (self.owner, user),
            ).fetchall()
            found = [self._fact(conn, user, key) for (key,) in keys]
        return FactListing([fact for fact in found if fact is not None], [])

    def fact_file_text(self, user: str, key: str) -> str | None:
        """The fact as its file says it: kept verbatim (an imported file written by hand)
        until its next write, else rendered by the facts' own format."""
        with self.db.owner_tx(self.owner) as conn:
            return self.fact_text_in(conn, user, key)

    def fact_text_in(self, conn: psycopg.Connection, user: str, key: str) -> str | None:
        """`fact_file_text` in the caller's transaction."""
        row = conn.execute(
            "SELECT verbatim FROM facts WHERE owner_id = %s AND user_id = %s AND key = %s",
            (self.owner, user, key),
        ).fetchone()
        if row is None:
            return None
        if row[0] is not None:
            return cast(str, row[0])
        fact = self._fact(conn, user, key)
        return render_fact(fact) if fact else None

    def _fact(self, conn: psycopg.Connection, user: str, key: str) -> Fact | None:
        rows = conn.execute(
            "SELECT head, value, basis, valid_from, valid_to, recorded_at, source, confirmed_on"
            " FROM fact_versions WHERE owner_id = %s AND user_id = %s AND key = %s ORDER BY n",
            (self.owner, user, key),
        ).fetchall()
        if not rows:
            found = conn.execute(
                "SELECT 1 FROM facts WHERE owner_id = %s AND user_id = %s AND key = %s",
                (self.owner, user, key),
            ).fetchone()
            return Fact(key, None) if found else None
        head: FactVersion | None = None
        history: list[FactVersion] = []
        for is_head, value, basis, start, end, recorded, source, confirmed in rows:
            version = FactVersion(
                value, basis, start, end, self._local(recorded), source, confirmed
            )
            if is_head:
                head = version
            else:
                history.append(version)
        return Fact(key, head, tuple(history))

    def _write_fact(
        self, conn: psycopg.Connection, user: str, fact: Fact, verbatim: str | None = None
    ) -> None:
        where = (self.owner, user, fact.key)
        conn.execute(
            "INSERT INTO facts (owner_id, user_id, key, verbatim) VALUES (%s, %s, %s, %s)"
            " ON CONFLICT (owner_id, user_id, key) DO UPDATE SET verbatim = excluded.verbatim",
            (*where, verbatim),
        )
        conn.execute(
            "DELETE FROM fact_versions WHERE owner_id = %s AND user_id = %s AND key = %s", where
        )
        versions = [
            *([(True, fact.head)] if fact.head else []),
            *((False, v) for v in fact.history),
        ]
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO fact_versions (owner_id, user_id, key, n, head,"
                f" {', '.join(VERSION_COLUMNS)})"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                [
                    (*where, n, is_head, *(getattr(v, name) for name in VERSION_COLUMNS))
                    for n, (is_head, v) in enumerate(versions)
                ],
            )
        path = fact_path(user, fact.key)
        text = verbatim if verbatim is not None else render_fact(fact)
        replace_path_docs(conn, self.owner, path, fact_docs(path, fact.key, text))

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
        """user_memory_save, as `trinho.facts.store.save_fact`: reconcile under the fact's
        lock and apply the decision, or queue the proposal (with the proposer's `why` and
        `sources`), in one transaction."""
        user = validate_slug(user or self.user, "user id")
        validate_slug(key, "fact key")
        now, today = self.now(), self.today()
        wanted = incoming(key, value, basis, actor, source, valid_from, valid_to, now, today)
        proposer = Proposer(origin or actor, why, tuple(sources))
        with self.db.owner_tx(self.owner) as conn:
            _lock(conn, self.owner, "fact", user, key)
            current = self._fact(conn, user, key)
            plan = plan_save(user, current, wanted, actor, today, self.locale, proposer)
            if isinstance(plan, Propose):
                submitted = self._submit(conn, plan.submission)
                return Saved("proposed", current, submitted.proposal, submitted.created)
            if plan.write is not None:
                self._write_fact(conn, user, plan.write)
            return Saved(plan.outcome, plan.fact)

    def apply_fact(self, conn: psycopg.Connection, proposal: Proposal) -> ApplyResult:
        """Approving a fact proposal speaks as the owner (`trinho.facts.plan.plan_approval`),
        in the approval's transaction, the fact's lock held."""
        change = read_fact_change(proposal.change, f"proposal {proposal.id}")
        _lock(conn, self.owner, "fact", change.user, change.key)
        current = self._fact(conn, change.user, change.key)
        plan = plan_approval(change, proposal.id, current, self.now(), self.today(), self.locale)
        if isinstance(plan, Apply) and plan.write is not None:
            self._write_fact(conn, change.user, plan.write)
        return result_of(plan)

    def apply_memory(self, conn: psycopg.Connection, proposal: Proposal) -> ApplyResult:
        """Approving a held MEMORY.md line change (`trinho.condense.rules.held.plan_held`) on
        MEMORY.md's latest version, written as the next one, in the approval's transaction."""
        where = f"proposal {proposal.id}"
        change = held_change(proposal.change, where)
        check_approvable(change, where, proposal.id, undone_run(conn, self.owner, proposal.origin))
        refuse_with_its_run(proposal, change)
        version, before = self.memory_in(conn)
        plan = plan_held(before, change, self.locale)
        if isinstance(plan, Apply) and plan.write is not None:
            self.write_memory_in(conn, plan.write, None, version)
        return result_of(plan)

    # ---- proposals -----------------------------------------------------------------------------

    def submit(
        self,
        kind: str,
        change: Mapping[str, Any],
        *,
        reason: str,
        origin: str,
        context: Collection[str] = (),
        why: str | None = None,
        sources: Iterable[Source] = (),
    ) -> Submitted:
        """Queue a change for the owner, as `trinho.proposals.store.submit`."""
        wanted = submission(
            kind, change, reason=reason, origin=origin, context=context, why=why, sources=sources
        )
        with self.db.owner_tx(self.owner) as conn:
            return self._submit(conn, wanted)

    def _submit(self, conn: psycopg.Connection, wanted: Submission) -> Submitted:
        """`submit` in the caller's transaction, the queue's lock held."""
        _lock(conn, self.owner, "proposals")
        existing = already_submitted(
            wanted,
            self._proposals(
                conn,
                "(status = 'pending' AND content_hash = %s)"
                " OR (status = 'rejected' AND origin = %s)",
                wanted.digest,
                wanted.origin,
            ),
        )
        if existing is not None:
            return Submitted(existing, created=False)
        created_at = self.now()
        new_id = fresh_id(
            wanted.digest,
            wanted.origin,
            created_at,
            lambda i: bool(self._proposals(conn, "id = %s", i)),
        )
        proposal = wanted.proposal(new_id, created_at)
        self._write_proposal(conn, proposal)
        return Submitted(proposal, created=True)

    def _write_proposal(
        self, conn: psycopg.Connection, proposal: Proposal, verbatim: str | None = None
    ) -> None:
        p = proposal
        conn.execute(
            "INSERT INTO proposals (owner_id, id, kind, change, reason, origin, created_at,"
            " status, content_hash, decided_at, decided_by, decision_note, reverted_at,"
            " reverted_by, verbatim, why, sources)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (owner_id, id) DO UPDATE SET status = excluded.status,"
            " decided_at = excluded.decided_at, decided_by = excluded.decided_by,"
            " decision_note = excluded.decision_note, reverted_at = excluded.reverted_at,"
            " reverted_by = excluded.reverted_by, verbatim = excluded.verbatim",
            (
                self.owner, p.id, p.kind, json.dumps(p.change, ensure_ascii=False), p.reason,
                p.origin, p.created_at, p.status, p.content_hash, p.decided_at, p.decided_by,
                p.decision_note, p.reverted_at, p.reverted_by, verbatim, p.why,
                json.dumps([s.to_json() for s in p.sources], ensure_ascii=False),
            ),
        )  # fmt: skip

    def _proposals(self, conn: psycopg.Connection, where: str, *params: object) -> list[Proposal]:
        rows = conn.execute(
            "SELECT id, kind, change::text, reason, origin, created_at, status, content_hash,"
            " decided_at, decided_by, decision_note, reverted_at, reverted_by, why,"
            " sources::text FROM proposals"
            f" WHERE owner_id = %s AND {where} ORDER BY created_at, id",
            (self.owner, *params),
        ).fetchall()
        return [
            Proposal(
                id=pid,
                kind=kind,
                change=json.loads(change),
                reason=reason,
                origin=origin,
                created_at=self._local(created),
                status=cast(ProposalStatus, status),
                content_hash=digest,
                decided_at=self._local(decided) if decided else None,
                decided_by=by,
                decision_note=note,
                reverted_at=self._local(reverted) if reverted else None,
                reverted_by=reverted_by,
                why=why,
                sources=tuple(Source.from_json(s, f"proposal {pid}") for s in json.loads(sources)),
            )
            for (
                pid,
                kind,
                change,
                reason,
                origin,
                created,
                status,
                digest,
                decided,
                by,
                note,
                reverted,
                reverted_by,
                why,
                sources,
            ) in rows
        ]

    def proposals(self, *, include_decided: bool = True) -> list[Proposal]:
        """Every proposal, oldest first."""
        where = "true" if include_decided else "status = 'pending'"
        with self.db.owner_tx(self.owner) as conn:
            return self._proposals(conn, where)

    def list_proposals(self, *, include_decided: bool = True) -> ProposalListing:
        return ProposalListing(self.proposals(include_decided=include_decided), [])

    def resolve_id(self, given: str) -> str:
        """The id `given` names among this owner's proposals, as the files' `resolve_id`."""

        def starting(prefix: str) -> list[str]:
            with self.db.owner_tx(self.owner) as conn:
                rows = conn.execute(
                    "SELECT id FROM proposals WHERE owner_id = %s AND starts_with(id, %s)",
                    (self.owner, prefix),
                ).fetchall()
            return [found for (found,) in rows]

        return resolve_in(given, starting, PROPOSALS_PLACE)

    def get_proposal(self, proposal_id: str) -> Proposal:
        validate_id(proposal_id)
        with self.db.owner_tx(self.owner) as conn:
            return self._one(conn, proposal_id, lock=False)

    def proposal_file_text(self, proposal_id: str) -> str:
        """The proposal as its file says it: verbatim while undecided since an import, else
        the file store's JSON."""
        with self.db.owner_tx(self.owner) as conn:
            found = self.proposal_text_in(conn, proposal_id)
        if found is None:
            raise NotFound.keyed("error.proposal.not_found", id=proposal_id, folder=PROPOSALS_PLACE)
        return found

    def proposal_text_in(self, conn: psycopg.Connection, proposal_id: str) -> str | None:
        """`proposal_file_text` in the caller's transaction; None when there is none."""
        row = conn.execute(
            "SELECT verbatim FROM proposals WHERE owner_id = %s AND id = %s",
            (self.owner, proposal_id),
        ).fetchone()
        if row is None:
            return None
        if row[0] is not None:
            return cast(str, row[0])
        return proposal_json(self._one(conn, proposal_id, lock=False))

    def _one(self, conn: psycopg.Connection, proposal_id: str, *, lock: bool) -> Proposal:
        if lock:
            conn.execute(
                "SELECT 1 FROM proposals WHERE owner_id = %s AND id = %s FOR UPDATE",
                (self.owner, proposal_id),
            )
        found = self._proposals(conn, "id = %s", proposal_id)
        if not found:
            raise NotFound.keyed("error.proposal.not_found", id=proposal_id, folder=PROPOSALS_PLACE)
        return found[0]

    def approve(
        self,
        proposal_id: str,
        by: str,
        *,
        content_hash: str | None = None,
        appliers: Mapping[str, PgApplier] | None = None,
    ) -> tuple[Proposal, ApplyResult]:
        """A person approves, as `trinho.proposals.store.approve`: the change applied through
        its kind's applier (`PG_APPLIERS` unless given) and the decision recorded in one
        transaction, so an approval is never half done."""
        by = decider(by)
        with self.db.owner_tx(self.owner) as conn:
            proposal = check_pending(
                self._one(conn, validate_id(proposal_id), lock=True), content_hash
            )
            applier = applier_for(
                PG_APPLIERS if appliers is None else appliers, proposal, PROPOSALS_PLACE
            )
            result = applier(self, conn, proposal)
            decided = approved(proposal, result, by, self.now())
            self._write_proposal(conn, decided)
        return decided, result

    def reject(
        self,
        proposal_id: str,
        by: str,
        reason: str | None = None,
        *,
        content_hash: str | None = None,
    ) -> Proposal:
        """A person rejects: nothing applied, and the same origin will not propose it again."""
        by = decider(by)
        note = rejection_note(reason)
        with self.db.owner_tx(self.owner) as conn:
            proposal = check_pending(
                self._one(conn, validate_id(proposal_id), lock=True), content_hash
            )
            decided = rejected(proposal, by, note, self.now())
            self._write_proposal(conn, decided)
        return decided


PgApplier = Callable[[PgRecords, "psycopg.Connection", Proposal], ApplyResult]
"""Applies an approved proposal of one kind in the approval's transaction: the PostgreSQL
form of `trinho.proposals.store.Applier`."""

PG_APPLIERS: Mapping[str, PgApplier] = MappingProxyType(
    {FACT_KIND: PgRecords.apply_fact, MEMORY_KIND: PgRecords.apply_memory}
)
"""The built-in kinds this backend applies, dispatched as the file store dispatches
`trinho.review.appliers.APPLIERS`; a kind missing here is refused in one line, as there."""


def proposal_json(proposal: Proposal) -> str:
    """A proposal's file text, exactly as `trinho.proposals.store` writes it."""
    return proposal_text(proposal)
