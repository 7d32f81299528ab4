"""`trinho demo`: the week end to end through the installed command, its key outcomes, and
nothing left behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fake_model_server import FakeServer, Reply, openai_reply
from trinho import memory_md
from trinho.cli import main
from trinho.demo import STEPS, data_text, render_demo, run_demo, unaccounted
from trinho.workspace import open_workspace

TRINHO = Path(sys.executable).parent / "trinho"


def run_piped(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TRINHO_MODEL", "TRINHO_NOW")}
    env["TRINHO_HOME"] = str(home)
    return subprocess.run(
        [str(TRINHO), "demo", *args], env=env, capture_output=True, text=True, check=False
    )


@pytest.fixture(scope="module")
def week(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, Any], Path]:
    """The demo run twice through the installed command, piped: plain text, then --json."""
    home = tmp_path_factory.mktemp("home") / "never-made"
    text = run_piped(home=home)
    assert text.returncode == 0 and text.stderr == "", text.stderr
    summary = run_piped("--json", home=home)
    assert summary.returncode == 0 and summary.stderr == "", summary.stderr
    assert summary.stdout.count("\n") == 1
    assert not home.exists()  # the owner's real workspace is never touched
    return text.stdout, json.loads(summary.stdout), home


def test_piped_output_is_plain_and_says_the_model_is_scripted(
    week: tuple[str, dict[str, Any], Path],
) -> None:
    out, summary, _ = week
    assert "\x1b[" not in out
    for number in range(1, len(STEPS) + 1):
        assert f"\n{number}. " in "\n" + out
    assert "scripted model answering with recorded replies" in out
    assert summary["model"] == {"name": "scripted:recorded", "scripted": True}
    assert "it has been removed" in out and "trinho demo --keep DIR" in out
    assert summary["workspace"] is None and "trinho-demo-" not in out


def test_the_gate_applies_one_line_and_holds_others(week: tuple[str, dict[str, Any], Path]) -> None:
    out, summary, _ = week
    changes = summary["condensation"]["changes"]
    applied = {(c["class"], c["new"]) for c in changes if c["action"] == "auto"}
    assert ("added", "- 2026-11-27: Đám cưới anh Đức ngày 19/12 ở Huế; cần đặt vé tàu") in applied
    held = {c["class"]: c for c in changes if c["action"] == "held"}
    assert held["removed"]["old"] == "- 2026-11-10: Đang học tiếng Nhật, lớp tối thứ Ba"
    assert held["edited"]["new"] == "- 2026-11-24: Sống ở Đà Nẵng, quận Sơn Trà"
    assert all(c["proposal"] for c in held.values())
    verdicts = summary["condensation"]["screening"]["verdicts"]
    assert [v["decision"] for v in verdicts].count("reject") == 1
    assert "[HELD] removed" in out and "[auto] added" in out
    assert len(summary["notifications"]) == 1
    assert summary["announcement"].count("Weekly memory condensation 2026-W48") == 1


def test_the_owner_approves_the_edit_and_nothing_is_lost(
    week: tuple[str, dict[str, Any], Path],
) -> None:
    _, summary, _ = week
    by_id = {p["id"]: p for p in summary["proposals"]}
    approved = [d for d in summary["decisions"] if d["status"] == "approved"]
    assert [d["class"] for d in approved] == ["edited"]
    assert by_id[approved[0]["proposal"]]["status"] == "approved"
    after = summary["memory_after"]
    assert "- 2026-11-24: Sống ở Đà Nẵng, quận Sơn Trà" in after
    assert "Hà Nội" not in after
    # Every old entry or hand-written line is in the final file or in a held proposal.
    final = {item.key for item in memory_md.parse(after).items if isinstance(item, memory_md.Entry)}
    aside = {
        memory_md.parse(str(p["change"]["old"])).items[0].raw
        for p in summary["proposals"]
        if p["kind"] == "memory" and p["change"].get("old")
    }
    for item in memory_md.parse(summary["memory_before"]).items:
        if isinstance(item, memory_md.Entry):
            assert item.key in final or item.raw in aside, item.raw
        elif isinstance(item, memory_md.Loose) and not item.blank:
            assert item.raw in after.split("\n")
    assert summary["lost"] == []


def test_the_inference_and_the_jobs_proposal_wait(week: tuple[str, dict[str, Any], Path]) -> None:
    _, summary, _ = week
    facts = [p for p in summary["proposals"] if p["kind"] == "fact"]
    inferred = next(p for p in facts if p["change"]["key"] == "coffee")
    assert inferred["status"] == "pending" and inferred["origin"] == "agent:main"
    assert inferred["change"]["current_value"] == "cà phê sữa đá, ít đường"
    job = next(p for p in facts if p["origin"].startswith("job:"))
    assert job["status"] == "pending" and job["change"]["key"] == "next_trip"
    coffee = next(f for f in summary["facts"] if f["key"] == "coffee")
    assert [v["value"] for v in coffee["versions"]] == ["cà phê sữa đá, ít đường"]


def test_facts_history_search_and_the_next_turn(week: tuple[str, dict[str, Any], Path]) -> None:
    _, summary, _ = week
    home = next(f for f in summary["facts"] if f["key"] == "home_city")
    assert [(v["value"], v["valid_to"], v["current"]) for v in home["versions"]] == [
        ("Hà Nội", "2026-11-24", False),
        ("Đà Nẵng", None, True),
    ]
    hits = summary["search"]["hits"]
    assert {"memory", "note", "conversation", "fact"} <= {hit["kind"] for hit in hits}
    context = summary["context"]
    assert "home_city: Đà Nẵng" in context["system"]
    assert "Sống ở Đà Nẵng" in context["system"]
    assert "1:1 with Minh" in context["preamble"]


def test_runs_are_deterministic_and_speak_vietnamese(
    week: tuple[str, dict[str, Any], Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out, _, _ = week
    monkeypatch.delenv("TRINHO_MODEL", raising=False)
    assert main(["demo"]) == 0
    assert capsys.readouterr().out == out
    assert main(["demo", "--json", "--locale", "vi"]) == 0
    steps = json.loads(capsys.readouterr().out)["steps"]
    assert steps[0]["title"].startswith("1. Một không gian làm việc mới")
    assert any("chủ nhân: Nhà mình chuyển vào Đà Nẵng" in line for line in steps[2]["lines"])


def test_keep_leaves_a_workspace_to_explore(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TRINHO_MODEL", raising=False)
    kept = tmp_path / "week"
    assert main(["demo", "--keep", str(kept)]) == 0
    out = capsys.readouterr().out
    assert f"export TRINHO_HOME={kept}" in out
    ws = open_workspace(kept)
    assert "Sống ở Đà Nẵng" in ws.memory_file.read_text(encoding="utf-8")
    assert main(["--workspace", str(kept), "proposals", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 2
    before = sorted(p.relative_to(kept) for p in kept.rglob("*"))
    assert main(["demo", "--keep", str(kept)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("trinho: error: --keep ") and err.count("\n") == 1
    assert "not empty" in err
    assert sorted(p.relative_to(kept) for p in kept.rglob("*")) == before


def _commands(lines: list[str]) -> list[tuple[str, list[str]]]:
    """The `$ trinho ...` lines of a step, each with the lines printed under it."""
    shown: list[tuple[str, list[str]]] = []
    for line in lines:
        if line.startswith("$ "):
            shown.append((line, []))
        elif shown:
            shown[-1][1].append(line)
    return shown


@pytest.mark.parametrize("locale", ["en", "vi"])
def test_the_facts_step_prints_what_its_commands_print(
    locale: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each command the facts step names, run in the kept workspace, prints the very lines the
    demo showed under it."""
    monkeypatch.delenv("TRINHO_MODEL", raising=False)
    kept = tmp_path / "week"
    assert main(["demo", "--json", "--locale", locale, "--keep", str(kept)]) == 0
    steps = json.loads(capsys.readouterr().out)["steps"]
    facts_step = next(s for s in steps if "$ trinho proposals --all" in s["lines"])
    commands = _commands(facts_step["lines"])
    assert [c for c, _ in commands] == [
        "$ trinho fact history coffee",
        "$ trinho fact history employer",
        "$ trinho fact history home_city",
        "$ trinho proposals --all",
    ]
    for command, printed in commands:
        assert main(["--workspace", str(kept), *command.split()[2:]]) == 0
        assert capsys.readouterr().out == "\n".join(printed) + "\n", command
    assert len(commands[-1][1]) == 4  # two waiting, one approved, one rejected


