"""Claude's memory tool over a workspace, driven by the real `anthropic` SDK's tool runner
against a strict fake Messages API on 127.0.0.1 (tests/support/fake_claude.py): every command,
hostile paths, and a `str_replace` that rewrites the owner's allergy. The owner's lines
survive, what waits is a proposal `trinho approve` applies, and the answers are, word for word,
the ones the SDK's own local filesystem backend gives for the same commands."""

from __future__ import annotations

import contextlib
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import anthropic
import pytest
from anthropic.lib.tools import ToolError
from anthropic.lib.tools._beta_builtin_memory_tool import BetaLocalFilesystemMemoryTool
from hypothesis import given, settings
from hypothesis import strategies as st

from support.fake_claude import FakeClaude, tool_use
from trinho import facts
from trinho.cli import main
from trinho.integrations import rules
from trinho.integrations.anthropic import TrinhoMemoryTool
from trinho.integrations.rules import Refused
from trinho.integrations.store import MemoryFiles
from trinho.memory.store import read_text
from trinho.notes.store import read_notes
from trinho.proposals import store as proposals
from trinho.workspace import Workspace

OWNER_MEMORY = (
    "# About me\n"
    "- 2026-11-20: Allergic to peanuts (dị ứng đậu phộng)\n"
    "- 2026-11-22: Lives in Đà Nẵng\n"
)
ALLERGY = "- 2026-11-20: Allergic to peanuts (dị ứng đậu phộng)"


@pytest.fixture
def ws(workspace: Workspace) -> Workspace:
    workspace.memory_file.write_text(OWNER_MEMORY, encoding="utf-8")
    facts.save_fact(workspace, "allergy", "peanuts", basis="user", actor="owner")
    return workspace


