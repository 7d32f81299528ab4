"""The facts and proposals CLI: the JSON shapes exactly as issue 3 names them, exit codes, clear
errors without tracebacks, and the owner's language; on the file workspace and on a
PostgreSQL owner alike (`cli_backend`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from support.backends import CliBackend
from trinho.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def js(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    code, out, err = run(capsys, *args, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.fixture
def ws(cli_backend: CliBackend) -> Path:
    """The workspace, whose memory is its files or one owner's rows in the database."""
    return cli_backend.home


@pytest.fixture
def files_ws(cli_env: dict[str, str], capsys: pytest.CaptureFixture[str]) -> Path:
    """A file workspace, for what only files can be (a fact file broken by hand)."""
    assert main(["init", "--tz", "Asia/Ho_Chi_Minh"]) == 0
    capsys.readouterr()
    return Path(cli_env["TRINHO_HOME"])


def test_fact_set_reports_each_outcome(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    set_ = ("fact", "set", "home-city")
    assert js(capsys, *set_, "Hà Nội", "--basis", "inferred") == {
        "outcome": "created",
        "proposal_id": None,
    }
    assert js(capsys, *set_, "Hà Nội", "--basis", "inferred")["outcome"] == "unchanged"
    assert js(capsys, *set_, "Sài Gòn")["outcome"] == "superseded"
    proposed = js(capsys, *set_, "Huế", "--basis", "inferred")
    assert proposed["outcome"] == "proposed" and len(proposed["proposal_id"]) == 10
    assert js(capsys, *set_, "Huế", "--as", "job") == {
        "outcome": "proposed",
        "proposal_id": js(capsys, *set_, "Huế", "--as", "job")["proposal_id"],
    }
    past = js(capsys, *set_, "Tokyo", "--valid-from", "2020-01-01", "--valid-to", "2021-01-01")
    assert past == {"outcome": "historical", "proposal_id": None}


def test_get_on_and_history(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    js(capsys, "fact", "set", "home-city", "Hà Nội", "--valid-from", "2025-01-01")
    js(capsys, "fact", "set", "home-city", "Sài Gòn")
    assert js(capsys, "fact", "get", "home-city") == {
        "key": "home-city",
        "value": "Sài Gòn",
        "basis": "user",
        "valid_from": "2026-11-29",
        "valid_to": None,
    }
    assert js(capsys, "fact", "get", "home-city", "--on", "2025-06-01")["value"] == "Hà Nội"
    assert js(capsys, "fact", "history", "home-city") == [
        {"value": "Hà Nội", "basis": "user", "valid_from": "2025-01-01", "valid_to": "2026-11-29"},
        {"value": "Sài Gòn", "basis": "user", "valid_from": "2026-11-29", "valid_to": None},
    ]
    code, out, err = run(capsys, "fact", "get", "home-city", "--on", "2024-01-01")
    assert code == 1 and out == ""
    assert err.startswith("trinho: error: fact 'home-city' has no value on 2024-01-01")


def test_facts_index_and_user_option(
    ws: Path, cli_backend: CliBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    js(capsys, "fact", "set", "pet", "mèo", "--user", "lan")
    js(capsys, "fact", "set", "home-city", "Hà Nội")
    index = js(capsys, "facts")
    assert [f["key"] for f in index["facts"]] == ["home-city"]
    assert index["omitted"] == 0 and index["user"] == "owner"
    assert js(capsys, "facts", "--user", "lan")["lines"] == ["pet: mèo (user, since 2026-11-29)"]
    assert (ws / "users/lan/facts/pet.md").exists() == (cli_backend.kind == "files")
    assert run(capsys, "facts")[1] == "home-city: Hà Nội (user, since 2026-11-29)\n"


def test_proposals_approve_reject(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    js(capsys, "fact", "set", "home-city", "Hà Nội")
    first = js(capsys, "fact", "set", "home-city", "Huế", "--as", "job")["proposal_id"]
    second = js(capsys, "fact", "set", "pet", "mèo", "--as", "job", "--origin", "job:nightly")
    pending = js(capsys, "proposals")
    by_id = {p["id"]: p for p in pending}
    assert set(by_id) == {first, second["proposal_id"]}
    assert by_id[first]["change"]["value"] == "Huế" and by_id[first]["status"] == "pending"
    code, out, _ = run(capsys, "approve", first)
    assert code == 0 and out.startswith(f"Approved {first[:6]}: Updated home-city: Huế")
    code, out, _ = run(capsys, "reject", second["proposal_id"], "--reason", "không nuôi")
    assert code == 0 and out == f"Rejected {second['proposal_id'][:6]}\n"
    assert js(capsys, "proposals") == []
    decided = js(capsys, "proposals", "--all")
    assert {(p["status"], p["decision_note"]) for p in decided} == {
        ("approved", "Updated home-city: Huế (the old value is kept in its history)"),
        ("rejected", "không nuôi"),
    }
    again = js(capsys, "fact", "set", "pet", "mèo", "--as", "job", "--origin", "job:nightly")
    assert again == second
    assert js(capsys, "proposals") == []
    code, _, err = run(capsys, "approve", first)
    assert code == 1 and "already approved" in err
    assert js(capsys, "fact", "get", "home-city")["basis"] == "user"


def test_user_option_on_the_queue_and_decisions(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lan = js(capsys, "fact", "set", "pet", "mèo", "--as", "job", "--user", "lan")["proposal_id"]
    mine = js(capsys, "fact", "set", "pet", "chó", "--as", "job")["proposal_id"]
    assert [p["id"] for p in js(capsys, "proposals", "--user", "lan")] == [lan]
    assert [p["id"] for p in js(capsys, "proposals", "--user", "owner")] == [mine]
    assert {p["id"] for p in js(capsys, "proposals")} == {lan, mine}
    code, out, err = run(capsys, "approve", lan, "--user", "owner")
    assert code == 1 and out == ""
    assert "is about user 'lan', not 'owner'; nothing was decided" in err
    code, _, err = run(capsys, "reject", mine, "--user", "lan")
    assert code == 1 and "nothing was decided" in err
    assert {p["status"] for p in js(capsys, "proposals", "--all")} == {"pending"}
    assert js(capsys, "approve", lan, "--user", "lan")["status"] == "approved"
    assert js(capsys, "reject", mine, "--user", "owner")["status"] == "rejected"
    assert js(capsys, "fact", "get", "pet", "--user", "lan")["value"] == "mèo"
    code, _, err = run(capsys, "proposals", "--user", "../x")
    assert code == 1 and "invalid user id" in err


def test_human_output_speaks_vietnamese(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", "--locale", "vi"]) == 0
    capsys.readouterr()
    assert run(capsys, "fact", "set", "que", "Huế")[1] == "Đã lưu que: Huế\n"
    _, out, _ = run(capsys, "fact", "set", "que", "Vinh", "--as", "job")
    assert out.startswith("Đề xuất ") and "đang chờ bạn duyệt" in out
    assert run(capsys, "proposals", "--all")[1].count("Một tác vụ tự động") == 1
    assert run(capsys, "facts")[1] == "que: Huế (user, từ 2026-11-29)\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("fact", "set", "a/b", "x"), "invalid fact key 'a/b'"),
        (("fact", "set", "..", "x"), "invalid fact key '..'"),
        (("fact", "set", "k", "x", "--user", "../../etc"), "invalid user id"),
        (("fact", "set", "k", "x", "--valid-from", "2026-02-30"), "--valid-from: '2026-02-30'"),
        (("fact", "set", "k", "x" * 20000), "the limit is 16384"),
        (("fact", "get", "k", "--on", "2026-13-01"), "--on: '2026-13-01'"),
        (("fact", "history", "nope"), "no fact 'nope'"),
        (("approve", "../../x"), "invalid proposal id"),
        (("reject", "0123456789"), "no proposal '0123456789'"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(
    ws: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    code, out, err = run(capsys, *args, "--json")
    assert code == 1 and out == ""
    assert err.startswith("trinho: error: ") and message in err
    assert err.count("\n") == 1
    assert list((ws / "users/owner/facts").iterdir()) == []
    assert list((ws / "memory_proposals").iterdir()) == []
    assert js(capsys, "facts")["facts"] == [] and js(capsys, "proposals", "--all") == []


def test_end_to_end_in_a_subprocess(files_ws: Path, cli_env: dict[str, str]) -> None:
    def trinho(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", "import sys, trinho.cli; sys.exit(trinho.cli.main())", *args],
            capture_output=True,
            text=True,
            encoding="utf-8",
            check=False,
        )

    done = trinho("fact", "set", "home-city", "Đà Lạt", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["outcome"] == "created"
    broken = files_ws / "users/owner/facts/broken.md"
    broken.write_text("---\nkey: broken\nvalue: no quotes\n---\n", encoding="utf-8")
    listed = trinho("facts", "--json")
    assert listed.returncode == 0
    data = json.loads(listed.stdout)
    assert [f["value"] for f in data["facts"]] == ["Đà Lạt"]
    assert data["broken"][0]["path"] == "users/owner/facts/broken.md"
    assert "users/owner/facts/broken.md:3" in listed.stderr
    failed = trinho("fact", "get", "broken")
    assert failed.returncode == 1 and "Traceback" not in failed.stderr
    assert "users/owner/facts/broken.md:3" in failed.stderr
