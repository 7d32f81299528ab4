"""The workspace: init is idempotent, OpenClaw folders open untouched, paths stay inside."""

from __future__ import annotations

import os
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import FixedClock, snapshot
from trinho.clock import parse_day, parse_now
from trinho.config.files import parse_config
from trinho.conversations import store as transcripts
from trinho.durable import atomic_write_text
from trinho.errors import TrinhoError
from trinho.memory import store as memory_store
from trinho.notes import store as notes
from trinho.workspace import (
    CONFIG_PATH,
    Workspace,
    clock_from_env,
    init_workspace,
    open_workspace,
    validate_slug,
)


def test_init_creates_the_layout_and_is_idempotent(tmp_path: Path, clock: FixedClock) -> None:
    first = init_workspace(tmp_path / "ws", timezone="Asia/Ho_Chi_Minh", clock=clock)
    assert first.created == [
        CONFIG_PATH,
        "memory/",
        "conversations/",
        "users/owner/facts/",
        "memory_proposals/",
    ]
    before = snapshot(tmp_path / "ws")
    mtime = (tmp_path / "ws" / CONFIG_PATH).stat().st_mtime_ns
    second = init_workspace(tmp_path / "ws", clock=clock)
    assert second.created == []
    assert snapshot(tmp_path / "ws") == before
    assert (tmp_path / "ws" / CONFIG_PATH).stat().st_mtime_ns == mtime
    assert second.workspace.config.timezone == "Asia/Ho_Chi_Minh"


def test_init_changes_only_what_it_is_told(tmp_path: Path) -> None:
    init_workspace(tmp_path, timezone="Asia/Ho_Chi_Minh")
    config = tmp_path / CONFIG_PATH
    config.write_text(config.read_text("utf-8") + '\n[model]\nname = "local"\n', "utf-8")
    result = init_workspace(tmp_path, timezone="Europe/Paris", locale="vi")
    assert result.created == [CONFIG_PATH]
    reread = open_workspace(tmp_path).config
    assert (reread.timezone, reread.locale, reread.owner) == ("Europe/Paris", "vi", "owner")
    assert reread.model.name == "local"


@pytest.mark.parametrize("header", ["[owner]  # who I am", "[ owner ]", '["owner"]'])
def test_init_finds_the_owner_table_however_its_header_is_written(
    tmp_path: Path, header: str
) -> None:
    init_workspace(tmp_path, timezone="Asia/Ho_Chi_Minh")
    config = tmp_path / CONFIG_PATH
    config.write_text(config.read_text("utf-8").replace("[owner]", header, 1), "utf-8")
    init_workspace(tmp_path, locale="vi")
    assert header in config.read_text("utf-8")
    reread = open_workspace(tmp_path).config
    assert (reread.timezone, reread.locale) == ("Asia/Ho_Chi_Minh", "vi")


def test_init_keeps_existing_content(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "2026-11-28.md").write_bytes(b"- 10:00 old\r\n")
    (tmp_path / "MEMORY.md").write_bytes(b"# mine\n")
    init_workspace(tmp_path, timezone="UTC")
    assert (tmp_path / "memory" / "2026-11-28.md").read_bytes() == b"- 10:00 old\r\n"
    assert (tmp_path / "MEMORY.md").read_bytes() == b"# mine\n"


def test_bad_init_values_write_nothing(tmp_path: Path) -> None:
    for kwargs in ({"timezone": "Mars/Olympus"}, {"owner": "../evil"}, {"locale": "fr"}):
        with pytest.raises(TrinhoError):
            init_workspace(tmp_path / "ws", **kwargs)  # type: ignore[arg-type]
        assert not (tmp_path / "ws").exists()


def _openclaw(root: Path) -> Path:
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_bytes(b"# Memory\r\n- 2026-11-01: likes tea\r\nhand prose")
    (root / "memory" / "2026-11-28.md").write_bytes(b"- 09:00 old note\nfree text\n")
    return root


def test_openclaw_folder_opens_untouched_until_written(tmp_path: Path) -> None:
    root = _openclaw(tmp_path / "claw")
    before = snapshot(root)
    ws = open_workspace(root, clock=FixedClock())
    assert notes.note_days(ws) == [date(2026, 11, 28)]
    assert notes.read_notes(ws, date(2026, 11, 28)).entries[0].text == "old note"
    assert notes.read_notes(ws, ws.today()).entries == []
    assert memory_store.read(ws).entries[0].text == "likes tea"
    assert transcripts.read_turns(ws, date(2026, 11, 1), date(2026, 11, 30)) == []
    assert snapshot(root) == before

    notes.save_note(ws, "first write")
    after = snapshot(root)
    assert after["MEMORY.md"] == before["MEMORY.md"]
    assert after["memory/2026-11-28.md"] == before["memory/2026-11-28.md"]
    assert not (root / CONFIG_PATH).exists()


