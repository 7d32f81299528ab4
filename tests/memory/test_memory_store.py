"""The MEMORY.md store: the one reader and writer of the file."""

from __future__ import annotations

import pytest

from conftest import snapshot
from trinho.errors import TrinhoError
from trinho.memory import format as memory_md
from trinho.memory import store as memory_store
from trinho.workspace import MEMORY_FILE, Workspace


def test_read_and_write_memory_keep_bytes(workspace: Workspace) -> None:
    assert memory_md.render(memory_store.read(workspace)) == ""
    assert not workspace.memory_file.exists()
    raw = "# Me\r\n- 2026-11-22: cà phê\r\nloose\ufeff line"
    workspace.memory_file.write_bytes(raw.encode("utf-8"))
    before = snapshot(workspace.root)
    doc = memory_store.read(workspace)
    assert snapshot(workspace.root) == before
    memory_store.write(workspace, doc)
    assert workspace.memory_file.read_bytes() == raw.encode("utf-8")


def test_invalid_utf8_memory_is_an_error_naming_the_line(workspace: Workspace) -> None:
    workspace.memory_file.write_bytes(b"# Me\n- 2026-11-22: caf\xe9\n")
    with pytest.raises(TrinhoError, match=r"MEMORY\.md:2: invalid UTF-8"):
        memory_store.read(workspace)


def test_a_write_tells_the_written_hook_once(workspace: Workspace) -> None:
    seen: list[list[str]] = []
    workspace.on_written = lambda ws, paths: seen.append(list(paths))
    with memory_store.editing(workspace) as memory:
        memory.replace("- 2026-11-22: one\n")
        memory.replace("- 2026-11-22: two\n")
    assert seen == [[MEMORY_FILE]]
    assert memory_store.read_text(workspace) == "- 2026-11-22: two\n"


def test_reading_or_an_unlocked_session_writes_nothing(workspace: Workspace) -> None:
    before = snapshot(workspace.root)
    seen: list[object] = []
    workspace.on_written = lambda ws, paths: seen.append(paths)
    with memory_store.editing(workspace, lock=False) as memory:
        assert memory.text() == "" and not memory.exists()
    assert snapshot(workspace.root) == before and seen == []


def test_remove_deletes_the_file_and_tells_the_hook(workspace: Workspace) -> None:
    memory_store.write(workspace, memory_md.parse("- 2026-11-22: x"))
    seen: list[object] = []
    workspace.on_written = lambda ws, paths: seen.append(tuple(paths))
    with memory_store.editing(workspace) as memory:
        memory.remove()
    assert not memory_store.exists(workspace) and seen == [(MEMORY_FILE,)]
