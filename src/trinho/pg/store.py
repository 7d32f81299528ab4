"""The PostgreSQL stores of one owner: daily notes, MEMORY.md, facts, proposals.

The same promises as the file stores, with a transaction where the files use a locked,
fsync'd append or an atomic replace: a save is acknowledged once it is committed, and a
crash before the commit leaves nothing of it. The decisions are the file stores' own pure
functions (`trinho.facts.rules.reconcile`, the note and proposal formats), so both backends
decide alike; a test runs the same operations on both (tests/pg/test_pg_records.py).

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
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, cast
from zoneinfo import ZoneInfo

from trinho.clock import parse_day
from trinho.errors import NotFound, TrinhoError
from trinho.facts.format import (
    CHANGE_CONTEXT,
    check_basis,
    clean_source,
    clean_value,
    fact_digest,
    proposal_change,
    render_fact,
)
from trinho.facts.rules import (
    ActorKind,
    Basis,
    Fact,
    FactConflict,
    FactVersion,
    Incoming,
    check_actor,
    check_dates,
    reconcile,
)
from trinho.facts.store import FactListing, Saved
from trinho.i18n import t
from trinho.i18n.keys import FACT_OUTCOME, FACT_REASON
from trinho.notes.format import NoteFile, format_entry, parse_note_file, validate_note_text
from trinho.notes.store import SavedNote
from trinho.pg.connect import Database, check_owner
from trinho.pg.held import apply_memory
from trinho.pg.search import fact_path, replace_path_docs
from trinho.proposals.format import check_kind, clean_text, content_hash, identity
from trinho.proposals.store import (
    MAX_ORIGIN_CHARS,
    MAX_REASON_CHARS,
    ApplyResult,
    Proposal,
    ProposalListing,
    ProposalStatus,
    Source,
    Submitted,
    clean_sources,
    clean_why,
    fresh_id,
    proposal_text,
    resolve_in,
    validate_id,
)
from trinho.search.base import Hit, Query, validate_query
from trinho.search.documents import Kind, fact_docs, memory_docs, note_docs
from trinho.textnorm import validate_slug
from trinho.workspace import MEMORY_FILE, NOTES_DIR

if TYPE_CHECKING:
    import psycopg

Clock = Callable[[], datetime]
PROPOSALS_PLACE = "the database"
"""Where a proposal not found was looked for, as the error names it."""


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


class PgRecords:
    """One owner's records in the database. `user` is whose facts a save is about when it
    names none (the workspace's `[owner] user`); `clock` and `zone` make `HH:MM` and the
    stored instants, as a workspace's clock and time zone do."""

    def __init__(
        self,
        db: Database,
        owner: str,
        *,
        clock: Clock,
        timezone: str,
        user: str = "owner",
        locale: str = "en",
    ) -> None:
        self.db = db
        self.owner = check_owner(owner)
        self._clock = clock
        self.tz = ZoneInfo(timezone)
        self.user = validate_slug(user, "user id")
        self.locale = locale

    def now(self) -> datetime:
        return self._clock().astimezone(self.tz)

    def today(self) -> date:
        return self.now().date()

    def _local(self, moment: datetime) -> datetime:
        return moment.astimezone(self.tz)

    # ---- daily notes ---------------------------------------------------------------------------

    def save_note(self, text: str) -> SavedNote:
        """memory_save: append `- HH:MM text` to today's note, acknowledged with the commit
        that appends it (the day's row locked), the instant it was saved recorded beside."""
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
            conn.execute(
                "INSERT INTO note_acks (owner_id, day, seq, hhmm, note, saved_at)"
                " SELECT %s, %s, coalesce(max(seq), 0) + 1, %s, %s, %s FROM note_acks"
                " WHERE owner_id = %s AND day = %s",
                (self.owner, day, hhmm, normalized, now, self.owner, day),
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
        from trinho.pg.search import search

        validate_query(query)
        found = search(
            self,
            query.text,
            query.limit,
            since=query.since,
            until=query.until,
            kinds=query.kinds,
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
                "INSERT INTO fact_versions (owner_id, user_id, key, n, head, value, basis,"
                " valid_from, valid_to, recorded_at, source, confirmed_on)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                [
                    (
                        *where,
                        n,
                        is_head,
                        v.value,
                        v.basis,
                        v.valid_from,
                        v.valid_to,
                        v.recorded_at,
                        v.source,
                        v.confirmed_on,
                    )
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
        incoming = Incoming(
            key=key,
            value=clean_value(value, key),
            basis=check_basis(basis),
            recorded_at=self.now(),
            source=clean_source(source or actor),
            valid_from=valid_from,
            valid_to=valid_to,
        )
        check_actor(actor)
        today = self.today()
        check_dates(key, valid_from, valid_to, today)
        with self.db.owner_tx(self.owner) as conn:
            _lock(conn, self.owner, "fact", user, key)
            current = self._fact(conn, user, key)
            decision = reconcile(current, incoming, actor, today)
            if decision.outcome == "proposed":
                assert decision.proposal_reason is not None
                submitted = self._submit(
                    conn,
                    "fact",
                    proposal_change(user, incoming, current, today),
                    reason=t(self.locale, FACT_REASON[decision.proposal_reason], fact=key),
                    origin=origin or actor,
                    context=CHANGE_CONTEXT,
                    why=why,
                    sources=sources,
                )
                return Saved("proposed", current, submitted.proposal, submitted.created)
            if decision.after is not None:
                self._write_fact(conn, user, decision.after)
            return Saved(decision.outcome, decision.after or current)

    def _apply_fact(self, conn: psycopg.Connection, proposal: Proposal) -> ApplyResult:
        """Approving speaks as the owner, as `trinho.facts.store.apply_fact_proposal`: saved
        with basis `user` in the approval's transaction, unless the fact changed since."""
        change = proposal.change
        where = f"proposal {proposal.id}"
        try:
            user = validate_slug(str(change["user"]), f"{where}: user")
            key = validate_slug(str(change["key"]), f"{where}: key")
            value = clean_value(str(change["value"]), key)
            valid_from, valid_to = (
                parse_day(str(change[name]), f"{where}: {name}") if change.get(name) else None
                for name in ("valid_from", "valid_to")
            )
        except KeyError as missing:
            raise TrinhoError.keyed(
                "error.field.missing", where=where, names=str(missing)
            ) from None
        _lock(conn, self.owner, "fact", user, key)
        current = self._fact(conn, user, key)
        source = f"proposal:{proposal.id}"
        if current is not None and any(v.source == source for v in current.versions()):
            return ApplyResult(True, t(self.locale, "fact.already_applied", fact=key, value=value))
        if fact_digest(current) != change.get("base"):
            return ApplyResult(False, t(self.locale, "fact.stale", fact=key))
        incoming = Incoming(key, value, "user", self.now(), source, valid_from, valid_to)
        try:
            decision = reconcile(current, incoming, "owner", self.today())
        except FactConflict as exc:
            return ApplyResult(False, str(exc))
        if decision.after is not None:
            self._write_fact(conn, user, decision.after)
        outcome = FACT_OUTCOME[decision.outcome]
        return ApplyResult(True, t(self.locale, outcome, fact=key, value=value))

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
        with self.db.owner_tx(self.owner) as conn:
            return self._submit(
                conn,
                kind,
                change,
                reason=reason,
                origin=origin,
                context=context,
                why=why,
                sources=sources,
            )

    def _submit(
        self,
        conn: psycopg.Connection,
        kind: str,
        change: Mapping[str, Any],
        *,
        reason: str,
        origin: str,
        context: Collection[str],
        why: str | None = None,
        sources: Iterable[Source] = (),
    ) -> Submitted:
        check_kind(kind)
        why = clean_why(why)
        kept_sources = clean_sources(sources)
        reason = clean_text(reason, "proposal reason", MAX_REASON_CHARS)
        origin = clean_text(origin, "proposal origin", MAX_ORIGIN_CHARS)
        plain: dict[str, Any] = json.loads(json.dumps(dict(change), ensure_ascii=False))
        digest = content_hash(kind, plain)
        same = identity(kind, plain, context)
        _lock(conn, self.owner, "proposals")
        for existing in self._proposals(conn, "status = 'pending' AND content_hash = %s", digest):
            return Submitted(existing, created=False)
        for existing in self._proposals(conn, "status = 'rejected' AND origin = %s", origin):
            if identity(existing.kind, existing.change, context) == same:
                return Submitted(existing, created=False)
        created_at = self.now()
        new_id = fresh_id(
            digest, origin, created_at, lambda i: bool(self._proposals(conn, "id = %s", i))
        )
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

    def _pending(
        self, conn: psycopg.Connection, proposal_id: str, expected_hash: str | None
    ) -> Proposal:
        proposal = self._one(conn, validate_id(proposal_id), lock=True)
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
            raise TrinhoError.keyed(
                "error.proposal.decided", id=proposal_id, status=proposal.status
            )
        return proposal

    def approve(
        self, proposal_id: str, by: str, *, content_hash: str | None = None
    ) -> tuple[Proposal, ApplyResult]:
        """A person approves: the change applied and the decision recorded in one
        transaction, so an approval is never half done: a fact, or a held MEMORY.md line
        (`trinho.pg.held`)."""
        by = clean_text(by, "decided by", MAX_ORIGIN_CHARS)
        with self.db.owner_tx(self.owner) as conn:
            proposal = self._pending(conn, proposal_id, content_hash)
            if proposal.kind == "fact":
                result = self._apply_fact(conn, proposal)
            elif proposal.kind == "memory":
                result = apply_memory(self, conn, proposal)
            else:
                raise TrinhoError.keyed(
                    "error.proposal.no_applier", path=PROPOSALS_PLACE, kind=proposal.kind
                )
            decided = replace(
                proposal,
                status="approved" if result.ok else "stale",
                decided_at=self.now(),
                decided_by=by,
                decision_note=result.message,
            )
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
        by = clean_text(by, "decided by", MAX_ORIGIN_CHARS)
        note = clean_text(reason, "rejection reason", MAX_REASON_CHARS) if reason else None
        with self.db.owner_tx(self.owner) as conn:
            proposal = self._pending(conn, proposal_id, content_hash)
            decided = replace(
                proposal, status="rejected", decided_at=self.now(), decided_by=by,
                decision_note=note,
            )  # fmt: skip
            self._write_proposal(conn, decided)
        return decided


def proposal_json(proposal: Proposal) -> str:
    """A proposal's file text, exactly as `trinho.proposals.store` writes it."""
    return proposal_text(proposal)
