"""`trinho import mem0|basic-memory|claude-code PATH`: each export lands in MEMORY.md through
the gate (an entry dated outside the window waits as a proposal, with the item's origin), a
second import adds nothing, `--dry-run` writes nothing, and every source item is in the
workspace or in the "not mapped" list.

Fixtures, written from each format's published documentation:
- tests/data/import/mem0-get-all.json: the memory objects of Mem0's "Get Memories" page
  (docs.mem0.ai/api-reference/memory/v2-get-memories: the v1 output, `id`, `memory`,
  `user_id`, `hash`, `metadata`, `created_at`, `updated_at`; its first record is that page's
  example) in the `{"results": [...]}` shape of `Memory.get_all()` (mem0ai/mem0,
  mem0/memory/main.py).
- tests/data/import/basic-memory/: a basic-memory project as basicmachines-co/basic-memory
  docs/NOTE-FORMAT.md describes a note (its "Coffee Brewing Methods" example verbatim: front
  matter, `- [category] content #tag (context)` observations, `- relation [[Target]]`
  relations), a second note with prose, and a hidden `.obsidian/` folder that is no note.
- tests/data/import/letta-agent.af: an agent file with the fields of Letta's `AgentSchema`
  (letta-ai/letta, letta/serialize_schemas/pydantic_agent_schema.py: `core_memory` blocks,
  `messages` with text `content`, `tool_calls`, `created_at`), Letta's `user_message` and
  `heartbeat` wrappings and its `send_message` tool, plus archival `passages`.
- tests/data/import/claude-code/: Claude Code's memory files as docs.claude.com "Manage
  Claude's memory" lays them out: a project `CLAUDE.md` with an `@README.md` import,
  `CLAUDE.local.md`, `.claude/rules/*.md` with `paths` front matter, the user's
  `~/.claude/CLAUDE.md`, and an auto-memory folder `~/.claude/projects/<project>/memory/`.
"""

from __future__ import annotations

import json
import os
import shutil
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import TZ, FixedClock
from trinho.cli import main
from trinho.importers import rules
from trinho.importers.store import apply_plan
from trinho.memory.store import read_text
from trinho.proposals import store as proposals
from trinho.proposals.format import MAX_WHY_CHARS, Proposal
from trinho.textnorm import match_key
from trinho.workspace import Workspace, init_workspace

DATA = Path(__file__).resolve().parent.parent / "data" / "import"
PAST = datetime(2025, 3, 1, 12, 0).timestamp()


