"""Durable writes: locked fsync'd appends and atomic replaces, so no reader sees half a write.

Crash tests stop an atomic replace at a named point through `inject`, instead of patching
this module's or a store's internals: the points are the places a power cut or a kill can
fall, so a test names the crash it means.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Literal

from trinho.errors import TrinhoError

FaultPoint = Literal[
    "before_fsync", "before_replace", "after_replace", "before_append", "after_append"
]
"""Where `atomic_write_bytes` calls an injected action with its target path: before the temp
file is fsynced (a failure there is cleaned up), before the temp file is renamed over the
target (the old file stays, the temp file is left behind as a crash leaves it), after the
rename (the new file is in place, its folder not yet fsynced). An append calls it before its
bytes are written (nothing of them is there) and after they are fsynced (all are)."""

_faults: dict[FaultPoint, Callable[[Path], object]] = {}


@contextlib.contextmanager
def inject(point: FaultPoint, action: Callable[[Path], object]) -> Iterator[None]:
    """Run `action(target)` at `point` of every atomic write in this process, for the block.

    For tests: the action raises to simulate a crash or a failing disk, or just looks. The
    previous action at that point (none outside tests) comes back when the block ends.
    """
    previous = _faults.get(point)
    _faults[point] = action
    try:
        yield
    finally:
        if previous is None:
            del _faults[point]
        else:
            _faults[point] = previous


def _fault(point: FaultPoint, path: Path) -> None:
    """The seam itself: one empty-dict test when nothing is injected."""
    if _faults and point in _faults:
        _faults[point](path)


def fsync(fd: int) -> None:
    """Flush `fd` to the disk. The one place trinho calls `os.fsync`, so the test suite can
    make it a no-op outside the tests marked `durability` (it waits on the disk, not the CPU)."""
    os.fsync(fd)


def fsync_dir(folder: Path) -> None:
    """Make a rename or a new file in `folder` survive a power cut."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fsync(fd)
    finally:
        os.close(fd)


def ensure_dir(folder: Path) -> None:
    """Create `folder` (and parents), fsyncing each new level's parent."""
    missing: list[Path] = []
    probe = folder
    while not probe.exists():
        missing.append(probe)
        probe = probe.parent
    for level in reversed(missing):
        with contextlib.suppress(FileExistsError):
            level.mkdir()
        fsync_dir(level.parent)


@contextlib.contextmanager
def file_lock(lock_path: Path) -> Iterator[None]:
    """Hold an exclusive cross-process lock (flock) on `lock_path` for the block."""
    ensure_dir(lock_path.parent)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


@contextlib.contextmanager
def try_file_lock(lock_path: Path) -> Iterator[bool]:
    """Try to take the exclusive lock without waiting; yields whether it was taken."""
    ensure_dir(lock_path.parent)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
        else:
            yield True
    finally:
        os.close(fd)


def sibling_lock(target: Path) -> contextlib.AbstractContextManager[None]:
    """Lock `target` through a lock file beside it, in `.locks/`.

    For folders several agent workspaces may share (users/, the proposals queue): a lock under
    one workspace's `.trinho/` would not exclude a writer from another workspace.
    """
    return file_lock(target.parent / ".locks" / f"{target.name}.lock")


@contextlib.contextmanager
def shared_lock_if_present(lock_path: Path) -> Iterator[None]:
    """Hold a shared lock on `lock_path` if it exists, so a reader waits out a writer.

    It never creates the lock file: reading a workspace must not write anything in it. A file
    with no lock file yet was never appended to by trinho, so there is no writer to wait for.
    """
    try:
        fd = os.open(lock_path, os.O_RDONLY)
    except FileNotFoundError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        yield
    finally:
        os.close(fd)


SECRET_MODE = 0o600
"""The mode of every file that holds a secret (the config with its tokens): its owner only."""


