"""CLI error lines in the owner's locale: trinho's errors and click's usage errors alike, on the
file workspace and on a PostgreSQL owner (`cli_backend`), whose locale is the deployment's
config's (the workspace folder)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.backends import CliBackend
from trinho.cli import main
from trinho.config.files import owner_locale
from trinho.proposals import store as proposals
from trinho.textnorm import shown_id
from trinho.workspace import CONFIG_PATH, init_workspace, open_workspace


def set_locale(backend: CliBackend, locale: str) -> None:
    """The owner's locale, as the owner sets it in the config (`init` leaves a config be)."""
    config = backend.home / CONFIG_PATH
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace('locale = "en"', f'locale = "{locale}"'), encoding="utf-8")
    assert owner_locale(backend.home) == locale


@pytest.fixture
def vi_owner(cli_backend: CliBackend) -> CliBackend:
    """The CLI's owner on each backend in turn, in Asia/Ho_Chi_Minh, speaking Vietnamese."""
    set_locale(cli_backend, "vi")
    return cli_backend


@pytest.fixture
def en_owner(cli_backend: CliBackend) -> CliBackend:
    return cli_backend


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


VIETNAMESE = [
    (["note"], 2, "Thiếu đối số 'TEXT'. (xem `trinho note --help`)"),
    (["nope"], 2, "Không có lệnh 'nope'."),
    (["note", "--jsn", "x"], 2, "Có phải ý bạn là '--json'? (xem `trinho note --help`)"),
    (["note", "   "], 1, "ghi chú trống: hãy cho nội dung cần ghi nhớ"),
    (["note", "x" * 10_001], 1, "ghi chú dài 10,001 ký tự; giới hạn là 10,000."),
    (["note", "bad \udcff byte"], 1, "đối số thứ 2 (bad \\xff byte) không phải văn bản Unicode"),
    (["get", "memory/2020-01-01.md"], 1, "không có tệp này trong không gian làm việc"),
    (["search", "x", "--batch", "-"], 1, "hãy cho QUERY hoặc --batch FILE, không cho cả hai"),
    (["search"], 1, "truy vấn trống: hãy cho vài từ cần tìm (hoặc --batch FILE)"),
    (["fact", "get", "nhà"], 1, "không hợp lệ: hãy dùng 1-64 chữ thường"),
    (["fact", "get", "home"], 1, "không có dữ kiện 'home' của owner: xem `trinho facts`"),
    (["approve", "0123456789"], 1, "không có đề xuất '0123456789' trong"),
    (["approve", "xyz"], 1, "mã đề xuất 'xyz' không hợp lệ: hãy ghi 6 ký tự đầu của mã"),
    (
        ["get", "../outside.md"],
        1,
        "đường dẫn '../outside.md' phải là tương đối với thư mục làm việc",
    ),
    (["notes", "--date", "2026-02-30"], 1, "'2026-02-30' không phải ngày hợp lệ (YYYY-MM-DD)"),
    (["model", "check"], 1, "chưa cấu hình mô hình: hãy đặt TRINHO_MODEL=PROVIDER:MODEL"),
]


@pytest.mark.parametrize(("argv", "code", "expected"), VIETNAMESE)
def test_a_vietnamese_workspace_gets_its_errors_in_vietnamese(
    vi_owner: CliBackend,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    code: int,
    expected: str,
) -> None:
    monkeypatch.delenv("TRINHO_MODEL", raising=False)
    got, out, err = run(capsys, *argv)
    assert (got, out) == (code, "")
    assert err.startswith("trinho: error: ") and err.count("\n") == 1
    assert expected in err


