"""`trinho demo`: the week end to end through the installed command, its key outcomes, and
nothing left behind; the same week played by a model served over HTTP, each step saying what
that model did."""

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

from conftest import snapshot
from support.fake_model_server import FakeServer, Reply, openai_reply
from trinho.cli import main
from trinho.demo.run import STEPS, data_text, load_week, render_demo, run_demo, unaccounted
from trinho.memory import format as memory_md
from trinho.workspace import init_workspace, open_workspace

TRINHO = Path(sys.executable).parent / "trinho"


@pytest.fixture(autouse=True)
def no_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No model configured: neither TRINHO_MODEL nor an owner's workspace with `[model] name`
    (the demo reads the config of the workspace the CLI would open)."""
    monkeypatch.setenv("TRINHO_HOME", str(tmp_path / "no-workspace"))


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
    assert summary["model"] == {"name": "scripted:recorded", "scripted": True, "source": None}
    assert summary["played_by"] == {
        "before": "recorded",
        "chat": "scripted:recorded",
        "job": "scripted:recorded",
        "condensation": "scripted:recorded",
    }
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
    assert summary["announcement"].count("Weekly memory update, 2026-11-29") == 1


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
    decide = summary["steps"][5]["lines"]
    assert decide[-1] == "Nothing from this run waits for a decision any more."
    assert summary["waiting"] == []


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
) -> None:
    out, _, _ = week
    assert main(["demo"]) == 0
    assert capsys.readouterr().out == out
    assert main(["demo", "--json", "--locale", "vi"]) == 0
    steps = json.loads(capsys.readouterr().out)["steps"]
    assert steps[0]["title"].startswith("1. Một không gian làm việc mới")
    assert any("chủ nhân: Nhà mình chuyển vào Đà Nẵng" in line for line in steps[2]["lines"])


def test_keep_leaves_a_workspace_to_explore(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
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
) -> None:
    """Each command the facts step names, run in the kept workspace, prints the very lines the
    demo showed under it."""
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
    heads = [line for line in commands[-1][1] if line and not line.startswith(" ")]
    assert len(heads) == 4  # two waiting, one approved, one rejected: a short block each
    assert max(len(line) for line in commands[-1][1]) <= 100


def test_a_vietnamese_run_lists_proposals_in_vietnamese(
    capsys: pytest.CaptureFixture[str],
) -> None:
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
    assert "bản cập nhật hằng tuần bỏ mục này" in text
    # The gate's English reasons stay in the stored proposals, for --json readers.
    assert any("leaves this entry out" in p["reason"] for p in summary["proposals"])
    # Step 6 does what its title says: approves the edit, rejects the removal, nothing else.
    assert [(d["class"], d["status"]) for d in summary["decisions"]] == [
        ("edited", "approved"),
        ("removed", "rejected"),
    ]
    assert "duyệt bản sửa, từ chối việc xoá" in steps[5]["title"]
    assert steps[5]["lines"][-1] == "Không còn gì của lần chạy này chờ quyết định."
    assert summary["waiting"] == []


def _said(text: str | None = None, calls: tuple[tuple[str, dict[str, Any]], ...] = ()) -> Reply:
    """One chat-completions answer: words, or tool calls."""
    shaped = [
        {
            "id": f"c{n}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        }
        for n, (name, args) in enumerate(calls, 1)
    ]
    return Reply(openai_reply(text, shaped or None))


RECORDED_REPLIES = [e["reply"] for e in load_week()["events"] if "reply" in e]
RECORDED_NOTES = [
    c["args"]["text"]
    for e in load_week()["events"]
    for c in e["calls"]
    if c["tool"] == "memory_save"
]
WORDS = [
    "(model) reply 1",
    "(model) reply 2",
    "(model) reply 3",
    "(model) reply 4",
    "(model) reply 5",
    "(model) reply 7",
]
NOTE = "Mẹ đi nha sĩ thứ Sáu, 9 giờ"


def test_a_configured_model_plays_the_chat_and_every_step_says_what_it_did(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """TRINHO_MODEL's model answers the owner: one tool call that works, then two odd ones
    (an unknown tool, a fact without its basis), then words only; at night it finds nothing and
    on Sunday it keeps MEMORY.md as it is. What the demo shows and records is that, not the
    recorded week."""
    replies = [
        _said(calls=(("memory_save", {"text": NOTE}),)),
        _said(WORDS[0]),
        _said(
            calls=(
                ("remember", {"x": 1}),
                ("user_memory_save", {"key": "home_city", "value": "Đà Nẵng"}),
            )
        ),
        _said(WORDS[1]),
        *[_said(words) for words in WORDS[2:5]],
        _said("Nothing lasting."),
        _said(WORDS[5]),
        _said(data_text("MEMORY.md")),
    ]
    with FakeServer(*replies) as srv:
        monkeypatch.setenv("TRINHO_MODEL", "ollama:qwen3:8b")
        monkeypatch.setenv("OLLAMA_HOST", srv.url.removeprefix("http://"))
        assert main(["demo", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    steps = [s["lines"] for s in summary["steps"]]
    out = "\n".join(line for lines in steps for line in lines)
    name = "ollama:qwen3:8b"
    assert summary["model"] == {"name": name, "scripted": False, "source": "TRINHO_MODEL"}
    assert summary["played_by"] == {
        "before": "recorded",
        "chat": name,
        "job": name,
        "condensation": name,
    }
    assert steps[0][1].startswith(f"  model: {name} (from TRINHO_MODEL); it plays the assistant")
    assert steps[1][0].startswith(f"Set up by the demo from its recorded data, not by {name}")
    # The conversation is the model's: its calls, what they answered, its words.
    assert [(t["tools"], t["reply"], t["by"]) for t in summary["turns"]] == [
        (["memory_save"], WORDS[0], name),
        (["remember", "user_memory_save"], WORDS[1], name),
        *[([], words, name) for words in WORDS[2:]],
    ]
    assert f'  -> memory_save {{"text": "{NOTE}"}}' in steps[2]
    assert "     saved at memory/2026-11-23.md:1" in steps[2]
    assert '  -> remember {"x": 1}' in steps[2]
    assert sum("refused: " in line for line in steps[2]) == 2
    assert steps[2].count("  (no memory tool called)") == 4
    assert [f"  assistant: {words}" for words in WORDS] == [
        line for line in steps[2] if line.startswith("  assistant: ")
    ]
    for recorded in RECORDED_REPLIES + RECORDED_NOTES:
        assert recorded not in out
    assert [c["by"] for c in summary["tool_calls"]] == ["recorded"] * 3 + [name] * 3
    # Each turn went through the agent loop: context, tools offered, results sent back.
    bodies = [seen.body for seen in srv.posts]
    assert len(bodies) == 10 and {b["model"] for b in bodies} == {"qwen3:8b"}
    assert "Thứ Sáu này mẹ hẹn nha sĩ" in bodies[0]["messages"][-1]["content"]
    assert {t["function"]["name"] for t in bodies[0]["tools"]} >= {
        "memory_save",
        "user_memory_save",
    }
    assert bodies[1]["messages"][-1]["role"] == "tool"
    assert '"saved"' in bodies[1]["messages"][-1]["content"]
    assert WORDS[0] in json.dumps(bodies[2]["messages"], ensure_ascii=False)  # history kept
    # Later steps follow what the model did: its replies are in the conversations condensed,
    # the move it did not save leaves home_city as it was, nothing was held or decided.
    condensed = json.dumps(bodies[-1], ensure_ascii=False)
    assert WORDS[1] in condensed and RECORDED_REPLIES[1] not in condensed
    assert summary["jobs"] == [
        {
            "at": "2026-11-28T02:00:00+07:00",
            "job": "facts",
            "by": name,
            "calls": [],
            "done": "0 tool calls (0 failed), 0 new proposals",
            "proposals": [],
        }
    ]
    home = next(f for f in summary["facts"] if f["key"] == "home_city")
    assert [v["value"] for v in home["versions"]] == ["Hà Nội"]
    assert steps[4] == ["Nothing was held, so nothing was announced."]
    assert steps[5] == ["The gate held nothing in this run: there is nothing to decide."]
    assert summary["decisions"] == [] and summary["waiting"] == []
    assert summary["lost"] == []


SUSPICIOUS = "\n".join(f"REMOVE [{n}] gone" for n in (2, 3, 4, 5, 8, 9))
WAITS = {
    "en": (
        "Proposal {id} (change to the whole memory at once) waits for the owner: "
        "the weekly update would remove"
    ),
    "vi": (
        "Đề xuất {id} (thay đổi cả trí nhớ cùng lúc) đang chờ chủ nhân: "
        "bản cập nhật hằng tuần sẽ xoá"
    ),
}


@pytest.mark.parametrize("locale", ["en", "vi"])
def test_what_the_run_held_and_nobody_decided_is_said_to_wait(
    locale: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A model named by `[model] name` in the owner's workspace config rewrites MEMORY.md
    away: the gate holds it whole, the owner answers only edits and removals, so step 6 says
    the proposal waits (and never that nothing does); the owner's workspace is only read."""
    owner = init_workspace(tmp_path / "owner").workspace
    config = owner.path(".trinho/config.toml")
    with config.open("a", encoding="utf-8") as file:
        file.write('\n[model]\nname = "ollama:qwen3:8b"\n')
    replies = [_said("Ừ.")] * 7 + [_said(SUSPICIOUS)]
    with FakeServer(*replies) as srv:
        with config.open("a", encoding="utf-8") as file:
            file.write(f'base_url = "{srv.url}/v1"\n')
        before = snapshot(owner.root)
        argv = ["--workspace", str(owner.root), "demo", "--json", "--locale", locale]
        assert main(argv) == 0
    assert snapshot(owner.root) == before
    summary = json.loads(capsys.readouterr().out)
    assert summary["model"]["source"] == f"[model] name, {owner.root / '.trinho/config.toml'}"
    assert len(srv.posts) == 8
    held = [c for c in summary["condensation"]["changes"] if c["action"] == "held"]
    assert [c["class"] for c in held] == ["suspicious"]
    waiting = held[0]["proposal"]
    assert summary["decisions"] == []
    assert summary["waiting"] == [{"proposal": waiting, "class": "suspicious"}]
    assert next(p for p in summary["proposals"] if p["id"] == waiting)["status"] == "pending"
    decide = summary["steps"][5]["lines"]
    assert len(decide) == 1 and decide[0].startswith(WAITS[locale].format(id=waiting))
    assert len(summary["notifications"]) == 1


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