def atomic_write_bytes(path: Path, data: bytes, *, secret: bool = False) -> None:
    """Replace `path` with `data`: temp file, fsync, rename, fsync the folder.

    A `secret` file's temp file is created 0600 (`O_EXCL`, so it is a new inode nobody else
    holds open), before its first byte: no other user can ever read it, even for a moment.
    """
    ensure_dir(path.parent)
    try:
        mode: int | None = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = None
    if secret:
        mode = SECRET_MODE
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, SECRET_MODE if secret else 0o644)
    try:
        if mode is not None:
            os.fchmod(fd, mode)  # a replaced file keeps its permissions
        _write_all(fd, data)
        _fault("before_fsync", path)
        fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    os.close(fd)
    _fault("before_replace", path)
    os.replace(tmp, path)
    _fault("after_replace", path)
    fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str) -> None:
    """`atomic_write_bytes` for UTF-8 text."""
    atomic_write_bytes(path, text.encode("utf-8"))


def write_secret_text(path: Path, text: str) -> None:
    """The one writer of files holding a secret (the config, which holds every token): an
    atomic replace whose file is 0600 from its creation, whatever mode the old file had."""
    atomic_write_bytes(path, text.encode("utf-8"), secret=True)


def append_bytes(path: Path, data: bytes) -> None:
    """Append `data` in a single write and fsync it. The caller holds the file's lock.

    If the file does not end with a newline (a hand edit), one is added first so the
    appended record starts on a line of its own.
    """
    _append_raw(path, _newline_first(path) + data)


def _newline_first(path: Path) -> bytes:
    """b"\\n" when `path` is non-empty and does not end with a newline, else nothing."""
    try:
        with path.open("rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            if size:
                handle.seek(size - 1)
                if handle.read(1) != b"\n":
                    return b"\n"
    except FileNotFoundError:
        pass
    return b""


def _append_raw(path: Path, data: bytes) -> None:
    ensure_dir(path.parent)
    _fault("before_append", path)
    created = not path.exists()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        _write_all(fd, data)
        fsync(fd)
    finally:
        os.close(fd)
    if created:
        fsync_dir(path.parent)
    _fault("after_append", path)


def committed_size(path: Path, intent: Path) -> int | None:
    """The size `path` had before an append that never finished, or None if none is torn.

    `append_recorded` writes the intent before its bytes and removes it after the fsync, so an
    intent found under the lock belongs to a writer that was killed mid-append.
    """
    try:
        start, length = (int(n) for n in intent.read_text(encoding="ascii").split())
    except (FileNotFoundError, ValueError):
        return None
    size = path.stat().st_size if path.exists() else 0
    return start if start < size != start + length else None


def append_recorded(path: Path, data: bytes, intent: Path) -> None:
    """Append like `append_bytes`, but first cut off a torn tail left by a killed writer.

    A large write can be stopped by SIGKILL between pages, leaving half a record (or half a
    UTF-8 character). Recording where each append starts lets the next writer remove it. The
    caller holds the file's lock.
    """
    torn_at = committed_size(path, intent)
    if torn_at is not None:
        truncate(path, torn_at)
    data = _newline_first(path) + data
    size = path.stat().st_size if path.exists() else 0
    ensure_dir(intent.parent)
    intent.write_text(f"{size} {len(data)}", encoding="ascii")
    _append_raw(path, data)
    intent.unlink()


def truncate(path: Path, size: int) -> None:
    """Cut `path` to `size` bytes and fsync it. The caller holds the file's lock."""
    fd = os.open(path, os.O_WRONLY)
    try:
        os.ftruncate(fd, size)
        fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


MAX_READ_BYTES = 64 << 20
"""The largest file trinho reads whole. A year of daily notes is a few megabytes; a file
larger than this is not memory (a log, a disk image dropped in the folder) and reading it
would take the machine's memory with it."""


def read_regular(path: Path, limit: int = MAX_READ_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes. Anything else named like one (a
    FIFO, a device, a socket) is refused at once instead of blocking the reader forever or
    reading without end, and so is a larger file (checked again while reading: it may grow)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise TrinhoError.keyed("error.file.not_regular", path=str(path))
        chunks = []
        size = info.st_size
        read = 0
        while size <= limit and (chunk := os.read(fd, 1 << 20)):
            chunks.append(chunk)
            read += len(chunk)
            size = max(size, read)
        if size > limit:
            mb = (size + (1 << 20) - 1) >> 20
            raise TrinhoError.keyed(
                "error.file.too_large", path=str(path), size=mb, limit=limit >> 20
            )
        return b"".join(chunks)
    finally:
        os.close(fd)
