"""The search index: a SQLite FTS5 store in `.trinho/index.sqlite`, derived from the files.

Each indexed file is recorded with its size and modification time. Before a search, `stat`
tells which files changed by hand (see FULL_SWEEP_SECONDS); only those are read again. Writes
made through trinho call `refresh` for the file they touched. `rebuild` builds a new index
beside the old one and swaps it in, so a reader never sees half an index.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import secrets
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from trinho.boundary import public_error
from trinho.durable import read_regular
from trinho.errors import TrinhoError
from trinho.facts.store import FACTS_DIR
from trinho.openclaw.files import FACTS_DIGEST, is_digest
from trinho.openclaw.markers import day_of_name
from trinho.search.base import Found, Hit, Query, validate_query
from trinho.search.dates import Span, asked_span, day_token, month_token, span_tokens
from trinho.search.documents import (
    Doc,
    Kind,
    conversation_docs,
    fact_docs,
    memory_docs,
    note_docs,
)
from trinho.search.rank import (
    CURRENT_WHY,
    Candidate,
    Ranked,
    Scored,
    Tuning,
    asks_question,
    current_first,
    describes_self,
    fact_people,
    fuse,
    has_time_cue,
    is_inference_question,
    is_multipart,
    is_when_question,
    known_people,
    lexical_suffices,
    match_expression,
    named_people,
    pool_size,
    rerank,
    smooth_dense,
    spread_sessions,
)
from trinho.search.tokenize import (
    TOKENIZER_VERSION,
    accented_words,
    expansions,
    fold,
    query_terms,
)
from trinho.search.vectors import Embedder, VectorStore, dense_key
from trinho.workspace import ARCHIVE_FILE, CONVERSATIONS_DIR, MEMORY_FILE, NOTES_DIR, Workspace

if TYPE_CHECKING:
    from trinho.search.vectors import Matrix

log = logging.getLogger(__name__)

INDEX_FILE = "index.sqlite"
SCHEMA_VERSION = "8"
CONTEXT_WEIGHT = 0.3
"""Weight of the neighbouring turns' words against the turn's own words in BM25."""

FULL_SWEEP_SECONDS = 5.0
"""A long-lived index stats every file at most this often; in between, each search stats only
the folders (a file added, removed or saved by rename changes them), MEMORY.md and the newest
day files. A fresh `SearchIndex` (each CLI run) always starts with a full sweep."""


_DOC_COLUMNS = (
    "d.id, d.kind, d.path, d.line, d.day, d.text, d.refs, d.speaker, d.current, d.dense_key, d.said"
)
_PLACE_COLUMNS = "d.id, d.kind, d.path, d.dense_key"
"""What places an entry among its neighbours, without its text."""
_DAY_FILE_RE = re.compile(r"^(\d{4}-\d{2}-\d{2})\.(md|jsonl)$")
LOWER_MEMORY_FILE = "memory.md"
"""OpenClaw's legacy lower-case `memory.md` at the root: searched like MEMORY.md."""
USER_FILE = "USER.md"
"""OpenClaw's profile of the owner, which OpenClaw 2026.9.6 indexes as memory: searched too."""

_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files(path TEXT PRIMARY KEY, kind TEXT NOT NULL, mtime_ns INTEGER NOT NULL,
                   size INTEGER NOT NULL, ctime_ns INTEGER NOT NULL DEFAULT 0);
CREATE TABLE docs(id INTEGER PRIMARY KEY, path TEXT NOT NULL, kind TEXT NOT NULL,
                  line INTEGER NOT NULL, day TEXT, text TEXT NOT NULL, refs TEXT NOT NULL,
                  speaker TEXT NOT NULL, current INTEGER NOT NULL, dense TEXT NOT NULL,
                  dense_key TEXT NOT NULL, said TEXT NOT NULL DEFAULT '');
