"""The weekly condensation run: collect, rewrite, screen, gate, apply, propose, announce.

The decisions are the pure parts (`chunks.plan_chunks`, `screen`, `gate`, the run's
`lifecycle`); this module is the shell that reads, calls the model, writes and records each
step in the run journal. Proposing the held changes and announcing them is
`trinho.condense.announce`.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta

from trinho.channels import Channel
from trinho.clock import utc
from trinho.condense.announce import announce_run, notify_unusable, propose_held
from trinho.condense.rules.archive import (
    archive_section,
    archived_by,
    without_lines,
)
from trinho.condense.rules.chunks import (
    MIN_ROOM_TOKENS,
    Chunk,
    Material,
    answer_tokens,
    material_room,
    no_room_parts,
    plan_chunks,
    render_material,
    take_chunk,
)
from trinho.condense.rules.explain import SourceTriple, explained, material_source, removal_reasons
from trinho.condense.rules.gate import Change, GateResult, gate
from trinho.condense.rules.handedit import added_during_run, carry_added, drop_deleted
from trinho.condense.rules.lifecycle import START, STEPS, recover
from trinho.condense.rules.ops import (
    Script,
    apply_ops,
    material_beside,
    material_for_output,
    merge_scripts,
    number_lines,
    on_file_lines,
    parse_ops,
    script_tokens,
    shown_lines,
    unusable,
    view_lines,
)
from trinho.condense.rules.prompt import Prompt
from trinho.condense.rules.report import (
    Calls,
    RunReport,
    ScreenLine,
    days_used,
    reported,
    screen_line,
    script_summary,
)
from trinho.condense.rules.rewrite import (
    clean_answer,
    ops_prefix,
    ops_request,
    overhead_tokens,
    rewrite_request,
    screen_line_tokens,
    screen_overhead_tokens,
    screen_request,
    week_frame_tokens,
)
from trinho.condense.rules.screen import (
    Outcome,
    Screened,
    call_failed,
    candidates,
    read_answer,
    screen_rewrite,
)
from trinho.condense.rules.window import (
    MIN_WINDOW_TOKENS,
    choose_window,
    confine,
    screen_batches,
    split_room,
    whole_window,
)
from trinho.condense.store.apply import sha
from trinho.condense.store.archive import (
    archive_change,
    archive_mode,
    archived_before,
    waiting_archive,
)
from trinho.condense.store.collect import (
    Collected,
    Span,
    collect,
    condense_protocol,
    context_tokens,
    latest_moment,
    moment_of,
    window,
)
from trinho.condense.store.prompts import choose_rewrite_prompt, load_prompt
from trinho.condense.store.runs import (
    BEFORE,
    REPORT,
    Journal,
    advance,
    given_back_start,
    pick_slot,
    previous_cutoff,
    run_dir,
    runs_root,
    save_before,
    write_journal,
)
from trinho.context.budget import TokenEstimate
from trinho.context.run import budgets_from_config
from trinho.durable import atomic_write_text, ensure_dir
from trinho.errors import TrinhoError
from trinho.i18n import N_, t
from trinho.memory import store as memory_store
from trinho.models import (
    ChatModel,
    ChatRequest,
    ChatResponse,
    ModelError,
    estimate_tokens,
    load_budget,
    load_model,
)
from trinho.models.config import max_output_tokens
from trinho.models.ledger import Purpose, token_estimate
from trinho.models.progress import Finished, Step, notify
from trinho.notes.journal import late_days, read_floor, seen_behind, write_floor
from trinho.openclaw.markers import reattach_markers, without_markers
from trinho.textnorm import shown_id
from trinho.workspace import CLOCK_BACK_FILE, Workspace

SCREEN_BATCH = 50
"""Candidates judged per screening call."""
MAX_RESTARTS = 3
"""How often a run re-reads a MEMORY.md that keeps changing under it before giving up."""
CUT_STOP_REASONS = ("length", "max_tokens")
"""A model's answer stopped at its output limit (OpenAI-compatible, Anthropic)."""
PURPOSES: tuple[Purpose, ...] = ("rewrite", "screen")


