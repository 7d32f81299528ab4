"""The MEMORY.md store: the one place that reads and writes the file.

Every reader takes the text from here, and every writer replaces it here: under the file's
lock, atomically, then tells the workspace's `written` hook (the search index) once. Parsing
and rendering stay pure in `trinho.memory.format`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

from trinho.durable import (
    append_recorded,
    atomic_write_text,
    committed_size,
    ensure_dir,
    fsync_dir,
    read_regular,
    truncate,
)
from trinho.memory.format import MemoryDoc, parse, render
from trinho.textnorm import decode
from trinho.workspace import ARCHIVE_FILE, Workspace


def exists(ws: Workspace) -> bool:
    return ws.memory_file.exists()


def read_text(ws: Workspace) -> str:
    """MEMORY.md's text, "" when there is none. Reading writes nothing, not even a lock file:
    a replace is atomic, so a reader sees the old file or the new one."""
    path = ws.memory_file
    return decode(read_regular(path), ws.memory_name) if path.exists() else ""


def read(ws: Workspace) -> MemoryDoc:
    """MEMORY.md as parsed (one empty loose line when there is none)."""
    return parse(read_text(ws))


class Editing:
    """MEMORY.md while its lock is held: read it again, replace it, or remove it."""

    def __init__(self, ws: Workspace) -> None:
        self._ws = ws
        self.wrote = False

    def exists(self) -> bool:
        return exists(self._ws)

    def text(self) -> str:
        return read_text(self._ws)

    def replace(self, text: str) -> None:
        atomic_write_text(self._ws.memory_file, text)
        self.wrote = True

    def remove(self) -> None:
        if self._ws.memory_file.exists():
            self._ws.memory_file.unlink()
            fsync_dir(self._ws.memory_file.parent)
            self.wrote = True


@contextlib.contextmanager
def editing(ws: Workspace, *, lock: bool = True) -> Iterator[Editing]:
    """Hold MEMORY.md's lock (unless `lock` is False: a dry run, which writes nothing and must
    not create a lock file), and tell the index once when the block wrote the file."""
    session = Editing(ws)
    try:
        with ws.lock(ws.memory_file) if lock else contextlib.nullcontext():
            yield session
    finally:
        if session.wrote:
            ws.written([ws.memory_name])


def read_archive(ws: Workspace) -> str:
    """`memory/archive.md`, "" when nothing was archived yet."""
    path = ws.archive_file
    return decode(read_regular(path), ARCHIVE_FILE) if path.exists() else ""


def archive(ws: Workspace, section: str) -> bool:
    """Append one archived section to `memory/archive.md` (locked, fsync'd, one write, a tail
    torn by a kill cut off first) and tell the index; False, writing nothing, when a section
    with the same heading (run id and content hash) is there already: a rerun or a second
    approval does not write it twice. Called before MEMORY.md loses those lines, so a crash
    between the two leaves them in both places, never in neither."""
    path = ws.archive_file
    ensure_dir(path.parent)
    heading = section.split("\n", 1)[0]
    with ws.lock(path):
        existing = _committed(ws, path)
        if heading in existing.decode("utf-8", "replace").split("\n"):
            return False
        gap = b"" if not existing or existing.endswith(b"\n\n") else b"\n"
        if existing and not existing.endswith(b"\n"):
            gap = b"\n\n"
        append_recorded(path, gap + section.encode("utf-8"), ws.intent_path(path))
    ws.written([ARCHIVE_FILE])
    return True


def _committed(ws: Workspace, path: Path) -> bytes:
    """The file's bytes without a tail torn by a kill mid-append (empty when there is none)."""
    if not path.exists():
        return b""
    data = read_regular(path)
    torn_at = committed_size(path, ws.intent_path(path))
    return data if torn_at is None else data[:torn_at]


def rewrite_archive(ws: Workspace, change: Callable[[str], str]) -> bool:
    """Replace `memory/archive.md` with `change` of its committed text (under its lock, atomic;
    removed when left empty); False, writing nothing, when that is the text it has. A tail
    torn by a killed append is cut off first, and its intent record removed, so the record
    can never cut the new file."""
    path = ws.archive_file
    if not path.exists():
        return False
    with ws.lock(path):
        intent = ws.intent_path(path)
        torn_at = committed_size(path, intent)
        if torn_at is not None:
            truncate(path, torn_at)
        intent.unlink(missing_ok=True)
        old = decode(read_regular(path), ARCHIVE_FILE)
        new = change(old)
        if new == old:
            return False
        if new:
            atomic_write_text(path, new)
        else:
            path.unlink()
            fsync_dir(path.parent)
    ws.written([ARCHIVE_FILE])
    return True


def archived_text(ws: Workspace) -> str:
    """`memory/archive.md` as committed (a torn tail left out), "" when there is none."""
    path = ws.archive_file
    with ws.read_lock(path):
        return decode(_committed(ws, path), ARCHIVE_FILE)


def write(ws: Workspace, doc: MemoryDoc) -> None:
    """Replace MEMORY.md with the rendered document."""
    with editing(ws) as memory:
        memory.replace(render(doc))
