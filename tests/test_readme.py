"""The README opens with the two commands, and .ci/run runs the second one verbatim."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S)]


def test_readme_opens_with_demo_then_tests() -> None:
    first, second = _commands()[:2]
    assert first.endswith("trinho demo")
    assert second.endswith("pytest")


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert _commands()[1] in ci
