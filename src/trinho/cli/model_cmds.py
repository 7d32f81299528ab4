"""Commands for model backends: `trinho model check` and `trinho usage`."""

from __future__ import annotations

import os
import time
from dataclasses import replace
from datetime import datetime
from datetime import time as day_start

import click

from trinho.cli.app import cli, emit, json_option, state
from trinho.i18n import t
from trinho.models.base import ChatRequest, user
from trinho.models.config import resolve_model
from trinho.models.loader import build_model, load_model
from trinho.models.usage import read_ledger, summarize
from trinho.textnorm import one_line
from trinho.workspace import parse_day

CHECK_PROMPT = "Reply with the single word: ok"
CHECK_ATTEMPTS = 2
"""`model check` should answer quickly: one retry at most, whatever the config says."""


@cli.group()
def model() -> None:
    """Chat-model backends (TRINHO_MODEL or [model] name = "PROVIDER:MODEL")."""


@model.command()
@json_option
def check(as_json: bool) -> None:
    """Send one tiny request to the configured model and say what answered."""
    ws = state().workspace()
    settings = resolve_model(ws.config, os.environ)
    attempts = min(settings.policy.attempts, CHECK_ATTEMPTS)
    settings = replace(settings, policy=replace(settings.policy, attempts=attempts))
    chat_model = load_model(ws, "check", model=build_model(settings))
    started = time.monotonic()
    response = chat_model.chat(ChatRequest((user(CHECK_PROMPT),), max_tokens=32))
    seconds = round(time.monotonic() - started, 2)
    reply = one_line(response.text)[:80] or "(no text)"
    data = {
        "ok": True,
        "model": settings.name,
        "served_by": response.model,
        "base_url": settings.shown_url,
        "reply": response.text,
        "seconds": seconds,
        "usage": {
            "input_tokens": response.usage.input_tokens,
            "output_tokens": response.usage.output_tokens,
        },
    }
    human = t(
        ws.locale,
        "model.answered",
        model=settings.name if not response.model else f"{settings.name} ({response.model})",
        url=settings.shown_url,
        seconds=seconds,
        tokens=response.usage.total_tokens,
        reply=reply,
    )
    emit(as_json, data, human)


@cli.command()
@click.option("--since", "since_text", help="Count calls from this day on (YYYY-MM-DD).")
@json_option
def usage(since_text: str | None, as_json: bool) -> None:
    """Sum the tokens every model call used (from .trinho/usage.jsonl)."""
    ws = state().workspace()
    since = None
    if since_text:
        since = datetime.combine(parse_day(since_text, "--since"), day_start(0), tzinfo=ws.tz)
    ledger = read_ledger(ws)
    summary = summarize(ledger.records, since=since)
    data: dict[str, object] = {
        "since": since_text,
        **summary.total.as_dict(),
        "by_purpose": {k: v.as_dict() for k, v in summary.by_purpose.items()},
        "by_model": {k: v.as_dict() for k, v in summary.by_model.items()},
        "skipped_lines": ledger.skipped,
    }

    def human() -> str:
        since_part = t(ws.locale, "usage.since", date=since_text) if since_text else ""
        if not summary.total.calls:
            return t(ws.locale, "usage.none", since=since_part)
        total = summary.total
        lines = [
            t(
                ws.locale,
                "usage.total",
                calls=total.calls,
                total=total.total_tokens,
                input=total.input_tokens,
                output=total.output_tokens,
                since=since_part,
            )
        ]
        if total.cached_input_tokens:
            lines.append(t(ws.locale, "usage.cached", cached=total.cached_input_tokens))
        for heading, groups in (
            ("usage.by_purpose", summary.by_purpose),
            ("usage.by_model", summary.by_model),
        ):
            lines.append(t(ws.locale, heading))
            lines += [
                t(ws.locale, "usage.row", label=k, calls=v.calls, total=v.total_tokens)
                for k, v in groups.items()
            ]
        return "\n".join(lines)

    emit(as_json, data, human)
