"""An OpenClaw agent's own writes to MEMORY.md (its `write` and `edit` tools, handed to trinho by
the plugin) become what trinho makes of them: additions through the gate's rules, removals and
edits of owner lines as proposals; a change made behind trinho's back is put back and proposed."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FixedClock
from trinho.cli.app import cli
from trinho.integrations.files import HOST_TOOLS, agent_changed, agent_write
from trinho.memory.format import Entry, parse
from trinho.openclaw import rules as oc_rules
from trinho.openclaw.rules import EditRefused, Replacement, apply_edits, target_of, told
from trinho.proposals.store import list_proposals
from trinho.tools.service import Actor, call, export
from trinho.workspace import Workspace, init_workspace

OLD = (
    "# Memory\n"
    "- 2026-11-01: Likes green tea\n"
    "Viết tay: đừng xoá dòng này\n"
    "<!-- openclaw-memory-promotion:memory:memory/2026-11-01.md:3:3 -->\n"
    "- 2026-11-02: Works at a bookshop\n"
)
NOW = "2026-11-29T10:00:00+07:00"
TODAY = "2026-11-29"


@pytest.fixture
def ws(workspace: Workspace, clock: FixedClock) -> Workspace:
    clock.set(NOW)
    workspace.memory_file.write_text(OLD, encoding="utf-8")
    return workspace


def pending(ws: Workspace) -> list[dict[str, object]]:
    return [
        {"origin": p.origin, **p.change}
        for p in list_proposals(ws).proposals
        if p.status == "pending"
    ]


# --- which file a path means -------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "target"),
    [
        ("MEMORY.md", "memory"),
        ("./MEMORY.md", "memory"),
        ("memory.md", "other"),  # not this workspace's memory file
        ("users/owner/facts/home-city.md", "facts"),
        ("users/owner/facts", "other"),
        ("users/owner/notes.md", "other"),
        ("../ws/MEMORY.md", "other"),
        ("/etc/MEMORY.md", "other"),
        ("memory/2026-11-29.md", "other"),
    ],
)
def test_a_path_names_memory_facts_or_something_else(path: str, target: str) -> None:
    assert target_of(path, "MEMORY.md", "users") == target


@given(st.lists(st.sampled_from(["..", ".", "MEMORY.md", "users", "facts", "x", ""]), max_size=6))
def test_a_path_that_climbs_is_never_memory(parts: list[str]) -> None:
    path = "/".join(parts)
    if ".." in parts or path.startswith("/"):
        assert target_of(path, "MEMORY.md", "users") == "other"


# --- OpenClaw's edit -----------------------------------------------------------------------

_text = st.text(alphabet="ab\n- :", max_size=40)


def _occurrences(text: str, old: str) -> int:
    """Where `old` starts in `text`, overlaps counted: `::` is twice in `:::`, ambiguous."""
    return sum(text.startswith(old, i) for i in range(len(text)))


@given(_text, _text, _text, _text)
def test_an_edit_replaces_its_one_occurrence_and_nothing_else(
    before: str, old: str, after: str, new: str
) -> None:
    text = before + old + after
    edit = Replacement(old, new)
    if not old.strip() or _occurrences(text, old) != 1:
        return
    assert apply_edits(text, [edit], "MEMORY.md") == before + new + after


@given(_text, st.sampled_from(["a", "b", "- ", "::"]))
def test_an_edit_whose_text_is_missing_or_twice_changes_nothing(text: str, old: str) -> None:
    if _occurrences(text, old) == 1:
        return
    with pytest.raises(EditRefused):
        apply_edits(text, [Replacement(old, "z")], "MEMORY.md")


def test_edits_keep_crlf_and_the_byte_order_mark_and_refuse_an_overlap() -> None:
    text = "\ufeff# M\r\n- a\r\n- b\r\n"
    assert apply_edits(text, [Replacement("- a\n- b", "- c\n- d")], "M") == (
        "\ufeff# M\r\n- c\r\n- d\r\n"
    )
    with pytest.raises(EditRefused, match="overlap"):
        apply_edits("abcdef", [Replacement("abc", "x"), Replacement("cde", "y")], "M")


# --- the write through the gate ------------------------------------------------------------


def test_an_added_entry_applies_and_a_removed_owner_line_waits(ws: Workspace) -> None:
    new = OLD.replace("Viết tay: đừng xoá dòng này\n", "") + f"- {TODAY}: Has a cat named Mận\n"
    outcome = agent_write(ws, lambda _: new, "agent:main")
    text = ws.memory_file.read_text(encoding="utf-8")
    assert f"- {TODAY}: Has a cat named Mận" in text.split("\n")
    assert "Viết tay: đừng xoá dòng này" in text.split("\n")  # kept until the owner decides
    assert outcome.added == (f"- {TODAY}: Has a cat named Mận",)
    [held] = outcome.held
    assert held.old == "Viết tay: đừng xoá dòng này" and held.new is None
    [proposal] = pending(ws)
    assert proposal["origin"] == "agent:main" and proposal["old"] == held.old
    said = told(outcome)
    assert held.proposal in said and "memory_save" in said and "not an error" in said


def test_an_edit_that_would_grow_memory_past_the_cap_is_refused(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(oc_rules, "MAX_MEMORY_CHARS", len(OLD) + 10)
    edits = (Replacement("Works at a bookshop", "Works at a bookshop" + "!" * 11),)
    with pytest.raises(EditRefused, match="at most"):
        agent_write(ws, lambda before: apply_edits(before, edits, "MEMORY.md"), "agent:main")
    assert ws.memory_file.read_text(encoding="utf-8") == OLD and pending(ws) == []


def test_an_edited_entry_is_one_proposal_and_the_file_keeps_the_old_line(ws: Workspace) -> None:
    old_line, new_line = "- 2026-11-01: Likes green tea", "- 2026-11-01: Likes black tea"
    edits = [Replacement(old_line, new_line)]
    outcome = agent_write(ws, lambda text: apply_edits(text, edits, "MEMORY.md"), "agent:main")
    assert ws.memory_file.read_text(encoding="utf-8") == OLD
    [held] = outcome.held
    assert (held.old, held.new) == (old_line, new_line) and not outcome.changed


def test_a_removed_marker_waits_too(ws: Workspace) -> None:
    marker = OLD.split("\n")[3]
    agent_write(ws, lambda text: text.replace(marker + "\n", ""), "agent:main")
    assert ws.memory_file.read_text(encoding="utf-8") == OLD
    assert [p["old"] for p in pending(ws)] == [marker]


_line = st.one_of(
    st.sampled_from(
        [
            "# Memory",
            "## Work",
            "Viết tay: mèo",
            "<!-- openclaw-memory-promotion:memory:memory/2026-11-01.md:1:1 -->",
            "",
            f"- {TODAY}: Likes tea",
            "- 2026-11-02: Lives in Huế",
            "- 2027-01-01: From the future",
        ]
    ),
    st.builds(lambda t: f"- {TODAY}: {t}", st.sampled_from(["cat", "dog", "Hà Nội"])),
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(old=st.lists(_line, max_size=8), new=st.lists(_line, max_size=8))
def test_no_owner_line_leaves_without_a_proposal(
    workspace: Workspace, clock: FixedClock, old: list[str], new: list[str]
) -> None:
    """Whatever the agent writes, every line the file had is still there (an entry may only
    be re-dated later) or in a pending proposal; what the answer calls written is there."""
    clock.set(NOW)
    before = "\n".join(old) + "\n"
    workspace.memory_file.write_text(before, encoding="utf-8")
    for proposal in workspace.proposals_root.glob("**/*.json"):
        proposal.unlink()
    outcome = agent_write(workspace, lambda _: "\n".join(new) + "\n", "agent:main")
    now = workspace.memory_file.read_text(encoding="utf-8")
    proposed = Counter(str(p["old"]) for p in pending(workspace) if p.get("old"))
    kept = Counter(now.split("\n")) + proposed
    keys_now = {i.key for i in parse(now).items if isinstance(i, Entry)}
    for line, count in Counter(x for x in old if x.strip()).items():
        item = parse(line + "\n").items[0]
        assert kept[line] >= count or (isinstance(item, Entry) and item.key in keys_now), line
    assert all(line in now.split("\n") for line in outcome.added)


def test_a_change_made_behind_trinhos_back_is_put_back_and_proposed(ws: Workspace) -> None:
    ws.memory_file.write_text(OLD.replace("- 2026-11-02: Works at a bookshop\n", ""), "utf-8")
    outcome = agent_changed(ws, OLD, "agent:main")
    assert ws.memory_file.read_text(encoding="utf-8") == OLD
    assert [h.old for h in outcome.held] == ["- 2026-11-02: Works at a bookshop"]
    assert [p["old"] for p in pending(ws)] == ["- 2026-11-02: Works at a bookshop"]
    again = agent_changed(ws, OLD, "agent:main")  # the file as it was: nothing to do
    assert not again.changed and again.held == ()


# --- the door: trinho call, never a model's tool -------------------------------------------


def test_the_host_tools_are_called_by_trinho_call_and_offered_to_no_model(
    tmp_path: Path, clock: FixedClock
) -> None:
    clock.set(NOW)
    root = tmp_path / "oc"
    root.mkdir()
    (root / "AGENTS.md").write_text("# Agents\n", encoding="utf-8")
    (root / "MEMORY.md").write_text(OLD, encoding="utf-8")
    names = {t.name for t in HOST_TOOLS}
    for fmt in ("mcp", "openai", "anthropic"):
        assert not names & {json.dumps(t) for t in export(fmt, "openclaw")}
        assert all(n not in json.dumps(export(fmt, "openclaw")) for n in names)
    workspace = init_workspace(root, timezone="Asia/Ho_Chi_Minh", clock=clock).workspace
    refused = call(workspace, "openclaw_memory_write", {"path": "MEMORY.md"}, Actor(), "openclaw")
    assert refused.is_error and "unknown tool" in refused.text  # what MCP's dispatch gives
    args = {
        "path": "MEMORY.md",
        "edits": [{"oldText": "Viết tay: đừng xoá dòng này\n", "newText": ""}],
    }
    run = CliRunner().invoke(
        cli,
        ["--workspace", str(root), "call", "openclaw_memory_write", "--profile", "openclaw"],
        input=json.dumps(args),
    )
    assert run.exit_code == 0, run.output
    answer = json.loads(run.output.strip().split("\n")[-1])
    assert (
        not answer["is_error"] and answer["data"]["held"][0]["old"] == "Viết tay: đừng xoá dòng này"
    )
    assert "proposal" in answer["data"]["message"]
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == OLD
    missing = CliRunner().invoke(
        cli,
        ["--workspace", str(root), "call", "openclaw_memory_write", "--profile", "openclaw"],
        input=json.dumps({"path": "MEMORY.md", "edits": [{"oldText": "nope", "newText": "x"}]}),
    )
    assert missing.exit_code == 1 and "Could not find" in missing.output
    facts = CliRunner().invoke(
        cli,
        ["--workspace", str(root), "call", "openclaw_memory_write", "--profile", "openclaw"],
        input=json.dumps({"path": "users/owner/facts/home.md", "content": "Huế"}),
    )
    assert "user_memory_save" in json.loads(facts.output.strip().split("\n")[-1])["data"]["message"]
