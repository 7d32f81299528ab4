"""Reading the workspace for the prompt: the imperative shell around
`trinho.context.assembly.assemble`.

`build_context` reads MEMORY.md, the facts index, yesterday's and today's notes, takes the
budgets from the config (`[context] memory_tokens, facts_tokens, notes_tokens`) and assembles.
In an OpenClaw workspace (`trinho.openclaw.files.openclaw_enabled`) each day's notes also hold its
slugged session files (`memory/DAY-slug.md`), within the same notes budget, and the bootstrap
files OpenClaw loads itself are named instead of repeated.
When a part goes over its budget the owner is warned once: a notification with a stable id
(`context-budget:PART:DAY`) goes to the channel outbox, and `.trinho/context_warnings.json`
remembers the open episode so no more are sent while that part stays over budget; once it
fits again, a later overflow warns again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from trinho.boundary import public_error
from trinho.context.assembly import (
    Budgets,
    Context,
    ContextInputs,
    FactLine,
    NoteLine,
    assemble,
    fact_lines,
)
from trinho.durable import atomic_write_text
from trinho.errors import TrinhoError
from trinho.facts.store import list_facts
from trinho.i18n import t
from trinho.i18n.keys import BUDGET_WARNING
from trinho.memory import store as memory_store
from trinho.notes.format import NoteEntry, NoteItem
from trinho.notes.store import day_files, read_note_file
from trinho.openclaw.files import bootstrap_present, openclaw_enabled
from trinho.workspace import Workspace

if TYPE_CHECKING:
    from trinho.records.protocol import Records

PARTS = ("memory", "facts", "notes")
_BUDGET_KEYS = {"memory": "memory_tokens", "facts": "facts_tokens", "notes": "notes_tokens"}
WARNINGS_FILE = "context_warnings.json"


def budgets_from_config(ws: Workspace) -> Budgets:
    """`[context]` budgets from the config; each missing one keeps its documented default."""
    section = ws.config.context
    return Budgets(
        memory=section.memory_tokens, facts=section.facts_tokens, notes=section.notes_tokens
    )


def facts_lines(ws: Workspace, user: str) -> list[FactLine]:
    """The current facts for the prompt, uncapped: `assemble` keeps the newest within budget."""
    return fact_lines(list_facts(ws, user).facts, ws.today(), ws.locale)


def _note_lines(ws: Workspace, day: date, *, sessions: bool = False) -> list[NoteLine]:
    """The day's entries, any prose typed into the note by hand and its headings (an OpenClaw
    note's `## 14:00 - Topic` says what the lines under it are about), in file order; OpenClaw's
    markers and managed dreaming blocks are left out. With `sessions`, OpenClaw's slugged
    session files of the day follow `memory/DAY.md`, in name order, read the same way."""
    files = day_files(ws, day)
    lines = []
    for rel in files if sessions else files[:1]:
        try:
            items = read_note_file(ws, rel).items
        except (TrinhoError, OSError) as exc:  # too large, a FIFO, unreadable: that file only
            reason = public_error(exc, ws.root).localized(ws.locale)
            lines.append(
                NoteLine(day, None, t(ws.locale, "context.note_left_out", path=rel, reason=reason))
            )
            continue
        lines.extend(note_lines(day, items))
    return lines


def note_lines(day: date, items: Iterable[NoteItem]) -> list[NoteLine]:
    """One day file's lines for the prompt, in file order: its entries, the prose typed into
    it by hand and its headings; OpenClaw's markers and managed blocks left out. Whichever
    store the file came from."""
    lines = []
    for item in items:
        if isinstance(item, NoteEntry):
            lines.append(NoteLine(day, item.time, item.text))
        elif item.shown:
            text = item.raw.lstrip("\ufeff").strip() if item.heading else item.shown
            lines.append(NoteLine(day, None, text))
    return lines


def read_inputs(ws: Workspace, user: str, *, openclaw: bool | None = None) -> ContextInputs:
    """Everything the prompt is made of, read from the workspace at its current time.
    `openclaw` None follows `[context] openclaw` (by default: whether the folder is OpenClaw's)."""
    today = ws.today()
    oc = openclaw_enabled(ws) if openclaw is None else openclaw
    memory_text = memory_store.read_text(ws)
    return ContextInputs(
        memory_text=memory_text,
        facts=facts_lines(ws, user),
        yesterday=_note_lines(ws, today - timedelta(days=1), sessions=oc),
        today=_note_lines(ws, today, sessions=oc),
        loaded_by_openclaw=bootstrap_present(ws) if oc else (),
    )


@dataclass(frozen=True)
class BudgetWarning:
    """A part of the prompt went over its budget; `id` is stable for the whole episode."""

    id: str
    part: str
    omitted: int
    budget: int

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "part": self.part, "omitted": self.omitted, "budget": self.budget}


