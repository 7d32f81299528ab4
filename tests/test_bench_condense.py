"""The condensation benchmark runs both protocols end to end and prints its goals."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).parent.parent / "bench" / "bench_condense.py"


def load_bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_condense", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # its dataclasses look themselves up
    spec.loader.exec_module(module)
    return module


def table(out: str) -> dict[tuple[str, int], list[str]]:
    """The printed rows by (protocol, MEMORY.md entries): their cells."""
    rows: dict[tuple[str, int], list[str]] = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] in ("ops", "file") and cells[1].replace(",", "").isdigit():
            rows[cells[0], int(cells[1].replace(",", ""))] = cells
    return rows


def test_tiny_run_prints_both_protocols_and_the_goals(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_bench(monkeypatch)
    assert bench.main(["--memory-sizes", "20,40", "--weeks", "10"]) == 0
    out = capsys.readouterr().out
    assert "output tokens do not grow with MEMORY.md (same week, <= 1.1):" in out
    assert "10 notes" in out and "(40 vs 20 entries): yes" in out
    assert "average output tokens per change <= 40:" in out
    assert "no request above max_output_tokens (4,096):" in out
    assert "saved by ops, file/ops output tokens" in out
    assert " NO" not in out
    rows = table(out)
    assert set(rows) == {("ops", 20), ("ops", 40), ("file", 20), ("file", 40)}
    out_tokens = bench.COLUMNS.index(("out tokens", 10))
    small, large = (int(rows["ops", n][out_tokens].replace(",", "")) for n in (20, 40))
    assert 0 < large <= small * 1.1
    assert int(rows["file", 40][out_tokens].replace(",", "")) > large


def test_a_run_that_cannot_fit_says_why_in_its_row(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load_bench(monkeypatch)
    argv = ["--memory-sizes", "400", "--weeks", "10", "--protocols", "file"]
    assert bench.main([*argv, "--context", "4000", "--max-context", "4000"]) == 1
    out = capsys.readouterr().out
    assert "did not run:" in out
    assert "no ops run completed" in out