def test_a_folder_that_is_no_workspace_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TrinhoError, match="not a workspace"):
        open_workspace(tmp_path)
    with pytest.raises(TrinhoError, match="no workspace at"):
        open_workspace(tmp_path / "missing")
    assert list(tmp_path.iterdir()) == []


def test_paths_never_leave_the_workspace(workspace: Workspace, tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    os.symlink(tmp_path / "outside", workspace.root / "link")
    for bad in ("../x", "/etc/passwd", "memory/../../x", "link/secret.md"):
        with pytest.raises(TrinhoError, match=r"inside|outside"):
            workspace.path(bad)
    assert workspace.path("memory/2026-11-29.md") == workspace.root / "memory" / "2026-11-29.md"
    for user in ("../owner", "owner/../../x", "/abs", "Owner", "", "a" * 65, "đ"):
        with pytest.raises(TrinhoError, match="invalid user id"):
            workspace.user_dir(user)
    assert workspace.user_dir("owner") == workspace.root / "users" / "owner"


@given(st.text())
def test_slugs_are_plain_or_refused(value: str) -> None:
    try:
        assert validate_slug(value, "user id") == value
    except TrinhoError:
        return
    assert "/" not in value and ".." not in value and value == value.strip()


@given(st.dates())
def test_days_parse_back(day: date) -> None:
    if day.year >= 1000:
        assert parse_day(day.isoformat(), "--date") == day


@given(st.text())
def test_parse_day_is_a_date_or_a_clear_error(value: str) -> None:
    try:
        parse_day(value, "--date")
    except TrinhoError as exc:
        assert str(exc).startswith("--date: ")


@given(
    st.datetimes(min_value=datetime(2, 1, 2), max_value=datetime(9998, 12, 30)),
    st.integers(-14 * 60, 14 * 60),
)
def test_instants_with_an_offset_parse_back(moment: datetime, minutes: int) -> None:
    aware = moment.replace(tzinfo=timezone(timedelta(minutes=minutes)))
    assert parse_now(aware.isoformat()) == aware


@pytest.mark.parametrize(
    "value",
    ["9999-12-31T23:59:00-12:00", "0001-01-01T00:00:00+14:00", "0001-06-01T00:00:00+00:00"],
)
def test_instants_at_the_ends_of_the_calendar_are_refused(value: str) -> None:
    with pytest.raises(TrinhoError, match=r"TRINHO_NOW=.* is out of range"):
        parse_now(value)


@given(st.text())
def test_parse_now_is_an_instant_or_a_clear_error(value: str) -> None:
    try:
        assert parse_now(value).tzinfo is not None
    except TrinhoError as exc:
        assert "TRINHO_NOW" in str(exc)


@given(st.text())
def test_any_config_text_parses_or_is_a_clear_error(text: str) -> None:
    try:
        parse_config(text, "cfg.toml")
    except TrinhoError as exc:
        assert str(exc).startswith("cfg.toml")


def test_trinho_now_fixes_the_clock() -> None:
    clock = clock_from_env({"TRINHO_NOW": "2026-11-29T14:05:00+07:00"})
    assert clock() == datetime.fromisoformat("2026-11-29T07:05:00+00:00")
    with pytest.raises(TrinhoError, match="no UTC offset"):
        clock_from_env({"TRINHO_NOW": "2026-11-29T14:05:00"})
    assert clock_from_env({})().tzinfo is not None


def test_local_date_is_the_owners_day(workspace: Workspace, clock: FixedClock) -> None:
    clock.set("2026-11-29T17:00:00+00:00")
    assert workspace.today() == date(2026, 11, 30)
    assert workspace.now().strftime("%H:%M") == "00:00"


def test_outside_the_durability_tests_fsync_is_a_no_op(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The suite's conftest turns fsync off in every test not marked `durability`; the
    marked ones (tests/test_durable.py) prove it is real there."""
    monkeypatch.setattr(os, "fsync", lambda fd: pytest.fail("fsync ran"))
    atomic_write_text(tmp_path / "MEMORY.md", "một\n")
    assert (tmp_path / "MEMORY.md").read_text(encoding="utf-8") == "một\n"