def drive(ws: Workspace, calls: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """One assistant turn with every call, then a closing text; the tool results by id."""
    script = [calls, [{"type": "text", "text": "Noted."}]]
    with FakeClaude(script) as api:
        client = anthropic.Anthropic(api_key="sk-ant-test", base_url=api.url, max_retries=0)
        runner = client.beta.messages.tool_runner(
            model="claude-test",
            max_tokens=512,
            tools=[TrinhoMemoryTool(ws)],
            messages=[{"role": "user", "content": "Tôi hết dị ứng rồi, nhớ giúp nhé."}],
        )
        final = runner.until_done()
    assert api.refusals == [], [e.answer for e in api.refusals]
    assert [b.type for b in final.content] == ["text"]
    assert api.exchanges[0].body["tools"] == [{"type": "memory_20250818", "name": "memory"}]
    return api.results()


def text(result: dict[str, Any]) -> str:
    content = result["content"]
    return content if isinstance(content, str) else "".join(p["text"] for p in content)


def test_the_allergy_rewrite_waits_and_the_owner_approves_it(
    ws: Workspace, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    results = drive(
        ws,
        [
            tool_use(1, command="view", path="/memories"),
            tool_use(2, command="view", path="/memories/MEMORY.md"),
            tool_use(
                3,
                command="str_replace",
                path="/memories/MEMORY.md",
                old_str="Allergic to peanuts (dị ứng đậu phộng)",
                new_str="No allergies any more",
            ),
            tool_use(
                4,
                command="insert",
                path="/memories/MEMORY.md",
                insert_line=3,
                insert_text="- 2026-11-29: Prefers green tea",
            ),
            tool_use(5, command="create", path="/memories/facts/allergy.md", file_text="none"),
            tool_use(6, command="delete", path="/memories/MEMORY.md"),
        ],
    )
    listing = text(results["toolu_001"]).split("\n")
    assert listing[0] == (
        "Here're the files and directories up to 2 levels deep in /memories, "
        "excluding hidden items:"
    )
    assert [line.split("\t")[1] for line in listing[1:]] == [
        "/memories",
        "/memories/MEMORY.md",
        "/memories/notes/",
        "/memories/facts/",
        "/memories/facts/allergy.md",
    ]
    assert text(results["toolu_002"]).split("\n")[2] == f"     2\t{ALLERGY}"
    for waiting in ("toolu_003", "toolu_005", "toolu_006"):
        answer = text(results[waiting])
        assert "is_error" not in results[waiting]
        assert answer.startswith("Not changed yet:") and "do not retry" in answer
    assert text(results["toolu_004"]) == "The file /memories/MEMORY.md has been edited."

    memory = read_text(ws)
    assert memory == OWNER_MEMORY + "- 2026-11-29: Prefers green tea\n"
    assert facts.get_fact(ws, "allergy").value_on(ws.today()).value == "peanuts"  # type: ignore[union-attr]

    pending = proposals.list_proposals(ws, include_decided=False).proposals
    edit = [p for p in pending if p.kind == "memory" and ALLERGY in str(p.change.get("old"))]
    rewrite = [p for p in pending if p.kind == "memory" and "No allergies" in str(p.change)]
    assert edit and rewrite and all(p.origin == "agent:claude" for p in pending)
    monkeypatch.setenv("TRINHO_HOME", str(ws.root))
    monkeypatch.setenv("TRINHO_NOW", "2026-11-29T15:00:00+07:00")
    for proposal in {p.id: p for p in edit + rewrite}.values():
        if proposal.change.get("class") != "suspicious":
            assert main(["approve", proposal.id]) == 0, capsys.readouterr().err
    after = read_text(ws)
    assert ALLERGY not in after and "No allergies any more" in after
    assert "- 2026-11-22: Lives in Đà Nẵng" in after


def test_notes_are_appended_never_changed(ws: Workspace) -> None:
    day = "/memories/notes/2026-11-29.md"
    results = drive(
        ws,
        [
            tool_use(1, command="create", path=day, file_text="- Booked the dentist, Friday 9:00"),
            tool_use(2, command="insert", path=day, insert_line=0, insert_text="Mẹ gọi lúc 10:00"),
            tool_use(3, command="str_replace", path=day, old_str="Booked", new_str="Cancelled"),
            tool_use(4, command="delete", path=day),
            tool_use(5, command="view", path=day),
        ],
    )
    entries = [e.text for e in read_notes(ws, ws.today()).entries]
    assert entries == ["Booked the dentist, Friday 9:00", "Mẹ gọi lúc 10:00"]
    assert text(results["toolu_001"]).startswith(f"Saved to {day}")
    for unchanged in ("toolu_003", "toolu_004"):
        assert text(results[unchanged]).startswith("Nothing changed: day notes are append-only")
        assert "is_error" not in results[unchanged]
    assert text(results["toolu_005"]).split("\n")[1:3] == [
        "     1\t- 14:05 Booked the dentist, Friday 9:00",
        "     2\t- 14:05 Mẹ gọi lúc 10:00",
    ]


HOSTILE = [
    "/memories/../.trinho/config.toml",
    "/memories/notes/../../.trinho/config.toml",
    "/memories/.trinho/config.toml",
    "/etc/passwd",
    "/memoriesX/a.md",
    "memories/a.md",
    "/memories/a\\..\\..\\b.md",
    "/memories/a\x00.md",
    "/memories/" + "x" * 300,
    "/memories/link/secret.md",
]


def test_hostile_paths_are_refused_as_errors_and_nothing_leaves(
    ws: Workspace, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("top secret\n")
    (ws.root / rules.FILES_DIR).mkdir()
    os.symlink(outside, ws.root / rules.FILES_DIR / "link")
    calls = []
    for n, path in enumerate(HOSTILE):
        calls.append(tool_use(2 * n, command="view", path=path))
        calls.append(tool_use(2 * n + 1, command="create", path=path, file_text="x"))
    calls.append(tool_use(90, command="rename", old_path="/memories/MEMORY.md", new_path="/x"))
    calls.append(tool_use(91, command="delete", path="/memories"))
    big = "y" * (rules.MAX_TEXT_CHARS + 1)
    calls.append(tool_use(92, command="create", path="/memories/big.md", file_text=big))
    results = drive(ws, calls)
    for n in range(len(HOSTILE) * 2):
        result = results[f"toolu_{n:03d}"]
        assert result.get("is_error") is True, result
        assert "top secret" not in text(result) and str(ws.root) not in text(result)
    assert results["toolu_090"].get("is_error") is True
    assert text(results["toolu_091"]) == "Cannot delete the /memories directory itself"
    assert results["toolu_092"].get("is_error") is True
    assert (outside / "secret.md").read_text() == "top secret\n"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.md"]
    assert read_text(ws) == OWNER_MEMORY


# --- the model's own files: the SDK's words, the owner's lines kept -----------------------------

OWN = "/memories/projects/plan.md"
SAME_AS_SDK: list[tuple[str, dict[str, Any]]] = [
    ("create", {"path": OWN, "file_text": "Step 1\nStep 2\n"}),
    ("view", {"path": OWN}),
    ("view", {"path": OWN, "view_range": [2, -1]}),
    ("str_replace", {"path": OWN, "old_str": "Step 1", "new_str": "Step one"}),
    ("str_replace", {"path": OWN, "old_str": "nowhere", "new_str": "x"}),
    ("str_replace", {"path": OWN, "old_str": "Step", "new_str": "x"}),
    ("insert", {"path": OWN, "insert_line": 1, "insert_text": "Step 1.5"}),
    ("insert", {"path": OWN, "insert_line": 99, "insert_text": "x"}),
    ("create", {"path": OWN, "file_text": "again"}),
    ("view", {"path": "/memories/projects"}),
    ("rename", {"old_path": OWN, "new_path": "/memories/projects/done.md"}),
    ("view", {"path": OWN}),
    ("delete", {"path": "/memories/projects/done.md"}),
]


def test_own_files_answer_in_the_sdks_own_words(ws: Workspace, tmp_path: Path) -> None:
    sdk = BetaLocalFilesystemMemoryTool(str(tmp_path / "sdk"))
    results = drive(ws, [tool_use(n, command=c, **args) for n, (c, args) in enumerate(SAME_AS_SDK)])
    for n, (command, args) in enumerate(SAME_AS_SDK):
        try:
            expected, error = sdk.call({"command": command, **args}), False
        except ToolError as exc:
            expected, error = str(exc.content), True
        got = results[f"toolu_{n:03d}"]
        assert (text(got), got.get("is_error", False)) == (expected, error), (command, args)


def test_a_line_the_owner_wrote_in_an_own_file_waits(
    ws: Workspace, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    tool = MemoryFiles(ws)
    tool.create(OWN, "Step 1\n")
    real = ws.root / rules.FILES_DIR / "projects" / "plan.md"
    with real.open("a", encoding="utf-8") as handle:
        handle.write("Owner: keep the Friday slot\n")
    answer = tool.str_replace(OWN, "Owner: keep the Friday slot", "Friday is free")
    assert answer.startswith("Not changed yet:")
    assert tool.str_replace(OWN, "Step 1", "Step one").startswith("The memory file has been")
    assert tool.delete("/memories/projects").startswith("Not changed yet:")
    assert real.read_text() == "Step one\nOwner: keep the Friday slot\n"
    (edit,) = [
        p
        for p in proposals.list_proposals(ws, include_decided=False).proposals
        if p.change.get("action") == "edit"
    ]
    monkeypatch.setenv("TRINHO_HOME", str(ws.root))
    assert main(["approve", edit.id]) == 0
    assert "changed since" in capsys.readouterr().out  # the file moved on: stale, not applied
    assert real.read_text() == "Step one\nOwner: keep the Friday slot\n"
    (delete,) = [
        p
        for p in proposals.list_proposals(ws, include_decided=False).proposals
        if p.change.get("action") == "delete"
    ]
    assert main(["approve", delete.id]) == 0
    assert not real.exists()


# --- the rules, for every input ------------------------------------------------------------------

PARTS = st.sampled_from(["..", ".", "", "a", "MEMORY.md", ".trinho", "notes", "facts", "x.md"])


@given(st.lists(PARTS, max_size=6), st.sampled_from(["/memories", "/memories/", "/", ""]))
def test_a_path_never_names_a_place_outside_or_hidden(parts: list[str], head: str) -> None:
    path = head + "/".join(parts)
    try:
        target = rules.parse_path(path)
    except Refused:
        return
    assert path == "/memories" or path.startswith("/memories/")
    assert all(part not in (".", "..") and not part.startswith(".") for part in target.parts)


LINES = st.lists(st.sampled_from(["a", "b", "c", "owner says", "Đà Nẵng"]), max_size=6)


@given(LINES, LINES, LINES)
def test_a_change_that_drops_a_line_the_model_did_not_write_is_caught(
    owner: list[str], mine: list[str], after: list[str]
) -> None:
    content = "\n".join(owner + mine)
    lost = rules.loses_owner_line(content, mine, "\n".join(after))
    assert lost == bool(Counter(owner) - Counter(after))


@settings(max_examples=25, deadline=None)
@given(old=st.sampled_from(OWNER_MEMORY.split("\n")[:3]), new=st.text(max_size=40))
def test_no_str_replace_loses_an_owner_line_of_memory(
    tmp_path_factory: pytest.TempPathFactory, old: str, new: str
) -> None:
    from conftest import TZ, FixedClock
    from trinho.workspace import init_workspace

    ws = init_workspace(tmp_path_factory.mktemp("w"), timezone=TZ, clock=FixedClock()).workspace
    ws.memory_file.write_text(OWNER_MEMORY, encoding="utf-8")
    with contextlib.suppress(Refused):
        MemoryFiles(ws).str_replace("/memories/MEMORY.md", old, new)
    kept = read_text(ws).split("\n")
    waiting = str([p.change for p in proposals.list_proposals(ws).proposals])
    for line in OWNER_MEMORY.split("\n")[:3]:
        assert line in kept or line in waiting


# --- `trinho chat` with an anthropic: model ------------------------------------------------------


@pytest.mark.parametrize("enabled", [True, False])
def test_trinho_chat_offers_the_memory_tool_when_configured(
    cli_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    enabled: bool,
) -> None:
    from support.fake_model_server import FakeServer, Reply, anthropic_reply

    assert main(["init", "--tz", "Asia/Ho_Chi_Minh"]) == 0
    home = Path(cli_env["TRINHO_HOME"])
    if enabled:
        with (home / ".trinho" / "config.toml").open("a", encoding="utf-8") as config:
            config.write("\n[tools]\nclaude_memory = true\n")
    (home / "MEMORY.md").write_text(OWNER_MEMORY, encoding="utf-8")
    edit = {
        "command": "str_replace",
        "path": "/memories/MEMORY.md",
        "old_str": "Allergic to peanuts",
        "new_str": "Fine with peanuts",
    }
    use = {"type": "tool_use", "id": "toolu_1", "name": "memory", "input": edit}
    replies = [
        Reply(anthropic_reply([use], stop="tool_use")),
        Reply(anthropic_reply([{"type": "text", "text": "Đã ghi nhận."}])),
    ]
    with FakeServer(*replies) as server:
        monkeypatch.setenv("TRINHO_MODEL", "anthropic:claude-test")
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        capsys.readouterr()
        assert main(["chat", "-m", "Tôi hết dị ứng rồi", "--json"]) == 0
    (turn,) = json.loads(capsys.readouterr().out)["turns"]
    offered = [t.get("type") for t in server.posts[0].body["tools"]]
    assert ("memory_20250818" in offered) is enabled
    assert turn["tools"] == [{"name": "memory", "error": not enabled}]
    assert (home / "MEMORY.md").read_text(encoding="utf-8") == OWNER_MEMORY
    answered = server.posts[1].body["messages"][-1]["content"][0]["content"]
    assert answered.startswith("Not changed yet:") is enabled


def test_the_docs_runner_example_runs_against_the_fake(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/clients.md's tool runner snippet, as written, with the workspace's path."""
    docs = Path(__file__).resolve().parents[2] / "docs" / "clients.md"
    block = docs.read_text(encoding="utf-8").split("```python\n")[3].split("```")[0]
    assert "tool_runner" in block and len(block.strip().split("\n")) <= 14
    code = block.replace("/home/me/.local/share/trinho/workspace", str(ws.root))
    edit = {"command": "view", "path": "/memories/MEMORY.md"}
    script = [[tool_use(1, **edit)], [{"type": "text", "text": "Đã nhớ."}]]
    with FakeClaude(script) as api:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        exec(compile(code, "clients.md", "exec"), {})
    assert api.refusals == []
    assert capsys.readouterr().out == "Đã nhớ.\n"
    assert text(api.results()["toolu_001"]).startswith("Here's the content of /memories/MEMORY.md")
