"""What each scheduled job does when it runs (the scheduler decides when).

- `facts` (built in): the model reads the conversations of the 24 hours before the slot and
  saves facts about the owner with `user_memory_save`; run as actor `job`, every such fact
  becomes a proposal, never a silent change.
- `prompt` (`[[jobs]]` in the config): the job's prompt, sent to the model with the memory
  tools, as actor `job`.
- `digest` (built in): one announcement of what the jobs proposed since the last one.
- `condense` (built in): the weekly condensation (`trinho.condense`), once per slot.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from trinho.channels import Channel
from trinho.conversations.agent import TurnResult, run_turn
from trinho.conversations.store import StoredTurn, read_turns
from trinho.i18n import t
from trinho.models import ChatModel
from trinho.proposals import store as proposals
from trinho.proposals.format import Source
from trinho.review.announce import enqueue_digest
from trinho.schedule.plan import DueRun
from trinho.tools.service import Actor
from trinho.workspace import Workspace

MAX_TRANSCRIPT_CHARS = 60_000
"""How much of the day's conversation the facts job shows the model (the newest part)."""

ModelFactory = Callable[[DueRun], ChatModel]
"""The model for one run (the service wraps the configured one in the usage ledger)."""


class CondenseRun(Protocol):
    """Runs the weekly condensation for a due slot; returns a one-line summary."""

    def __call__(self, ws: Workspace, run: DueRun) -> str: ...


def slot_condensed(done_at: datetime | None, slot: datetime) -> bool:
    """Whether this week's last finished run already covers the slot (it finished after it).

    The condensation keeps one run per ISO week unless forced. A scheduled slot forces a new
    run when the week's last run finished before the slot (a catch-up on a Tuesday for the
    previous Sunday, or a run by hand on a Saturday), so no days fall between two runs; a run
    that finished after the slot (the same slot, re-run after a crash) is not repeated.
    """
    return done_at is not None and done_at >= slot


@dataclass
class ScheduledCondensation:
    """The `CondenseRun` of the service: `trinho.condense` with its own models and ledger."""

    model: ChatModel | None = None
    channel: Channel | None = None

    def __call__(self, ws: Workspace, run: DueRun) -> str:
        from trinho.condense.run import run_condensation
        from trinho.condense.store.runs import read_journal, week_id, week_runs

        ids = week_runs(ws, week_id(ws.today()))
        last = read_journal(ws, ids[-1]) if ids else None
        done_at = last.updated_at if last is not None and last.state == "done" else None
        if last is not None and slot_condensed(done_at, run.slot):
            return t(ws.locale, "jobs.condense_already", run=last.run_id)
        report = run_condensation(ws, model=self.model, force=True, channel=self.channel)
        counts = report.counts()
        return t(
            ws.locale,
            "jobs.condense_done",
            run=report.run_id,
            outcome=report.outcome,
            auto=t(ws.locale, "condense.count.changes", count=counts["auto"]),
            held=counts["held"],
        )


def conversation_text(turns: Sequence[StoredTurn], since: datetime, until: datetime) -> str:
    """The turns in (`since`, `until`] as `[HH:MM] role: text` lines, cut to the newest part."""
    lines = [
        f"[{s.turn.at.astimezone(until.tzinfo).strftime('%Y-%m-%d %H:%M')}] {s.turn.role}: "
        f"{s.turn.text}"
        for s in turns
        if since < s.turn.at <= until
    ]
    kept: list[str] = []
    used = 0
    for line in reversed(lines):
        used += len(line) + 1
        if used > MAX_TRANSCRIPT_CHARS:
            break
        kept.append(line)
    return "\n".join(reversed(kept))


@dataclass
class WorkspaceJobRunner:
    """The scheduler's `JobRunner` for one workspace: each kind of job, run as it says."""

    ws: Workspace
    model_for: ModelFactory
    condense: CondenseRun = field(default_factory=ScheduledCondensation)

    def __call__(self, run: DueRun) -> str:
        kind = run.job.kind
        if kind == "facts":
            return self._facts(run)
        if kind == "prompt":
            return self._prompt(run, run.job.prompt)
        if kind == "digest":
            notification = enqueue_digest(self.ws, self.ws.local_date(run.slot))
            count = 0 if notification is None else len(notification.items)
            return t(self.ws.locale, "jobs.digest_done", count=count)
        return self.condense(self.ws, run)

    def _facts(self, run: DueRun) -> str:
        since = run.slot - timedelta(days=1)
        turns = read_turns(self.ws, self.ws.local_date(since), self.ws.local_date(run.slot))
        text = conversation_text(turns, since, run.slot.astimezone(self.ws.tz))
        if not text:
            return t(self.ws.locale, "jobs.facts_nothing")
        prompt = t(self.ws.locale, "jobs.facts_prompt", since=since.isoformat())
        seen = tuple(
            Source("turn", f"{s.path}#{s.line}", s.turn.text) for s in turns if since < s.turn.at
        )
        return self._prompt(run, f"{prompt}\n\n{text}", seen)

    def _prompt(self, run: DueRun, text: str, seen: tuple[Source, ...] = ()) -> str:
        before = {p.id for p in proposals.list_proposals(self.ws).proposals}
        result: TurnResult = run_turn(
            self.ws,
            self.model_for(run),
            text,
            actor=Actor("job", run.job.name, seen=seen),
            record=False,
        )
        made = [p for p in proposals.list_proposals(self.ws).proposals if p.id not in before]
        return t(
            self.ws.locale,
            "jobs.prompt_done",
            calls=len(result.tool_uses),
            errors=sum(1 for u in result.tool_uses if u.is_error),
            proposals=len(made),
        )
