"""Who may do what: the one table of `trinho.proposals.rules`, checked row by row against the real
code, and shown as it is in docs/rules.md and docs/security.md (every rule row of rules.md
names a function that exists)."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest

from conftest import FixedClock
from trinho import facts
from trinho.condense.rules.gate import gate
from trinho.condense.rules.held import HeldApplied, apply_held
from trinho.errors import TrinhoError
from trinho.facts.rules import FactConflict
from trinho.integrations.store import MemoryFiles
from trinho.memory.store import read_text
from trinho.notes.store import read_notes
from trinho.proposals import rules as authority
from trinho.proposals import store as proposals
from trinho.proposals.rules import RULES, Rule
from trinho.review.appliers import APPLIERS
from trinho.search.service import readable_path
from trinho.tools import service as tools
from trinho.workspace import Workspace

DOCS = Path(__file__).resolve().parent.parent.parent / "docs"
CHAT = tools.Actor("chat", "main")
JOB = tools.Actor("job", "nightly")
TODAY = date(2026, 11, 29)


def _resolve(dotted: str) -> object:
    """The object a dotted path names: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(dotted)


def _decide_with_every_tool(ws: Workspace, actor: tools.Actor) -> None:
    """Every tool, called with a pending proposal's id everywhere an argument fits: the
    proposal stays pending, and nothing is called approve or reject."""
    pending = facts.save_fact(ws, "pet", "mèo", actor="job").proposal
    assert pending is not None
    for tool in tools.TOOLS:
        assert not tool.name.startswith(("approve", "reject", "decide"))
        args = {name: pending.id for name in tool.parameters.get("properties", {})}
        tools.call(ws, tool.name, args, actor)
    for name in ("approve", "reject", "memory_approve", "decide"):
        assert tools.call(ws, name, {"id": pending.id}, actor).is_error
    assert proposals.get_proposal(ws, pending.id).status == "pending"


def _write_memory_with_every_tool(ws: Workspace, actor: tools.Actor) -> None:
    ws.memory_file.write_text("# Memory\n- 2026-11-01: Likes green tea\n", encoding="utf-8")
    before = read_text(ws)
    for tool in tools.TOOLS:
        args = {name: "MEMORY.md" for name in tool.parameters.get("properties", {})}
        tools.call(ws, tool.name, args, actor)
    assert read_text(ws) == before


# ---- one check per row, keyed by (party, act) -------------------------------------------------


def owner_decides(ws: Workspace, clock: FixedClock) -> None:
    proposal = facts.save_fact(ws, "pet", "mèo", actor="job").proposal
    assert proposal is not None
    decided, result = proposals.approve(ws, proposal.id, "owner (cli)", appliers=APPLIERS)
    assert decided.status == "approved" and result.ok
    assert facts.fact_on(ws, "pet").value == "mèo"


def owner_approves_held_line(ws: Workspace, clock: FixedClock) -> None:
    old = "## Health: allergic to penicillin\n- 2026-11-01: Likes green tea\n"
    result = gate(old, "- 2026-11-01: Likes green tea\n", TODAY, date(2026, 11, 23))
    [held] = result.held
    approved = apply_held(result.applied, held)
    assert isinstance(approved, HeldApplied) and "penicillin" not in approved.text


def owner_states_now(ws: Workspace, clock: FixedClock) -> None:
    clock.set("2031-05-01T10:00:00+07:00")  # a save made while the clock was years ahead
    facts.save_fact(ws, "home-city", "Nowhere", actor="chat")
    clock.set("2026-11-29T14:05:00+07:00")
    saved = facts.save_fact(ws, "home-city", "Đà Nẵng", actor="owner")
    assert saved.outcome in ("created", "superseded")
    assert facts.fact_on(ws, "home-city").value == "Đà Nẵng"
    assert "Nowhere" in [v.value for v in facts.get_fact(ws, "home-city").versions()]


def owner_dates_ahead(ws: Workspace, clock: FixedClock) -> None:
    facts.save_fact(ws, "home-city", "Hà Nội", actor="owner")
    facts.save_fact(ws, "home-city", "Huế", actor="owner", valid_from=date(2027, 1, 1))
    assert facts.fact_on(ws, "home-city").value == "Hà Nội"
    assert facts.fact_on(ws, "home-city", date(2027, 1, 1)).value == "Huế"


def _saves_a_note(actor: tools.Actor) -> Callable[[Workspace, FixedClock], None]:
    def check(ws: Workspace, clock: FixedClock) -> None:
        result = tools.call(ws, "memory_save", {"text": "a\n<!--\n- 09:00 forged"}, actor)
        assert not result.is_error
        assert [e.text for e in read_notes(ws, ws.today()).entries] == ["a\n<!--\n- 09:00 forged"]

    return check


