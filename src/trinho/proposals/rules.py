"""Who may do what: one table, the rules of DESIGN.md "One clock, and who may do what" (pure).

Each row names a party, what it asks for, the outcome, and the one function that enforces it;
`docs/rules.md` and `docs/security.md` show this table as it is here (a test compares them),
and `tests/proposals/test_authority.py` checks each row against the real code.

The parties: the owner speaks through their shell (the `trinho` CLI), the review page and the
Telegram buttons (checked to be the configured owner); a chat model answers the owner in a
turn and may relay the owner's word, never decide; a job (or any unattended caller) only
proposes; an MCP client is a chat model or a job, as `trinho mcp --as` says. No tool a model
can call decides anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

__all__ = ["PARTIES", "RULES", "Party", "Rule", "rules_of", "table_rows"]

Party = Literal["owner", "chat", "job", "mcp"]
PARTIES: tuple[Party, ...] = get_args(Party)

WHO: dict[Party, str] = {
    "owner": "the owner (CLI, review page, Telegram buttons)",
    "chat": "a chat model answering the owner",
    "job": "a job or unattended caller",
    "mcp": "an MCP client",
}


@dataclass(frozen=True)
class Rule:
    """One row: `party` asking for `act` gets `outcome`, decided by `enforced_by` (a dotted
    path to a function, or a class whose checks run when it is made)."""

    party: Party
    act: str
    outcome: str
    enforced_by: str


RULES: tuple[Rule, ...] = (
    Rule("owner", "approve or reject a proposal", "done", "trinho.proposals.store.approve"),
    Rule(
        "owner",
        "approve a held MEMORY.md change",
        "applied to MEMORY.md as it is then, or stale",
        "trinho.condense.rules.held.apply_held",
    ),
    Rule(
        "owner",
        "state a fact now",
        "always saved; a value dated ahead is withdrawn into history",
        "trinho.facts.rules.restated",
    ),
    Rule(
        "owner",
        "give a fact a valid_from after today",
        "saved; not current before its date",
        "trinho.facts.rules.future_start_verdict",
    ),
    Rule("chat", "save a note (memory_save)", "saved, one entry", "trinho.notes.store.save_note"),
    Rule(
        "chat",
        "relay the owner's word (basis user)",
        "saved as the owner's word: supersedes, history kept",
        "trinho.facts.rules.reconcile",
    ),
    Rule(
        "chat",
        "infer a fact against the owner's word (basis inferred)",
        "a proposal",
        "trinho.facts.rules.reconcile",
    ),
    Rule(
        "chat",
        "give a fact a valid_from after today",
        "refused in one line",
        "trinho.facts.rules.future_start_verdict",
    ),
    Rule(
        "chat", "approve or reject a proposal", "refused: no tool does", "trinho.tools.service.call"
    ),
    Rule(
        "chat",
        "write MEMORY.md or delete anything through trinho's tools",
        "refused: no tool does",
        "trinho.tools.service.call",
    ),
    Rule(
        "chat",
        "write /memories through Claude's memory tool",
        "notes appended; MEMORY.md only as the gate lets apply; a change to a line the owner "
        "wrote, or a fact against the owner's word, waits as a proposal",
        "trinho.integrations.store.MemoryFiles",
    ),
    Rule(
        "job",
        "save a note (memory_save)",
        "saved, one entry; it reaches MEMORY.md only through the gate",
        "trinho.notes.store.save_note",
    ),
    Rule(
        "job", "change a fact (any basis, any date)", "a proposal", "trinho.facts.rules.reconcile"
    ),
    Rule(
        "job", "approve or reject a proposal", "refused: no tool does", "trinho.tools.service.call"
    ),
    Rule(
        "job",
        "rewrite MEMORY.md (the weekly condensation)",
        "only what the gate table lets apply; the rest is held",
        "trinho.condense.rules.gate.gate",
    ),
    Rule(
        "mcp",
        "call a tool",
        "as a chat model, or as a job with `trinho mcp --as job`; never as the owner",
        "trinho.tools.service.Actor",
    ),
    Rule(
        "mcp", "approve or reject a proposal", "refused: no tool does", "trinho.tools.service.call"
    ),
    Rule(
        "mcp",
        "read .trinho/ or outside the workspace",
        "refused in one line",
        "trinho.search.service.readable_path",
    ),
)


def rules_of(party: Party) -> tuple[Rule, ...]:
    return tuple(rule for rule in RULES if rule.party == party)


def table_rows() -> list[str]:
    """The table as docs/rules.md and docs/security.md show it, header first."""
    rows = ["| who | asks to | outcome | enforced by |", "|---|---|---|---|"]
    rows += [f"| {WHO[r.party]} | {r.act} | {r.outcome} | `{r.enforced_by}` |" for r in RULES]
    return rows