def run_condensation(
    ws: Workspace,
    *,
    model: ChatModel | None = None,
    force: bool = False,
    dry_run: bool = False,
    channel: Channel | None = None,
) -> RunReport:
    """Condense this ISO week's notes and conversations into MEMORY.md, once per week.

    `model` replaces the configured one (tests, the demo); every call goes to the usage
    ledger either way. `force` runs again in a week already condensed (id `2026-W48.2`).
    `dry_run` calls the model and shows what would change, writing nothing but the ledger.
    `channel` is where the one announcement of the run goes (default: the configured one).
    """
    today = ws.today()
    if dry_run:
        slot = pick_slot(ws, today, force)
        span = run_span(ws, slot.run_id)
        if slot.done is not None:
            return _already(ws, slot.run_id, today)
        report = _Run(ws, slot.run_id, today, span, model, dry_run=True).execute()
        return replace(report, notice=clock_back_notice(ws, span, dry_run=True))
    ensure_dir(runs_root(ws))
    with ws.lock(runs_root(ws) / "condense.lock"):
        slot = pick_slot(ws, today, force)
        span = run_span(ws, slot.run_id)
        since = span.since(ws)
        if slot.done is not None:
            return _already(ws, slot.run_id, today)
        journal = slot.journal
        if journal is not None:  # an earlier attempt of this week's run was cut off
            replaced = sha(memory_store.read_text(ws)) == journal.applied_sha
            recovery = recover(journal.state, replaced=replaced, undone=bool(journal.undone))
            for state in recovery.record:
                journal = advance(ws, journal, state)
            if recovery.then == "nothing":
                return _already(ws, journal.run_id, today)
            if recovery.then == "finish":
                return _resume(ws, journal, today, since, channel)
        write_floor(ws, span.end)  # a note saved from now on counts in no span before this end
        notice = clock_back_notice(ws, span, dry_run=True)
        if span.first_day is not None and span.start is not None:
            seen_behind(ws, ws.now(), span.start)  # the runs made ahead of it are known
        report = _Run(ws, slot.run_id, today, span, model, dry_run=False, channel=channel).execute()
        clock_back_notice(ws, span, dry_run=False)  # told: only once the run that says it ran
        return replace(report, notice=notice)


def run_span(ws: Workspace, run_id: str) -> Span:
    """What run `run_id` reads: from where the previous run stopped to the start of this
    minute (a note stamped this minute may still be written: the next run reads it).

    A clock behind the previous run's cutoff (it read ahead once, and was put right) orders
    the run by what was read, not by the clock: the span goes on from that cutoff past the
    last instant anything counts at (a note saved since counts at the read floor, one written
    while the clock read ahead at its own instant), so it reads exactly what no run has read,
    and the next run, from its end, reads what comes after. Its window of days is the
    corrected clock's week."""
    end = utc(ws.now()).replace(second=0, microsecond=0)
    start = previous_cutoff(ws, run_id)
    if start is None:
        start = given_back_start(ws)
    if start is None or end >= utc(start):
        return Span(start, end)
    today = ws.today()
    first = window(today)[0]
    reach = Span(start, FAR_END, first, today)
    first = min([first, *late_days(ws, utc(start), FAR_END)])
    floor = read_floor(ws)
    latest = max(m for m in (utc(start), floor, latest_moment(ws, reach)) if m is not None)
    return Span(start, latest.replace(second=0, microsecond=0) + timedelta(minutes=1), first, today)


FAR_END = datetime(9999, 1, 1, tzinfo=UTC)
"""An end past every instant: the reach of a span looked over for its latest material."""


def clock_back_notice(ws: Workspace, span: Span, *, dry_run: bool) -> str:
    """What the owner is told, once, when a run reads ahead of a clock put back; the marker
    (`CLOCK_BACK_FILE`) is emptied, never removed (a PostgreSQL owner keeps it as a row),
    when the clock has caught up, so a later episode is told again."""
    marker = ws.confine(ws.root / CLOCK_BACK_FILE)
    told = marker.read_text(encoding="utf-8").strip() if marker.is_file() else ""
    if span.first_day is None or span.start is None:
        if told and not dry_run:
            atomic_write_text(marker, "")
        return ""
    if told:
        return ""
    if not dry_run:
        atomic_write_text(marker, utc(span.start).isoformat() + "\n")
    return t(
        ws.locale,
        N_("condense.clock_back"),
        now=ws.now().isoformat(timespec="minutes"),
        cutoff=span.start.astimezone(ws.tz).isoformat(timespec="minutes"),
    )