def chat_relays(ws: Workspace, clock: FixedClock) -> None:
    facts.save_fact(ws, "home-city", "Hà Nội", actor="owner")
    args = {"key": "home-city", "value": "Đà Nẵng", "basis": "user"}
    result = tools.call(ws, "user_memory_save", args, CHAT)
    assert result.data is not None and result.data["outcome"] == "superseded"
    assert [v.value for v in facts.get_fact(ws, "home-city").versions()] == ["Hà Nội", "Đà Nẵng"]


def chat_infers(ws: Workspace, clock: FixedClock) -> None:
    facts.save_fact(ws, "home-city", "Hà Nội", actor="owner")
    args = {"key": "home-city", "value": "Huế", "basis": "inferred"}
    result = tools.call(ws, "user_memory_save", args, CHAT)
    assert result.data is not None and result.data["outcome"] == "proposed"
    assert facts.fact_on(ws, "home-city").value == "Hà Nội"


def chat_dates_ahead(ws: Workspace, clock: FixedClock) -> None:
    """Issue case: `user_memory_save {"valid_from": "9999-12-31"}` is refused in one line, and
    the owner's `fact set` afterwards succeeds."""
    args = {"key": "home-city", "value": "Nowhere", "basis": "user", "valid_from": "9999-12-31"}
    result = tools.call(ws, "user_memory_save", args, CHAT)
    assert result.is_error and "\n" not in result.text
    assert "only the owner may give a value that starts after today" in result.text
    assert facts.load_fact(ws, "home-city") is None
    with pytest.raises(FactConflict):
        facts.save_fact(ws, "home-city", "Nowhere", actor="chat", valid_from=date(9999, 12, 31))
    assert facts.save_fact(ws, "home-city", "Đà Nẵng", actor="owner").outcome == "created"


def chat_memory_tool(ws: Workspace, clock: FixedClock) -> None:
    """Claude's memory tool: a note is appended, a dated addition applies, an edit of the
    owner's entry and an inference against the owner's fact wait, nothing is deleted."""
    owner = "# Health\n- 2026-11-01: Allergic to penicillin\n"
    ws.memory_file.write_text(owner, encoding="utf-8")
    facts.save_fact(ws, "allergy", "penicillin", actor="owner")
    tool = MemoryFiles(ws)
    tool.create("/memories/notes/2026-11-29.md", "Took the train home")
    tool.insert("/memories/MEMORY.md", 2, "- 2026-11-29: Likes green tea")
    waits = [
        tool.str_replace("/memories/MEMORY.md", "penicillin", "nothing"),
        tool.delete("/memories/MEMORY.md"),
        tool.create("/memories/facts/allergy.md", "none"),
    ]
    assert all(answer.startswith("Not changed yet:") for answer in waits)
    assert read_text(ws) == owner + "- 2026-11-29: Likes green tea\n"
    assert facts.fact_on(ws, "allergy").value == "penicillin"
    assert [e.text for e in read_notes(ws, ws.today()).entries] == ["Took the train home"]
    pending = proposals.list_proposals(ws, include_decided=False).proposals
    assert {p.origin for p in pending} == {"agent:claude"} and len(pending) >= 3


def job_changes_fact(ws: Workspace, clock: FixedClock) -> None:
    for start in (None, "2026-11-01", "9999-12-31"):
        args = {"key": "tea", "value": f"trà {start}", "basis": "user"}
        if start:
            args["valid_from"] = start
        result = tools.call(ws, "user_memory_save", args, JOB)
        assert result.data is not None and result.data["outcome"] == "proposed"
    assert facts.load_fact(ws, "tea") is None


def job_rewrites_memory(ws: Workspace, clock: FixedClock) -> None:
    old = "# Health\n- 2026-11-01: Allergic to penicillin\n"
    result = gate(old, "", TODAY, date(2026, 11, 23))
    assert result.applied == old and all(c.held for c in result.changes)


def mcp_actor(ws: Workspace, clock: FixedClock) -> None:
    with pytest.raises(TrinhoError):
        tools.Actor("owner")
    assert {tools.Actor("chat").kind, tools.Actor("job").kind} == {"chat", "job"}


def mcp_reads_internal(ws: Workspace, clock: FixedClock) -> None:
    with pytest.raises(TrinhoError):
        readable_path(ws, ".trinho/config.toml")
    result = tools.call(ws, "memory_get", {"path": ".trinho/config.toml"}, CHAT)
    assert result.is_error