def run(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    code = main([*args, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def landed(ws: Workspace, item: rules.Item) -> bool:
    """Whether `item` is in MEMORY.md, or waits in a proposal naming its origin; or, when
    its text was there already or came twice (the gate folds it), that text is."""
    if item.line in read_text(ws).split("\n"):
        return True
    waiting = proposals.list_proposals(ws).proposals
    if any(p.change.get("new") == item.line and p.why == item.why[:MAX_WHY_CHARS] for p in waiting):
        return True
    lines = read_text(ws).split("\n") + [str(p.change.get("new")) for p in waiting]
    return any(match_key(line.partition(": ")[2]) == match_key(item.text) for line in lines)


@pytest.fixture
def home(cli_env: dict[str, str], capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(["init", "--tz", TZ]) == 0
    capsys.readouterr()
    return Path(cli_env["TRINHO_HOME"])


# --- Mem0 ----------------------------------------------------------------------------------------


def test_mem0_waits_as_proposals_with_its_origin_and_a_second_import_adds_nothing(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = str(DATA / "mem0-get-all.json")
    dry = run(capsys, "import", "mem0", source, "--dry-run")
    assert (dry["items"], dry["added"], dry["proposed"], dry["dry_run"]) == (3, 0, 3, True)
    assert not (home / "MEMORY.md").exists() and not list((home / "memory_proposals").glob("*"))

    first = run(capsys, "import", "mem0", source)
    assert (first["items"], first["added"], first["proposed"], first["already"]) == (3, 0, 3, 0)
    assert first["unmapped"] == [
        {"ref": "mem0:a7c3d0e2-2f1b-4c9d-8e7f-6a5b4c3d2e1f", "why": "no memory text"}
    ]
    waiting = {p.change["new"]: p for p in _pending(home)}
    assert set(waiting) == {
        "- 2024-07-25: travelling to Paris",
        "- 2024-03-02: Is allergic to peanuts",
        "- 2024-06-01: Thích uống cà phê sữa đá buổi sáng",
    }
    paris = waiting["- 2024-07-25: travelling to Paris"]
    assert paris.origin == "import:mem0"
    assert paris.why is not None and "f38b689d-6b24-45b7-bced-17fbb4d8bac7" in paris.why
    assert "user_id alex" in paris.why
    assert "category=health" in str(waiting["- 2024-03-02: Is allergic to peanuts"].why)

    second = run(capsys, "import", "mem0", source)
    assert (second["added"], second["proposed"], second["already"]) == (0, 0, 3)
    assert len(_pending(home)) == 3

    assert main(["approve", paris.id]) == 0
    capsys.readouterr()
    assert "- 2024-07-25: travelling to Paris" in (home / "MEMORY.md").read_text()
    third = run(capsys, "import", "mem0", source)
    assert (third["added"], third["proposed"], third["already"]) == (0, 0, 3)


def test_a_mem0_memory_changed_today_is_added_and_the_summary_is_one_line(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    export = [{"id": "m1", "memory": "Hẹn nha sĩ thứ Sáu", "updated_at": "2026-11-29T09:00:00"}]
    path = tmp_path / "export.json"
    path.write_text(json.dumps({"memories": export}), encoding="utf-8")
    assert main(["import", "mem0", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "1 added to MEMORY.md" in out
    assert (home / "MEMORY.md").read_text() == "- 2026-11-29: Hẹn nha sĩ thứ Sáu\n"
    log = (home / ".trinho" / "imports.jsonl").read_text(encoding="utf-8")
    (logged,) = [json.loads(line) for line in log.splitlines()]
    assert (logged["source"], logged["ref"]) == ("mem0", "mem0:m1")
    assert logged["line"] == "- 2026-11-29: Hẹn nha sĩ thứ Sáu"
    assert logged["origin"].startswith("Mem0 memory m1")
    assert main(["import", "mem0", str(path)]) == 0
    assert "0 added" in capsys.readouterr().out


def test_not_an_export_is_one_line(home: Path, tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"something": 1}', encoding="utf-8")
    assert main(["import", "mem0", str(path)]) == 1
    assert main(["import", "mem0", str(tmp_path / "missing.json")]) == 1


RECORD = st.fixed_dictionaries(
    {"id": st.uuids().map(str)},
    optional={
        "memory": st.one_of(st.none(), st.text(max_size=60), st.just("x" * 1001)),
        "created_at": st.one_of(st.just("2024-01-02T03:04:05Z"), st.text(max_size=8)),
        "updated_at": st.one_of(st.none(), st.just("2026-11-29T08:00:00+07:00")),
        "metadata": st.one_of(st.none(), st.dictionaries(st.text(max_size=5), st.integers())),
    },
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(RECORD, st.integers()), max_size=8))
def test_every_mem0_item_lands_or_is_listed(
    tmp_path_factory: pytest.TempPathFactory, records: list[Any]
) -> None:
    ws = init_workspace(tmp_path_factory.mktemp("w"), timezone=TZ, clock=FixedClock()).workspace
    plan = rules.plan_mem0(records, ws.today())
    assert len(plan.refs) == len(records)
    apply_plan(ws, plan)
    assert all(landed(ws, item) for item in plan.items)
    again = apply_plan(ws, plan)
    assert (again.added, again.proposed) == (0, 0)


# --- Claude Code ---------------------------------------------------------------------------------


def _copy(tmp_path: Path, mtime: float) -> Path:
    copy = tmp_path / "claude-code"
    shutil.copytree(DATA / "claude-code", copy)
    for path in copy.rglob("*.md"):
        os.utime(path, (mtime, mtime))
    return copy


def test_claude_code_files_wait_with_their_place_and_a_second_import_adds_nothing(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _copy(tmp_path, PAST)
    first = run(capsys, "import", "claude-code", str(source))
    lines = {p.change["new"]: p for p in _pending(home)}
    assert set(lines) == {
        "- 2025-03-01: " + text
        for text in (
            "I write commit messages in English, talk in Vietnamese",
            "Call me An",
            "[debugging.md](debugging.md): what broke before and why",
            "The staging database resets every Sunday night",
            "Flaky checkout test: the clock mock must be installed before the cart loads",
            "Every test names the behaviour it checks",
            "My sandbox URL is http://localhost:5173",
            "Build with `pnpm build`",
            "Run the tests with `pnpm test -- --run`",
            "Prefer small pure functions; no default exports.",
            "See @README.md for the overview.",
        )
    }
    assert (first["items"], first["proposed"]) == (11, 11)
    build = lines["- 2025-03-01: Build with `pnpm build`"]
    assert build.why == "claude-code: project/CLAUDE.md line 6 (Shop project > Commands)"
    why = {u["ref"].split(":", 1)[1]: u["why"] for u in first["unmapped"]}
    assert why["project/CLAUDE.md:16"].startswith("an @import")
    assert why["project/CLAUDE.md:13"] == "code block"
    assert why["project/.claude/rules/testing.md:2"] == "front matter"
    assert why["project/CLAUDE.md:1"].startswith("heading")
    second = run(capsys, "import", "claude-code", str(source))
    assert (second["added"], second["proposed"], second["already"]) == (0, 0, 11)


def test_the_auto_memory_folder_itself_and_today_s_file(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    today = datetime.fromisoformat("2026-11-29T10:00:00+07:00").timestamp()
    folder = _copy(tmp_path, today) / "home" / "projects" / "-home-an-shop" / "memory"
    report = run(capsys, "import", "claude-code", str(folder))
    assert (report["items"], report["added"], report["proposed"]) == (3, 3, 0)
    memory = (home / "MEMORY.md").read_text()
    assert "- 2026-11-29: The staging database resets every Sunday night\n" in memory


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["claude-code", "basic-memory"]),
    st.lists(
        st.one_of(
            st.sampled_from(
                ["# H", "## Sub", "---", "```", "@notes.md", "- [ ] task", "", "title: T"]
            ),
            st.sampled_from(["- [tech] Uses SQLite #db (why)", "- relates_to [[Tea]]"]),
            st.text(alphabet="ab -#*@`[]\t1.", max_size=12),
            st.just("y" * 1001),
        ),
        max_size=12,
    ),
)
def test_every_markdown_line_is_planned_or_listed(source: str, lines: list[str]) -> None:
    text = "\n".join(lines)
    files = [rules.SourceFile("n.md", text, date(2025, 1, 1))]
    plan = rules.plan_markdown(source, files, date(2026, 1, 1))
    refs = set(plan.refs)
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip() and line.strip() != "---":
            assert f"{source}:n.md:{number}" in refs, (number, line)
    assert len(refs) == len(plan.refs)  # no line is planned and listed both
    assert all(item.day == date(2025, 1, 1) for item in plan.items)


def _pending(home: Path) -> list[Proposal]:
    from trinho.workspace import open_workspace

    ws = open_workspace(home)
    return list(proposals.list_proposals(ws, include_decided=False).proposals)


# --- basic-memory --------------------------------------------------------------------------------


def test_basic_memory_observations_relations_and_prose(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "basic-memory"
    shutil.copytree(DATA / "basic-memory", source)
    for path in source.rglob("*.md"):
        os.utime(path, (PAST, PAST))
    first = run(capsys, "import", "basic-memory", str(source))
    lines = {p.change["new"]: p for p in _pending(home)}
    assert set(lines) == {
        "- 2025-03-01: " + text
        for text in (
            "Pour over provides more flavor clarity than French press",
            "Water temperature at 205°F extracts optimal compounds #brewing",
            "Ethiopian beans work well with lighter roasts (personal experience)",
            "Coffee Brewing Methods: relates_to Coffee Bean Origins",
            "Coffee Brewing Methods: requires Proper Grinding Technique",
            "Coffee Brewing Methods: contrasts_with Tea Brewing Methods",
            "Lives in Đà Nẵng and works from home on Fridays.",
            "Allergic to peanuts #allergy (said on 2025-02-14)",
            "An: works_at Shop",
        )
    }
    allergy = lines["- 2025-03-01: Allergic to peanuts #allergy (said on 2025-02-14)"]
    where = "people/an.md line 12 (An > Observations)"
    assert allergy.why == f"basic-memory: {where}, observation [health]"
    assert (first["items"], first["proposed"]) == (9, 9)
    assert not any(".obsidian" in u["ref"] for u in first["unmapped"])
    assert sum(u["why"] == "front matter" for u in first["unmapped"]) == 7
    second = run(capsys, "import", "basic-memory", str(source), "--dry-run")
    assert (second["added"], second["proposed"], second["already"]) == (0, 0, 9)


# --- Letta ---------------------------------------------------------------------------------------


def test_letta_blocks_and_passages_wait_messages_go_to_the_conversation(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = str(DATA / "letta-agent.af")
    dry = run(capsys, "import", "letta", source, "--dry-run")
    assert (dry["items"], dry["proposed"], dry["turns"]) == (4, 4, 2)
    assert not list((home / "conversations").glob("*"))
    first = run(capsys, "import", "letta", source)
    assert (first["items"], first["proposed"], first["turns"]) == (4, 4, 2)
    lines = {p.change["new"]: p for p in _pending(home)}
    assert set(lines) == {
        "- 2025-02-14: Name: An",
        "- 2025-02-14: Lives in Đà Nẵng",
        "- 2025-02-14: Prefers window seats",
        "- 2025-02-10: An's passport expires in March 2027",
    }
    assert lines["- 2025-02-14: Lives in Đà Nẵng"].why == (
        "Letta agent trip_planner, memory block 'human' line 2"
    )
    why = {u["ref"]: u["why"] for u in first["unmapped"]}
    assert sorted(why) == [
        "letta:trip_planner:block:0:persona:1",
        "letta:trip_planner:block:0:persona:2",
        "letta:trip_planner:message:0",
        "letta:trip_planner:message:3",
        "letta:trip_planner:message:4",
        "letta:trip_planner:passage:1",
    ]
    day = (home / "conversations" / "2025-02-14.jsonl").read_text(encoding="utf-8")
    said = [json.loads(line) for line in day.splitlines()]
    assert [(t["role"], t["text"]) for t in said] == [
        ("user", "Book me a window seat to Huế"),
        ("assistant", "Window seat to Huế it is."),
    ]
    second = run(capsys, "import", "letta", source)
    assert (second["proposed"], second["turns"], second["already"]) == (0, 0, 4)


LETTA_MESSAGE = st.fixed_dictionaries(
    {
        "role": st.sampled_from(["user", "assistant", "system", "tool"]),
        "content": st.one_of(
            st.text(max_size=20),
            st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": st.text()})),
        ),
    },
    optional={"created_at": st.sampled_from(["2025-02-14T09:00:00+00:00", "soon", ""])},
)


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.fixed_dictionaries(
            {"label": st.sampled_from(["human", "persona", "x"]), "value": st.text(max_size=40)}
        ),
        max_size=3,
    ),
    st.lists(st.one_of(LETTA_MESSAGE, st.integers()), max_size=5),
    st.lists(st.fixed_dictionaries({"text": st.text(max_size=20)}), max_size=3),
)
def test_every_letta_item_is_planned_or_listed(
    blocks: list[Any], messages: list[Any], passages: list[Any]
) -> None:
    data = {"name": "a", "core_memory": blocks, "messages": messages, "passages": passages}
    plan = rules.plan_letta(data, date(2026, 1, 1))
    refs = plan.refs
    assert len(refs) == len(set(refs))
    for number in range(len(messages)):
        assert f"letta:a:message:{number}" in refs
    for number in range(len(passages)):
        assert f"letta:a:passage:{number}" in refs
    for index, block in enumerate(blocks):
        for n, line in enumerate(block["value"].split("\n"), start=1):
            if rules.bullet_text(line):
                assert f"letta:a:block:{index}:{block['label']}:{n}" in refs


def test_a_letta_message_a_transcript_refuses_is_listed_and_the_rest_filed(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from trinho.conversations.store import MAX_TURN_CHARS

    said = {"role": "user", "created_at": "2025-02-14T09:00:00+00:00"}
    messages = [
        {**said, "content": [{"type": "text", "text": "x" * (MAX_TURN_CHARS + 1)}]},
        {**said, "content": [{"type": "text", "text": "Nhớ mua vé"}]},
    ]
    path = tmp_path / "agent.af"
    path.write_text(json.dumps({"name": "a", "messages": messages}), encoding="utf-8")
    report = run(capsys, "import", "letta", str(path))
    assert report["turns"] == 1
    assert [u["ref"] for u in report["unmapped"]] == ["letta:a:message:0"]
