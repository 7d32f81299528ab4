"""Prompt assembly: what goes into the model's context each turn ("Into the prompt").

- The system block holds MEMORY.md and the facts index, every turn. It depends on nothing but
  their content, so it stays byte-identical between turns while nothing changed (prompt caching).
- The preamble, placed before the turn's opening message, holds yesterday's and today's notes.
- Nothing else: older notes, conversations and fact history are reached through memory_search.
- In an OpenClaw workspace the files OpenClaw puts in its own prompt (`loaded_by_openclaw`) are
  named, not repeated: MEMORY.md among them is left out of the system block.

When a part is over its token budget the newest entries are kept and the prompt says how many
were left out and that memory_search finds them. Nothing is cut silently. The facts index
(`trinho.facts.render`) goes in uncapped (`fact_lines`): its only limit in the prompt is
`Budgets.facts`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

from trinho.context.budget import estimate_tokens
from trinho.facts.render import current_facts, index_line
from trinho.facts.rules import Fact
from trinho.i18n import N_, t
from trinho.memory import format as memory_md

MEMORY_FILE = "MEMORY.md"


@dataclass(frozen=True)
class Budgets:
    """Token budgets per part. Defaults fit a 32k-token model with room for the conversation."""

    memory: int = 6000
    facts: int = 1500
    notes: int = 3000


@dataclass(frozen=True)
class FactLine:
    """One line of the facts index and the date it holds since (newest are kept first)."""

    text: str
    since: date


def fact_lines(facts: Sequence[Fact], today: date, locale: str) -> list[FactLine]:
    """The index for the prompt, uncapped: `assemble` keeps the newest within `Budgets.facts`."""
    return [
        FactLine(index_line(entry, locale), entry.valid_from)
        for entry in current_facts(facts, today)
    ]


# ---- the parts of the prompt ------------------------------------------------------------------


@dataclass(frozen=True)
class NoteLine:
    """One daily-note entry as it goes into the preamble; `time` None for a line typed by
    hand without one, shown as it is written."""

    day: date
    time: str | None
    text: str


@dataclass(frozen=True)
class ContextInputs:
    memory_text: str
    facts: Sequence[FactLine]
    yesterday: Sequence[NoteLine]
    today: Sequence[NoteLine]
    loaded_by_openclaw: tuple[str, ...] = ()


@dataclass(frozen=True)
class Context:
    system: str
    preamble: str
    tokens: dict[str, int]
    omitted: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {
            "system": self.system,
            "preamble": self.preamble,
            "tokens": dict(self.tokens),
            "omitted": dict(self.omitted),
        }


def _fit_newest(lines: Sequence[str], order: Sequence[int], budget: int) -> set[int]:
    """Indices of `lines` kept within `budget` tokens, taking them in `order` (newest first)."""
    kept: set[int] = set()
    used = 0
    for index in order:
        cost = estimate_tokens(lines[index]) + 1
        if used + cost > budget:
            break
        kept.add(index)
        used += cost
    return kept


@functools.lru_cache(maxsize=8)
def _memory_part(text: str, budget: int, locale: str) -> tuple[str, int]:
    """MEMORY.md within budget: headings stay, the oldest entries go first, then prose.

    Loose prose lines count as the newest (a person typed them), so they go only when prose
    alone is over budget, as in a MEMORY.md kept by hand; then the last lines stay. Either way
    the prompt says how many lines are left out, and memory_search finds them.
    Memoized: MEMORY.md rarely changes between turns, and parsing it is most of a turn's cost.
    """
    doc = memory_md.parse(text)
    raws = [item.raw.rstrip("\r") for item in doc.items]
    while raws and not raws[-1].strip():
        raws.pop()
    ranked = {
        i: (item.date or date.min) if isinstance(item, memory_md.Entry) else date.max
        for i, item in enumerate(doc.items[: len(raws)])
        if isinstance(item, memory_md.Entry)
        or (isinstance(item, memory_md.Loose) and not item.blank)
    }
    fixed_cost = sum(estimate_tokens(raws[i]) + 1 for i in range(len(raws)) if i not in ranked)
    order = sorted(ranked, key=lambda i: (ranked[i], i), reverse=True)
    kept = _fit_newest(raws, order, max(budget - fixed_cost, 0))
    omitted = len(ranked) - len(kept)
    dropped = set(ranked) - kept
    lines = [raw for i, raw in enumerate(raws) if i not in dropped]
    if omitted:
        lines.append(t(locale, "context.omitted", count=omitted))
    return "\n".join(lines), omitted


def _facts_part(facts: Sequence[FactLine], budget: int, locale: str) -> tuple[str, int]:
    texts = [fact.text for fact in facts]
    order = sorted(range(len(facts)), key=lambda i: (facts[i].since, -i), reverse=True)
    kept = _fit_newest(texts, order, budget)
    omitted = len(facts) - len(kept)
    lines = [text for i, text in enumerate(texts) if i in kept]
    if omitted:
        lines.append(t(locale, "context.facts_omitted", count=omitted))
    return "\n".join(lines), omitted


def _notes_part(
    yesterday: Sequence[NoteLine], today: Sequence[NoteLine], budget: int, locale: str
) -> tuple[str, int]:
    notes = [*yesterday, *today]
    rendered = [
        note.text if note.time is None else f"- {note.time} {note.text}".replace("\n", "\n  ")
        for note in notes
    ]
    order = list(range(len(notes)))[::-1]
    kept = _fit_newest(rendered, order, budget)
    omitted = len(notes) - len(kept)
    blocks: list[str] = []
    for label, day_notes, offset in (
        (N_("context.yesterday"), yesterday, 0),
        (N_("context.today"), today, len(yesterday)),
    ):
        if not day_notes:
            continue
        shown = [rendered[offset + i] for i in range(len(day_notes)) if offset + i in kept]
        day = day_notes[0].day.isoformat()
        blocks.append("\n".join([t(locale, label, date=day), *shown]))
    if omitted:
        blocks.append(t(locale, "context.notes_omitted", count=omitted))
    return "\n\n".join(blocks), omitted


def assemble(inputs: ContextInputs, budgets: Budgets, locale: str) -> Context:
    """Build the system block and the preamble from the workspace's state, in the owner's locale."""
    loaded = inputs.loaded_by_openclaw
    facts_text, facts_omitted = _facts_part(inputs.facts, budgets.facts, locale)
    system_parts = [t(locale, "context.system_intro")]
    if loaded:
        system_parts.append(t(locale, "context.loaded_by_openclaw", files=", ".join(loaded)))
    memory_omitted = 0
    if MEMORY_FILE not in loaded:
        memory_text, memory_omitted = _memory_part(inputs.memory_text, budgets.memory, locale)
        system_parts.append(t(locale, "context.memory_heading"))
        system_parts.append(memory_text or t(locale, "context.empty"))
    system_parts.append(t(locale, "context.facts_heading"))
    system_parts.append(facts_text or t(locale, "context.empty"))
    system = "\n\n".join(system_parts) + "\n"
    notes_text, notes_omitted = _notes_part(inputs.yesterday, inputs.today, budgets.notes, locale)
    preamble = notes_text + "\n" if notes_text else ""
    omitted = {"memory": memory_omitted, "facts": facts_omitted, "notes": notes_omitted}
    return Context(
        system=system,
        preamble=preamble,
        tokens={"system": estimate_tokens(system), "preamble": estimate_tokens(preamble)},
        omitted=omitted,
    )
