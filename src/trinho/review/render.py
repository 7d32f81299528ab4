"""The owner's reading of facts and proposals: the lines `trinho fact get|history` and
`trinho proposals` print, in the owner's locale.

Kept out of the CLI so the demo shows exactly what those commands print, from the same code.
"""

from __future__ import annotations

from collections.abc import Iterable

from trinho.condense.rules.loss import suspicious_sides
from trinho.condense.rules.reasons import stored_reason
from trinho.facts.rules import FactVersion
from trinho.i18n import t
from trinho.i18n.keys import GATE_CLASS, PROPOSAL_STATUS
from trinho.proposals.store import Proposal


def fact_version_line(locale: str, key: str, v: FactVersion) -> str:
    """One value of a fact with the days it holds (`now` when it has no end)."""
    until = v.valid_to.isoformat() if v.valid_to else t(locale, "fact.open_end")
    return t(
        locale,
        "fact.value",
        fact=key,
        value=v.value,
        basis=v.basis,
        since=v.valid_from,
        until=until,
    )


def fact_history_text(locale: str, key: str, versions: Iterable[FactVersion]) -> str:
    """Every version of a fact, one line each, as they are given (oldest first)."""
    return "\n".join(fact_version_line(locale, key, v) for v in versions)


def proposal_reason(proposal: Proposal, locale: str) -> str:
    """A proposal's reason as the owner reads it: a MEMORY.md change's from its code, in
    `locale`; any other kind (already written in the owner's locale), as stored."""
    if proposal.kind != "memory":
        return proposal.reason
    return stored_reason(proposal.change, proposal.reason, locale)


def proposal_summary(proposal: Proposal, locale: str) -> str:
    """What a proposal would change, in one line."""
    change = proposal.change
    if "key" in change and "value" in change:
        was = change.get("current_value")
        arrow = f"{was} -> " if was is not None else ""
        return f"{change['key']}: {arrow}{change['value']}"
    if proposal.kind == "memory" and change.get("class") == "archive":
        count = len(str(change.get("old") or "").split("\n"))
        return t(locale, "condense.archive_summary", count=count)
    if proposal.kind == "memory" and "class" in change:
        sides = [str(change[side]) for side in ("old", "new") if change.get(side) is not None]
        cls = str(change["class"])
        label = t(locale, GATE_CLASS[cls]) if cls in GATE_CLASS else cls
        return f"MEMORY.md {label}: " + " -> ".join(sides) if sides else f"MEMORY.md {label}"
    summary = change.get("summary")
    return str(summary) if summary else proposal.kind


def proposal_details(proposal: Proposal, locale: str) -> str:
    """Under a rewrite held whole, the lines it would remove and add, indented."""
    if proposal.kind != "memory" or proposal.change.get("class") != "suspicious":
        return ""
    sides = suspicious_sides(proposal.change, locale)
    return "".join(f"\n    {line}" for side in sides for line in side.splitlines())


def proposals_text(locale: str, shown: list[Proposal]) -> str:
    """The proposals listing: one line each with its status, change, origin and reason; a
    rewrite held whole is followed by the lines it would remove and add."""
    if not shown:
        return t(locale, "proposals.none")
    return "\n".join(
        t(
            locale,
            "proposals.line",
            id=p.id,
            status=t(locale, PROPOSAL_STATUS[p.status]),
            summary=proposal_summary(p, locale),
            origin=p.origin,
            created=p.created_at.strftime("%Y-%m-%d %H:%M"),
            reason=proposal_reason(p, locale),
        )
        + proposal_details(p, locale)
        for p in shown
    )
