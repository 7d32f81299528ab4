"""`trinho gate OLD NEW`: the JSON shape, defaults for the window, and clear errors; the
workspace's day and locale on the file store and with a PostgreSQL owner alike (`cli_backend`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.backends import CliBackend
from trinho.cli import main
from trinho.workspace import CONFIG_PATH

OLD = "# Memory\n- 2026-11-01: Likes green tea\n- 2026-11-02: Sống ở Hà Nội\n"
NEW = (
    "# Memory\n- 2026-11-28: Likes green tea\n- 2026-11-24: Có con mèo tên Mướp\n"
    "Sure, here you go!\n"
)


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    old, new = tmp_path / "old.md", tmp_path / "new.md"
    old.write_text(OLD, encoding="utf-8")
    new.write_text(NEW, encoding="utf-8")
    return str(old), str(new)


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(["gate", *args, "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


def test_json_has_the_documented_shape(
    files: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    data = run_json(capsys, *files, "--today", "2026-11-29")
    assert data["applied"] == (
        "# Memory\n- 2026-11-28: Likes green tea\n- 2026-11-02: Sống ở Hà Nội\n"
        "- 2026-11-24: Có con mèo tên Mướp\n"
    )
    assert data["since"] == "2026-11-23"
    changes = data["changes"]
    assert isinstance(changes, list)
    assert [(c["class"], c["action"]) for c in changes] == [
        ("date_changed", "auto"),
        ("removed", "held"),
        ("added", "auto"),
        ("malformed", "held"),
    ]
    for change in changes:
        assert {"class", "action", "old", "new", "reason"} <= set(change)
    assert changes[1]["old"] == "- 2026-11-02: Sống ở Hà Nội" and changes[1]["new"] is None


def test_since_narrows_the_window(
    files: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    data = run_json(capsys, *files, "--today", "2026-11-29", "--since", "2026-11-26")
    changes = data["changes"]
    assert isinstance(changes, list)
    classes = [(c["class"], c["new"]) for c in changes]
    assert ("strange_date", "- 2026-11-24: Có con mèo tên Mướp") in classes


def test_today_defaults_to_the_clock_in_utc_without_a_workspace(
    files: tuple[str, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("TRINHO_HOME", str(tmp_path / "nowhere"))
    monkeypatch.setenv("TRINHO_NOW", "2026-11-30T05:00:00+07:00")
    data = run_json(capsys, *files)
    assert (data["today"], data["since"]) == ("2026-11-29", "2026-11-23")


def test_today_defaults_to_the_workspace_day_in_its_zone(
    files: tuple[str, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    cli_backend: CliBackend,
) -> None:
    monkeypatch.setenv("TRINHO_NOW", "2026-11-29T20:00:00+00:00")
    data = run_json(capsys, *files)
    assert (data["today"], data["since"]) == ("2026-11-30", "2026-11-24")


def test_human_output_lists_every_change(
    files: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["gate", *files, "--today", "2026-11-29"]) == 0
    out = capsys.readouterr().out
    assert "[HELD] removed" in out and "    - - 2026-11-02: Sống ở Hà Nội" in out
    assert "[HELD] malformed line" in out and "    + Sure, here you go!" in out
    assert "2 changes apply by themselves, 2 wait for your approval" in out


def test_a_vietnamese_workspace_reads_reasons_in_vietnamese_and_json_stays_english(
    files: tuple[str, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    cli_backend: CliBackend,
) -> None:
    monkeypatch.setenv("TRINHO_HOME", str(tmp_path / "nowhere"))
    english = run_json(capsys, *files, "--today", "2026-11-29")
    config = cli_backend.home / CONFIG_PATH
    config.write_text(config.read_text("utf-8").replace('locale = "en"', 'locale = "vi"'))
    monkeypatch.setenv("TRINHO_HOME", str(cli_backend.home))
    assert run_json(capsys, *files, "--today", "2026-11-29") == english
    removed = english["changes"][1]  # type: ignore[index]
    assert removed["reason"] == (
        "the weekly update leaves this entry out; it stays until you approve its removal"
    )
    assert removed["reason_code"] == "removed_entry"
    assert main(["gate", *files, "--today", "2026-11-29"]) == 0
    out = capsys.readouterr().out
    held = "bản cập nhật hằng tuần bỏ mục này: vẫn giữ, chờ bạn duyệt việc xoá"
    assert f"[CHỜ DUYỆT] xoá: {held}" in out
    assert "[tự động] đổi ngày: ngày được dời về sau, từ 2026-11-01 thành 2026-11-28" in out
    assert "[CHỜ DUYỆT] dòng sai định dạng: không phải mục có ngày hay tiêu đề" in out
    assert "missing from the rewrite" not in out and "window" not in out


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        (None, ["missing.md", "new.md"], "OLD file not found"),
        ("bad", ["bad.md", "new.md"], "invalid UTF-8 at byte 3"),
        (None, ["new.md", "new.md", "--today", "2026-02-30"], "--today"),
        (None, ["new.md", "new.md", "--today", "2026-11-01", "--since", "2026-11-02"], "after"),
    ],
)
def test_bad_input_is_one_clear_error(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    setup: str | None,
    args: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "new.md").write_text(NEW, encoding="utf-8")
    if setup == "bad":
        (tmp_path / "bad.md").write_bytes(b"- 2\xff")
    assert main(["gate", *args]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("trinho: error: ") and message in captured.err
    assert "Traceback" not in captured.err
