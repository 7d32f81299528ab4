"""bench/year.py over a short span: one CSV row a week, the invariants checked each week."""

from __future__ import annotations

import csv
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "year.py"
WEEKS = 4


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_year", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while building
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, str]]:
    out = tmp_path_factory.mktemp("year")
    load_bench().main(["--weeks", str(WEEKS), "--seed", "1", "--out", str(out)])
    assert (out / "year.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    with (out / "year.csv").open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_one_row_per_week_and_one_week_without_a_run(rows: list[dict[str, str]]) -> None:
    assert [int(r["week"]) for r in rows] == list(range(1, WEEKS + 1))
    assert sum(not r["run_day"] for r in rows) == 1  # the week the service was down


@pytest.mark.parametrize("column", ["lost", "duplicated", "over_budget"])
def test_invariant_holds_every_week(rows: list[dict[str, str]], column: str) -> None:
    assert [int(r[column]) for r in rows] == [0] * WEEKS


def test_every_note_and_turn_is_read_by_exactly_one_run(rows: list[dict[str, str]]) -> None:
    assert [int(r["unread"]) for r in rows] == [0] * WEEKS
    assert [int(r["reread"]) for r in rows] == [0] * WEEKS