CREATE INDEX docs_path ON docs(path);
CREATE INDEX docs_speaker ON docs(speaker);
CREATE INDEX docs_dense_key ON docs(dense_key);
CREATE VIRTUAL TABLE fts USING fts5(body, context, tokenize='unicode61 remove_diacritics 0');
CREATE TABLE vectors(key TEXT PRIMARY KEY, vec BLOB NOT NULL);
CREATE TABLE days(token TEXT NOT NULL, id INTEGER NOT NULL);
CREATE INDEX days_token ON days(token);
CREATE INDEX days_id ON days(id);
"""


@dataclass(frozen=True)
class FileStat:
    """What says a file changed: its size and times. The change time is there because a copy
    that keeps the modification time (`cp -p`, `rsync -t`) of a same-size edit moves only it."""

    kind: Kind
    mtime_ns: int
    size: int
    ctime_ns: int = 0

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.mtime_ns, self.size, self.ctime_ns)


def file_stat(kind: Kind, st: os.stat_result) -> FileStat:
    return FileStat(kind, st.st_mtime_ns, st.st_size, st.st_ctime_ns)


def scan(ws: Workspace) -> dict[str, FileStat]:
    """Every indexable file with its size and times: one stat each, nothing read. Anything
    that is not a regular file (a FIFO named like a note) is not indexed: reading it would
    block."""
    found: dict[str, FileStat] = {}
    candidates: list[tuple[str, Kind, Path]] = [
        (memory, "memory", ws.root / memory) for memory in (MEMORY_FILE, ARCHIVE_FILE, USER_FILE)
    ]
    if _distinct_lower_memory(ws):
        candidates.append((LOWER_MEMORY_FILE, "memory", ws.root / LOWER_MEMORY_FILE))
    for rel in memory_files(ws):
        kind = kind_of(ws, rel)
        if kind is not None and rel != ARCHIVE_FILE:
            candidates.append((rel, kind, ws.root / rel))
    with (
        contextlib.suppress(FileNotFoundError, NotADirectoryError),
        os.scandir(ws.root / CONVERSATIONS_DIR) as entries,
    ):
        for entry in entries:
            match = _DAY_FILE_RE.match(entry.name)
            if match is not None and match.group(2) == "jsonl":
                rel = f"{CONVERSATIONS_DIR}/{entry.name}"
                candidates.append((rel, "conversation", Path(entry.path)))
    candidates += [(ws.shown(path), "fact", path) for path in fact_files(ws)]
    folders: dict[Path, bool] = {}
    for rel, kind, path in candidates:
        with contextlib.suppress(FileNotFoundError, NotADirectoryError):
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                st = os.stat(path)
                inside = stat.S_ISREG(st.st_mode) and ws.inside(path)
            else:
                inside = stat.S_ISREG(st.st_mode) and _folder_inside(ws, path.parent, folders)
            if inside:
                found[rel] = file_stat(kind, st)
    return found


def _folder_inside(ws: Workspace, folder: Path, known: dict[Path, bool]) -> bool:
    """Whether a file that is no link, in `folder`, stays inside the workspace: exactly when
    the folder does, after its links (`Workspace.confine`). Resolved once per folder, not once
    per file: resolving every day file's path was most of a full sweep (0.5 s at ten years)."""
    inside = known.get(folder)
    if inside is None:
        inside = known[folder] = ws.inside(folder)
    return inside


def _distinct_lower_memory(ws: Workspace) -> bool:
    """Whether `memory.md` is a file of its own (on a case-insensitive disk it is MEMORY.md)."""
    lower, upper = ws.root / LOWER_MEMORY_FILE, ws.root / MEMORY_FILE
    try:
        return not (upper.exists() and os.path.samefile(lower, upper))
    except OSError:
        return False


def memory_files(ws: Workspace) -> list[str]:
    """Every `*.md` under `memory/`, at any depth, hidden folders (OpenClaw's `memory/.dreams/`)
    included, as OpenClaw 2026.9.6 indexes them; links to folders are not followed. trinho's
    generated facts digest is left out: its facts are indexed as facts."""
    found: list[str] = []
    root = ws.root / NOTES_DIR
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        rel_folder = Path(folder).relative_to(ws.root).as_posix()
        found.extend(f"{rel_folder}/{name}" for name in sorted(files) if name.endswith(".md"))
    return [rel for rel in found if not _generated_digest(ws, rel)]


def _generated_digest(ws: Workspace, rel: str) -> bool:
    return rel == FACTS_DIGEST and is_digest(ws.root / rel)


