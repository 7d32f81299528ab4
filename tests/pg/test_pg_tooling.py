"""The agent tools on one owner of the database (`PgRecords`) give what they give on the
file workspace the owner was imported from: the same reads of every memory file, by the
names a search hit shows, the same refusals; and the parsers of names and tokens."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import TZ, FixedClock
from trinho.condense.rules.archive import archive_section
from trinho.conversations.store import record_turn
from trinho.errors import TrinhoError
from trinho.facts.store import save_fact
from trinho.memory.store import archive
from trinho.notes.store import save_note
from trinho.pg.connect import Database
from trinho.pg.store import PgRecords
from trinho.pg.tokens import token_owner_id
from trinho.pg.tooling import memory_name
from trinho.pg.transfer import import_workspace
from trinho.proposals.format import Source
from trinho.textnorm import SLUG_PATTERN
from trinho.tools.service import Actor, call
from trinho.workspace import Workspace

CHAT = Actor("chat")


def _files(root: Path) -> list[str]:
    """Every memory file of the workspace, by the name a search hit shows."""
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)
    )


def _imported(pg_admin: Database, workspace: Workspace, clock: FixedClock) -> PgRecords:
    save_note(workspace, "đi chợ\nmua cá")
    save_fact(workspace, "city", "Huế", basis="user", actor="owner")
    save_fact(workspace, "city", "Vinh", basis="inferred", actor="chat", origin="agent:main")
    (workspace.root / "MEMORY.md").write_text("# Memory\n- 2026-11-22: likes phở\nprose\n")
    notes = workspace.root / "memory"
    (notes / "2026-11-01-lesson.md").write_bytes(b"\xef\xbb\xbf## 14:00 - Lesson\r\n- 09:00 hi")
    record_turn(workspace, "user", "chào bạn", ref="telegram:7")
    record_turn(workspace, "assistant", "Vâng")
    archive(workspace, archive_section("2026-W40", ["- 2026-01-02: phở"]))
    owner = f"t-{uuid.uuid4().hex[:12]}"
    import_workspace(pg_admin, workspace, owner)
    return PgRecords(pg_admin, owner, clock=clock, timezone=TZ)


def test_every_memory_file_reads_the_same_on_both_backends(
    pg_admin: Database, workspace: Workspace, clock: FixedClock
) -> None:
    records = _imported(pg_admin, workspace, clock)
    names = _files(workspace.root)
    assert {"MEMORY.md", "memory/archive.md", "users/owner/facts/city.md"} <= set(names)
    assert any(name.startswith("memory_proposals/") for name in names)
    assert any(name.startswith("conversations/") for name in names)
    for name in names:
        for args in ({"path": name}, {"path": name, "from_line": 2, "lines": 1}):
            on_files = call(workspace, "memory_get", args, CHAT)
            on_pg = call(records, "memory_get", args, CHAT)
            assert (on_pg.text, on_pg.is_error) == (on_files.text, on_files.is_error), name
        openclaw = {"path": f"./{name}", "from": 1, "lines": 2}
        on_files = call(workspace, "memory_get", openclaw, CHAT, "openclaw")
        assert call(records, "memory_get", openclaw, CHAT, "openclaw").data == on_files.data
    for refused in (
        ".trinho/config.toml",
        "../outside.md",
        "/etc/passwd",
        "memory",
        "users/owner",
        "memory/2001-01-01.md",
        "memory_proposals/nothing.json",
        "notes.txt",
        "AGENTS.md",
        "private/creds.txt",
        "MEMORY.md\x00",
    ):
        for profile in ("default", "openclaw"):
            on_files = call(workspace, "memory_get", {"path": refused}, CHAT, profile)
            on_pg = call(records, "memory_get", {"path": refused}, CHAT, profile)
            assert on_pg.is_error == on_files.is_error, refused
            for key in ("status", "code"):
                assert (on_pg.data or {}).get(key) == (on_files.data or {}).get(key), refused


def test_the_other_tools_answer_alike_on_both_backends(
    pg_admin: Database, workspace: Workspace, clock: FixedClock
) -> None:
    records = _imported(pg_admin, workspace, clock)
    for name, args in (
        ("memory_search", {"query": "mua cá"}),
        ("memory_search", {"query": "pho", "kinds": ["memory"]}),
        ("memory_proposals", {"include_decided": True}),
        ("user_memory_save", {"key": "city", "value": "Huế", "basis": "user"}),
        ("user_memory_save", {"key": "pet", "value": "mèo", "basis": "inferred"}),
        ("memory_save", {"text": "về nhà"}),
        ("memory_save", {"text": ""}),
    ):
        on_files = call(workspace, name, args, CHAT)
        on_pg = call(records, name, args, CHAT)
        assert (on_pg.text, on_pg.is_error) == (on_files.text, on_files.is_error), name


def test_a_proposal_keeps_its_why_and_quoted_source_on_both_backends(
    pg_admin: Database, workspace: Workspace, clock: FixedClock
) -> None:
    records = _imported(pg_admin, workspace, clock)
    turn = Source.quoted("turn", "conversations/2026-11-29.jsonl#1", "Tôi chuyển vào Đà Nẵng rồi")
    told = Actor("chat", seen=(turn,))
    args = {
        "key": "city",
        "value": "Đà Nẵng",
        "basis": "inferred",
        "why": "  the owner said\nthey moved  ",
        "quote": "chuyển vào đà nẵng",
    }
    on_files = call(workspace, "user_memory_save", args, told)
    on_pg = call(records, "user_memory_save", args, told)
    assert on_files.data is not None and on_files.data["outcome"] == "proposed"
    assert on_pg.text == on_files.text
    listed = call(records, "memory_proposals", {}, CHAT)
    assert listed.text == call(workspace, "memory_proposals", {}, CHAT).text
    assert listed.data is not None
    proposal = next(p for p in listed.data["proposals"] if p["change"]["value"] == "Đà Nẵng")
    assert proposal["why"] == "the owner said they moved"
    assert proposal["sources"] == [turn.to_json()]
    pid = proposal["id"]
    on_file = (workspace.proposals_root / f"{pid}.json").read_text(encoding="utf-8")
    assert records.proposal_file_text(pid) == on_file


@given(st.text(max_size=40))
def test_a_memory_name_never_leaves_the_memory_nor_reaches_internal_state(path: str) -> None:
    try:
        name = memory_name(path)
    except TrinhoError as exc:
        assert exc.key in ("error.path.bad_chars", "error.path.not_relative", "error.get.internal")
        return
    parts = name.split("/")
    assert not name.startswith("/") and ".." not in parts
    assert not any(part.startswith(".") for part in parts if part != ".")
    assert memory_name(name) == name


@given(
    st.from_regex(re.compile(SLUG_PATTERN.strip("^$")), fullmatch=True),
    st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_", min_size=1),
)
def test_a_token_names_its_owner(owner: str, secret: str) -> None:
    assert token_owner_id(f"{owner}.{secret}") == owner


@pytest.mark.parametrize("token", ["", ".", "an.", ".secret", "An.secret", "a b.secret", "x" * 70])
def test_a_token_of_no_owner_names_none(token: str) -> None:
    assert token_owner_id(token) is None
