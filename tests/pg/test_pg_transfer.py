"""The way in and out: a file workspace into the database and back out as files, byte for
byte, whatever its notes, MEMORY.md, facts and proposals hold."""

from __future__ import annotations

import contextlib
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import TZ, FixedClock
from trinho.channels.base import Notification
from trinho.channels.inbox import Inbox
from trinho.channels.outbox import Outbox
from trinho.condense.rules.archive import archive_section
from trinho.condense.store.runs import Journal, write_journal
from trinho.conversations.store import record_turn
from trinho.errors import TrinhoError
from trinho.facts.store import save_fact
from trinho.memory.store import archive
from trinho.models.ledger import UsageRecord, append_usage
from trinho.notes.store import save_note
from trinho.pg.connect import Database
from trinho.pg.owners import owner_zone
from trinho.pg.search import search
from trinho.pg.store import PgRecords
from trinho.pg.transfer import export_owner, import_workspace
from trinho.workspace import Workspace, init_workspace

RECORDS = ("memory/", "MEMORY.md", "users/", "memory_proposals/", "conversations/")


INTERNAL = (".trinho/usage.jsonl", ".trinho/runs/", ".trinho/outbox/", ".trinho/inbox/")


def _record_files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and (
            (p.relative_to(root).as_posix().startswith(RECORDS)
            and not any(part.startswith(".") for part in p.relative_to(root).parts))
            or p.relative_to(root).as_posix().startswith(INTERNAL)
        )
    }  # fmt: skip


def _new_owner() -> str:
    return f"w-{uuid.uuid4().hex[:12]}"


def _round_trip(db: Database, ws: Workspace, out: Path) -> tuple[dict[str, bytes], list[str]]:
    owner = _new_owner()
    moved = import_workspace(db, ws, owner)
    exported = export_owner(db, owner, out)
    assert exported.files == sorted(moved.files)
    return _record_files(out), moved.left


def test_a_workspace_comes_back_byte_for_byte(
    pg_admin: Database, workspace: Workspace, clock: FixedClock, tmp_path: Path
) -> None:
    save_note(workspace, "đi chợ\nmua cá")
    save_fact(workspace, "city", "Huế", basis="user", actor="owner")
    clock.advance(days=3)
    save_fact(workspace, "city", "Hà Nội", basis="user", actor="owner")
    save_fact(workspace, "city", "Vinh", basis="inferred", actor="chat", origin="agent:main")
    save_fact(workspace, "pet", "cat", actor="job", origin="job:facts")
    (workspace.root / "MEMORY.md").write_text("# Memory\n- 2026-11-22: likes phở\nprose\n")
    notes = workspace.root / "memory"
    (notes / "2026-11-01-lesson.md").write_bytes(b"\xef\xbb\xbf## 14:00 - Lesson\r\n- 09:00 hi")
    record_turn(workspace, "user", "chào\u2028bạn", ref="telegram:7")
    record_turn(workspace, "assistant", "Vâng")
    (workspace.root / "conversations" / "2026-11-02.jsonl").write_bytes(b'{"at": "2026-1')
    archive(workspace, archive_section("2026-W40", ["- 2026-01-02: phở"]))
    append_usage(workspace, UsageRecord(clock.now, "chat", "scripted", 12, 3, run="2026-W48"))
    write_journal(workspace, Journal("2026-W48", "done", clock.now, clock.now, error="đã"))
    (workspace.internal / "runs" / "2026-W48" / "MEMORY.before.md").write_text("# Memory\n")
    Outbox(workspace).enqueue(Notification("condense:2026-W48", "Tuần", "2 thay đổi"))
    Inbox(workspace).add([(5, "chào"), (6, None)])
    before = _record_files(workspace.root)
    broken = workspace.internal / "outbox" / "0123456789abcdef.json"
    broken.write_text("{not an entry")  # the file outbox would set it aside
    after, left = _round_trip(pg_admin, workspace, tmp_path / "out")
    assert after == before
    assert ".trinho/outbox/0123456789abcdef.json" in left
    assert {"conversations/2026-12-02.jsonl", "memory/archive.md", ".trinho/usage.jsonl"} <= set(
        before
    )
    assert len([rel for rel in before if rel.startswith(INTERNAL)]) == 5
    assert not [rel for rel in left if rel.startswith(RECORDS)]


def test_an_imported_workspace_is_the_owners_records_and_is_searchable(
    pg_admin: Database, pg_app: Database, workspace: Workspace, clock: FixedClock
) -> None:
    save_note(workspace, "đi Hà Nội thăm bà")
    save_fact(workspace, "city", "Huế", basis="user", actor="owner")
    record_turn(workspace, "user", "mai đi Đà Nẵng")
    archive(workspace, archive_section("2026-W40", ["- 2026-01-02: thích phở Nam Định"]))
    owner = _new_owner()
    import_workspace(pg_admin, workspace, owner)
    assert owner_zone(pg_admin, owner) == TZ
    records = PgRecords(pg_app, owner, clock=clock, timezone=TZ)
    fact = records.load_fact("city")
    assert fact is not None and fact.head is not None and fact.head.value == "Huế"
    assert [h.text for h in search(records, "ha noi")] == ["đi Hà Nội thăm bà"]
    assert [h.path for h in search(records, "da nang")] == ["conversations/2026-11-29.jsonl"]
    assert [h.path for h in search(records, "nam dinh")] == ["memory/archive.md"]
    clock.advance(minutes=5)
    records.save_note("về nhà")
    assert records.note_text(clock.now.date()).endswith("- 14:10 về nhà\n")