def fact_folders(ws: Workspace) -> list[Path]:
    """`users/<user>/facts/` of every user: facts shared by all agents are searched too."""
    try:
        users = sorted(ws.users_root.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [user / FACTS_DIR for user in users if (user / FACTS_DIR).is_dir()]


def fact_files(ws: Workspace) -> list[Path]:
    return [path for folder in fact_folders(ws) for path in sorted(folder.glob("*.md"))]


def file_path(ws: Workspace, rel: str) -> Path:
    """Where an indexed path is: inside the workspace, or absolute when users/ is elsewhere."""
    return Path(rel) if Path(rel).is_absolute() else ws.root / rel


def kind_of(ws: Workspace, rel: str) -> Kind | None:
    """Which kind of indexed file a path (as `scan` names it) is, if any."""
    if rel in (MEMORY_FILE, ARCHIVE_FILE, LOWER_MEMORY_FILE, USER_FILE):
        return "memory"
    path = file_path(ws, rel)
    if path.suffix == ".md" and path.parent.name == FACTS_DIR:
        with contextlib.suppress(OSError):
            if path.parent.parent.parent.resolve() == ws.users_root.resolve():
                return "fact"
    folder, _, name = rel.rpartition("/")
    parts = rel.split("/")
    if parts[0] == NOTES_DIR and len(parts) > 1 and name.endswith(".md"):
        if any(part.startswith(".") for part in parts[1:-1]):
            return "memory"  # OpenClaw's own (memory/.dreams/): memory, never a day's notes
        if _generated_digest(ws, rel):
            return None  # the facts again, for OpenClaw: already indexed as facts
        return "note" if day_of_name(name) is not None else "memory"
    match = _DAY_FILE_RE.match(name)
    if folder == CONVERSATIONS_DIR and match is not None and match.group(2) == "jsonl":
        return "conversation"
    return None


def stat_paths(ws: Workspace, paths: Iterable[str]) -> dict[str, FileStat]:
    """`scan` limited to the given paths (as `scan` names them)."""
    found: dict[str, FileStat] = {}
    for rel in paths:
        kind = kind_of(ws, rel)
        if kind is None:
            continue
        path = file_path(ws, rel)
        with contextlib.suppress(FileNotFoundError, NotADirectoryError):
            st = os.stat(path)
            if stat.S_ISREG(st.st_mode) and ws.inside(path):
                found[rel] = file_stat(kind, st)
    return found


def docs_of_file(ws: Workspace, rel: str, kind: Kind) -> list[Doc]:
    """Read and split one file; a file that is not UTF-8 is indexed with the bad bytes replaced.
    A file that became a link out of the workspace since it was stat'ed gives nothing."""
    try:
        text = read_regular(ws.confine(file_path(ws, rel))).decode("utf-8", errors="replace")
    except FileNotFoundError:
        return []
    except (OSError, TrinhoError) as exc:  # unreadable, too large: this file only is left out
        log.warning("search: %s not indexed: %s", rel, public_error(exc, ws.root))
        return []
    if kind == "memory":
        return memory_docs(rel, text)
    if kind == "fact":
        return fact_docs(rel, Path(rel).stem, text)
    name = rel.rsplit("/", 1)[1]
    if kind == "note":
        parsed = day_of_name(name)
        return [] if parsed is None else note_docs(rel, parsed[0], text)
    try:
        day = date.fromisoformat(name.split(".", 1)[0])
    except ValueError:
        return []  # named like a day file but not a real day (2026-02-30.md): not a day file
    return conversation_docs(rel, day, text)


class SearchIndex:
    """An open index of one workspace. Use as a context manager, or call `close()`."""

    def __init__(
        self,
        ws: Workspace,
        embedder: Embedder | None = None,
        tuning: Tuning | None = None,
        *,
        any_thread: bool = False,
    ) -> None:
        self.ws = ws
        self.any_thread = any_thread
        """Whether its connection may be used from any thread (one at a time): an index a
        server keeps open is searched from whichever worker thread a call arrives on."""
        self.tuning = tuning or Tuning()
        self._people_cache: tuple[int, list[str]] | None = None
        self._facts_cache: tuple[int, list[tuple[frozenset[str], str]]] | None = None
        self.path = ws.internal / INDEX_FILE
        self._last_sweep: float | None = None
        self._folders: dict[Path, int] = {}
        self._watched: list[str] = []
        self.conn = self._open()
        self.vectors = None if embedder is None else VectorStore(self.conn, embedder)

    def __enter__(self) -> SearchIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.vectors is not None:
            self.vectors.close()
        self.conn.close()

    # -- building -------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = self._usable()
        if conn is not None:
            return conn
        with self.ws.lock(self.path):  # one first build at a time; the others then use it
            conn = self._usable()
            if conn is None:
                self.rebuild()
                conn = _connect(self.path, self.any_thread)
        return conn

    def _usable(self) -> sqlite3.Connection | None:
        """The index as it is, when it opens and is of this version; None to rebuild it."""
        if self.path.exists():
            try:
                conn = _connect(self.path, self.any_thread)
            except sqlite3.DatabaseError:
                conn = None  # damaged: it is derived, so it is simply rebuilt
            if conn is not None:
                with contextlib.suppress(sqlite3.DatabaseError):
                    if _current_version(conn) == _version():
                        return conn
                conn.close()
        return None

    def rebuild(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Build a fresh index beside the old one, then swap it in. Returns the docs indexed."""
        unique = f"{os.getpid()}.{threading.get_ident()}.{secrets.token_hex(4)}"
        tmp = self.path.with_name(f".{INDEX_FILE}.{unique}.tmp")  # never shared by two builds
        tmp.unlink(missing_ok=True)
        conn = _connect(tmp)
        try:
            conn.executescript(_SCHEMA)
            conn.execute("INSERT INTO meta VALUES ('version', ?)", (_version(),))
            files = scan(self.ws)
            total = 0
            with conn:
                for done, (rel, stat) in enumerate(sorted(files.items()), start=1):
                    total += _replace_file(conn, self.ws, rel, stat)
                    if progress is not None:
                        progress(done, len(files))
            conn.execute("INSERT INTO fts(fts) VALUES ('optimize')")
            conn.commit()
            _keep_vectors(conn, self.path)
        except BaseException:
            conn.close()
            tmp.unlink(missing_ok=True)
            raise
        conn.close()
        os.replace(tmp, self.path)
        if hasattr(self, "conn"):
            self.conn.close()
            self.conn = _connect(self.path, self.any_thread)
            if self.vectors is not None:
                self.vectors.close()
                self.vectors = VectorStore(self.conn, self.vectors.embedder)
        return total

    def refresh(self, paths: Sequence[str] | None = None) -> int:
        """Re-read the files that changed since they were indexed; returns how many.

        With `paths` (workspace-relative), only those are looked at: what a write through
        trinho calls for the file it just wrote.
        """
        if paths is None:
            self._folders = self._folder_times()
            current = scan(self.ws)
            # Counted from the sweep's end: a sweep slower than the interval (seconds on a
            # busy disk) must not make every search sweep again.
            self._last_sweep = time.monotonic()
            self._watched = _newest(current)
            rows = self.conn.execute("SELECT path, mtime_ns, size, ctime_ns FROM files").fetchall()
        else:
            current = stat_paths(self.ws, paths)
            wanted_paths = sorted(set(paths))
            rows = self.conn.execute(
                "SELECT path, mtime_ns, size, ctime_ns FROM files "
                f"WHERE path IN ({', '.join('?' * len(wanted_paths))})",
                wanted_paths,
            ).fetchall()
        known = {row["path"]: (row["mtime_ns"], row["size"], row["ctime_ns"]) for row in rows}
        changed = [rel for rel, st in current.items() if known.get(rel) != st.key]
        gone = [rel for rel in known if rel not in current]
        if not changed and not gone:
            return 0
        with self.conn:
            for rel in gone:
                _forget_file(self.conn, rel)
            for rel in changed:
                _replace_file(self.conn, self.ws, rel, current[rel])
        if self.vectors is not None:
            self.vectors.forget_loaded()
        self._people_cache = None
        self._facts_cache = None
        return len(changed) + len(gone)

    def _folder_times(self) -> dict[Path, int]:
        times = {}
        folders = [
            self.ws.root / NOTES_DIR,
            self.ws.root / CONVERSATIONS_DIR,
            self.ws.users_root,
            *fact_folders(self.ws),
        ]
        for folder in folders:
            with contextlib.suppress(OSError):
                times[folder] = os.stat(folder).st_mtime_ns
        return times

    def ensure_fresh(self) -> int:
        """Notice hand edits before a search: a full stat sweep when the last one is older
        than FULL_SWEEP_SECONDS or a folder changed, else a look at the likely files only."""
        stale = (
            self._last_sweep is None
            or time.monotonic() - self._last_sweep > FULL_SWEEP_SECONDS
            or self._folder_times() != self._folders
        )
        if stale:
            return self.refresh()
        return self.refresh(self._watched)

    # -- searching ------------------------------------------------------------------

    def search(self, query: Query, *, fresh: bool = True) -> list[Hit]:
        """Ranked hits for `query`; with `fresh`, hand edits are picked up first."""
        return self.find(query, fresh=fresh).hits

    def find(self, query: Query, *, fresh: bool = True) -> Found:
        """Ranked hits for `query`, the people it named, and why each hit ranks where it does."""
        found = validate_query(query)
        if fresh:
            self.ensure_fresh()
        where, params = _filters(query)
        accented = accented_words(query.text)
        known = fact_people(self._facts(), query.text)
        named = named_people(query.text, self._people())
        named += [person for person in known if person not in named]
        when = is_when_question(query.text)
        multipart = self.tuning.per_session > 0 and is_multipart(query.text, named)
        span = (
            asked_span(query.text, query.today or self.ws.today(), self.tuning.date_margin)
            if self.tuning.date_weight > 0
            else None
        )
        wide = bool(accented or named or when or multipart or span) or self.vectors is not None
        wanted = pool_size(query.limit, wide)
        extra = [*expansions(query.text), *(t for p in known for t in query_terms(p))]
        searched = [*found, *(t for t in dict.fromkeys(extra) if t not in found)]
        beside = near_soon = None
        if self.vectors is not None:
            # The query embedded and the vectors scanned on the other core, beside the lexical
            # search; dropped if the lexical side suffices.
            self.vectors.sync()
            beside = self.vectors.query_vector_beside(query.text)
            near_soon = self.vectors.nearest_beside(beside, self._pool(wanted, where))
        rows = self._lexical(match_expression(searched), where, params, wanted)
        by_id: dict[int, sqlite3.Row] = {row["id"]: row for row in rows}
        scored = [Scored(row["id"], row["text"], -row["s"]) for row in rows]
        in_span: set[int] = set()
        if span is not None:
            scored, in_span = self._with_span(scored, searched, span, where, params, wanted, by_id)
        lexical = rerank(scored, accented)
        dense: dict[int, tuple[float, int]] = {}
        if beside is not None and near_soon is not None:
            if self._lexical_suffices(found, lexical, by_id, query):
                near_soon.cancel()
                beside.cancel()
            else:
                near = near_soon.result()
                dense = self._dense(beside.result(), near, where, params, wanted, by_id)
        if not (wide and (named or when or dense)):
            chosen = [Ranked(c.doc_id, c.score, ()) for c in lexical]
        else:
            wanted_terms = set(found)
            lexical_rank = {c.doc_id: (rank, c.score) for rank, c in enumerate(lexical, 1)}
            order = [c.doc_id for c in lexical] + [
                i for i in dense if i not in lexical_rank and dense[i][1] <= wanted
            ]
            people = {fold(p) for p in named}
            # A facet is computed only when a rule will read it: the regexes over a hundred
            # candidates are much of the time a search spends in Python.
            full = wanted_terms if dense and self.tuning.protect_full_matches else None
            # A guess about someone re-weights meaning: without the dense side it changes
            # nothing (lexical ranks as before).
            inference = bool(dense) and is_inference_question(query.text)
            tuning = self.tuning.for_inference() if inference else self.tuning
            tuning = tuning.for_language(query.text, dated=span is not None)
            candidates = [
                _candidate(
                    by_id[i],
                    lexical_rank.get(i),
                    dense.get(i),
                    full,
                    people,
                    when,
                    by_id,
                    inference,
                )
                for i in order
            ]
            chosen = fuse(candidates, tuning, when, inference)
        if multipart:
            chosen = spread_sessions(
                chosen,
                lambda r: str(by_id[r.doc_id]["path"]),
                self.tuning.per_session,
                query.limit,
            )
        chosen = self._current_first(chosen, by_id, where, params)[: query.limit]
        hits = [_hit(by_id[r.doc_id], r.score) for r in chosen]
        why = tuple(
            (
                *r.why,
                *_dated_why(by_id[r.doc_id], span if r.doc_id in in_span else None, self.tuning),
            )
            for r in chosen
        )
        return Found(hits, tuple(named), why)

    def _with_span(
        self,
        scored: list[Scored],
        searched: list[str],
        span: Span,
        where: str,
        params: list[object],
        wanted: int,
        by_id: dict[int, sqlite3.Row],
    ) -> tuple[list[Scored], set[int]]:
        """The lexical candidates with the span a question names searched too (one more FTS5
        query: the same terms, among the lines dated in the span or saying a day in it, by
        their tokens in the `days` table; a table apart, so BM25's lengths are the words'
        alone, and only the lines that say a day have rows there): a line in
        the span gains `Tuning.date_weight` times its score, one beyond the first `wanted`
        joins them. Never a filter: a line outside the span keeps its place."""
        tokens = span_tokens(span)
        inside = (
            " AND (d.day BETWEEN ? AND ? OR d.id IN "
            f"(SELECT id FROM days WHERE token IN ({', '.join('?' * len(tokens))})))"
        )
        extra = self._lexical(
            match_expression(searched),
            where + inside,
            [*params, span.first.isoformat(), span.last.isoformat(), *tokens],
            wanted,
        )
        score = {c.doc_id: c.score for c in scored}
        text = {c.doc_id: c.text for c in scored}
        for row in extra:
            by_id.setdefault(row["id"], row)
            own = -row["s"]
            score[row["id"]] = score.get(row["id"], own) + self.tuning.date_weight * own
            text[row["id"]] = row["text"]
        ordered = sorted(score, key=lambda i: -score[i])
        return [Scored(i, text[i], score[i]) for i in ordered], {row["id"] for row in extra}

    def _lexical_suffices(
        self, found: list[str], lexical: list[Scored], by_id: dict[int, sqlite3.Row], query: Query
    ) -> bool:
        if self.tuning.dense_when_lexical_full or not self.tuning.protect_full_matches:
            return False
        wanted_terms = set(found)
        first = [by_id[c.doc_id] for c in lexical[: query.limit]]
        return lexical_suffices(
            [wanted_terms <= set(str(row["body"]).split()) for row in first],
            query.limit,
        )

    def _lexical(
        self, expression: str, where: str, params: list[object], wanted: int
    ) -> list[sqlite3.Row]:
        """The best `wanted` matches. With the semantic layer, each comes with its indexed
        terms (`body`), read for those rows only: the full-match tests read them instead of
        tokenizing the text again (stemming a hundred candidates was a third of a search)."""
        if where:
            best = (
                "SELECT d.id AS rowid, bm25(fts, 1.0, ?) AS s FROM fts "
                f"JOIN docs d ON d.id = fts.rowid WHERE fts MATCH ? {where} ORDER BY s LIMIT ?"
            )
            args: tuple[object, ...] = (CONTEXT_WEIGHT, expression, *params, wanted)
        else:
            # Without filters, FTS5 alone picks the best rows; only those are joined.
            best = (
                "SELECT rowid, bm25(fts, 1.0, ?) AS s FROM fts WHERE fts MATCH ? ORDER BY s LIMIT ?"
            )
            args = (CONTEXT_WEIGHT, expression, wanted)
        body = ", b.body" if self.vectors is not None else ""
        join = " JOIN fts b ON b.rowid = r.rowid" if body else ""
        return self.conn.execute(
            f"SELECT {_DOC_COLUMNS}, r.s{body} FROM ({best}) r JOIN docs d ON d.id = r.rowid"
            f"{join} ORDER BY r.s",
            args,
        ).fetchall()

    def _pool(self, wanted: int, where: str) -> int:
        """How many nearest entries the dense side looks at. Smoothing can lift a turn from
        below the first `wanted` (its neighbour is near): twice as many are looked at, with
        their neighbours; filters leave some out, so four times as many then."""
        smoothing = self.tuning.dense_neighbours > 0
        return wanted * (4 if where else 1) * (2 if smoothing else 1)

    def _dense(
        self,
        query: Matrix,
        near: list[tuple[str, float]],
        where: str,
        params: list[object],
        wanted: int,
        by_id: dict[int, sqlite3.Row],
    ) -> dict[int, tuple[float, int]]:
        """Cosines of the entries nearest in meaning (`near`, from the scan beside the
        lexical search) and of the lexical candidates: doc id -> (cosine, dense rank), best
        first."""
        assert self.vectors is not None
        lexical = {str(row["dense_key"]): doc_id for doc_id, row in by_id.items()}
        seen = {key for key, _ in near}
        also = self.vectors.cosines_of(query, [key for key in sorted(lexical) if key not in seen])
        cosine = dict(near) | dict(also)
        out: dict[int, float] = {
            doc_id: cosine[key] for key, doc_id in lexical.items() if key in cosine
        }
        fresh = [key for key, _ in near if key not in lexical]
        for row in self._rows_where("d.dense_key", fresh, where, params):
            by_id.setdefault(row["id"], row)
            out[row["id"]] = cosine[row["dense_key"]]
        if self.tuning.dense_neighbours > 0:
            out = self._smoothed(query, out, where, params, by_id)
        ordered = sorted(out.items(), key=lambda kv: (-kv[1], kv[0]))
        kept = {doc_id for doc_id, _ in ordered[:wanted]} | set(lexical.values())
        missing = sorted(kept - set(by_id))  # neighbours that became candidates
        for row in self._rows_where("d.id", missing, where, params):
            by_id[row["id"]] = row
        return {
            doc_id: (score, rank)
            for rank, (doc_id, score) in enumerate(ordered, 1)
            if doc_id in kept
        }

    def _rows_where(
        self,
        column: str,
        values: Sequence[object],
        where: str,
        params: list[object],
        columns: str = _DOC_COLUMNS,
    ) -> list[sqlite3.Row]:
        """The docs whose `column` is one of `values` (and that the filters let in)."""
        found: list[sqlite3.Row] = []
        for start in range(0, len(values), 500):
            part = values[start : start + 500]
            found += self.conn.execute(
                f"SELECT {columns} FROM docs d "
                f"WHERE {column} IN ({', '.join('?' * len(part))}) {where}",
                (*part, *params),
            ).fetchall()
        return found

    def _smoothed(
        self,
        query: Matrix,
        out: dict[int, float],
        where: str,
        params: list[object],
        by_id: dict[int, sqlite3.Row],
    ) -> dict[int, float]:
        """`out` (doc id -> cosine) with the neighbouring turns of its transcript turns added
        and every cosine smoothed over its neighbours (`rank.smooth_dense`). Of a neighbour
        only what places it is read here; the rows of those kept are read after."""
        assert self.vectors is not None
        turns = [i for i in out if by_id[i]["kind"] == "conversation"]
        around = sorted({n for i in turns for n in (i - 1, i + 1)} - set(out))
        added = self._rows_where("d.id", around, where, params, _PLACE_COLUMNS)
        cosine = dict(self.vectors.cosines_of(query, [str(row["dense_key"]) for row in added]))
        cosines = dict(out)
        cosines.update({row["id"]: cosine[row["dense_key"]] for row in added})
        placed = {**{row["id"]: row for row in added}, **by_id}
        return smooth_dense(cosines, _neighbours(placed, cosines), self.tuning.dense_neighbours)

    def _facts(self) -> list[tuple[frozenset[str], str]]:
        """The people of the owner's current facts (`known_people`), cached until the index
        changes."""
        version = int(self.conn.execute("PRAGMA data_version").fetchone()[0])
        if self._facts_cache is None or self._facts_cache[0] != version:
            pairs = []
            for row in self.conn.execute(
                "SELECT path, text FROM docs WHERE kind = 'fact' AND current = 1"
            ):
                key = Path(str(row["path"])).stem
                value = str(row["text"]).removeprefix(f"{key}: ").rsplit(" (", 1)[0]
                pairs.append((key, value))
            self._facts_cache = (version, known_people(pairs))
        return self._facts_cache[1]

    def _people(self) -> list[str]:
        """The speakers of the transcripts, longest name first, cached until the index changes."""
        version = int(self.conn.execute("PRAGMA data_version").fetchone()[0])
        if self._people_cache is None or self._people_cache[0] != version:
            names = [
                row["speaker"]
                for row in self.conn.execute(
                    "SELECT DISTINCT speaker FROM docs WHERE speaker != ''"
                )
            ]
            self._people_cache = (version, sorted(names, key=lambda n: (-len(n), n)))
        return self._people_cache[1]

    def _current_first(
        self,
        chosen: list[Ranked],
        by_id: dict[int, sqlite3.Row],
        where: str,
        params: list[object],
    ) -> list[Ranked]:
        """A fact's past version is shown after its current one, fetched when it was not found
        (and the query's filters let it in): what holds now first, the history right behind
        (`rank.current_first`, the rule PostgreSQL's search keeps too)."""
        current_of: dict[int, int] = {}
        for r in chosen:
            row = by_id[r.doc_id]
            if row["kind"] == "fact" and not row["current"]:
                now = self.conn.execute(
                    f"SELECT {_DOC_COLUMNS} FROM docs d WHERE d.path = ? AND d.current = 1{where}",
                    (row["path"], *params),
                ).fetchone()
                if now is not None:
                    by_id.setdefault(now["id"], now)
                    current_of[r.doc_id] = now["id"]
        if not current_of:
            return chosen
        ranked = {r.doc_id: r for r in chosen}
        return [
            ranked[doc_id]
            if past is None
            else Ranked(doc_id, ranked[past].score, (*ranked[past].why, CURRENT_WHY))
            for doc_id, past in current_first([r.doc_id for r in chosen], current_of)
        ]

    def raw_fts(self, text: str, limit: int) -> list[int]:
        """The same terms sent straight to FTS5 (no join, no re-ranking): a speed baseline."""
        return [
            row["rowid"]
            for row in self.conn.execute(
                "SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY bm25(fts, 1.0, ?) LIMIT ?",
                (match_expression(query_terms(text)), CONTEXT_WEIGHT, limit),
            )
        ]

    def count(self) -> int:
        return int(self.conn.execute("SELECT count(*) AS n FROM docs").fetchone()["n"])


def _same_transcript(a: sqlite3.Row, b: sqlite3.Row | None) -> bool:
    return b is not None and b["kind"] == "conversation" and b["path"] == a["path"]


def _neighbours(
    by_id: dict[int, sqlite3.Row], ids: Iterable[int]
) -> dict[int, tuple[int | None, int | None]]:
    """The turns just before and after each transcript turn among `ids` (those in `by_id`).
    A file's entries are inserted in order in one transaction, so the turn before a turn is
    the entry with the id before its own, when it is of the same transcript."""
    out: dict[int, tuple[int | None, int | None]] = {}
    for i in ids:
        row = by_id[i]
        if row["kind"] != "conversation":
            continue
        before, after = by_id.get(i - 1), by_id.get(i + 1)
        out[i] = (
            i - 1 if _same_transcript(row, before) else None,
            i + 1 if _same_transcript(row, after) else None,
        )
    return out


def _candidate(
    row: sqlite3.Row,
    lexical: tuple[int, float] | None,
    dense: tuple[float, int] | None,
    wanted_terms: set[str] | None,
    people: set[str],
    when: bool,
    by_id: dict[int, sqlite3.Row],
    inference: bool = False,
) -> Candidate:
    """What ranking needs of one row: its evidence from each side and the facets asked for
    (`wanted_terms` None: no full-match test; `when` false: no time-cue test; `inference`
    false: no self-description test, which is made only of a named person's lines, the ones
    its boost can reach); `by_id` holds the other candidates, where the turn before this one
    is looked for."""
    speaker = str(row["speaker"])
    full = (
        wanted_terms is not None
        and lexical is not None
        and wanted_terms <= set(str(row["body"]).split())
    )
    named = bool(people) and bool(speaker) and fold(speaker) in people
    return Candidate(
        doc_id=row["id"],
        text=row["text"],
        session=row["path"],
        lexical=0.0 if lexical is None else lexical[1],
        lexical_rank=None if lexical is None else lexical[0],
        dense=None if dense is None else dense[0],
        dense_rank=None if dense is None else dense[1],
        full_match=full,
        speaker_named=named,
        time_cue=when and has_time_cue(row["text"]),
        current=bool(row["current"]),
        asks=row["kind"] == "conversation" and asks_question(row["text"]),
        previous=row["id"] - 1 if _same_transcript(row, by_id.get(row["id"] - 1)) else None,
        self_described=inference and named and describes_self(row["text"]),
    )


def _dated_why(row: sqlite3.Row, span: Span | None, tuning: Tuning) -> tuple[str, ...]:
    """What `--explain` says of a hit's days: that it is in the span asked, what it says."""
    out: list[str] = []
    if span is not None:
        out.append(
            f"in the days asked ({span.words}: {span.first.isoformat()}..{span.last.isoformat()},"
            f" +{tuning.date_weight:g} of its score)"
        )
    if row["said"]:
        out.append(f"says {row['said']}")
    return tuple(out)


def _hit(row: sqlite3.Row, score: float) -> Hit:
    day = row["day"]
    return Hit(
        row["kind"],
        row["path"],
        row["line"],
        None if day is None else date.fromisoformat(day),
        row["text"],
        score,
        tuple(json.loads(row["refs"])),
    )


def _newest(files: dict[str, FileStat], per_folder: int = 2) -> list[str]:
    """MEMORY.md and the newest day files of each folder: where writes usually land."""
    watched = [rel for rel, st in files.items() if st.kind == "memory"]
    for prefix in (f"{NOTES_DIR}/", f"{CONVERSATIONS_DIR}/"):
        watched.extend(sorted(rel for rel in files if rel.startswith(prefix))[-per_folder:])
    return watched


def _version() -> str:
    return f"{SCHEMA_VERSION}/{TOKENIZER_VERSION}"


def _connect(path: Path, any_thread: bool = False) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=not any_thread)
    conn.execute("PRAGMA busy_timeout = 30000")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.isolation_level = "DEFERRED"
    conn.row_factory = sqlite3.Row
    return conn


def _current_version(conn: sqlite3.Connection, schema: str = "main") -> str | None:
    row = conn.execute(f"SELECT value FROM {schema}.meta WHERE key = 'version'").fetchone()
    return None if row is None else str(row["value"])


def _filters(query: Query) -> tuple[str, list[object]]:
    clauses: list[str] = []
    params: list[object] = []
    if query.kinds:
        clauses.append(f"d.kind IN ({', '.join('?' * len(query.kinds))})")
        params.extend(query.kinds)
    if query.since is not None:
        clauses.append("d.day >= ?")
        params.append(query.since.isoformat())
    if query.until is not None:
        clauses.append("d.day <= ?")
        params.append(query.until.isoformat())
    return "".join(f" AND {c}" for c in clauses), params


def _keep_vectors(conn: sqlite3.Connection, old: Path) -> None:
    """Carry the old index's vectors into a rebuilt one: a line whose text is unchanged is
    not embedded again. An old index of another layout, or damaged, gives nothing."""
    if not old.exists():
        return
    try:
        conn.execute("ATTACH DATABASE ? AS old", (str(old),))
    except sqlite3.DatabaseError:
        return
    try:
        with conn:
            if _current_version(conn, "old") == _version():
                conn.execute(
                    "INSERT INTO meta SELECT key, value FROM old.meta WHERE key = 'vector_model'"
                )
                conn.execute(
                    "INSERT INTO vectors SELECT key, vec FROM old.vectors "
                    "WHERE key IN (SELECT dense_key FROM docs)"
                )
    except sqlite3.DatabaseError:
        pass
    finally:
        conn.execute("DETACH DATABASE old")


def _forget_file(conn: sqlite3.Connection, rel: str) -> None:
    conn.execute("DELETE FROM fts WHERE rowid IN (SELECT id FROM docs WHERE path = ?)", (rel,))
    conn.execute("DELETE FROM days WHERE id IN (SELECT id FROM docs WHERE path = ?)", (rel,))
    conn.execute("DELETE FROM docs WHERE path = ?", (rel,))
    conn.execute("DELETE FROM files WHERE path = ?", (rel,))


def _insert_docs(conn: sqlite3.Connection, docs: Iterable[Doc]) -> int:
    count = 0
    for doc in docs:
        dense = doc.dense or doc.text
        cur = conn.execute(
            "INSERT INTO docs(path, kind, line, day, text, refs, speaker, current, dense, "
            "dense_key, said) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                doc.path,
                doc.kind,
                doc.line,
                None if doc.day is None else doc.day.isoformat(),
                doc.text,
                json.dumps(list(doc.refs), ensure_ascii=False),
                doc.speaker,
                int(doc.current),
                dense,
                dense_key(dense),
                doc.said,
            ),
        )
        conn.execute(
            "INSERT INTO fts(rowid, body, context) VALUES (?, ?, ?)",
            (cur.lastrowid, doc.body, doc.context),
        )
        # A line's own day is its `day` column: only the days its words say need a row.
        own = (
            ()
            if doc.day is None
            else (day_token(doc.day), month_token(doc.day.year, doc.day.month))
        )
        said = [(token, cur.lastrowid) for token in doc.dates.split() if token not in own]
        if said:
            conn.executemany("INSERT INTO days(token, id) VALUES (?, ?)", said)
        count += 1
    return count


def _replace_file(conn: sqlite3.Connection, ws: Workspace, rel: str, stat: FileStat) -> int:
    """Index one file afresh."""
    _forget_file(conn, rel)
    conn.execute(
        "INSERT INTO files(path, kind, mtime_ns, size, ctime_ns) VALUES (?, ?, ?, ?, ?)",
        (rel, stat.kind, stat.mtime_ns, stat.size, stat.ctime_ns),
    )
    return _insert_docs(conn, docs_of_file(ws, rel, stat.kind))


@contextlib.contextmanager
def open_index(ws: Workspace, embedder: Embedder | None = None) -> Iterator[SearchIndex]:
    index = SearchIndex(ws, embedder)
    try:
        yield index
    finally:
        index.close()