def test_a_bad_clock_is_said_in_vietnamese(
    vi_owner: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TRINHO_NOW", "2026-11-29T14:05:00")
    assert run(capsys, "notes")[2] == (
        "trinho: error: TRINHO_NOW='2026-11-29T14:05:00' thiếu độ lệch UTC; "
        "hãy thêm vào, ví dụ +07:00\n"
    )


def test_an_invalid_utf8_file_is_named_in_vietnamese(
    vi_owner: CliBackend,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if vi_owner.kind == "files":
        folder, argv = vi_owner.home, ["get", "MEMORY.md"]
    else:  # the database holds text only: bytes that are not UTF-8 meet it in an import
        assert vi_owner.url is not None
        monkeypatch.setenv("TRINHO_DATABASE_URL", vi_owner.url)  # an import is the operator's
        folder, argv = tmp_path / "theirs", ["import", "workspace", str(tmp_path / "theirs")]
        init_workspace(folder, timezone="Asia/Ho_Chi_Minh")
        argv += ["--owner", "newcomer"]
        owners = run(capsys, "owners", "list")[1]
    (folder / "MEMORY.md").write_bytes(b"# Memory\n\xff\n")
    code, _, err = run(capsys, *argv)
    assert code == 1
    assert err == (
        "trinho: error: MEMORY.md:2: UTF-8 không hợp lệ tại byte 9; hãy sửa tệp "
        "(tệp vẫn được giữ nguyên)\n"
    )
    assert (folder / "MEMORY.md").read_bytes() == b"# Memory\n\xff\n"
    if vi_owner.kind == "pg":  # nothing half-written: not even the new owner
        assert run(capsys, "owners", "list")[1] == owners


def test_a_proposal_decided_twice_is_said_in_vietnamese(
    vi_owner: CliBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    change = {"summary": "bỏ một dòng", "line": "- 2026-11-01: cũ"}
    with vi_owner.view() as root:
        ws = open_workspace(root)
        pid = proposals.submit(ws, "memory", change, reason="r", origin="job:a").proposal.id
    assert run(capsys, "reject", pid)[0] == 0
    code, _, err = run(capsys, "reject", pid)
    assert code == 1
    assert err.startswith(
        f"trinho: error: đề xuất {shown_id(pid)} đã được quyết định rồi (trạng thái rejected"
    )
    assert "chỉ đề xuất đang chờ mới quyết định được" in err


def test_a_fact_date_conflict_is_said_in_vietnamese(
    vi_owner: CliBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "fact", "set", "home", "Hà Nội", "--valid-from", "2026-11-01")[0] == 0
    code, _, err = run(capsys, "fact", "set", "home", "Đà Nẵng", "--valid-from", "2026-10-01")
    assert code == 1
    assert "giá trị hiện tại có hiệu lực từ 2026-11-01" in err
    assert "hãy cho valid_from từ 2026-11-01 trở đi" in err


def test_an_english_workspace_gets_the_english_text_unchanged(
    en_owner: CliBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "note", " ")[2] == "trinho: error: empty note: give some text to remember\n"
    assert run(capsys, "note")[2] == (
        "trinho: error: Missing argument 'TEXT'. (see `trinho note --help`)\n"
    )
    assert run(capsys, "fact", "get", "home")[2] == (
        "trinho: error: no fact 'home' for owner: see `trinho facts`\n"
    )


def test_json_output_stays_empty_on_stdout_whatever_the_locale(
    vi_owner: CliBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "search", "--json")
    assert (code, out) == (1, "")
    assert "truy vấn trống" in err


def test_without_a_readable_config_errors_are_english(
    tmp_path: Path, vi_owner: CliBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere"
    if vi_owner.kind == "files":
        assert run(capsys, "--workspace", str(missing), "notes")[2] == (
            f"trinho: error: no workspace at {missing}: "
            f"run `trinho --workspace {missing} init` first\n"
        )
    else:  # the folder holds only the deployment's config, which the database does without
        assert run(capsys, "--workspace", str(missing), "fact", "get", "home")[2] == (
            "trinho: error: no fact 'home' for owner: see `trinho facts`\n"
        )
    # a usage error before any command ran still finds the workspace named on the line
    assert "Không có lệnh 'nope'." in run(capsys, "--workspace", str(vi_owner.home), "nope")[2]
    assert "No such command 'nope'." in run(capsys, "--workspace", str(missing), "nope")[2]
    config = vi_owner.home / CONFIG_PATH
    config.write_text('[owner\nlocale = "vi"\n', encoding="utf-8")
    assert owner_locale(vi_owner.home) == "en"
    code, _, err = run(capsys, "notes")
    assert code == 1 and "not valid TOML" in err


def test_the_installed_command_prints_one_vietnamese_line(vi_owner: CliBackend) -> None:
    env = {**os.environ, "TRINHO_HOME": str(vi_owner.home)}
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from trinho.cli import main; sys.exit(main())", "note"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        check=False,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "trinho: error: Thiếu đối số 'TEXT'. (xem `trinho note --help`)\n"


# ---- click's own messages, said through the catalog ------------------------------------------

CLICK_SAYS = [
    (["nope"], "No such command 'nope'.", "Không có lệnh 'nope'."),
    (
        ["notez"],
        "No such command 'notez'. Did you mean: note, notes?",
        "Không có lệnh 'notez'. Có phải ý bạn là: note, notes?",
    ),
    (["note"], "Missing argument 'TEXT'.", "Thiếu đối số 'TEXT'."),
    (["--bogus"], "No such option '--bogus'.", "Không có tuỳ chọn '--bogus'."),
    (
        ["note", "--jsn", "x"],
        "No such option '--jsn'. Did you mean '--json'?",
        "Không có tuỳ chọn '--jsn'. Có phải ý bạn là '--json'?",
    ),
    (
        ["notes", "--date"],
        "Option '--date' requires an argument.",
        "Tuỳ chọn '--date' cần 1 giá trị.",
    ),
    (
        ["search", "x", "--limit", "ten"],
        "Invalid value for '--limit': 'ten' is not a valid integer range.",
        "Giá trị không hợp lệ cho '--limit': 'ten' không phải integer range hợp lệ.",
    ),
    (
        ["search", "x", "--limit", "0"],
        "Invalid value for '--limit': 0 is not in the range x>=1.",
        "Giá trị không hợp lệ cho '--limit': 0 không nằm trong khoảng x>=1.",
    ),
    (
        ["fact", "set", "k", "v", "--basis", "rumour"],
        "Invalid value for '--basis': 'rumour' is not one of",
        "Giá trị không hợp lệ cho '--basis': 'rumour' không phải một trong",
    ),
    (["note", "a", "b"], "Got unexpected extra argument (b)", "Thừa đối số không mong đợi (b)"),
    (
        ["note", "a", "b", "c"],
        "Got unexpected extra arguments (b c)",
        "Thừa đối số không mong đợi (b c)",
    ),
]


@pytest.mark.parametrize(("argv", "english", "vietnamese"), CLICK_SAYS)
def test_each_click_usage_error_is_said_in_the_owners_language(
    cli_backend: CliBackend,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    english: str,
    vietnamese: str,
) -> None:
    for locale, expected in (("en", english), ("vi", vietnamese)):
        set_locale(cli_backend, locale)
        code, out, err = run(capsys, *argv)
        assert (code, out) == (2, "")
        assert err.startswith(f"trinho: error: {expected}"), err
        assert err.count("\n") == 1


def _help(home: Path, *argv: str) -> str:
    """The help as a fresh `trinho` process prints it (click keeps a command's --help option,
    its wording included, for the rest of the process once it was made)."""
    env = {**os.environ, "TRINHO_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from trinho.cli import main; sys.exit(main())", *argv],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        check=True,
    )
    return " ".join(done.stdout.split())


def test_the_help_says_clicks_words_in_vietnamese(vi_owner: CliBackend) -> None:
    out = _help(vi_owner.home, "--help")
    assert out.startswith("Cách dùng: trinho [OPTIONS] COMMAND [ARGS]...")
    for said in (
        "Tuỳ chọn:",
        "Hằng ngày:",
        "Hiện thông báo này rồi thoát.",
        "Hiện phiên bản rồi thoát",
    ):
        assert said in out
    assert _help(vi_owner.home, "note", "--help").startswith(
        "Cách dùng: trinho note [OPTIONS] TEXT"
    )


def test_the_help_stays_clicks_english_for_an_english_owner(en_owner: CliBackend) -> None:
    out = _help(en_owner.home, "--help")
    assert out.startswith("Usage: trinho [OPTIONS] COMMAND [ARGS]...")
    assert "Show this message and exit." in out and "Show the version and exit." in out


def test_click_speaks_english_again_after_the_command(
    vi_owner: CliBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    import click

    run(capsys, "note")
    with pytest.raises(click.UsageError, match=r"^Missing "):
        click.command()(click.argument("x")(lambda x: None)).main([], standalone_mode=False)