def test_an_owner_with_records_takes_no_import_and_nothing_is_half_written(
    pg_admin: Database, workspace: Workspace, tmp_path: Path
) -> None:
    save_note(workspace, "one")
    owner = _new_owner()
    import_workspace(pg_admin, workspace, owner)
    with pytest.raises(TrinhoError) as caught:
        import_workspace(pg_admin, workspace, owner)
    assert caught.value.key == "error.owner.not_empty"
    broken = init_workspace(tmp_path / "broken", timezone=TZ).workspace
    save_note(broken, "kept?")
    (broken.root / "MEMORY.md").write_text("bad \x00 byte")
    other = _new_owner()
    with pytest.raises(TrinhoError) as nul:
        import_workspace(pg_admin, broken, other)
    assert nul.value.key == "error.import.nul"
    assert owner_zone(pg_admin, other) is None  # the notes did not go in alone, nor the owner


def test_an_export_goes_only_into_a_new_or_empty_folder(
    pg_admin: Database, workspace: Workspace, tmp_path: Path
) -> None:
    owner = _new_owner()
    import_workspace(pg_admin, workspace, owner)
    full = tmp_path / "full"
    full.mkdir()
    (full / "x").write_text("mine")
    with pytest.raises(TrinhoError) as caught:
        export_owner(pg_admin, owner, full)
    assert caught.value.key == "error.export.not_empty"
    assert (full / "x").read_text() == "mine"
    with pytest.raises(TrinhoError) as unknown:
        export_owner(pg_admin, "nobody-at-all", tmp_path / "new")
    assert unknown.value.key == "error.owner.unknown"


_TEXT = st.text(
    alphabet=st.sampled_from(list("aăâđeêoôơuưy áàảãạ\n\r\t-:#\ufeff0123456789")), max_size=40
)


@settings(max_examples=20, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    notes=st.lists(st.tuples(_TEXT, st.integers(0, 30)), max_size=5),
    memory=st.none() | _TEXT,
    facts=st.lists(
        st.tuples(st.sampled_from(["city", "pet", "job"]), _TEXT, st.booleans()), max_size=5
    ),
    hand=st.none() | _TEXT,
    turns=st.lists(st.tuples(_TEXT, st.integers(0, 600)), max_size=4),
    transcript=st.none() | _TEXT,
    archived=st.lists(st.tuples(_TEXT, st.booleans()), max_size=3),
    ledger=st.lists(st.tuples(_TEXT, st.booleans()), max_size=3),
)
def test_any_workspace_comes_back_byte_for_byte(
    pg_admin: Database,
    tmp_path_factory: pytest.TempPathFactory,
    notes: list[tuple[str, int]],
    memory: str | None,
    facts: list[tuple[str, str, bool]],
    hand: str | None,
    turns: list[tuple[str, int]],
    transcript: str | None,
    archived: list[tuple[str, bool]],
    ledger: list[tuple[str, bool]],
) -> None:
    """The property: notes saved at any time (continuation lines, any letters), a MEMORY.md
    and a day file written by hand (a BOM, CR, anything), facts saved and proposed, turns
    recorded and a transcript written by hand (a torn last line too), archived sections and
    an archive edited by hand, model calls in the usage ledger and lines torn or written by
    hand: the export holds exactly the bytes the workspace held."""
    clock = FixedClock()
    base = tmp_path_factory.mktemp("rt")
    ws = init_workspace(base / "ws", timezone=TZ, clock=clock).workspace
    for text, minutes in notes:
        clock.advance(minutes=minutes)
        if text.strip() and "\x00" not in text:
            save_note(ws, text)
    for key, value, inferred in facts:
        clock.advance(hours=13)
        if value.strip():
            with contextlib.suppress(TrinhoError):  # refused: not in the workspace either
                save_fact(ws, key, value, basis="inferred" if inferred else "user", actor="chat")
    if memory is not None:
        (ws.root / "MEMORY.md").write_text(memory, encoding="utf-8", newline="")
    if hand is not None:
        day = (clock.now - timedelta(days=40)).date().isoformat()
        (ws.root / "memory" / f"{day}.md").write_text(hand, encoding="utf-8", newline="")
    _write_logs(ws, clock, turns, transcript, archived, ledger)
    before = _record_files(ws.root)
    after, _ = _round_trip(pg_admin, ws, base / "out")
    assert after == before


def _write_logs(
    ws: Workspace,
    clock: FixedClock,
    turns: list[tuple[str, int]],
    transcript: str | None,
    archived: list[tuple[str, bool]],
    ledger: list[tuple[str, bool]],
) -> None:
    """Turns, a transcript by hand, model calls and torn ledger lines, archived sections and
    hand edits of the archive."""
    for text, minutes in turns:
        clock.advance(minutes=minutes)
        record_turn(ws, "user", text)
    if transcript:
        day = (clock.now - timedelta(days=3)).date().isoformat()
        (ws.root / "conversations" / f"{day}.jsonl").write_text(
            transcript, encoding="utf-8", newline=""
        )
    for n, (text, cut) in enumerate(ledger):
        append_usage(ws, UsageRecord(clock.now, "job", text or "m", n, n, run=f"2026-W{n + 10}"))
        if cut:  # a line torn by a kill, or written by hand
            with (ws.internal / "usage.jsonl").open("a", encoding="utf-8", newline="") as torn:
                torn.write(text)
    for n, (text, by_hand) in enumerate(archived):
        if by_hand:
            with ws.archive_file.open("a", encoding="utf-8", newline="") as edited:
                edited.write(text)
        else:
            archive(ws, archive_section(f"2026-W{n + 10}", [t for t in text.split("\n") if t]))
