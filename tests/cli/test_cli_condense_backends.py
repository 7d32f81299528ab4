"""`trinho condense`, `jobs`, `usage`, `get` and `import conversations` on the file workspace
and on a PostgreSQL owner alike (`cli_backend`): the same commands give the same answers; on
the database they run on a working copy of the owner's records, checked in when they end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from condense_weeks import VI_MEMORY
from fake_model_server import FakeServer, Reply, openai_reply
from pg.fixtures import CliBackend
from trinho.cli import main

if TYPE_CHECKING:
    from trinho.pg.connect import Database

ADDED = "- 2026-11-29: Mai được chọn vào đội bơi của trường"
DROPPED = "- 2026-09-14: Dị ứng tôm"


def js(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    code = main([*args, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def memory_text(backend: CliBackend, request: pytest.FixtureRequest) -> str:
    if backend.owner is None:
        return (backend.home / "MEMORY.md").read_text(encoding="utf-8")
    from trinho.pg.store import PgRecords

    db: Database = request.getfixturevalue("pg_admin")
    return PgRecords(db, backend.owner, clock=lambda: None, timezone="UTC").memory_text()  # type: ignore[arg-type, return-value]


@pytest.fixture
def ready(
    cli_backend: CliBackend,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> CliBackend:
    for var in ("OLLAMA_HOST", "OPENAI_API_KEY", "OPENAI_BASE_URL", "TRINHO_MODEL"):
        monkeypatch.delenv(var, raising=False)
    config = cli_backend.home / ".trinho" / "config.toml"
    config.write_text(config.read_text().replace('locale = "en"', 'locale = "vi"'))
    assert main(["note", "Mai được chọn vào đội bơi của trường"]) == 0
    monkeypatch.setenv("TRINHO_NOW", "2026-11-29T14:06:00+07:00")
    cli_backend.write("MEMORY.md", VI_MEMORY)
    capsys.readouterr()
    return cli_backend


def test_a_condensation_approved_and_undone_reads_the_same_on_both_backends(
    ready: CliBackend,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rewrite = VI_MEMORY.replace(DROPPED + "\n", "") + ADDED + "\n"
    answers = (rewrite, "1. NHẬN")
    with FakeServer(*(Reply(openai_reply(a, prompt=300, completion=40)) for a in answers)) as srv:
        monkeypatch.setenv("TRINHO_MODEL", "ollama:qwen3:8b")
        monkeypatch.setenv("OLLAMA_HOST", srv.url)
        data = js(capsys, "condense")
    assert (data["run_id"], data["outcome"]) == ("2026-W48", "done")
    assert data["counts"]["auto"] == 1 and data["counts"]["held"] == 1
    [removed] = [c for c in data["changes"] if c["action"] == "held"]
    memory = memory_text(ready, request)
    assert ADDED in memory and DROPPED in memory
    assert js(capsys, "condense")["outcome"] == "already_done"
    assert js(capsys, "usage")["calls"] == 2
    waiting = js(capsys, "proposals")
    assert [p["id"] for p in waiting] == [removed["proposal"]]
    if ready.owner is not None:  # the announcement waits in the owner's outbox
        entry = json.loads(_exported(ready, request, ".trinho/outbox")[0])
        assert entry["status"] == "pending" and entry["attempts"] == 1

    assert main(["approve", removed["proposal"]]) == 0
    capsys.readouterr()
    assert DROPPED not in memory_text(ready, request)
    preview = js(capsys, "condense", "--undo", "2026-W48", "--dry-run")
    assert preview["run_id"] == "2026-W48"
    assert DROPPED not in memory_text(ready, request)  # a preview writes nothing
    undone = js(capsys, "condense", "--undo", "2026-W48")
    assert undone["run_id"] == "2026-W48"
    assert memory_text(ready, request) == VI_MEMORY
    [decided] = js(capsys, "proposals", "--all")
    assert (decided["status"], decided["decided_by"]) == ("reverted", "owner (cli)")
    assert decided["reverted_by"] == "trinho condense --undo 2026-W48"


def _exported(backend: CliBackend, request: pytest.FixtureRequest, folder: str) -> list[str]:
    from trinho.pg.transfer import export_owner

    db: Database = request.getfixturevalue("pg_admin")
    out = Path(request.getfixturevalue("tmp_path")) / "exported"
    assert backend.owner is not None
    export_owner(db, backend.owner, out)
    return [p.read_text(encoding="utf-8") for p in sorted((out / folder).glob("*.json"))]


def test_jobs_list_get_and_an_import_of_conversations_on_both_backends(
    cli_backend: CliBackend, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    names = [job["name"] for job in js(capsys, "jobs", "list")["jobs"]]
    assert "condense" in names
    turns = tmp_path / "turns.jsonl"
    lines = [
        {"at": "2026-11-28T09:00:00+07:00", "role": "user", "text": "Đặt lịch nha sĩ thứ Năm"},
        {"at": "2026-11-28T09:00:05+07:00", "role": "assistant", "text": "Đã đặt."},
    ]
    turns.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))
    first = js(capsys, "import", "conversations", str(turns))
    again = js(capsys, "import", "conversations", str(turns))
    assert first["imported"] == 2 and again["imported"] == 0
    got = js(capsys, "get", "conversations/2026-11-28.jsonl")
    assert "Đặt lịch nha sĩ thứ Năm" in got["text"]
    hits = js(capsys, "search", "nha sĩ")
    assert any(h["path"] == "conversations/2026-11-28.jsonl" for h in hits)


def test_a_rewrite_held_whole_is_approved_with_its_run_on_both_backends(
    ready: CliBackend,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = ready.home / ".trinho" / "config.toml"
    config.write_text(config.read_text() + '\n[condense]\nprotocol = "file"\n')
    refusal = "Xin lỗi, tôi không làm được."
    with FakeServer(Reply(openai_reply(refusal, prompt=300, completion=40))) as srv:
        monkeypatch.setenv("TRINHO_MODEL", "ollama:qwen3:8b")
        monkeypatch.setenv("OLLAMA_HOST", srv.url)
        data = js(capsys, "condense")
    [held] = [c for c in data["changes"] if c["action"] == "held"]
    assert held["class"] == "suspicious" and memory_text(ready, request) == VI_MEMORY
    decided = js(capsys, "approve", held["proposal"])
    assert decided["status"] == "approved"
    assert memory_text(ready, request).startswith(refusal)
