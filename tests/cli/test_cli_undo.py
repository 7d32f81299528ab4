"""`trinho undo ID`: any decision of the last 15 minutes taken back, an approval put back as it
was and a rejection waiting again; later, refused with the reason; on either backend."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from support.backends import CliBackend
from trinho.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def status(capsys: pytest.CaptureFixture[str], pid: str) -> dict[str, Any]:
    listed = json.loads(run(capsys, "proposals", "--all", "--json")[1])
    found: dict[str, Any] = next(p for p in listed if p["id"] == pid)
    return found


def facts(capsys: pytest.CaptureFixture[str]) -> str:
    return run(capsys, "facts")[1]


def test_a_decision_is_taken_back_within_its_window_and_refused_after(
    cli_backend: CliBackend, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert isinstance(cli_backend.home, Path)
    code, out, err = run(capsys, "fact", "set", "coffee", "flat white", "--as", "job", "--json")
    assert code == 0, err
    pid = json.loads(out)["proposal_id"]
    assert run(capsys, "reject", pid)[0] == 0
    code, out, _ = run(capsys, "undo", pid[:6])
    assert (code, out.strip()) == (0, f"Taken back: {pid[:6]} waits for your decision again")
    assert status(capsys, pid)["status"] == "pending"
    assert run(capsys, "approve", pid)[0] == 0
    assert "coffee: flat white" in facts(capsys)
    code, out, _ = run(capsys, "undo", pid, "--json")
    assert code == 0 and json.loads(out)["status"] == "reverted"
    assert "coffee" not in facts(capsys)
    code, _, err = run(capsys, "undo", pid)  # taken back once: a rerun says so, changes nothing
    assert code == 0 and "coffee" not in facts(capsys)


def test_an_undo_after_the_window_is_refused(
    cli_backend: CliBackend, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = run(capsys, "fact", "set", "tea", "green", "--as", "job", "--json")
    pid = json.loads(out)["proposal_id"]
    assert run(capsys, "approve", pid)[0] == 0
    monkeypatch.setenv("TRINHO_NOW", "2026-11-29T14:21:00+07:00")
    code, _, err = run(capsys, "undo", pid)
    assert code != 0 and "15 minutes" in err
    assert "tea: green" in facts(capsys)
    assert run(capsys, "reject", pid)[0] != 0  # decided: nothing to reject either
