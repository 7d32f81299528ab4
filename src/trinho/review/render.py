"""The owner's reading of facts and proposals: the lines `trinho fact get|history` and
`trinho proposals` print, in the owner's locale.

Kept out of the CLI so the demo shows exactly what those commands print, from the same code.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable

from trinho.condense.rules.archive import budget_words
from trinho.condense.rules.explain import related
from trinho.condense.rules.loss import suspicious_sides
from trinho.condense.rules.reasons import owner_reason, stored_reason
from trinho.facts.rules import FactVersion
from trinho.i18n import t
from trinho.i18n.keys import (
    BASIS_WORDS,
    FACT_REASON,
    GATE_CLASS,
    PROPOSAL_STATUS,
    RISK_LABEL,
)
from trinho.proposals.format import Proposal, Source
from trinho.review.risk import Risk, review_order, risk_of
from trinho.textnorm import has_hidden, short_ids, show_hidden, show_hidden_lines


def fact_version_line(locale: str, key: str, v: FactVersion) -> str:
    """One value of a fact with the days it holds (`now` when it has no end)."""
    until = v.valid_to.isoformat() if v.valid_to else t(locale, "fact.open_end")
    return t(
        locale,
        "fact.value",
        fact=key,
        value=v.value,
        basis=t(locale, BASIS_WORDS.get(v.basis, BASIS_WORDS["inferred"])),
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
    if proposal.kind == "memory" and "class" in change:
        cls = str(change["class"])
        label = t(locale, GATE_CLASS[cls]) if cls in GATE_CLASS else cls
        sides = [str(change[k]) for k in ("old", "new") if change.get(k) is not None]
        sides = [show_hidden_lines(side) for side in sides]
        return f"{label}: " + " -> ".join(sides) if sides else label
    summary = change.get("summary")
    return str(summary) if summary else proposal.kind


def proposal_details(proposal: Proposal, locale: str) -> str:
    """Under a rewrite held whole, the lines it would remove and add, indented."""
    if proposal.kind != "memory" or proposal.change.get("class") != "suspicious":
        return ""
    sides = suspicious_sides(proposal.change, locale)
    return "".join(f"\n    {show_hidden(line)}" for side in sides for line in side.splitlines())


LINE_WIDTH = 100
"""No line of `trinho proposals` is longer (a phone's terminal, an 80-100 column window)."""
WHY_LINES = 3
"""Why a change waits takes up to this many lines: a removal's reason is read, not cut."""


def _wrapped(text: str, most: int = WHY_LINES) -> list[str]:
    """`text` indented under a block's head, over at most `most` lines (the last one cut)."""
    lines = textwrap.wrap(" ".join(text.split()), LINE_WIDTH - 4) or [""]
    if len(lines) > most:
        lines = [*lines[: most - 1], _fit(" ".join(lines[most - 1 :]), LINE_WIDTH - 4)]
    return ["  " + lines[0], *("    " + line for line in lines[1:])]


def _fit(text: str, width: int = LINE_WIDTH) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1].rstrip() + "…"


def proposal_what(p: Proposal, locale: str) -> str:
    """What the change does to the owner's memory, in one line: its risk and the text."""
    label = t(locale, RISK_LABEL[int(risk_of(p))])
    change = p.change
    if p.kind == "memory" and change.get("class") == "archive":
        lines = [line for line in str(change.get("old") or "").split("\n") if line.strip()]
        first = show_hidden(lines[0]) if lines else ""
        if len(lines) > 1:
            return f"{label}: " + t(locale, "channel.line.more", text=first, count=len(lines) - 1)
        return f"{label}: {first}"
    if p.kind == "memory" and change.get("class") == "suspicious":
        return f"{label}: {proposal_summary(p, locale)}"
    if p.kind == "memory":
        sides = [str(change[k]) for k in ("old", "new") if change.get(k) is not None]
        sides = [show_hidden_lines(side) for side in sides]
        return f"{label}: " + " → ".join(sides) if sides else label
    return f"{label}: {proposal_summary(p, locale).replace(' -> ', ' → ')}"


def proposal_block(p: Proposal, locale: str, short: str) -> str:
    """One proposal in a few short lines: id and what it does; why; who and when; where from."""
    head = t(
        locale, "proposals.block.head", id=short, status=t(locale, PROPOSAL_STATUS[p.status]),
        what=proposal_what(p, locale),
    )  # fmt: skip
    created = p.created_at.strftime("%Y-%m-%d %H:%M")
    by = t(locale, "proposals.block.by", who=proposer_words(p, locale), created=created)
    lines = [
        _fit(head),
        *_wrapped(t(locale, "proposals.block.why", text=reason_words(p, locale))),
        "  " + _fit(by, LINE_WIDTH - 2),
    ]
    drawn = where_from(p)
    where = f"“{show_hidden(drawn[0].text)}”" if drawn else t(locale, "review.from.none")
    lines.append("  " + _fit(t(locale, "proposals.block.from", text=where), LINE_WIDTH - 2))
    details = proposal_details(p, locale).splitlines()
    for d in (d for d in details if d.strip()):
        lead = d[: len(d) - len(d.lstrip())]
        lines.append(lead + _fit(d, LINE_WIDTH - len(lead)))
    return "\n".join(lines)