def _already(ws: Workspace, run_id: str, today: date) -> RunReport:
    """The week is condensed: say so, with the span its run read (from its saved report)."""
    saved = run_dir(ws, run_id) / REPORT
    message = t(ws.locale, "condense.already", run=run_id, report=ws.relative(saved))
    since = window(today)[0]
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        since = date.fromisoformat(json.loads(saved.read_text(encoding="utf-8"))["since"])
    return RunReport(run_id, "already_done", today, since, message=message)


def _resume(
    ws: Workspace, journal: Journal, today: date, since: date, channel: Channel | None
) -> RunReport:
    """Finish a run that wrote MEMORY.md and was cut off: its proposals and announcement, and
    a report of every change it made, those that applied by themselves included."""
    journal, changes = propose_held(ws, journal, (*journal.auto, *journal.held))
    notification, delivery = announce_run(ws, journal, changes, channel)
    report = RunReport(
        journal.run_id,
        "resumed",
        today,
        since,
        message=t(ws.locale, "condense.resumed", run=journal.run_id),
        changes=tuple(changes),
        written=True,
        before=ws.relative(run_dir(ws, journal.run_id) / BEFORE) if journal.had_memory else None,
        notification=notification,
        delivery=delivery,
    )
    _save_report(ws, report)
    return report


@dataclass
class _Tally:
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    def add(self, response: ChatResponse) -> None:
        self.calls += 1
        self.input_tokens += response.usage.input_tokens
        self.output_tokens += response.usage.output_tokens


