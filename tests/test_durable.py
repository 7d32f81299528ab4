"""Durable writes: atomic replaces leave no temp file, appends start a new line, locks exclude."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from trinho.durable import (
    append_bytes,
    atomic_write_bytes,
    atomic_write_text,
    file_lock,
    inject,
    shared_lock_if_present,
    truncate,
)

pytestmark = pytest.mark.durability
"""Every test here writes with real fsyncs (elsewhere in the suite fsync is a no-op)."""


def test_a_durable_write_fsyncs_the_file_and_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[int] = []
    real = os.fsync

    def counted(fd: int) -> None:
        synced.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", counted)
    atomic_write_text(tmp_path / "MEMORY.md", "một\n")
    append_bytes(tmp_path / "log.jsonl", b"{}\n")
    assert len(synced) >= 3  # the temp file, its folder, the appended file


def test_atomic_write_replaces_and_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "MEMORY.md"
    atomic_write_text(target, "một\n")
    atomic_write_bytes(target, b"hai\n")
    assert target.read_bytes() == b"hai\n"
    assert [p.name for p in target.parent.iterdir()] == ["MEMORY.md"]


def test_atomic_write_keeps_the_permissions_of_the_file_it_replaces(tmp_path: Path) -> None:
    target = tmp_path / "MEMORY.md"
    target.write_bytes(b"old")
    target.chmod(0o600)
    atomic_write_bytes(target, b"new")
    assert (target.stat().st_mode & 0o777, target.read_bytes()) == (0o600, b"new")


def test_a_failed_atomic_write_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "f.md"
    target.write_bytes(b"old")

    def disk_full(path: Path) -> None:
        raise OSError(28, "No space left on device")

    with inject("before_fsync", disk_full), pytest.raises(OSError, match="No space"):
        atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["f.md"]


def test_a_crash_before_the_rename_keeps_the_old_file_and_after_it_the_new(
    tmp_path: Path,
) -> None:
    target = tmp_path / "f.md"
    target.write_bytes(b"old")

    def killed(path: Path) -> None:
        raise KeyboardInterrupt

    with inject("before_replace", killed), pytest.raises(KeyboardInterrupt):
        atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"old"
    with inject("after_replace", killed), pytest.raises(KeyboardInterrupt):
        atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"new"
    atomic_write_bytes(target, b"newer")  # nothing injected any more
    assert target.read_bytes() == b"newer"


def test_an_injected_action_is_given_the_target_and_the_previous_one_comes_back(
    tmp_path: Path,
) -> None:
    seen: list[tuple[str, Path]] = []
    target = tmp_path / "f.md"
    with inject("before_replace", lambda path: seen.append(("outer", path))):
        with inject("before_replace", lambda path: seen.append(("inner", path))):
            atomic_write_text(target, "a")
        atomic_write_text(target, "b")
    atomic_write_text(target, "c")
    assert seen == [("inner", target), ("outer", target)]


def test_append_starts_on_a_line_of_its_own(tmp_path: Path) -> None:
    target = tmp_path / "n.md"
    append_bytes(target, b"- 10:00 a\n")
    target.write_bytes(target.read_bytes() + b"hand edit")
    append_bytes(target, b"- 11:00 b\n")
    assert target.read_bytes() == b"- 10:00 a\nhand edit\n- 11:00 b\n"


def test_truncate_cuts_the_file(tmp_path: Path) -> None:
    target = tmp_path / "t"
    target.write_bytes(b"keep\ntorn")
    truncate(target, 5)
    assert target.read_bytes() == b"keep\n"


def _try_lock(path: Path, mode: int) -> bool:
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def test_file_lock_is_exclusive(tmp_path: Path) -> None:
    lock = tmp_path / "locks" / "x.lock"
    with file_lock(lock):
        assert not _try_lock(lock, fcntl.LOCK_SH)
    assert _try_lock(lock, fcntl.LOCK_EX)


def test_shared_lock_creates_nothing_and_waits_for_writers(tmp_path: Path) -> None:
    lock = tmp_path / "x.lock"
    with shared_lock_if_present(lock):
        assert not lock.exists()
    lock.touch()
    with shared_lock_if_present(lock):
        assert _try_lock(lock, fcntl.LOCK_SH)
        assert not _try_lock(lock, fcntl.LOCK_EX)
