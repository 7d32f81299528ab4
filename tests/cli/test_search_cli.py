"""`trinho search`, `get` and `index` on the file workspace and on a PostgreSQL owner alike
(`cli_backend`): plain searches, batches, --explain, get and index."""

import json
from pathlib import Path

import pytest

from support.backends import CliBackend
from trinho.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _two_notes(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "note", "Chuyến đi Hà Nội với mẹ")[0] == 0
    assert run(capsys, "note", "Painted the fence blue")[0] == 0


@pytest.fixture
def either(cli_backend: CliBackend, capsys: pytest.CaptureFixture[str]) -> CliBackend:
    """Two notes saved today, on each backend in turn."""
    _two_notes(capsys)
    return cli_backend


def test_search_json_lists_hits(either: CliBackend, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "search", "ha noi", "--json")
    assert code == 0
    hits = json.loads(out)
    assert [h["text"] for h in hits] == ["Chuyến đi Hà Nội với mẹ"]
    assert hits[0]["kind"] == "note" and hits[0]["date"] == "2026-11-29"


def test_search_human_output_and_no_match(
    either: CliBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "search", "painting", "--kind", "note", "--limit", "1")
    assert code == 0 and "memory/2026-11-29.md:2" in out and "Painted" in out
    code, out, _ = run(capsys, "search", "zebra")
    assert code == 0 and out.strip() == "No matches"


def test_empty_query_exits_1_with_one_line(
    either: CliBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "search", "  ")
    assert code == 1 and out == ""
    assert err.startswith("trinho: error: empty query") and err.count("\n") == 1


def test_bad_dates_are_named(either: CliBackend, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "search", "fence", "--since", "2026-13-01")
    assert code == 1 and "--since" in err


def test_days_and_kinds_choose_among_the_hits(
    either: CliBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    def texts(*args: str) -> list[str]:
        code, out, err = run(capsys, "search", *args, "--json")
        assert code == 0, err
        return [hit["text"] for hit in json.loads(out)]

    assert run(capsys, "fact", "set", "fence-colour", "blue fence")[0] == 0
    assert set(texts("fence")) >= {"Painted the fence blue"}
    assert texts("fence", "--kind", "note") == ["Painted the fence blue"]
    assert texts("fence", "--since", "2026-11-29", "--until", "2026-11-29", "--kind", "note") == [
        "Painted the fence blue"
    ]
    assert texts("fence", "--until", "2026-11-28") == []
    assert texts("fence", "--since", "2026-11-30") == []


def test_batch_prints_one_json_list_per_line_in_order(
    either: CliBackend, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    batch = tmp_path / "q.jsonl"
    lines = [
        {"query": "fence"},
        {"query": "zebra"},
        {"query": "Hà Nội", "limit": 1, "kind": "note", "since": "2026-11-01"},
        {"query": "fence", "until": "2026-11-01"},
    ]
    batch.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n")
    code, out, _ = run(capsys, "search", "--batch", str(batch), "--json")
    assert code == 0
    results = [json.loads(line) for line in out.splitlines()]
    assert len(results) == 4
    assert [len(r) for r in results] == [1, 0, 1, 0]
    assert results[0][0]["text"] == "Painted the fence blue"
    assert set(results[2][0]) == {"kind", "path", "line", "date", "text", "score", "refs"}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{bad", "not valid JSON"),
        ('{"q": "x"}', "unknown field"),
        ('{"query": "x", "limit": 0}', "limit"),
    ],
)
def test_batch_errors_name_the_line(
    either: CliBackend, tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, message: str
) -> None:
    batch = tmp_path / "q.jsonl"
    batch.write_text('{"query": "fence"}\n' + line + "\n")
    code, out, err = run(capsys, "search", "--batch", str(batch))
    assert code == 1 and out == ""
    assert f"{batch}:2" in err and message in err


def test_get_prints_lines_and_refuses_outside(
    either: CliBackend, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "get", "memory/2026-11-29.md:2")
    assert code == 0 and out.strip().endswith("Painted the fence blue")
    code, out, _ = run(capsys, "get", "memory/2026-11-29.md:1-2", "--json")
    data = json.loads(out)
    assert (data["start"], data["end"], data["total"]) == (1, 2, 2)
    (tmp_path / "secret").write_text("x")
    for bad in ("../secret", str(tmp_path / "secret"), ".trinho/../../secret"):
        code, out, err = run(capsys, "get", bad)
        assert code == 1 and out == "" and err.startswith("trinho: error:")


def test_index_rebuild_and_refresh(either: CliBackend, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "index", "--rebuild", "--json")
    assert code == 0 and json.loads(out) == {
        "rebuilt": True,
        "changed": None,
        "documents": 2,
        "embedded": 0,
    }
    either.write("MEMORY.md", "- 2026-11-01: likes tea\n")
    code, out, _ = run(capsys, "index", "--json")
    # the file index notices the hand edit at the refresh; the database's index is kept by
    # each write, the check-in of the edit included, so nothing is stale there (docs/cli.md)
    changed = 1 if either.kind == "files" else 0
    assert json.loads(out) == {"rebuilt": False, "changed": changed, "documents": 3, "embedded": 0}


def test_explain_says_why_each_hit_ranks(
    either: CliBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "search", "fence", "--explain")
    assert code == 0
    assert "Painted the fence blue" in out and "why: lexical rank" in out
    code, out, _ = run(capsys, "search", "fence", "--explain", "--json")
    data = json.loads(out)
    assert data["entities"] == [] and data["hits"][0]["text"] == "Painted the fence blue"
    assert isinstance(data["hits"][0]["why"], list)
    code, out, _ = run(capsys, "search", "fence", "--json")
    assert "why" not in json.loads(out)[0]  # the plain shape is unchanged


def test_the_progress_rate_is_entries_per_second() -> None:
    from trinho.cli.commands.search import rate_text

    assert rate_text(50, started=10.0, now=20.0) == "5.0"
    assert rate_text(0, started=10.0, now=10.0) == "-"