def budget_warnings(
    over_since: dict[str, str], omitted: dict[str, int], budgets: Budgets, today: date
) -> tuple[dict[str, str], list[BudgetWarning]]:
    """Pure: which parts start an over-budget episode today, and the episodes still open.

    `over_since` maps a part to the day its current episode began. A part already in it warns
    no more; a part that fits again leaves it, so a later overflow is a new episode.
    """
    state: dict[str, str] = {}
    new: list[BudgetWarning] = []
    for part in PARTS:
        if omitted.get(part, 0) <= 0:
            continue
        since = over_since.get(part)
        if since is None:
            since = today.isoformat()
            new.append(
                BudgetWarning(
                    f"context-budget:{part}:{since}", part, omitted[part], getattr(budgets, part)
                )
            )
        state[part] = since
    return state, new


def warning_text(locale: str, warning: BudgetWarning) -> str:
    """What the owner reads about an over-budget part, in their locale."""
    return t(
        locale,
        BUDGET_WARNING[warning.part],
        omitted=warning.omitted,
        budget=warning.budget,
        setting=_BUDGET_KEYS[warning.part],
    )


def _record_warnings(ws: Workspace, omitted: dict[str, int], budgets: Budgets) -> None:
    """Open and close over-budget episodes; each new one is announced once through the outbox.

    The announcement is enqueued before the episode is recorded: a crash in between enqueues
    the same id again the same day, which the outbox ignores.
    """
    path = ws.internal / WARNINGS_FILE
    with ws.lock(path):
        over_since: dict[str, str] = {}
        if path.exists():
            try:
                loaded = json.loads(path.read_text(encoding="utf-8"))
                if isinstance(loaded, dict) and isinstance(loaded.get("over_since"), dict):
                    over_since = {str(k): str(v) for k, v in loaded["over_since"].items()}
            except (json.JSONDecodeError, UnicodeDecodeError):
                pass  # derived state: a broken file is rebuilt, at worst warning once more
        state, new = budget_warnings(over_since, omitted, budgets, ws.today())
        if state == over_since and not new:
            return
        if new:
            from trinho.channels import Notification, Outbox

            outbox = Outbox(ws)
            for warning in new:
                outbox.enqueue(
                    Notification(
                        id=warning.id,
                        title=t(ws.locale, "context.budget_title"),
                        summary=warning_text(ws.locale, warning),
                    )
                )
        atomic_write_text(path, json.dumps({"over_since": state}, indent=1) + "\n")


def records_context(
    records: Records, user: str | None, locale: str, budgets: Budgets | None = None
) -> Context:
    """The prompt parts assembled from one owner's records behind `Records` (the database),
    as `build_context` assembles them from the files. OpenClaw's session files and the
    over-budget warning are the file workspace's alone so far."""
    today = records.today()
    yesterday = today - timedelta(days=1)
    inputs = ContextInputs(
        memory_text=records.memory_text(),
        facts=fact_lines(records.list_facts(user).facts, today, locale),
        yesterday=note_lines(yesterday, records.read_notes(yesterday).items),
        today=note_lines(today, records.read_notes(today).items),
        loaded_by_openclaw=(),
    )
    return assemble(inputs, budgets or Budgets(), locale)


def build_context(
    ws: Workspace,
    user: str | None = None,
    budgets: Budgets | None = None,
    *,
    warn: bool = True,
    openclaw: bool | None = None,
) -> Context:
    """The system block and preamble for `user` (default: the owner) at the workspace's time.
    `openclaw` False is for an agent that is not OpenClaw's (nothing else loads its MEMORY.md)."""
    chosen = budgets or budgets_from_config(ws)
    inputs = read_inputs(ws, user or ws.config.owner, openclaw=openclaw)
    context = assemble(inputs, chosen, ws.locale)
    if warn and (any(context.omitted.values()) or (ws.internal / WARNINGS_FILE).exists()):
        _record_warnings(ws, context.omitted, chosen)
    return context
