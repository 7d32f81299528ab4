"""The CLI for reviewing: help in groups (everyday first), proposals in short blocks, ids by a
unique prefix everywhere an id is taken, and the reason of a rejection as its second word; on
the file workspace and on a PostgreSQL owner alike (`cli_backend`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from support.backends import CliBackend
from trinho.cli import main
from trinho.cli.app import COMMANDS, SECTIONS
from trinho.review.render import LINE_WIDTH
from trinho.textnorm import SHORT_ID, short_ids


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def ws(cli_backend: CliBackend) -> Path:
    """The workspace, whose memory is its files or one owner's rows in the database."""
    return cli_backend.home


def decided(capsys: pytest.CaptureFixture[str], pid: str) -> dict[str, Any]:
    """The proposal as `trinho proposals --all --json` lists it, on either backend."""
    listed = json.loads(run(capsys, "proposals", "--all", "--json")[1])
    found: dict[str, Any] = next(p for p in listed if p["id"] == pid)
    return found


def waiting(capsys: pytest.CaptureFixture[str], *keys: str) -> list[str]:
    """A job's fact proposal for each key; their ids."""
    ids = []
    for key in keys:
        code, out, err = run(capsys, "fact", "set", key, "x " * 60, "--as", "job", "--json")
        assert code == 0, err
        ids.append(json.loads(out)["proposal_id"])
    return ids


def test_every_command_is_in_exactly_one_section_and_everyday_ones_come_first(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    named = [name for _, names in SECTIONS for name in names]
    assert sorted(named) == sorted(COMMANDS) and len(named) == len(set(named))
    code, out, _ = run(capsys, "--help")
    assert code == 0
    titles = ["Everyday:", "Reviewing changes:", "Setup and service:", "For developers:"]
    at = [out.index(title) for title in titles]
    assert at == sorted(at)
    assert out.index("  note ") < out.index("Reviewing changes:") < out.index("  proposals ")
    assert out.index("  demo ") > out.index("For developers:")


def test_proposals_are_short_blocks_with_what_why_who_and_a_short_id(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    [pid] = waiting(capsys, "home-city")
    code, out, _ = run(capsys, "proposals")
    assert code == 0
    lines = out.rstrip("\n").split("\n")
    assert max(len(line) for line in lines) <= LINE_WIDTH
    assert lines[0].startswith(f"{pid[:6]} [pending] Adds: home-city: x x")
    assert lines[1].startswith("  why: An unattended job wants to change home-city")
    assert lines[2].startswith("  by a scheduled job, 2026-")
    assert "job:" not in out and "(user owner)" not in out
    assert json.loads(run(capsys, "proposals", "--json")[1])[0]["id"] == pid  # the shape kept


def test_an_id_is_taken_by_a_unique_prefix_of_six_or_more(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second, third = waiting(capsys, "a-key", "b-key", "c-key")
    code, out, _ = run(capsys, "proposals", first[:6])
    assert code == 0 and out.startswith(first[:6])
    assert run(capsys, "approve", first[:7])[0] == 0
    code, _, err = run(capsys, "reject", second[:6].upper(), "sai rồi")
    assert code == 0, err
    rejected = decided(capsys, second)
    assert (rejected["status"], rejected["decision_note"]) == ("rejected", "sai rồi")
    assert run(capsys, "reject", third, "--reason", "không đúng")[0] == 0
    assert decided(capsys, third)["decision_note"] == "không đúng"


def test_an_id_is_shown_at_the_length_it_is_asked_for(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The listing shows each id as its first SHORT_ID characters; that is what every command
    takes, and one character less is refused with the length it asks for."""
    ids = waiting(capsys, "a-key", "b-key")
    code, out, _ = run(capsys, "proposals")
    shown = [line.split()[0] for line in out.splitlines() if line and not line[0].isspace()]
    assert code == 0 and sorted(shown) == sorted(pid[:SHORT_ID] for pid in ids)
    code, _, err = run(capsys, "approve", shown[0][:-1])
    assert code != 0 and f"give its first {SHORT_ID} characters" in err
    assert run(capsys, "approve", shown[0])[0] == 0
    code, _, err = run(capsys, "approve", "xyz")
    assert code != 0 and f"its first {SHORT_ID} characters or more" in err


def test_a_short_ambiguous_or_unknown_prefix_is_one_keyed_line(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = waiting(capsys, *(f"k{n}" for n in range(40)))
    for args, said in [
        (("approve", ids[0][:5]), f"too short: give its first {SHORT_ID} characters"),
        (("reject", "ffffffff"), "no proposal 'ffffffff'"),
        (("approve", "zz-top"), "invalid proposal id"),
    ]:
        code, out, err = run(capsys, *args)
        assert code != 0 and out == ""
        assert said in err and err.count("\n") == 1 and "Traceback" not in err
    two = run(capsys, "reject", ids[1], "một", "--reason", "hai")
    assert two[0] != 0 and "give the reason once" in two[2]
    assert decided(capsys, ids[1])["status"] == "pending"


def test_the_vietnamese_listing_says_it_in_vietnamese(
    cli_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", "--tz", "Asia/Ho_Chi_Minh", "--locale", "vi"]) == 0
    capsys.readouterr()
    waiting(capsys, "coffee")
    out = run(capsys, "proposals")[1]
    assert "[chờ duyệt] Thêm: coffee" in out and "lý do:" in out
    assert "một tác vụ định kỳ" in out
    for english in ("job:", "basis", "inferred", "owner", "tokens"):
        assert english not in out


@given(st.lists(st.text("0123456789abcdef", min_size=10, max_size=10), unique=True, max_size=30))
def test_a_shown_id_names_exactly_one_proposal(ids: list[str]) -> None:
    short = short_ids(ids)
    for pid, prefix in short.items():
        assert pid.startswith(prefix) and len(prefix) >= 6
        assert [other for other in ids if other.startswith(prefix)] == [pid]