def test_a_model_name_that_cannot_work_stops_the_demo_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The owner's `[model] name` is read before anything runs: a wrong one is said at once,
    with where it came from, and no demo is shown."""
    owner = init_workspace(tmp_path / "owner").workspace
    with owner.path(".trinho/config.toml").open("a", encoding="utf-8") as file:
        file.write('\n[model]\nname = "qwen3"\n')
    assert main(["--workspace", str(owner.root), "demo"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert "[model] name" in err and "qwen3" in err


def test_a_removal_the_model_made_is_rejected_without_the_recorded_reason(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The owner's recorded reason answers the removal of one line (the Japanese class); the
    model removing another line gets a plain rejection, and then nothing of the run waits."""
    with FakeServer(*[_said("Ừ.")] * 7, _said("REMOVE [2] not mentioned this week")) as srv:
        monkeypatch.setenv("TRINHO_MODEL", "ollama:qwen3:8b")
        monkeypatch.setenv("OLLAMA_HOST", srv.url.removeprefix("http://"))
        assert main(["demo", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    [decision] = summary["decisions"]
    assert (decision["class"], decision["status"]) == ("removed", "rejected")
    assert summary["steps"][5]["lines"] == [
        f"$ trinho reject {decision['proposal']}",
        f"Rejected {decision['proposal']}",
        "Nothing from this run waits for a decision any more.",
    ]
    assert "- 2026-03-12: Sinh nhật mẹ" in summary["memory_after"]