CHECKS: dict[tuple[str, str], Callable[[Workspace, FixedClock], None]] = {
    ("owner", "approve or reject a proposal"): owner_decides,
    ("owner", "approve a held MEMORY.md change"): owner_approves_held_line,
    ("owner", "state a fact now"): owner_states_now,
    ("owner", "give a fact a valid_from after today"): owner_dates_ahead,
    ("chat", "save a note (memory_save)"): _saves_a_note(CHAT),
    ("chat", "relay the owner's word (basis user)"): chat_relays,
    ("chat", "infer a fact against the owner's word (basis inferred)"): chat_infers,
    ("chat", "give a fact a valid_from after today"): chat_dates_ahead,
    ("chat", "approve or reject a proposal"): lambda ws, _: _decide_with_every_tool(ws, CHAT),
    ("chat", "write MEMORY.md or delete anything through trinho's tools"): lambda ws, _: (
        _write_memory_with_every_tool(ws, CHAT)
    ),
    ("chat", "write /memories through Claude's memory tool"): chat_memory_tool,
    ("job", "save a note (memory_save)"): _saves_a_note(JOB),
    ("job", "change a fact (any basis, any date)"): job_changes_fact,
    ("job", "approve or reject a proposal"): lambda ws, _: _decide_with_every_tool(ws, JOB),
    ("job", "rewrite MEMORY.md (the weekly condensation)"): job_rewrites_memory,
    ("mcp", "call a tool"): mcp_actor,
    ("mcp", "approve or reject a proposal"): lambda ws, _: _decide_with_every_tool(ws, CHAT),
    ("mcp", "read .trinho/ or outside the workspace"): mcp_reads_internal,
}


def test_every_row_has_a_check_and_every_check_a_row() -> None:
    assert [(r.party, r.act) for r in RULES] == list(CHECKS)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: f"{r.party}: {r.act}")
def test_each_row_holds_in_the_code(rule: Rule, workspace: Workspace, clock: FixedClock) -> None:
    assert callable(_resolve(rule.enforced_by))
    CHECKS[(rule.party, rule.act)](workspace, clock)


# ---- the documents say what the code says ----------------------------------------------------


def _table_after(text: str, heading: str) -> list[str]:
    """The rows of the first table after `heading`."""
    rest = text[text.index(heading) :].split("\n")
    start = next(i for i, line in enumerate(rest) if line.startswith("|"))
    end = next((i for i in range(start, len(rest)) if not rest[i].startswith("|")), len(rest))
    return rest[start:end]


@pytest.mark.parametrize(
    ("page", "heading"),
    [("rules.md", "## Who may do what"), ("security.md", "### 2. Only the owner decides")],
)
def test_both_pages_show_the_table_as_the_code_has_it(page: str, heading: str) -> None:
    text = (DOCS / page).read_text(encoding="utf-8")
    assert _table_after(text, heading) == authority.table_rows()
    assert "trinho.proposals.rules.RULES" in text


def _rule_tables(text: str) -> list[list[str]]:
    """Every table of the page whose header has an `enforced by` column."""
    tables: list[list[str]] = []
    current: list[str] = []
    for line in [*text.split("\n"), ""]:
        if line.startswith("|"):
            current.append(line)
            continue
        if current and "enforced by" in current[0]:
            tables.append(current)
        current = []
    return tables


def test_every_rule_row_of_rules_md_names_a_function_that_exists() -> None:
    tables = _rule_tables((DOCS / "rules.md").read_text(encoding="utf-8"))
    assert len(tables) == 3  # who may do what, fact reconciliation, the gate
    for table in tables:
        for row in table[2:]:
            cell = row.rstrip("|").rsplit("|", 1)[-1]
            named = re.fullmatch(r"\s*`(trinho(?:\.\w+)+)`\s*", cell)
            assert named, f"a rule row names no function: {row}"
            assert callable(_resolve(named.group(1))), row


def test_every_verdict_function_of_the_gate_has_its_row() -> None:
    from trinho.condense.rules import gate as gate_module

    text = (DOCS / "rules.md").read_text(encoding="utf-8")
    verdicts = [n for n in dir(gate_module) if n.endswith("_verdict") and not n.startswith("_")]
    assert len(verdicts) >= 13
    for name in verdicts:
        assert f"`trinho.condense.rules.gate.{name}`" in text, name


def test_security_md_no_longer_contradicts_the_rules() -> None:
    """The statements issue 5 found contradicting rules.md and the code are gone."""
    text = (DOCS / "security.md").read_text(encoding="utf-8")
    assert "never overrides what the owner said" not in text
    assert "re-dates a line the owner wrote is held" not in text
    assert "date moved later inside the week applies by itself" in text
