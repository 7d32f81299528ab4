"""The usage ledger `.trinho/usage.jsonl` and token budgets.

Every model call appends one JSON line (locked, fsync'd): when, what for, which model, how many
tokens, the condensation run it belonged to, and for a call that failed, how (its failure kind,
with the tokens it is known to have cost: none, as a failed call reports none). Sums and budget
decisions are pure functions over the parsed records.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal, Self, cast, get_args

from trinho import fields
from trinho.context.budget import Source, TokenEstimate, estimate_tokens, measured
from trinho.durable import append_bytes, read_regular
from trinho.errors import TrinhoError
from trinho.i18n import t
from trinho.i18n.keys import BUDGET_OVER
from trinho.models.base import (
    ChatModel,
    ChatRequest,
    ChatResponse,
    CountsTokens,
    ModelError,
    Usage,
)
from trinho.workspace import INTERNAL_DIR, Config, Workspace

Purpose = Literal["rewrite", "screen", "chat", "job", "check"]
PURPOSES: tuple[str, ...] = get_args(Purpose)
LEDGER_PATH = f"{INTERNAL_DIR}/usage.jsonl"
WEEK = timedelta(days=7)


@dataclass(frozen=True)
class UsageRecord:
    at: datetime
    purpose: Purpose
    model: str
    input_tokens: int
    output_tokens: int
    run: str | None = None
    cached_input_tokens: int = 0
    """The part of `input_tokens` the provider read from its prompt cache."""
    failure: str | None = None
    """How the call failed (a `FailureKind`: `timeout`, `context_exceeded`, ...); None when it
    was answered. Read as any string, so a ledger written by a newer trinho still reads."""
    estimated_input_tokens: int = 0
    """`estimate_tokens` of the prompt sent (0: not recorded), beside the server's own count
    in `input_tokens`: their ratio calibrates the estimate for this model."""

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def to_json(self) -> dict[str, Any]:
        """The ledger line's object; `run` only when the call belonged to a run, cached tokens
        only when there were some, `failure` only for a failed call, so lines written before
        they were recorded stay as they are."""
        record: dict[str, Any] = {
            "at": self.at.isoformat(),
            "purpose": self.purpose,
            "model": self.model,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
        }
        if self.cached_input_tokens:
            record["cached_input_tokens"] = self.cached_input_tokens
        if self.run is not None:
            record["run"] = self.run
        if self.failure is not None:
            record["failure"] = self.failure
        if self.estimated_input_tokens:
            record["estimated_input_tokens"] = self.estimated_input_tokens
        return record

    @classmethod
    def from_json(cls, data: object, where: fields.Where) -> Self:
        table = fields.as_object(data, where)
        return cls(
            at=fields.moment(table, "at", where),
            purpose=cast(Purpose, fields.choice(table, "purpose", PURPOSES, where)),
            model=fields.typed(table, "model", str, where),
            input_tokens=_count(table, "input_tokens", where),
            output_tokens=_count(table, "output_tokens", where),
            run=fields.maybe(table, "run", str, where),
            cached_input_tokens=_count(table, "cached_input_tokens", where, 0),
            failure=fields.maybe(table, "failure", str, where),
            estimated_input_tokens=_count(table, "estimated_input_tokens", where, 0),
        )


def _count(
    table: Mapping[str, Any], name: str, where: fields.Where, default: int | None = None
) -> int:
    """A token count; one that may be left out reads as `default`."""
    if default is not None and name not in table:
        return default
    value = fields.typed(table, name, int, where)
    if value < 0:
        raise TrinhoError.keyed("error.record.negative", file=str(where), field=name, value=value)
    return value


def record_line(record: UsageRecord) -> str:
    """The record as one ledger line (without its newline)."""
    return json.dumps(record.to_json(), ensure_ascii=False)


def parse_record(line: str) -> UsageRecord | None:
    """One ledger line, or None when it is not a well-formed record (e.g. a torn last line)."""
    try:
        return UsageRecord.from_json(json.loads(line), LEDGER_PATH)
    except (ValueError, TrinhoError):
        return None


@dataclass(frozen=True)
class Ledger:
    records: tuple[UsageRecord, ...]
    skipped: int
    """Lines that were not records (damaged by hand or by a crash); they count for nothing."""


def parse_ledger(text: str) -> Ledger:
    """Records are separated by "\n" only: JSON written raw may hold U+0085 or U+2028."""
    records: list[UsageRecord] = []
    skipped = 0
    for line in text.split("\n"):
        if not line.strip():
            continue
        record = parse_record(line)
        if record is None:
            skipped += 1
        else:
            records.append(record)
    return Ledger(tuple(records), skipped)


def read_ledger(ws: Workspace) -> Ledger:
    path = ws.root / LEDGER_PATH
    if not path.exists():
        return Ledger((), 0)
    return parse_ledger(read_regular(path).decode("utf-8", errors="replace"))


def append_usage(ws: Workspace, record: UsageRecord) -> None:
    """Append one record under the ledger's lock, fsync'd."""
    path = ws.root / LEDGER_PATH
    with ws.lock(path):
        append_bytes(path, (record_line(record) + "\n").encode("utf-8"))


@dataclass(frozen=True)
class Totals:
    calls: int = 0
    """Every call, failed ones included."""
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    failed_calls: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def add(self, record: UsageRecord) -> Totals:
        return Totals(
            self.calls + 1,
            self.input_tokens + record.input_tokens,
            self.output_tokens + record.output_tokens,
            self.cached_input_tokens + record.cached_input_tokens,
            self.failed_calls + (record.failure is not None),
        )

    def as_dict(self) -> dict[str, int]:
        return {
            "calls": self.calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.total_tokens,
            "cached_input_tokens": self.cached_input_tokens,
            "failed_calls": self.failed_calls,
        }


@dataclass(frozen=True)
class UsageSummary:
    total: Totals = Totals()
    by_purpose: dict[str, Totals] = field(default_factory=dict)
    by_model: dict[str, Totals] = field(default_factory=dict)
    by_failure: dict[str, int] = field(default_factory=dict)
    """Failed calls by failure kind."""


def summarize(
    records: Iterable[UsageRecord], *, since: datetime | None = None, run: str | None = None
) -> UsageSummary:
    """Sum the records at or after `since` (and of one run, if given), overall and grouped."""
    total = Totals()
    by_purpose: dict[str, Totals] = {}
    by_model: dict[str, Totals] = {}
    by_failure: dict[str, int] = {}
    for record in records:
        if since is not None and record.at < since:
            continue
        if run is not None and record.run != run:
            continue
        total = total.add(record)
        by_purpose[record.purpose] = by_purpose.get(record.purpose, Totals()).add(record)
        by_model[record.model] = by_model.get(record.model, Totals()).add(record)
        if record.failure is not None:
            by_failure[record.failure] = by_failure.get(record.failure, 0) + 1
    return UsageSummary(
        total,
        dict(sorted(by_purpose.items())),
        dict(sorted(by_model.items())),
        dict(sorted(by_failure.items())),
    )


@dataclass(frozen=True)
class BudgetLimits:
    """`[budget] run_tokens` and `week_tokens` in the config; None means no limit."""

    run_tokens: int | None = None
    week_tokens: int | None = None


def budget_limits(config: Config) -> BudgetLimits:
    return BudgetLimits(config.budget.run_tokens, config.budget.week_tokens)


@dataclass(frozen=True)
class Budget:
    """What is left of the budget for one condensation run and for the last seven days."""

    limits: BudgetLimits
    run_spent: int = 0
    week_spent: int = 0

    def allows(self, estimated_tokens: int) -> bool:
        return self.exceeded(estimated_tokens) is None

    def exceeded(self, estimated_tokens: int) -> Literal["run", "week"] | None:
        """Which limit a call of `estimated_tokens` would pass, if any."""
        run_limit, week_limit = self.limits.run_tokens, self.limits.week_tokens
        if run_limit is not None and self.run_spent + estimated_tokens > run_limit:
            return "run"
        if week_limit is not None and self.week_spent + estimated_tokens > week_limit:
            return "week"
        return None

    def refusal(self, estimated_tokens: int, locale: str) -> str | None:
        """The owner-facing reason a step is skipped, or None when the budget allows it."""
        which = self.exceeded(estimated_tokens)
        if which is None:
            return None
        limit = self.limits.run_tokens if which == "run" else self.limits.week_tokens
        spent = self.run_spent if which == "run" else self.week_spent
        return t(locale, BUDGET_OVER[which], need=estimated_tokens, spent=spent, limit=limit)

    def spend(self, tokens: int) -> Budget:
        return Budget(self.limits, self.run_spent + tokens, self.week_spent + tokens)


def budget_from(
    limits: BudgetLimits, records: Iterable[UsageRecord], now: datetime, run: str | None
) -> Budget:
    """The budget as of `now`: the week is the seven days before it."""
    items = tuple(records)
    week = summarize(items, since=now - WEEK).total.total_tokens
    spent = summarize(items, run=run).total.total_tokens if run is not None else 0
    return Budget(limits, spent, week)


def load_budget(ws: Workspace, run: str | None = None) -> Budget:
    """The workspace's budget now, counting what `run` (a condensation run id) already spent."""
    return budget_from(budget_limits(ws.config), read_ledger(ws).records, ws.now(), run)


