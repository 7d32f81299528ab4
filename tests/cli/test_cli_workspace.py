"""The CLI conventions on the workspace commands: one JSON document, one-line errors, exit
codes; on the file workspace and on a PostgreSQL owner alike (`cli_backend`), except what is
about the workspace folder itself (`init` of a folder, `--workspace`, an OpenClaw folder, the
installed command)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import snapshot
from support.backends import CliBackend
from trinho.cli import main
from trinho.workspace import CONFIG_PATH, init_workspace

Run = tuple[int, str, str]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> Run:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def one_json(out: str) -> dict[str, object]:
    """stdout holds exactly one JSON document and nothing else."""
    assert out.endswith("\n") and out.count("\n") == 1, out
    value = json.loads(out)
    assert isinstance(value, dict)
    return value


def assert_user_error(result: Run, code: int, message: str) -> None:
    got, out, err = result
    assert got == code
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("trinho: error: "), err
    assert message in err
    assert "Traceback" not in err


def test_json_flow(cli_backend: CliBackend, capsys: pytest.CaptureFixture[str]) -> None:
    # `init` again on the fixture's workspace (the deployment's config on PostgreSQL)
    code, out, err = run(capsys, "init", "--tz", "Asia/Ho_Chi_Minh", "--json")
    assert (code, err) == (0, "")
    assert one_json(out)["timezone"] == "Asia/Ho_Chi_Minh"
    code, out, _ = run(capsys, "init", "--json")
    assert one_json(out)["created"] == []

    code, out, _ = run(capsys, "note", "Mua quà sinh nhật cho mẹ", "--json")
    saved = one_json(out)
    assert code == 0
    assert saved["path"] == "memory/2026-11-29.md"
    assert saved["line"] == "- 14:05 Mua quà sinh nhật cho mẹ"

    code, out, _ = run(capsys, "notes", "--json")
    listed = one_json(out)
    assert listed["entries"] == [
        {"time": "14:05", "text": "Mua quà sinh nhật cho mẹ", "line": 1, "lines": 1}
    ]
    code, out, _ = run(capsys, "notes", "--date", "2026-11-28", "--json")
    assert one_json(out)["entries"] == []


def test_init_creates_the_workspace_as_one_json_document(
    cli_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "init", "--tz", "Asia/Ho_Chi_Minh", "--json")
    assert (code, err) == (0, "")
    created = one_json(out)
    assert created["timezone"] == "Asia/Ho_Chi_Minh" and created["created"] != []


def test_note_and_notes_on_either_backend(
    cli_backend: CliBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    first = one_json(run(capsys, "note", "Mua quà sinh nhật cho mẹ", "--json")[1])
    assert first == {
        "path": "memory/2026-11-29.md",
        "line": "- 14:05 Mua quà sinh nhật cho mẹ",
        "date": "2026-11-29",
        "time": "14:05",
        "line_number": 1,
    }
    second = one_json(run(capsys, "note", "hai dòng\nthứ hai", "--json")[1])
    assert second["line_number"] == 2 and second["line"] == "- 14:05 hai dòng\n  thứ hai"
    listed = one_json(run(capsys, "notes", "--json")[1])
    assert listed["entries"] == [
        {"time": "14:05", "text": "Mua quà sinh nhật cho mẹ", "line": 1, "lines": 1},
        {"time": "14:05", "text": "hai dòng\nthứ hai", "line": 2, "lines": 2},
    ]
    code, out, _ = run(capsys, "notes")
    assert (code, out) == (0, "- 14:05 Mua quà sinh nhật cho mẹ\n- 14:05 hai dòng\n  thứ hai\n")
    assert run(capsys, "notes", "--date", "2026-11-28")[1] == "No notes for 2026-11-28\n"
    assert_user_error(run(capsys, "note", "   "), 1, "empty")
    on_disk = (cli_backend.home / "memory/2026-11-29.md").exists()
    assert on_disk == (cli_backend.kind == "files")


def test_init_tz_on_an_existing_workspace_records_and_announces_the_change(
    cli_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "init", "--tz", "Asia/Ho_Chi_Minh")
    code, out, _ = run(capsys, "init", "--tz", "Europe/Berlin")
    assert code == 0
    assert "Time zone changed from Asia/Ho_Chi_Minh to Europe/Berlin" in out
    code, out, _ = run(capsys, "init", "--tz", "Europe/Berlin", "--json")
    assert "zone_changed" not in one_json(out)  # unchanged: nothing announced or recorded
    zones = Path(cli_env["TRINHO_HOME"]) / ".trinho" / "zones.jsonl"
    lines = [json.loads(line) for line in zones.read_text(encoding="utf-8").splitlines()]
    assert [line["zone"] for line in lines] == ["Asia/Ho_Chi_Minh", "Europe/Berlin"]
    assert lines[0]["since"] is None and lines[1]["since"].endswith("+00:00")


def test_import_command(
    cli_backend: CliBackend, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = tmp_path / "turns.jsonl"
    lines = [
        {"at": "2026-11-27T23:59:00+07:00", "role": "user", "text": "a", "ref": "m1"},
        {"at": "2026-11-27T17:01:00Z", "role": "assistant", "text": "b", "ref": 2},
    ]
    source.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    code, out, err = run(capsys, "import", "conversations", str(source), "--json")
    assert (code, err) == (0, "")
    assert one_json(out) == {"imported": 2, "skipped": 0, "days": 2}
    code, out, _ = run(capsys, "import", "conversations", str(source))
    assert out == "Imported 0 turns into 2 days (2 already present)\n"


def test_jobs_list_get_and_an_import_of_conversations_on_both_backends(
    cli_backend: CliBackend, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def js(*args: str) -> Any:
        code, out, err = run(capsys, *args, "--json")
        assert code == 0, err
        return json.loads(out)

    assert "condense" in [job["name"] for job in js("jobs", "list")["jobs"]]
    turns = tmp_path / "turns.jsonl"
    lines = [
        {"at": "2026-11-28T09:00:00+07:00", "role": "user", "text": "Đặt lịch nha sĩ thứ Năm"},
        {"at": "2026-11-28T09:00:05+07:00", "role": "assistant", "text": "Đã đặt."},
    ]
    turns.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))
    first = js("import", "conversations", str(turns))
    again = js("import", "conversations", str(turns))
    assert first["imported"] == 2 and again["imported"] == 0
    got = js("get", "conversations/2026-11-28.jsonl")
    assert "Đặt lịch nha sĩ thứ Năm" in got["text"]
    hits = js("search", "nha sĩ")
    assert any(h["path"] == "conversations/2026-11-28.jsonl" for h in hits)


def test_human_output_follows_the_locale(
    cli_backend: CliBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    config = cli_backend.home / CONFIG_PATH  # the owner's locale, set in the config by hand
    config.write_text(config.read_text("utf-8").replace('locale = "en"', 'locale = "vi"'), "utf-8")
    assert run(capsys, "note", "đi chợ")[1] == "Đã lưu vào memory/2026-11-29.md: - 14:05 đi chợ\n"
    assert (
        run(capsys, "notes", "--date", "2026-11-28")[1] == "Không có ghi chú nào ngày 2026-11-28\n"
    )
    assert run(capsys, "notes")[1] == "- 14:05 đi chợ\n"


def test_init_takes_the_locale(cli_env: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "init", "--tz", "Asia/Ho_Chi_Minh", "--locale", "vi")
    assert run(capsys, "note", "đi chợ")[1] == "Đã lưu vào memory/2026-11-29.md: - 14:05 đi chợ\n"


def test_a_command_before_init_says_to_run_it(
    cli_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert_user_error(run(capsys, "note", "x", "--json"), 1, "run `trinho --workspace")
    assert not Path(cli_env["TRINHO_HOME"]).exists()


def records_snapshot(backend: CliBackend) -> dict[str, bytes | None]:
    """Every file of the owner's memory: the workspace itself, or on PostgreSQL a checkout of
    the owner's records (what the database holds, as the file store would)."""
    with backend.view() as root:
        return snapshot(root)


