"""Commands for model backends: `trinho model check` and `trinho usage`."""

from __future__ import annotations

import os
import time
from dataclasses import replace
from datetime import datetime
from datetime import time as day_start

import click

from trinho.cli.app import cli, emit, json_option, say, state
from trinho.i18n import N_, t
from trinho.models.base import ChatModel, ChatRequest, ChatResponse, ListsModels, ModelError, user
from trinho.models.config import ModelSettings, resolve_model
from trinho.models.ledger import Totals, read_ledger, summarize
from trinho.models.loader import build_model, load_model
from trinho.textnorm import one_line
from trinho.workspace import parse_day

CHECK_PROMPT = "Reply with the single word: ok"
CHECK_ATTEMPTS = 2
"""`model check` should answer quickly: one retry at most, whatever the config says."""
CHECK_TOKENS = 32
MAX_SHOWN_MODELS = 5


@cli.group()
def model() -> None:
    """Chat-model backends (TRINHO_MODEL or [model] name = "PROVIDER:MODEL")."""


def listed_models(chat_model: ChatModel) -> tuple[str, ...] | None:
    """What the server says it serves (`GET /models`), or None when it cannot say: a server
    without the endpoint still passes the check, the chat request then speaks for itself."""
    if not isinstance(chat_model, ListsModels):
        return None
    try:
        return chat_model.served_models()
    except ModelError:
        return None


def shown_models(ids: tuple[str, ...]) -> str:
    """A few model ids for a one-line message."""
    shown = ", ".join(repr(i) for i in ids[:MAX_SHOWN_MODELS])
    return shown + (f", … (+{len(ids) - MAX_SHOWN_MODELS})" if len(ids) > MAX_SHOWN_MODELS else "")


def is_listed(model: str, ids: tuple[str, ...]) -> bool:
    """`model` among `ids`; Ollama serves `name` as `name:latest`."""
    return model in ids or (":" not in model and f"{model}:latest" in ids)


def name_warning(
    settings: ModelSettings, listed: tuple[str, ...] | None
) -> tuple[str, dict[str, object]] | None:
    """The warning (catalog key, params) when the server answered but does not list the
    configured name. One listed model (llama.cpp answers with its one model whatever name is
    asked) names the model that did answer; otherwise the names it lists."""
    if not listed or is_listed(settings.model, listed):
        return None
    key = N_("model.warn_one_model") if len(listed) == 1 else N_("model.warn_unlisted")
    params: dict[str, object] = {
        "url": settings.shown_url,
        "model": repr(settings.model),
        "served": shown_models(listed),
    }
    return key, params


def empty_answer(settings: ModelSettings, response: ChatResponse) -> ModelError | None:
    """The failure of a check answered with no text: a model that says nothing (a server that
    lost its model, a thinking model that spent every token thinking) is no model to rely on."""
    if response.text.strip():
        return None
    if response.stop_reason == "length":
        return ModelError.failed(
            settings.name, "bad_response", "error.model.check_cut", limit=CHECK_TOKENS
        )
    return ModelError.failed(
        settings.name,
        "bad_response",
        "error.model.check_empty",
        tokens=response.usage.output_tokens,
        stop=response.stop_reason or "-",
    )


def ask(
    settings: ModelSettings, chat_model: ChatModel, listed: tuple[str, ...] | None
) -> ChatResponse:
    """The check's one request; an unknown model is named with what the server does serve."""
    try:
        return chat_model.chat(ChatRequest((user(CHECK_PROMPT),), max_tokens=CHECK_TOKENS))
    except ModelError as exc:
        if exc.kind != "unknown_model" or not listed:
            raise
        raise ModelError.failed(
            settings.name,
            "unknown_model",
            "error.model.unknown_listed",
            model=settings.model,
            url=settings.shown_url,
            said=exc.params.get("said", ""),
            served=shown_models(listed),
        ) from None


@model.command()
@json_option
def check(as_json: bool) -> None:
    """Send one tiny request to the configured model and say what answered.

    Fails when the model answers nothing; warns when the server does not list the configured
    model among those it serves (`GET /models`)."""
    ws = state().workspace()
    settings = resolve_model(ws.config, os.environ)
    attempts = min(settings.policy.attempts, CHECK_ATTEMPTS)
    settings = replace(settings, policy=replace(settings.policy, attempts=attempts))
    inner = build_model(settings)
    listed = listed_models(inner)
    started = time.monotonic()
    response = ask(settings, load_model(ws, "check", model=inner), listed)
    seconds = round(time.monotonic() - started, 2)
    failure = empty_answer(settings, response)
    if failure is not None:
        raise failure
    warning = name_warning(settings, listed)
    warnings = [warning] if warning else []
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
        "listed_models": list(listed) if listed is not None else None,
        "warnings": [t("en", key, **params) for key, params in warnings],
        "timeout": settings.policy.timeout,
    }
    human = t(
        ws.locale,
        N_("model.answered"),
        model=settings.name if not response.model else f"{settings.name} ({response.model})",
        url=settings.shown_url,
        seconds=seconds,
        tokens=response.usage.total_tokens,
        reply=one_line(response.text)[:80],
    )
    emit(as_json, data, human)
    for key, params in warnings if not as_json else ():
        say(t(ws.locale, key, **params), err=True)


def usage_row(locale: str, label: str, totals: Totals) -> str:
    """One group's line; failed calls are named only when there were some."""
    if totals.failed_calls:
        return t(
            locale,
            "usage.row_failed",
            label=label,
            calls=totals.calls,
            failed=totals.failed_calls,
            total=totals.total_tokens,
        )
    return t(locale, "usage.row", label=label, calls=totals.calls, total=totals.total_tokens)


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
        "by_failure": summary.by_failure,
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
        if total.failed_calls:
            kinds = ", ".join(f"{kind} {n}" for kind, n in summary.by_failure.items())
            lines.append(t(ws.locale, "usage.failed", failed=total.failed_calls, kinds=kinds))
        for heading, groups in (
            (N_("usage.by_purpose"), summary.by_purpose),
            (N_("usage.by_model"), summary.by_model),
        ):
            lines.append(t(ws.locale, heading))
            lines += [usage_row(ws.locale, k, v) for k, v in groups.items()]
        return "\n".join(lines)

    emit(as_json, data, human)