class LedgeredModel:
    """Wraps any `ChatModel` so every call is appended to the usage ledger: an answered one
    with its tokens, a failed one with its failure kind (and no tokens: none were reported)."""

    def __init__(
        self, inner: ChatModel, ws: Workspace, purpose: Purpose, run: str | None = None
    ) -> None:
        if purpose not in PURPOSES:
            raise ValueError(f"purpose must be one of {', '.join(PURPOSES)}")
        self.inner = inner
        self.ws = ws
        self.purpose: Purpose = purpose
        self.run = run
        self.usage = Usage()

    @property
    def name(self) -> str:
        return self.inner.name

    def chat(self, request: ChatRequest) -> ChatResponse:
        try:
            response = self.inner.chat(request)
        except ModelError as exc:
            self._record(Usage(), exc.kind)
            raise
        self.usage = self.usage + response.usage
        self._record(response.usage, None, request.estimated_tokens() - request.max_tokens)
        return response

    def server_tokens(self, text: str) -> int | None:
        """The server's own count of `text`, when the wrapped model can ask for one."""
        if isinstance(self.inner, CountsTokens):
            return self.inner.server_tokens(text)
        return None

    def _record(self, usage: Usage, failure: str | None, estimated: int = 0) -> None:
        append_usage(
            self.ws,
            UsageRecord(
                self.ws.now(),
                self.purpose,
                self.inner.name,
                usage.input_tokens,
                usage.output_tokens,
                self.run,
                usage.cached_input_tokens,
                failure,
                estimated,
            ),
        )