def test_user_errors_are_one_line_and_write_nothing(
    cli_backend: CliBackend, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    before = records_snapshot(cli_backend)
    folder = snapshot(cli_backend.home)
    assert_user_error(run(capsys, "note", "  ", "--json"), 1, "empty note")
    assert_user_error(run(capsys, "note", "x" * 10_001), 1, "limit is 10,000")
    assert_user_error(run(capsys, "notes", "--date", "29/11/2026", "--json"), 1, "--date")
    assert_user_error(
        run(capsys, "import", "conversations", str(tmp_path / "no")), 1, "cannot read"
    )
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"at": "2026-11-29T10:00:00+07:00", "role": "u", "text": "ok"}\n{\n', "utf-8")
    assert_user_error(run(capsys, "import", "conversations", str(bad), "--json"), 1, "bad.jsonl:2")
    assert_user_error(run(capsys, "note"), 2, "Missing argument")
    assert_user_error(run(capsys, "nope"), 2, "No such command")
    assert_user_error(run(capsys, "init", "--tz", "Mars/Base"), 1, "unknown time zone")
    if cli_backend.kind == "files":  # the database holds text only: no bytes that are not UTF-8
        (cli_backend.home / "memory" / "2026-11-29.md").write_bytes(b"caf\xe9\n")
        before["memory/2026-11-29.md"] = b"caf\xe9\n"
        assert_user_error(run(capsys, "notes"), 1, "memory/2026-11-29.md:1: invalid UTF-8")
        assert_user_error(run(capsys, "note", "more"), 1, "invalid UTF-8")
    assert records_snapshot(cli_backend) == before
    if cli_backend.kind == "pg":  # nor in the folder, which holds the deployment's config
        assert snapshot(cli_backend.home) == folder


def test_bad_trinho_now_is_a_user_error(
    cli_backend: CliBackend, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRINHO_NOW", "tomorrow")
    assert_user_error(run(capsys, "note", "x"), 1, "TRINHO_NOW")
    monkeypatch.setenv("TRINHO_NOW", "9999-12-31T23:59:00-12:00")
    assert_user_error(run(capsys, "notes"), 1, "out of range")


def test_workspace_option_beats_trinho_home(
    cli_env: dict[str, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run(capsys, "--workspace", str(tmp_path / "other"), "init", "--json")
    assert code == 0
    assert one_json(out)["workspace"] == str((tmp_path / "other").resolve())
    assert not Path(cli_env["TRINHO_HOME"]).exists()


def test_openclaw_folder_reads_without_writing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = tmp_path / "claw"
    (root / "memory").mkdir(parents=True)
    (root / "memory" / "2026-11-28.md").write_text("- 09:00 cũ\nghi tay\n", encoding="utf-8")
    before = snapshot(root)
    code, out, _ = run(capsys, "--workspace", str(root), "notes", "--date", "2026-11-28", "--json")
    assert code == 0
    entries = one_json(out)["entries"]
    assert isinstance(entries, list)
    assert [e["text"] for e in entries] == ["cũ"]
    assert snapshot(root) == before


def test_console_script_end_to_end(cli_env: dict[str, str], tmp_path: Path) -> None:
    """The installed `trinho` command: bad argv bytes are a one-line error, never a traceback."""
    trinho = Path(sys.executable).parent / "trinho"
    env = {**os.environ, **cli_env}
    subprocess.run(
        [trinho, "init", "--tz", "Asia/Ho_Chi_Minh"], env=env, check=True, capture_output=True
    )
    bad = subprocess.run([trinho, "note", b"caf\xe9", "--json"], env=env, capture_output=True)
    assert bad.returncode == 1
    assert bad.stdout == b""
    assert bad.stderr.decode().startswith("trinho: error: argument 2 (caf\\xe9) is not valid")
    assert bad.stderr.count(b"\n") == 1
    good = subprocess.run([trinho, "note", "a\n- 09:00 b", "--json"], env=env, capture_output=True)
    assert json.loads(good.stdout) == {
        "path": "memory/2026-11-29.md",
        "line": "- 14:05 a\n  - 09:00 b",
        "date": "2026-11-29",
        "time": "14:05",
        "line_number": 1,
    }


def test_the_workspace_is_found_from_the_current_folder_upward(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Neither --workspace nor TRINHO_HOME: the nearest workspace above the current folder,
    one with trinho's config or one with MEMORY.md beside memory/, before the default."""
    from trinho.cli.app import State

    monkeypatch.delenv("TRINHO_HOME", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    plain = tmp_path / "plain" / "deep"
    plain.mkdir(parents=True)
    monkeypatch.chdir(plain)
    assert State().workspace_dir == tmp_path / "data" / "trinho" / "workspace"
    claw = tmp_path / "claw"
    (claw / "memory" / "sub").mkdir(parents=True)
    (claw / "MEMORY.md").write_text("# Memory\n", encoding="utf-8")
    monkeypatch.chdir(claw / "memory" / "sub")
    assert State().workspace_dir == claw
    ours = tmp_path / "ours"
    init_workspace(ours, timezone="UTC")
    (ours / "memory" / "x").mkdir(parents=True)
    monkeypatch.chdir(ours / "memory" / "x")
    assert State().workspace_dir == ours.resolve()
    assert State(given_dir=claw).workspace_dir == claw  # --workspace / TRINHO_HOME first
