"""`trinho demo`: runs every step, prints the same every time, and touches no real workspace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trinho.cli import main
from trinho.demo import STEPS, render_demo, run_demo


def test_demo_runs_every_step_deterministically(
    cli_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo"]) == 0
    first, err = capsys.readouterr()
    assert err == ""
    assert main(["demo"]) == 0
    assert capsys.readouterr().out == first
    for number in range(1, len(STEPS) + 1):
        assert f"\n{number}. " in "\n" + first
    assert "- 21:40 Two lines typed at once:\n    |   - 09:00 this is not a new entry" in first
    assert "Imported 0 turns into 2 days (4 already present)" in first
    assert "conversations/2026-11-28.jsonl:1  user: Late call booked" in first
    assert "written back unchanged, byte for byte: True" in first
    assert "[HELD] removed" in first and "+ - 2026-11-27: Nhắc gọi cho anh Đức" in first
    assert first.count("Weekly memory condensation 2026-W48") == 1
    assert "this week is already condensed" in first
    assert "trinho-demo-" not in first
    assert not Path(cli_env["TRINHO_HOME"]).exists()


def test_demo_json_and_vietnamese(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--json", "--locale", "vi"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    steps = json.loads(out)["steps"]
    assert len(steps) == len(STEPS)
    assert steps[0]["title"].startswith("1. Không gian làm việc")


def test_steps_can_be_extended() -> None:
    shown = run_demo("en", [STEPS[0], *STEPS[4:5]])
    assert [s.title[:3] for s in shown] == ["1. ", "2. "]
    assert "heading  # Về chủ nhân" in render_demo(shown)