@dataclass
class _Run:
    ws: Workspace
    run_id: str
    today: date
    span: Span
    model: ChatModel | None
    dry_run: bool
    channel: Channel | None = None
    tallies: dict[str, _Tally] = field(default_factory=dict)
    journal: Journal | None = None
    models: dict[Purpose, ChatModel] = field(default_factory=dict)
    script: Script | None = None
    """The run's edit scripts merged (protocol `ops`), for the report."""
    material: tuple[SourceTriple, ...] = ()
    """The week's notes and turns as sources a held change may name."""
    estimate: TokenEstimate = field(default_factory=TokenEstimate)
    """The rewrite model's token counts, measured at the start of the rewrite."""

    @property
    def locale(self) -> str:
        return self.ws.locale

    @property
    def since(self) -> date:
        """The first day the run reads: the gate's window for additions starts there."""
        return self.span.since(self.ws)

    @property
    def ledger_run(self) -> str:
        return f"{self.run_id}.dry-run" if self.dry_run else self.run_id

    def execute(self) -> RunReport:
        notify(Step("reading"))
        collected = collect(self.ws, self.span)
        if not collected.items:
            message = t(self.locale, "condense.no_material", since=self.since, today=self.today)
            if collect(self.ws, Span(self.span.end, self.span.end + timedelta(minutes=1))).items:
                message = t(
                    self.locale,
                    "condense.no_material_this_minute",
                    since=self.since,
                    time=self.span.end.astimezone(self.ws.tz).strftime("%H:%M"),
                )
            return RunReport(self.run_id, "skipped", self.today, self.since, message=message)
        self.models = {
            purpose: load_model(self.ws, purpose, run=self.ledger_run, model=self.model)
            for purpose in PURPOSES
        }  # a missing model configuration fails here, before anything is written
        if not self.dry_run:
            now = self.ws.now()
            journal = Journal(self.run_id, START, now, now, read_until=self.span.end)
            self.journal = write_journal(self.ws, journal)
        try:
            return self._execute(collected)
        except BaseException as exc:
            # Failed only where the lifecycle allows it (before anything is written): a later
            # state stays as it is, and the next run recovers from it (`lifecycle.RESTART`).
            if self.journal is not None and "failed" in STEPS[self.journal.state]:
                advance(self.ws, self.journal, "failed", error=str(exc) or type(exc).__name__)
            raise

    def _execute(self, collected: Collected) -> RunReport:
        self.material = tuple(material_source(m) for m in collected.items)
        protocol = condense_protocol(self.ws)
        usable = TokenEstimate().usable(context_tokens(self.ws))
        rewrite_prompt = choose_rewrite_prompt(protocol, usable)
        screen_prompt = load_prompt("screen")
        prompts = (rewrite_prompt.version, screen_prompt.version)
        old = collected.memory_text
        if protocol == "file":
            shown = without_markers(old)  # put back before the gate (`_apply`)
            rewrite, read, unread, why = self._rewrite_file(shown, collected.items, rewrite_prompt)
        else:
            rewrite, read, unread, why = self._rewrite_ops(old, collected.items, rewrite_prompt)
        days = days_used(collected.items, collected.since, collected.today, read, unread)
        if unread and self.journal is not None:  # the next run reads what this one could not
            first = min(moment_of(self.ws, m) for m in unread).replace(second=0, microsecond=0)
            self.journal = advance(self.ws, self.journal, "running", read_until=first)
        if not read:
            if self.journal is not None:
                advance(self.ws, self.journal, "skipped", error=why)
            return RunReport(
                self.run_id,
                "skipped",
                self.today,
                self.since,
                message=why,
                prompts=prompts,
                days=days,
            )
        kind = unusable(self.script) if protocol == "ops" else None
        if kind is not None and self.journal is not None:
            notify(Finished())  # the notice may print on the terminal the line is drawn on
            said = notify_unusable(
                self.ws, self.models["rewrite"].name, kind, len(read), self.channel
            )[1]
            why = f"{why} {said}".strip()
        screened, lines, skipped = self._screen(old, rewrite, screen_prompt)
        notify(Finished())
        result, to_propose, restarts = self._apply(old, screened)
        changes = [reported(c, to_propose) for c in result.changes]
        notification, delivery = None, ""
        if self.journal is not None:
            self.journal, changes = propose_held(self.ws, self.journal, result.changes)
            notification, delivery = announce_run(self.ws, self.journal, changes, self.channel)
        report = RunReport(
            self.run_id,
            "dry_run" if self.dry_run else "done",
            self.today,
            self.since,
            message=why,
            prompts=prompts,
            days=days,
            chunks=len(read),
            protocol=protocol,
            script=script_summary(self.script) if self.script is not None else None,
            changes=tuple(changes),
            screening=lines,
            screening_skipped=tuple(skipped),
            calls=tuple(
                Calls(purpose, tally.calls, tally.input_tokens, tally.output_tokens)
                for purpose, tally in self.tallies.items()
            ),
            restarts=restarts,
            written=not self.dry_run,
            before=self._before(),
            notification=notification,
            delivery=delivery,
        )
        if not self.dry_run:
            _save_report(self.ws, report)
        return report

    def _call(self, purpose: Purpose, request: ChatRequest) -> ChatResponse | str:
        """The model's answer, or the owner-facing reason the budget did not allow the call."""
        refusal = load_budget(self.ws, self.ledger_run).refusal(
            request.estimated_tokens(), self.locale
        )
        if refusal is not None:
            return refusal
        response = self.models[purpose].chat(request)
        self.tallies.setdefault(purpose, _Tally()).add(response)
        return response

    def _measure(self, instructions: str, memory: str, notes: str) -> None:
        """The rewrite model's estimate, by its server's tokenizer on what is about to be sent
        (the instructions, MEMORY.md, the week), else by the ledger."""
        model = self.models["rewrite"]
        self.estimate = token_estimate(self.ws, model, (instructions, memory, notes))

    def _rewrite_ops(
        self, old: str, items: tuple[Material, ...], prompt: Prompt
    ) -> tuple[str, tuple[Chunk, ...], tuple[Material, ...], str]:
        """Feed the week in chunks, every call given the same numbered MEMORY.md (one stable
        prefix, cached by the provider), and make the rewrite from all their edit scripts.
        In a context too small for the whole file beside a chunk, each call is shown a window
        of it around its chunk (`trinho.condense.rules.window`), and may name only its lines.

        A chunk's material is bounded twice: by the context left beside the prefix and the
        answer, and by what an edit script over it may need within `[model]
        max_output_tokens`. Returns as `_rewrite_file` does; the scripts' summary is kept
        for the report.
        """
        context = context_tokens(self.ws)
        max_output = max_output_tokens(self.ws)
        budget = budgets_from_config(self.ws).memory
        prefix = ops_prefix(prompt, old, self.today, self.since, self.locale, budget)
        numbered = number_lines(old)
        self._measure(prefix[: len(prefix) - len(numbered)], numbered, render_material(items))
        usable = self.estimate.usable(context)
        beside = estimate_tokens(prefix) + week_frame_tokens(self.today, self.since, self.locale)
        by_output = material_for_output(max_output)
        room = min(material_beside(usable - beside), by_output)
        if by_output < MIN_ROOM_TOKENS:  # the output limit binds, whatever the context
            needed = script_tokens(MIN_ROOM_TOKENS, MIN_ROOM_TOKENS)
            raise TrinhoError.keyed("condense.no_room_output", max_output=max_output, needed=needed)
        window_budget = 0
        if room < MIN_ROOM_TOKENS:  # too small for the whole file: a window of it per chunk
            memory = estimate_tokens(numbered)
            room, window_budget = split_room(usable - (beside - memory), by_output)
            if room < MIN_ROOM_TOKENS or window_budget < MIN_WINDOW_TOKENS:
                script = script_tokens(MIN_ROOM_TOKENS, MIN_ROOM_TOKENS)
                raise no_room(self.ws, self.estimate, context, beside - memory, memory, script)
        shown, whole = shown_lines(old), whole_window(old)
        total = len(plan_chunks(items, room))
        scripts: list[Script] = []
        read: list[Chunk] = []
        pending = items
        why = ""
        while pending:
            taken, rest = take_chunk(pending, room)
            chunk = Chunk(len(read) + 1, taken)
            window = whole
            if window_budget:
                window = choose_window(old, render_material(taken), window_budget)
                prefix = ops_prefix(
                    prompt, old, self.today, self.since, self.locale, budget, window
                )
            request = ops_request(
                prefix, chunk, total, self.today, self.since, self.locale, max_output
            )
            notify(Step("rewriting", chunk.number, total))
            answer = self._call("rewrite", request)
            if isinstance(answer, str):
                why = answer
                break
            cut = answer.stop_reason in CUT_STOP_REASONS
            scripts.append(confine(parse_ops(answer.text, len(shown), cut=cut), window))
            read.append(chunk)
            pending = rest
        rewrite = old
        if scripts:
            self.script = on_file_lines(merge_scripts(scripts), shown, len(view_lines(old)))
            rewrite = apply_ops(old, self.script).text
        if not pending:
            return rewrite, tuple(read), (), ""
        days = ", ".join(sorted({m.day.isoformat() for m in pending}))
        message = t(self.locale, "condense.rewrite_skipped", days=days, reason=why)
        return rewrite, tuple(read), pending, message

    def _rewrite_file(
        self, old: str, items: tuple[Material, ...], prompt: Prompt
    ) -> tuple[str, tuple[Chunk, ...], tuple[Material, ...], str]:
        """Feed the week in chunks, each call given the MEMORY.md the previous one returned.

        Each chunk is sized for the room left beside that MEMORY.md. Returns the last
        MEMORY.md, the chunks read, the material left unread, and why it was left (budget,
        or a MEMORY.md grown too big for the context).
        """
        overhead = overhead_tokens(prompt, self.today, self.since, self.locale)
        context = context_tokens(self.ws)
        self._measure(prompt.fill(self.today, self.since), old, render_material(items))
        usable = self.estimate.usable(context)
        if material_room(usable, overhead, estimate_tokens(old)) < MIN_ROOM_TOKENS:
            memory = estimate_tokens(old)
            reply = answer_tokens(memory, MIN_ROOM_TOKENS)
            raise no_room(self.ws, self.estimate, context, overhead, memory, reply)
        partial = old
        read: list[Chunk] = []
        pending = items
        why = ""
        while pending:
            memory_tokens = estimate_tokens(partial)
            room = material_room(usable, overhead, memory_tokens)
            if room < MIN_ROOM_TOKENS:
                reply = answer_tokens(memory_tokens, MIN_ROOM_TOKENS)
                why = no_room(
                    self.ws, self.estimate, context, overhead, memory_tokens, reply, archive=False
                ).localized(self.locale)
                break
            taken, rest = take_chunk(pending, room)
            chunk = Chunk(len(read) + 1, taken)
            total = chunk.number + len(plan_chunks(rest, room))
            request = rewrite_request(
                prompt, partial, chunk, total, self.today, self.since, self.locale
            )
            notify(Step("rewriting", chunk.number, total))
            answer = self._call("rewrite", request)
            if isinstance(answer, str):
                why = answer
                break
            partial = clean_answer(answer.text)
            read.append(chunk)
            pending = rest
        if not pending:
            return partial, tuple(read), (), ""
        days = ", ".join(sorted({m.day.isoformat() for m in pending}))
        message = t(self.locale, "condense.rewrite_skipped", days=days, reason=why)
        return partial, tuple(read), pending, message

    def _screen(
        self, old: str, rewrite: str, prompt: Prompt
    ) -> tuple[Screened, tuple[ScreenLine, ...], list[str]]:
        """Judge the new lines in batches. A batch the budget does not allow is not asked: its
        lines are left unscreened, for the gate alone. A batch asked whose answer gives no
        readable verdict for a line (or whose call fails) leaves that line unread: held."""
        found = candidates(old, rewrite)
        outcomes: dict[int, Outcome] = {}
        skipped: list[str] = []
        room = self.estimate.usable(context_tokens(self.ws))
        room -= screen_overhead_tokens(prompt, self.locale)
        costs = [screen_line_tokens(n, c.line, c.old) for n, c in enumerate(found, 1)]
        parts = screen_batches(costs, room, SCREEN_BATCH)
        for number, part in enumerate(parts, 1):
            batch = found[part.start : part.stop]
            request = screen_request(prompt, [(c.line, c.old) for c in batch], self.locale)
            first, last = batch[0].number, batch[-1].number
            notify(Step("screening", number, len(parts)))
            try:
                answer = self._call("screen", request)
            except ModelError as exc:
                said = call_failed(len(batch), str(exc))
                key = N_("condense.screen_failed")
                skipped.append(t(self.locale, key, first=first, last=last, reason=str(exc)))
            else:
                if isinstance(answer, str):
                    key = N_("condense.screen_skipped")
                    skipped.append(t(self.locale, key, first=first, last=last, reason=answer))
                    continue
                said = read_answer(answer.text, len(batch))
            for number, outcome in said.items():
                outcomes[batch[number - 1].number] = outcome
        lines = tuple(screen_line(c, outcomes.get(c.number), self.locale) for c in found)
        return screen_rewrite(old, rewrite, outcomes), lines, skipped

    def _apply(self, old: str, screened: Screened) -> tuple[GateResult, tuple[Change, ...], int]:
        """Gate the screened rewrite (its unread lines held) against MEMORY.md as it is now,
        then replace it atomically, keeping the text it replaces. A hand edit made during the
        run is respected (see `handedit`): the gate runs again against the edited file, at most
        `MAX_RESTARTS` times.

        Returns the gate's result, the held changes to propose, and the number of restarts.
        """
        ws = self.ws
        base = old
        restarts = 0
        for _ in range(MAX_RESTARTS + 1):
            with memory_store.editing(ws, lock=not self.dry_run) as memory:
                current = memory.text()
                if current != base:
                    restarts += 1
                    base = current
                rewrite = screened.text
                if base != old:  # edited by hand during the run: keep what the owner did
                    rewrite = carry_added(old, base, drop_deleted(old, base, screened.text))
                rewrite = reattach_markers(base, rewrite)
                result = gate(
                    base,
                    rewrite,
                    self.today,
                    self.since,
                    hold=screened.hold,
                    accepted=screened.accepted,
                )
                result = GateResult(reattach_markers(base, result.applied), result.changes)
                result, moved = self._archive(result)
                reasons = removal_reasons(old, self.script) if self.script is not None else {}
                result = GateResult(
                    result.applied, explained(result.changes, reasons, self.material)
                )
                to_propose = tuple(c for c in result.held if not added_during_run(c, old))
                if self.journal is None:
                    return result, to_propose, restarts
                had_memory = memory.exists()
                before = run_dir(ws, self.run_id) / BEFORE
                if had_memory:
                    save_before(ws, self.run_id, base)
                else:  # a copy from an earlier attempt of this run would restore a wrong file
                    before.unlink(missing_ok=True)
                self.journal = advance(
                    ws,
                    self.journal,
                    "applying",
                    had_memory=had_memory,
                    held=to_propose,
                    auto=tuple(c for c in result.changes if not c.held),
                    applied_sha=sha(result.applied),
                )
                if memory.text() != base:
                    continue  # edited outside trinho's lock just now: gate again
                if moved:  # archived before MEMORY.md loses them: in both, never in neither
                    memory_store.archive(ws, archive_section(self.run_id, moved))
                if result.applied != base:
                    memory.replace(result.applied)
                self.journal = advance(ws, self.journal, "applied")
            return result, to_propose, restarts
        raise TrinhoError.keyed("error.condense.kept_changing", tries=MAX_RESTARTS + 1)

    def _archive(self, result: GateResult) -> tuple[GateResult, tuple[str, ...]]:
        """The gate's result with the run's archive change, when MEMORY.md would be over its
        budget; with `[condense] archive = "auto"` its lines leave the text (and are returned,
        to be appended to the archive), otherwise it is one held change."""
        budget = budgets_from_config(self.ws).memory
        text, earlier = result.applied, tuple[str, ...]()
        if not self.dry_run and archive_mode(self.ws) == "auto":
            # an attempt of this run cut off between the archive and MEMORY.md moved these
            moved_before = archived_by(memory_store.archived_text(self.ws), self.run_id)
            earlier, text = without_lines(text, moved_before)
        found = archive_change(self.ws, text, budget, result.held)
        if found is None:
            if not earlier:
                return result, ()
            change = archived_before(earlier, estimate_tokens(result.applied), budget)
            return GateResult(text, (*result.changes, change)), ()
        change, plan = found
        if change.held:
            return GateResult(result.applied, (*result.changes, change)), ()
        if earlier:
            change = replace(change, old="\n".join((*earlier, *plan.raw_lines)))
        return GateResult(plan.text, (*result.changes, change)), plan.raw_lines

    def _before(self) -> str | None:
        """Where the replaced MEMORY.md is kept; None on a dry run, or when there was none."""
        if self.journal is None or not self.journal.had_memory:
            return None
        return self.ws.relative(run_dir(self.ws, self.run_id) / BEFORE)


def no_room(
    ws: Workspace,
    estimate: TokenEstimate,
    context: int,
    instructions: int,
    memory: int,
    answer: int,
    *,
    archive: bool = True,
) -> TrinhoError:
    """No room for the week: the error names each part's share of the context (in the model's
    tokens) and blames the one that takes most, the instructions or MEMORY.md; when MEMORY.md
    does, it names the archive proposal that waits (approving it makes room), asked again at
    every run while it waits."""
    waiting = waiting_archive(ws) if archive else None
    if waiting is not None and memory > instructions:
        return TrinhoError.keyed(
            "condense.no_room_archive",
            memory=estimate.real(memory),
            context=context,
            id=shown_id(waiting.id),
        )
    parts = no_room_parts(estimate, context, instructions, memory, answer)
    key = N_("condense.no_room_instructions") if instructions >= memory else N_("condense.no_room")
    return TrinhoError.keyed(key, **parts)


def _save_report(ws: Workspace, report: RunReport) -> None:
    text = json.dumps(report.to_dict(), ensure_ascii=False, indent=1) + "\n"
    atomic_write_text(run_dir(ws, report.run_id) / REPORT, text)