CALIBRATION_CALLS = 20
"""The most recent answered calls of a model whose counts calibrate its estimate."""


def usage_samples(records: Iterable[UsageRecord], model: str) -> tuple[tuple[int, int], ...]:
    """(estimated, reported) prompt tokens of `model`'s latest answered calls, newest last."""
    pairs = [
        (r.estimated_input_tokens, r.input_tokens)
        for r in records
        if r.model == model and r.failure is None and r.estimated_input_tokens
    ]
    return tuple(pairs[-CALIBRATION_CALLS:])


def calibrated(
    server_pairs: Iterable[tuple[int, int]],
    records: Iterable[UsageRecord],
    model: str,
) -> TokenEstimate:
    """The estimate for `model`: from the server's tokenizer when it counted the texts, else
    from the `prompt_tokens` its answers reported, else the safe default."""
    chosen: tuple[tuple[tuple[int, int], ...], Source]
    for chosen in ((tuple(server_pairs), "server"), (usage_samples(records, model), "usage")):
        estimate = measured(*chosen)
        if estimate.source != "default":
            return estimate
    return TokenEstimate()


def token_estimate(ws: Workspace, model: ChatModel, texts: Iterable[str] = ()) -> TokenEstimate:
    """The estimate every budget of this call site uses: `texts` (what is about to be sent)
    counted by the server's tokenizer when it has one, else the ledger's calibration."""
    counter = model if isinstance(model, CountsTokens) else None
    pairs: list[tuple[int, int]] = []
    for text in texts if counter is not None else ():
        real = counter.server_tokens(text) if counter is not None else None
        if real is None:
            break
        pairs.append((estimate_tokens(text), real))
    return calibrated(pairs, read_ledger(ws).records, model.name)
