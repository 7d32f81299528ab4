"""docs/architecture.md names every module of `src/trinho`, and each module or file it names exists.

A module added, moved or removed fails here until the doc says so
(`.venv/bin/python tests/support/modules.py` prints the list to paste); a journey that names a
module or a function which no longer exists fails too.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from support.modules import modules

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
LISTED = re.compile(r"^- `(trinho(?:\.\w+)*)`:", re.M)
DOTTED = re.compile(r"`(trinho(?:\.\w+)+)(?:\([^`]*\))?`")
PATHS = re.compile(r"`(src/trinho/[\w/]+\.py)`")


def _section(title: str) -> str:
    start = DOC.index(f"\n## {title}\n")
    end = DOC.find("\n## ", start + 1)
    return DOC[start : end if end != -1 else len(DOC)]


def test_the_module_list_names_every_module_and_no_other() -> None:
    listed = LISTED.findall(_section("Every module"))
    assert len(listed) == len(set(listed)), "a module is listed twice"
    real = set(modules())
    assert not real - set(listed), f"modules the doc does not name: {sorted(real - set(listed))}"
    gone = sorted(set(listed) - real)
    assert not gone, f"the doc names modules that do not exist: {gone}"


def _resolves(dotted: str) -> bool:
    """A dotted name is a module, or an attribute (a function, a class, a constant) of one."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(target, attribute):
                return False
            target = getattr(target, attribute)
        return True
    return False


@pytest.mark.parametrize("dotted", sorted(set(DOTTED.findall(DOC))))
def test_every_dotted_name_in_the_doc_exists(dotted: str) -> None:
    assert _resolves(dotted), f"docs/architecture.md names `{dotted}`, which does not exist"


@pytest.mark.parametrize("path", sorted(set(PATHS.findall(DOC))))
def test_every_file_in_the_doc_exists(path: str) -> None:
    assert (ROOT / path).is_file(), f"docs/architecture.md names {path}, which does not exist"


def test_each_journey_names_the_modules_it_passes() -> None:
    journeys = _section("Three journeys")
    for title in (
        "A saved note, to search",
        "A week's condensation, to the owner's decision",
        "An approval, to MEMORY.md",
    ):
        start = journeys.index(f"### {title}")
        end = journeys.find("\n### ", start + 1)
        named = DOTTED.findall(journeys[start : end if end != -1 else len(journeys)])
        assert len(named) >= 4, f"the journey '{title}' names too few modules: {named}"


def test_the_check_sees_a_missing_name() -> None:
    assert not _resolves("trinho.notes.no_such_module")
    assert not _resolves("trinho.condense.rules.gate.no_such_rule")
    assert _resolves("trinho.condense.rules.gate")