def test_a_vietnamese_run_lists_proposals_in_vietnamese(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TRINHO_MODEL", raising=False)
    assert main(["demo", "--json", "--locale", "vi"]) == 0
    summary = json.loads(capsys.readouterr().out)
    steps = summary["steps"]
    listed = dict(_commands(steps[7]["lines"]))["$ trinho proposals --all"]
    assert steps[7]["title"].startswith("8. Các dữ kiện")
    text = "\n".join(listed)
    for english in ("pending", "approved", "rejected", "stale", "entry missing", "text changed"):
        assert english not in text
    assert text.count("[chờ duyệt]") == 2
    assert text.count("[đã duyệt]") == 1 and text.count("[đã từ chối]") == 1
    assert "mục bị xoá khỏi bản viết lại" in text
    # The gate's English reasons stay in the stored proposals, for --json readers.
    assert any("entry missing" in p["reason"] for p in summary["proposals"])
    # Step 6 does what its title says: approves the edit, rejects the removal, nothing else.
    assert [(d["class"], d["status"]) for d in summary["decisions"]] == [
        ("edited", "approved"),
        ("removed", "rejected"),
    ]
    assert "duyệt bản sửa, từ chối việc xoá" in steps[5]["title"]


def test_trinho_model_runs_the_week_with_that_model(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model that finds nothing at night and keeps MEMORY.md as it is: nothing proposed by
    the job, nothing held, nothing announced or decided."""
    unchanged = data_text("MEMORY.md")
    with FakeServer(Reply(openai_reply("Nothing lasting.")), Reply(openai_reply(unchanged))) as srv:
        monkeypatch.setenv("TRINHO_MODEL", "ollama:qwen3:8b")
        monkeypatch.setenv("OLLAMA_HOST", srv.url.removeprefix("http://"))
        assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "model: ollama:qwen3:8b (from TRINHO_MODEL)" in out
    assert "recorded replies" not in out
    assert [seen.body["model"] for seen in srv.requests] == ["qwen3:8b"] * 2
    assert "Anh Đức báo đám cưới" in json.dumps(srv.requests[0].body, ensure_ascii=False)
    assert "0 tool calls (0 failed), 0 new proposals" in out
    assert "Nothing was held, so nothing was announced." in out
    assert "nothing lost" in out


def test_steps_can_be_chosen() -> None:
    run = run_demo("en", [STEPS[0], STEPS[1]])
    assert [s.title[:3] for s in run.steps] == ["1. ", "2. "]
    assert "- 2026-10-04: Sống ở Hà Nội, quận Ba Đình" in render_demo(run)


ENTRY = st.builds(
    "- 2026-11-{:02d}: {}".format,
    st.integers(1, 28),
    st.text(st.sampled_from("abcđêHà Nội "), min_size=1, max_size=12).filter(str.strip),
)


@given(st.lists(ENTRY, max_size=8), st.data())
def test_unaccounted_names_exactly_the_lines_gone(lines: list[str], data: st.DataObject) -> None:
    before = "\n".join(lines) + "\n"
    kept = data.draw(st.lists(st.sampled_from(lines), unique=True) if lines else st.just([]))
    aside = [line for line in lines if line not in kept and data.draw(st.booleans())]
    missing = unaccounted(before, "\n".join(kept) + "\n", aside)
    expected = {
        memory_md.parse(line).entries[0].key
        for line in lines
        if line not in kept and line not in aside
    }
    present = {memory_md.parse(line).entries[0].key for line in [*kept, *aside]}
    assert {memory_md.parse(line).entries[0].key for line in missing} == expected - present
