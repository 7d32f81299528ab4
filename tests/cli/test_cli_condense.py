"""`trinho condense` end to end: the CLI, the OpenAI-compatible adapter, a local fake server; on
the file workspace and on a PostgreSQL owner alike (`cli_backend`): the same commands give the
same answers; on the database they run on a working copy of the owner's records, checked in
when they end."""

from __future__ import annotations

import json
from typing import Any

import pytest

from support.backends import CliBackend
from support.condense_weeks import VI_MEMORY
from support.fake_model_server import FakeServer, Reply, openai_reply
from trinho.channels.base import Notification
from trinho.channels.render import console_text
from trinho.cli import main
from trinho.proposals import store as proposals
from trinho.textnorm import shown_id
from trinho.workspace import open_workspace

ADDED = "- 2026-11-29: Mai được chọn vào đội bơi của trường"
DROPPED = "- 2026-09-14: Dị ứng tôm"
REMOVED_EN = "the weekly update leaves this entry out; it stays until you approve its removal"
REMOVED_VI = "bản cập nhật hằng tuần bỏ mục này: vẫn giữ, chờ bạn duyệt việc xoá"


@pytest.fixture
def ready(
    cli_backend: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> CliBackend:
    for var in ("OLLAMA_HOST", "OPENAI_API_KEY", "OPENAI_BASE_URL", "TRINHO_MODEL"):
        monkeypatch.delenv(var, raising=False)
    config = cli_backend.home / ".trinho" / "config.toml"
    config.write_text(config.read_text().replace('locale = "en"', 'locale = "vi"'))
    assert main(["note", "Mai được chọn vào đội bơi của trường"]) == 0
    # a run reads what was written before its minute: the next commands run a minute later
    monkeypatch.setenv("TRINHO_NOW", "2026-11-29T14:06:00+07:00")
    cli_backend.write("MEMORY.md", VI_MEMORY)
    capsys.readouterr()
    return cli_backend


def whole_file_protocol(backend: CliBackend) -> None:
    """`[condense] protocol = "file"`: the model is asked for the whole MEMORY.md."""
    config = backend.home / ".trinho" / "config.toml"
    config.write_text(config.read_text() + '\n[condense]\nprotocol = "file"\n')


def serve(monkeypatch: pytest.MonkeyPatch, *answers: str) -> FakeServer:
    server = FakeServer(*(Reply(openai_reply(a, prompt=300, completion=40)) for a in answers))
    monkeypatch.setenv("TRINHO_MODEL", "ollama:qwen3:8b")
    return server


def js(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    """A command's one JSON document, the command having succeeded."""
    code = main([*args, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def outbox(backend: CliBackend) -> list[dict[str, Any]]:
    """The owner's outbox, oldest first."""
    with backend.view() as root:
        paths = sorted((root / ".trinho" / "outbox").glob("*.json"))
        return [json.loads(path.read_text(encoding="utf-8")) for path in paths]


def announced(backend: CliBackend, err: str) -> str:
    """What the run's announcement reads on the console: on the files, printed on stderr; a
    command on a working copy holds it in the owner's outbox for the deployment's channel
    (`HeldChannel`), where it waits, tried once, and reads the same when sent to a console."""
    if backend.kind == "files":
        return err
    [entry] = outbox(backend)
    assert entry["status"] == "pending" and entry["attempts"] == 1
    return console_text(Notification.from_json(entry["notification"], "outbox"), "vi")


def test_condense_json_then_once_per_week_then_approve_then_undo(
    ready: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rewrite = VI_MEMORY.replace(DROPPED + "\n", "") + ADDED + "\n"
    with serve(monkeypatch, rewrite, "1. NHẬN") as srv:
        monkeypatch.setenv("OLLAMA_HOST", srv.url)
        assert main(["condense", "--json"]) == 0
        captured = capsys.readouterr()
        data = json.loads(captured.out)  # one JSON document on stdout
        assert len(srv.posts) == 2
        assert srv.posts[0].body["messages"][0]["content"].startswith("You maintain MEMORY.md")
        # the owner's locale: Vietnamese headings in the prompt
        assert "## MEMORY.md hiện tại" in srv.posts[0].body["messages"][0]["content"]
    assert data["run_id"] == "2026-W48" and data["outcome"] == "done"
    assert data["counts"]["auto"] == 1 and data["counts"]["held"] == 1
    assert data["model"] == {
        "calls": 2,
        "input_tokens": 600,
        "output_tokens": 80,
        "by_purpose": [
            {"purpose": "rewrite", "calls": 1, "input_tokens": 300, "output_tokens": 40},
            {"purpose": "screen", "calls": 1, "input_tokens": 300, "output_tokens": 40},
        ],
    }
    assert data["screening"]["verdicts"][0]["decision"] == "accept"
    [removed] = [c for c in data["changes"] if c["action"] == "held"]
    assert removed["class"] == "removed" and removed["old"] == DROPPED
    # JSON keeps the English reason whatever the locale, with its code for other renderings
    assert removed["reason"] == REMOVED_EN
    assert (removed["reason_code"], removed["reason_params"]) == ("removed_entry", {})
    announcement = announced(ready, captured.err)
    assert "Cập nhật trí nhớ hằng tuần, ngày 2026-11-29" in announcement
    assert f"Lý do: {REMOVED_VI}" in announcement and REMOVED_EN not in announcement
    memory = ready.read("MEMORY.md")
    assert ADDED in memory and DROPPED in memory

    assert main(["condense"]) == 0
    assert "đã được cô đọng" in capsys.readouterr().out
    assert js(capsys, "usage")["calls"] == 2
    assert [p["id"] for p in js(capsys, "proposals")] == [removed["proposal"]]

    assert main(["approve", removed["proposal"]]) == 0
    capsys.readouterr()
    assert DROPPED not in ready.read("MEMORY.md")

    assert js(capsys, "condense", "--undo", "2026-W48", "--dry-run")["run_id"] == "2026-W48"
    assert main(["condense", "--undo", "2026-W48", "--dry-run"]) == 0  # says it all first
    preview = capsys.readouterr().out.splitlines()
    assert preview[0].startswith("Hoàn tác lần chạy 2026-W48 đưa MEMORY.md trở lại")
    said = [
        "Thay đổi lần chạy tự áp dụng, được hoàn tác (1):",
        f"  - thêm: {ADDED}",
        'Thay đổi bạn đã duyệt, được hoàn tác (1; đề xuất giờ ghi "đã hoàn tác"):',
        f"  - {shown_id(removed['proposal'])}: xoá: {DROPPED}",
    ]
    assert preview[1:] == said
    assert DROPPED not in ready.read("MEMORY.md")  # nothing written

    assert main(["condense", "--undo", "2026-W48"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Đã hoàn tác 2026-W48") and "đã thay đổi sau lần chạy" in out
    assert out.splitlines()[2:] == said
    assert ready.read("MEMORY.md") == VI_MEMORY
    assert main(["proposals", "--json", "--all"]) == 0
    [decided] = json.loads(capsys.readouterr().out)
    assert decided["id"] == removed["proposal"]
    assert (decided["status"], decided["decided_by"]) == ("reverted", "owner (cli)")
    assert decided["reverted_by"] == "trinho condense --undo 2026-W48"


def test_a_rewrite_held_whole_is_approved_with_its_run(
    ready: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    refusal = "Xin lỗi, tôi không làm được."
    whole_file_protocol(ready)
    with serve(monkeypatch, refusal) as srv:
        monkeypatch.setenv("OLLAMA_HOST", srv.url)
        data = js(capsys, "condense")
    [held] = [c for c in data["changes"] if c["action"] == "held"]
    assert held["class"] == "suspicious" and ready.read("MEMORY.md") == VI_MEMORY
    assert js(capsys, "approve", held["proposal"])["status"] == "approved"
    assert ready.read("MEMORY.md").startswith(refusal)


def test_condense_human_report_lists_every_change(
    ready: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    whole_file_protocol(ready)
    with serve(monkeypatch, "Xin lỗi, tôi không làm được.") as srv:
        monkeypatch.setenv("OLLAMA_HOST", srv.url)
        assert main(["condense", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Cô đọng 2026-W48 (2026-11-23 đến 2026-11-29), chạy thử: không ghi gì")
    assert "[CHỜ DUYỆT] thay đổi cả trí nhớ cùng lúc" in out
    assert "Lời nhắc: rewrite.v1, screen.v1" in out
    assert "  2026-11-29: 1 ghi chú, 0 lượt hội thoại" in out
    assert ready.read("MEMORY.md") == VI_MEMORY
    assert not ready.exists(".trinho/runs/2026-W48")


def test_a_suspicious_rewrite_shows_the_lines_it_would_remove_and_its_reason_once(
    ready: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    refusal = "Xin lỗi, tôi không làm được."
    whole_file_protocol(ready)
    with serve(monkeypatch, refusal) as srv:
        monkeypatch.setenv("OLLAMA_HOST", srv.url)
        assert main(["condense"]) == 0
    said = announced(ready, capsys.readouterr().err)
    removed = [
        "Cũ: sẽ xoá 7 trong số 7 dòng:",
        "  Dòng viết tay: đừng xoá những dòng này.",
        "  - 2026-03-02: Mẹ thích hoa sen trắng; sinh nhật mẹ là ngày 12/3",
        "  - 2026-05-10: Con gái tên Mai, học lớp ba",
        "  - 2026-06-01: Làm việc tại công ty hậu cần ở Đà Nẵng",
        "  - 2026-09-14: Dị ứng tôm",
        "  … và 2 dòng nữa",
        "Mới: sẽ thêm 1 dòng:",
        f"  {refusal}",
    ]
    assert "\n".join(removed) in said
    assert "(không có)" not in said

    assert main(["proposals"]) == 0
    listed = capsys.readouterr().out.splitlines()
    reason = (
        "bản cập nhật hằng tuần sẽ xoá 7 trong số 7 dòng; cả bản chờ bạn duyệt, chưa áp dụng gì"
    )
    assert listed[0].endswith(" [chờ duyệt] Xoá: thay đổi cả trí nhớ cùng lúc")
    assert listed[1] == f"  lý do: {reason}" and "\n".join(listed).count(reason) == 1
    assert listed[2].startswith("  do lần cô đọng hằng tuần đề xuất, ")
    assert listed[3] == "  từ: không có ghi chú hay cuộc trò chuyện nào dẫn đến thay đổi này"
    assert listed[4:] == [
        "    " + line.removeprefix("Cũ: ").removeprefix("Mới: ") for line in removed
    ]


def test_undo_withdraws_the_held_rewrite_and_approving_it_is_refused_in_one_line(
    ready: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    before = ready.read("MEMORY.md")
    whole_file_protocol(ready)
    with serve(monkeypatch, "Xin lỗi, tôi không làm được.") as srv:
        monkeypatch.setenv("OLLAMA_HOST", srv.url)
        assert main(["condense"]) == 0
    capsys.readouterr()
    with ready.view() as root:
        [held] = proposals.list_proposals(open_workspace(root)).proposals
    assert held.change["class"] == "suspicious" and held.status == "pending"

    assert main(["condense", "--undo", "2026-W48"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1:] == [
        f"Thay đổi đang chờ của lần chạy, bị rút lại (1): {shown_id(held.id)}",
        "Lần chạy chưa thay đổi MEMORY.md; không có gì khác thay đổi.",
    ]
    assert main(["approve", held.id]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"trinho: error: đề xuất {shown_id(held.id)} đã được quyết định rồi")
    assert "trinho condense --undo 2026-W48" in err
    assert ready.read("MEMORY.md") == before
    assert main(["proposals", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_a_run_that_writes_the_first_memory_md_says_so_and_its_undo_removes_it(
    ready: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with ready.view() as root:
        (root / "MEMORY.md").unlink()
    with serve(monkeypatch, ADDED + "\n", "1. NHẬN") as srv:
        monkeypatch.setenv("OLLAMA_HOST", srv.url)
        assert main(["condense"]) == 0
    out = capsys.readouterr().out
    assert "Trước lần chạy này chưa có MEMORY.md: trinho condense --undo 2026-W48 sẽ xoá nó" in out
    assert "được giữ tại" not in out
    folder = ".trinho/runs/2026-W48"
    assert not ready.exists(f"{folder}/MEMORY.before.md")
    report = json.loads(ready.read(f"{folder}/report.json"))
    assert (report["written"], report["before"]) == (True, None)
    assert ready.read("MEMORY.md") == ADDED + "\n"

    assert main(["condense", "--undo", "2026-W48", "--json"]) == 0
    undone = json.loads(capsys.readouterr().out)
    [auto] = undone.pop("reverted_auto")
    assert (auto["class"], auto["new"]) == ("added", ADDED)
    assert undone == {
        "run_id": "2026-W48",
        "restored_from": None,
        "kept_current": ".trinho/runs/2026-W48/MEMORY.undone.md",
        "changed_since": False,
        "withdrawn": [],
        "reverted_approved": [],
        "kept_promoted": [],
        "removed_since": [],
        "unarchived": [],
    }
    assert not ready.exists("MEMORY.md")
    assert ready.read(f"{folder}/MEMORY.undone.md") == ADDED + "\n"

    assert main(["condense", "--undo", "2026-W48"]) == 0  # nothing left to remove
    assert "giờ cũng không có; không đổi gì" in capsys.readouterr().out
    with ready.view() as root:
        assert not (root / "MEMORY.md").exists()
        assert sorted(p.name for p in (root / folder).glob("MEMORY.*")) == ["MEMORY.undone.md"]


def test_condense_errors_are_one_line(
    ready: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["condense"]) == 1
    err = capsys.readouterr().err
    # the workspace speaks Vietnamese, so do its errors
    assert err.startswith("trinho: error: chưa cấu hình mô hình") and err.count("\n") == 1
    assert not ready.exists(".trinho/runs/2026-W48")  # nothing written
    assert main(["condense", "--undo", "2026-W48"]) == 1
    assert "không có lần cô đọng '2026-W48'" in capsys.readouterr().err
    assert main(["condense", "--undo", "../../etc"]) == 1
    assert "mã lần chạy '../../etc' không hợp lệ" in capsys.readouterr().err
    assert main(["condense", "--undo", "2026-W48", "--force"]) == 1
    assert "--undo không dùng chung được với --force" in capsys.readouterr().err


def test_condense_model_unreachable_fails_clearly(
    ready: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = ready.home / ".trinho" / "config.toml"
    config.write_text(config.read_text() + "\n[model]\nattempts = 1\n")
    monkeypatch.setenv("TRINHO_MODEL", "ollama:qwen3:8b")
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    assert main(["condense"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("trinho: error: mô hình ollama:qwen3:8b: không kết nối được")
    assert ready.read("MEMORY.md") == VI_MEMORY


def test_proposals_lists_held_memory_changes_readably(
    ready: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with serve(monkeypatch, VI_MEMORY.replace(DROPPED + "\n", "")) as srv:
        monkeypatch.setenv("OLLAMA_HOST", srv.url)
        assert main(["condense"]) == 0
    capsys.readouterr()
    assert main(["proposals"]) == 0
    out = capsys.readouterr().out
    assert f"[chờ duyệt] Xoá: {DROPPED}" in out and "do lần cô đọng hằng tuần đề xuất" in out
    assert f"  lý do: {REMOVED_VI}\n" in out
    assert main(["proposals", "--json"]) == 0
    [stored] = json.loads(capsys.readouterr().out)
    assert stored["reason"] == REMOVED_EN and stored["change"]["reason_code"] == "removed_entry"

    # the owner switches to English: the same proposal now reads in English
    config = ready.home / ".trinho" / "config.toml"
    config.write_text(config.read_text(encoding="utf-8").replace('locale = "vi"', 'locale = "en"'))
    assert main(["proposals"]) == 0
    out = capsys.readouterr().out
    assert f"[pending] Removes: {DROPPED}" in out and f"  why: {REMOVED_EN}\n" in out


def test_condense_human_report_and_announcement_give_reasons_in_vietnamese(
    ready: CliBackend, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = "- 2026-10-02: Mai bắt đầu học bơi"
    rewrite = VI_MEMORY.replace(DROPPED + "\n", "") + outside + "\n"
    with serve(monkeypatch, rewrite, "1. NHẬN") as srv:
        monkeypatch.setenv("OLLAMA_HOST", srv.url)
        assert main(["condense"]) == 0
    captured = capsys.readouterr()
    out, err = captured.out, captured.err
    assert "[CHỜ DUYỆT] xoá [" in out and f"]: {REMOVED_VI}\n    - {DROPPED}" in out
    why = "ngày 2026-10-02 nằm ngoài tuần này (2026-11-23 đến 2026-11-29)"
    assert f"]: {why}\n    + {outside}" in out
    said = announced(ready, err)
    assert f"Lý do: {REMOVED_VI}" in said and f"Lý do: {why}" in said
    for english in ("missing from the rewrite", "outside the window", "Reason:"):
        assert english not in out + said

    # the line goes away by hand: approving is refused, and says why in Vietnamese
    ready.write("MEMORY.md", ready.read("MEMORY.md").replace(DROPPED + "\n", ""))
    assert main(["proposals", "--json"]) == 0
    ids = {p["change"]["reason_code"]: p["id"] for p in json.loads(capsys.readouterr().out)}
    assert main(["approve", ids["removed_entry"]]) == 0
    assert capsys.readouterr().out == (
        f"Đề xuất {ids['removed_entry'][:6]} đã lỗi thời: Không áp dụng: "
        f"dòng này không còn trong trí nhớ dài hạn: {DROPPED}\n"
    )


def test_proposals_from_before_reason_codes_show_their_stored_reason(
    ready: CliBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    change = {
        "class": "removed",
        "action": "held",
        "old": DROPPED,
        "new": None,
        "reason": REMOVED_EN,
        "after": None,
        "snapshot": None,
        "rewrite": None,
        "similarity": None,
    }
    with ready.view() as root:
        ws = open_workspace(root)
        proposals.submit(ws, "memory", change, reason=REMOVED_EN, origin="condense:2026-W40")
    assert main(["proposals"]) == 0
    out = capsys.readouterr().out
    assert f"Xoá: {DROPPED}" in out and f"  lý do: {REMOVED_EN}\n" in out
