"""The run report: what a condensation run read, asked, decided and wrote, as plain values.

`to_dict` is the `--json` document; `render_report` is the owner's text, in their locale.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, Literal

from trinho.condense.rules.chunks import Chunk, Material
from trinho.condense.rules.gate import Change
from trinho.condense.rules.loss import memory_sides
from trinho.condense.rules.ops import Script
from trinho.condense.rules.screen import Candidate, Outcome, Unread
from trinho.i18n import N_, t
from trinho.i18n.keys import (
    GATE_ACTION,
    GATE_CLASS,
    IGNORED_WHY,
    LINE_NOTE,
    RUN_OUTCOME,
    SCREEN_DECISION,
)
from trinho.textnorm import short_ids

RunOutcome = Literal["done", "already_done", "skipped", "dry_run", "resumed"]
ScreenDecision = Literal["accept", "reject", "unreadable", "unscreened"]
"""A screened line's verdict as read; `unreadable`: asked, no verdict could be read (the line
is held); `unscreened`: not asked (the run's budget did not allow the call)."""


@dataclass(frozen=True)
class DayUsed:
    """One day of the window: how much it held and which rewrite calls read it."""

    day: date
    notes: int
    turns: int
    chunks: tuple[int, ...]
    used: bool
    """False when the call(s) that would have read it were not made (budget)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "day": self.day.isoformat(),
            "notes": self.notes,
            "turns": self.turns,
            "chunks": list(self.chunks),
            "used": self.used,
        }


@dataclass(frozen=True)
class ScreenLine:
    """One new line the screening was to judge, and what became of it (`reason`: the model's
    for a rejection, trinho's for an unreadable verdict)."""

    number: int
    line: str
    old: str | None
    decision: ScreenDecision
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "line": self.line,
            "old": self.old,
            "decision": self.decision,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class ReportChange:
    """A gate change, and for a held one the proposal it became (None: not proposed again
    because the owner already rejected the same change)."""

    change: Change
    proposal_id: str | None = None
    note: Literal["", "hand_edit", "rejected_before"] = ""
    """Why a held change has no proposal: the owner made it by hand during the run (the line
    simply stays), or the owner already rejected this very change."""

    def to_dict(self) -> dict[str, Any]:
        c = self.change
        data: dict[str, Any] = {
            "class": c.cls,
            "action": c.action,
            "old": c.old,
            "new": c.new,
            "reason": c.reason,
            "reason_code": c.reason_code,
            "reason_params": dict(c.reason_params),
        }
        if c.held:
            data["proposal"] = self.proposal_id
            if self.note:
                data["note"] = self.note
        return data


def reported(change: Change, to_propose: tuple[Change, ...]) -> ReportChange:
    """A gate change as the report lists it before it is proposed: a held change left out of
    `to_propose` is one the owner made by hand during the run."""
    if change.held and change not in to_propose:
        return ReportChange(change, note="hand_edit")
    return ReportChange(change)


@dataclass(frozen=True)
class Calls:
    purpose: str
    calls: int
    input_tokens: int
    output_tokens: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "purpose": self.purpose,
            "calls": self.calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
        }


@dataclass(frozen=True)
class RunReport:
    run_id: str
    outcome: RunOutcome
    today: date
    since: date
    message: str = ""
    notice: str = ""
    """Told once: the clock moved back behind the last run's cutoff, and what the run did."""
    prompts: tuple[str, ...] = ()
    days: tuple[DayUsed, ...] = ()
    chunks: int = 0
    """Rewrite calls made, one per chunk of the week read."""
    changes: tuple[ReportChange, ...] = ()
    screening: tuple[ScreenLine, ...] = ()
    screening_skipped: tuple[str, ...] = ()
    calls: tuple[Calls, ...] = ()
    restarts: int = 0
    written: bool = False
    before: str | None = None
    """Where the MEMORY.md the run replaced is kept; None when nothing was written, or when
    the run wrote the first MEMORY.md (`written` tells which)."""
    notification: str | None = None
    delivery: str = ""
    protocol: str = ""
    """How the model was asked: "ops" (an edit script) or "file" (the whole file)."""
    script: dict[str, Any] | None = None
    """Protocol ops: what the model's answers held (`script_summary`)."""

    @property
    def held(self) -> tuple[ReportChange, ...]:
        return tuple(rc for rc in self.changes if rc.change.held)

    @property
    def model_calls(self) -> int:
        return sum(c.calls for c in self.calls)

    @property
    def tokens(self) -> int:
        return sum(c.input_tokens + c.output_tokens for c in self.calls)

    def screened(self) -> dict[str, int]:
        """The new lines by what their screening gave: `accepted` and `rejected` (a verdict was
        read), `unscreened` (none: not asked, or unreadable), and `unreadable`, those of the
        unscreened whose screening was asked but could not be read, held for the owner."""
        decisions = Counter(s.decision for s in self.screening)
        return {
            "accepted": decisions["accept"],
            "rejected": decisions["reject"],
            "unscreened": decisions["unscreened"] + decisions["unreadable"],
            "unreadable": decisions["unreadable"],
        }

    def counts(self) -> dict[str, Any]:
        held = len(self.held)
        screened = self.screened()
        return {
            "changes": len(self.changes),
            "auto": len(self.changes) - held,
            "held": held,
            "by_class": dict(sorted(Counter(rc.change.cls for rc in self.changes).items())),
            "candidates": len(self.screening),
            "accepted": screened["accepted"],
            "rejected": screened["rejected"],
            "unscreened": screened["unscreened"],
            "unreadable": screened["unreadable"],
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "outcome": self.outcome,
            "today": self.today.isoformat(),
            "since": self.since.isoformat(),
            "message": self.message,
            "notice": self.notice,
            "prompts": list(self.prompts),
            "protocol": self.protocol,
            "script": self.script,
            "counts": self.counts(),
            "days": [d.to_dict() for d in self.days],
            "chunks": self.chunks,
            "changes": [rc.to_dict() for rc in self.changes],
            "screening": {
                **self.screened(),
                "verdicts": [s.to_dict() for s in self.screening],
                "skipped": list(self.screening_skipped),
            },
            "model": {
                "calls": self.model_calls,
                "input_tokens": sum(c.input_tokens for c in self.calls),
                "output_tokens": sum(c.output_tokens for c in self.calls),
                "by_purpose": [c.to_dict() for c in self.calls],
            },
            "restarts": self.restarts,
            "written": self.written,
            "before": self.before,
            "notification": self.notification,
            "delivery": self.delivery,
        }


def script_summary(script: Script) -> dict[str, Any]:
    """The `script` of a run report: operations applied, ignored ones with why, chatter."""
    return {
        "operations": len(script.ops),
        "ignored": [{"line": i.source, "text": i.raw, "why": i.why} for i in script.ignored],
        "chatter": script.chatter,
        "chatter_samples": list(script.samples),
        "none": script.none,
        "whole_file": script.whole_file is not None,
    }


def _change_lines(rc: ReportChange, locale: str, short: dict[str, str]) -> list[str]:
    c = rc.change
    action = t(locale, GATE_ACTION[c.action])
    proposal = f" [{short[rc.proposal_id]}]" if rc.proposal_id else ""
    if rc.note:
        proposal = f" ({t(locale, LINE_NOTE[rc.note])})"
    label = t(locale, GATE_CLASS[c.cls])
    lines = [f"[{action}] {label}{proposal}: {c.reason_in(locale)}"]
    if c.cls == "archive":
        old, _ = memory_sides(c.to_dict(), locale)
        return [*lines, *(f"    {line}" for line in (old or "").split("\n"))]
    if c.old is not None:
        lines.append(f"    - {c.old}")
    if c.new is not None:
        lines.append(f"    + {c.new}")
    return lines


def _script_lines(summary: dict[str, Any], locale: str) -> list[str]:
    """What the edit scripts held, and the first few operations that were not applied."""
    ignored: list[dict[str, Any]] = summary["ignored"]
    chatter = t(locale, "condense.count.other_lines", count=summary["chatter"])
    if summary["whole_file"]:
        ops = t(locale, "condense.count.operations", count=len(ignored))
        lines = [t(locale, "condense.script.whole_file", ops=ops, chatter=chatter)]
    else:
        ops = t(locale, "condense.count.operations", count=summary["operations"])
        lines = [t(locale, "condense.script", ops=ops, ignored=len(ignored), chatter=chatter)]
    for item in ignored[:5]:
        why = t(locale, IGNORED_WHY[item["why"]])
        lines.append(f"    {item['line']}: {why}: {item['text']}")
    return lines


def day_line(day: object, notes: object, turns: object, used: object, locale: str) -> str:
    """One day of the run's window as the report and the run's page list it: its notes and
    turns, each count with its noun's form; a count a damaged report lacks shows as it is."""

    def counted(key: str, value: object) -> object:
        return t(locale, key, count=value) if isinstance(value, int) else value

    key = N_("condense.day.used") if used else N_("condense.day.unused")
    notes_said = counted(N_("condense.count.notes"), notes)
    turns_said = counted(N_("condense.count.turns"), turns)
    return t(locale, key, day=day, notes=notes_said, turns=turns_said)


def render_report(report: RunReport, locale: str) -> str:
    """The report as the owner reads it at the terminal."""
    lines = [
        t(
            locale,
            RUN_OUTCOME[report.outcome],
            run=report.run_id,
            since=report.since,
            today=report.today,
        )
    ]
    if report.notice:
        lines.append(report.notice)
    if report.message:
        lines.append(report.message)
    if report.outcome in ("already_done", "skipped"):
        return "\n".join(lines)
    lines.extend(day_line(d.day, d.notes, d.turns, d.used, locale) for d in report.days)
    if report.prompts:
        lines.append(t(locale, "condense.prompts", versions=", ".join(report.prompts)))
    if report.script is not None:
        lines.extend(_script_lines(report.script, locale))
    short = short_ids(rc.proposal_id for rc in report.changes if rc.proposal_id)
    for rc in report.changes:
        lines.extend(_change_lines(rc, locale, short))
    for s in report.screening:
        reason = f": {s.reason}" if s.reason else ""
        decision = t(locale, SCREEN_DECISION[s.decision])
        lines.append(f"  {s.number}. {decision}{reason}  {s.line}")
    lines.extend(report.screening_skipped)
    counts = report.counts()
    lines.append(
        t(
            locale,
            "condense.summary",
            auto=t(locale, "condense.count.changes", count=counts["auto"]),
            held=counts["held"],
            candidates=t(locale, "condense.count.new_lines", count=counts["candidates"]),
            accepted=counts["accepted"],
            rejected=counts["rejected"],
            unscreened=counts["unscreened"],
            calls=t(locale, "condense.count.calls", count=report.model_calls),
            tokens=t(locale, "condense.count.tokens", count=report.tokens),
            restarts=t(locale, "condense.count.restarts", count=report.restarts),
        )
    )
    if counts["unreadable"]:
        lines.append(t(locale, "condense.summary.unreadable", count=counts["unreadable"]))
    if report.before:
        lines.append(t(locale, "condense.undo_hint", path=report.before, run=report.run_id))
    elif report.written:
        lines.append(t(locale, "condense.no_before", run=report.run_id))
    return "\n".join(lines)


def days_used(
    items: Sequence[Material],
    since: date,
    today: date,
    read: tuple[Chunk, ...],
    unread: tuple[Material, ...],
) -> tuple[DayUsed, ...]:
    """Every day of the window: its material, the chunks that read it, whether all was read."""
    result = []
    left = {m.day for m in unread}
    day = since
    while day <= today:
        notes = {i.where for i in items if i.day == day and i.source == "note"}
        turns = {i.where for i in items if i.day == day and i.source == "conversation"}
        numbers = tuple(c.number for c in read if day in c.days)
        result.append(DayUsed(day, len(notes), len(turns), numbers, day not in left))
        day += timedelta(days=1)
    return tuple(result)


def screen_line(candidate: Candidate, outcome: Outcome | None, locale: str) -> ScreenLine:
    """One candidate as the report lists it: accepted, rejected (with the model's reason),
    unread (with why, in the owner's locale: it is held), or not asked."""
    c = candidate
    if outcome is None:
        return ScreenLine(c.number, c.line, c.old, "unscreened")
    if isinstance(outcome, Unread):
        return ScreenLine(c.number, c.line, c.old, "unreadable", outcome.why.text(locale))
    return ScreenLine(c.number, c.line, c.old, outcome.decision, outcome.reason)