def proposals_text(locale: str, shown: list[Proposal], every: Iterable[str] = ()) -> str:
    """The proposals listing, riskiest first (`review_order`, as every review surface): a
    short block each (no line over `LINE_WIDTH`), ids cut to the prefix that names them among
    `every` id (default: those shown), which every command that takes an id accepts."""
    if not shown:
        return t(locale, "proposals.none")
    short = short_ids([*every, *(p.id for p in shown)])
    return "\n\n".join(proposal_block(p, locale, short[p.id]) for p in review_order(shown))


# --- the review as the owner reads it: who, why, and what each button does ---------------------

_BUTTON_VALUE_CHARS = 30
"""How much of a value a button label quotes (a chat button shows about one line)."""


def proposer_words(p: Proposal, locale: str) -> str:
    """Who proposed, in words the owner uses: never an origin code such as `agent:main`."""
    kind, _, name = p.origin.partition(":")
    if kind == "condense":
        return t(locale, "review.by.condense")
    if kind in ("agent", "chat"):
        if name in ("", "main"):
            return t(locale, "review.by.chat")
        return t(locale, "review.by.agent", name=name)
    if kind == "job":
        if name == "facts":
            return t(locale, "review.by.facts")
        if name == "":
            return t(locale, "review.by.some_job")
        return t(locale, "review.by.job", name=name)
    if kind == "mcp":
        return t(locale, "review.by.mcp")
    if kind == "owner":
        return t(locale, "review.by.owner")
    return t(locale, "review.by.other")


def where_from(p: Proposal) -> tuple[Source, ...]:
    """The notes, turns or lines that led to the change, as every review surface cites them: a
    fact's as its proposer named them; for a MEMORY.md change never the line it removes or
    edits, and only a source sharing meaningful words with its new text, or with the model's
    reason for a removal (`explain.related`: a proposal stored before that rule is held to it
    here)."""
    if p.kind != "memory":
        return p.sources
    drawn = tuple(s for s in p.sources if s.kind != "memory")
    new = p.change.get("new")
    basis = new if isinstance(new, str) else p.why
    return tuple(s for s in drawn if basis and related(s.text, basis))


def gate_reason_words(p: Proposal, locale: str) -> str:
    """The reason code decided with, in `locale`: a MEMORY.md change's gate reason, a fact's
    reconciliation reason (a job's proposal, or an inference against the owner's word)."""
    if p.kind == "fact":
        job = p.origin == "job" or p.origin.startswith("job:")
        hidden = any(map(has_hidden, str(p.change.get("value", "")).split("\n")))
        why = "job" if job else "hidden_chars" if hidden else "contradicts_user"
        return t(
            locale,
            FACT_REASON[why],
            fact=_clip(str(p.change.get("key", "")), 60),
        )
    code = p.change.get("reason_code")
    if is_archive(p) or (p.kind == "memory" and code == "over_budget"):  # the budget's
        params = p.change.get("reason_params")
        return budget_words(params if isinstance(params, dict) else {}, locale)
    if p.kind == "memory":
        return owner_reason(p.change, p.reason, locale)
    return proposal_reason(p, locale)


def reason_words(p: Proposal, locale: str) -> str:
    """Why the change waits, in the owner's language, with the proposer's own reason beside
    it when it gave one."""
    reason = gate_reason_words(p, locale)
    if p.why and not is_archive(p):  # an archive's one reason is the budget's
        return t(locale, "review.reason_with_why", reason=reason, why=p.why)
    return reason


def is_archive(p: Proposal) -> bool:
    """Whether `p` moves MEMORY.md's oldest entries to the archive."""
    return p.kind == "memory" and p.change.get("class") == "archive"


def effect_words(p: Proposal, locale: str) -> tuple[str, str]:
    """The approve and the reject button labels, named by what each does to the owner's memory."""
    risk = risk_of(p)
    change = p.change
    new = _clip(str(change.get("value") or change.get("new") or ""), _BUTTON_VALUE_CHARS)
    if risk is Risk.REMOVES:
        if p.kind == "memory" and change.get("class") == "suspicious":
            return t(locale, "review.do.rewrite"), t(locale, "review.keep.file")
        return t(locale, "review.do.remove"), t(locale, "review.keep.line")
    if risk is Risk.ARCHIVES:
        return t(locale, "review.do.archive"), t(locale, "review.keep.in_memory")
    if risk is Risk.REPLACES_OWNER:
        return t(locale, "review.do.replace_owner", new=new), t(locale, "review.keep.owner")
    if risk is Risk.ADDS:
        if p.kind == "fact":
            return t(locale, "review.do.save", new=new), t(locale, "review.keep.unsaved")
        return t(locale, "review.do.add"), t(locale, "review.keep.unadded")
    if p.kind == "fact":
        return t(locale, "review.do.change", new=new), t(locale, "review.keep.old")
    return t(locale, "review.do.edit"), t(locale, "review.keep.old")


def _clip(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
