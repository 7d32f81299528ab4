"""Commands for model backends: `trinho model check` and `trinho usage`."""

from __future__ import annotations

import math
import os
import time
from dataclasses import replace
from datetime import datetime
from datetime import time as day_start

import click

from trinho.cli.app import cli, emit, json_option, owner_option, say, state
from trinho.clock import parse_day
from trinho.context.budget import MARGIN, estimate_tokens
from trinho.i18n import N_, t
from trinho.models.base import (
    ChatModel,
    ChatRequest,
    ChatResponse,
    ListsModels,
    ModelError,
    system,
    user,
)
from trinho.models.config import ModelSettings, resolve_model
from trinho.models.ledger import Totals, read_ledger, summarize, token_estimate
from trinho.models.loader import build_model, load_model
from trinho.models.openai_compat import OpenAICompatModel
from trinho.textnorm import one_line

CHECK_PROMPT = "Reply with the single word: ok"
CHECK_ATTEMPTS = 2
"""`model check` should answer quickly: one retry at most, whatever the config says."""
CHECK_TOKENS = 32
MAX_SHOWN_MODELS = 5
CHECK_SYSTEM = " ".join(
    [
        "You are the owner's assistant and keep a long-term memory for them.",
        "Answer briefly, in the owner's language, and never invent what they did not say.",
    ]
    * 12
)
"""A system message of about 300 tokens: a server that keeps it counts that many more
prompt tokens than for the same request without it."""
SYSTEM_KEPT_SHARE = 0.5
"""The share of the system message's estimate the count must grow by for it to have
arrived: chat templates and tokenizers differ, a dropped message adds nothing at all."""
OUTPUT_SHARE = 4
"""`[model] max_output_tokens` advised at most a quarter of the context: the rest is the
prompt's."""


TOKEN_SOURCE = {
    "default": N_("model.tokenizer.default"),
    "server": N_("model.tokenizer.server"),
    "usage": N_("model.tokenizer.usage"),
}


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


def system_dropped(
    settings: ModelSettings, without: ChatResponse, with_system: ChatResponse
) -> ModelError | None:
    """The failure of a server that drops the system message: the same request with a long
    system message counted (nearly) no more prompt tokens than without it. None when it
    arrived, or when the server reports no prompt tokens to tell by."""
    before, after = without.usage.input_tokens, with_system.usage.input_tokens
    system_tokens = estimate_tokens(CHECK_SYSTEM)
    if not before or not after or after - before >= system_tokens * SYSTEM_KEPT_SHARE:
        return None
    return ModelError.failed(
        settings.name,
        "bad_response",
        "error.model.check_system_dropped",
        url=settings.shown_url,
        with_system=after,
        without=before,
        system=system_tokens,
    )


def sized_settings(
    locale: str,
    context: int | None,
    rate: float | None,
    seconds: float,
    output: int,
    settings: ModelSettings,
    tokens: int,
) -> list[str]:
    """What follows from the server's context and speed, one line each."""
    lines = []
    if context is None:
        lines.append(t(locale, N_("model.server_context_unknown")))
    else:
        usable = math.floor(context * (1 - MARGIN))
        lines.append(
            t(
                locale,
                N_("model.server_context"),
                context=context,
                usable=usable,
                margin=round(MARGIN * 100),
                output=min(output, context // OUTPUT_SHARE),
            )
        )
    if rate:
        answer = round(output / rate, 1)
        verdict = (
            N_("model.speed_ok") if answer < settings.policy.timeout else N_("model.speed_short")
        )
        lines.append(
            t(
                locale,
                N_("model.speed"),
                rate=round(rate, 1),
                tokens=tokens,
                seconds=seconds,
                output=output,
                answer=answer,
                timeout=settings.policy.timeout,
                verdict=t(locale, verdict),
            )
        )
    return lines


@model.command()
@owner_option
@json_option
def check(owner: str | None, as_json: bool) -> None:
    """Send two tiny requests to the configured model and say what answered.

    Fails when the model answers nothing, or when the server drops the system message (the
    same request with a long one must count more prompt tokens); warns when the server does
    not list the configured model among those it serves (`GET /models`). Says the server's
    context length and speed, and the settings that follow from them. With a database, the
    check runs on the workspace's config, and its calls go to the owner's ledger, where
    `trinho usage` counts them."""
    ws = state().working(owner)
    settings = resolve_model(ws.config, os.environ)
    attempts = min(settings.policy.attempts, CHECK_ATTEMPTS)
    settings = replace(settings, policy=replace(settings.policy, attempts=attempts))
    inner = build_model(settings)
    listed = listed_models(inner)
    checked = load_model(ws, "check", model=inner)
    started = time.monotonic()
    response = ask(settings, checked, listed)
    seconds = round(time.monotonic() - started, 2)
    failure = empty_answer(settings, response)
    if failure is not None:
        raise failure
    with_system = checked.chat(
        ChatRequest((system(CHECK_SYSTEM), user(CHECK_PROMPT)), max_tokens=CHECK_TOKENS)
    )
    failure = system_dropped(settings, response, with_system)
    if failure is not None:
        raise failure
    context = inner.server_context() if isinstance(inner, OpenAICompatModel) else None
    estimate = token_estimate(ws, checked, (CHECK_SYSTEM,))
    rate = response.usage.output_tokens / seconds if seconds > 0 else None
    output = settings.max_output_tokens
    sized = sized_settings(
        ws.locale, context, rate, seconds, output, settings, response.usage.output_tokens
    )
    warning = name_warning(settings, listed)
    warnings = [warning] if warning else []
    kept = t(
        ws.locale,
        N_("model.system_kept"),
        with_system=with_system.usage.input_tokens,
        without=response.usage.input_tokens,
    )
    tokenizer = t(
        ws.locale,
        N_("model.tokenizer"),
        source=t(ws.locale, TOKEN_SOURCE[estimate.source]),
        factor=round(estimate.factor, 2),
    )
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
        "system_message": {
            "input_tokens_with": with_system.usage.input_tokens,
            "input_tokens_without": response.usage.input_tokens,
        },
        "context_tokens": context,
        "tokens_per_second": round(rate, 2) if rate else None,
        "token_estimate": {"source": estimate.source, "factor": round(estimate.factor, 3)},
        "settings": sized,
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
    emit(as_json, data, "\n".join([human, kept, tokenizer, *sized]))
    for key, params in warnings if not as_json else ():
        say(t(ws.locale, key, **params), err=True)


def usage_row(locale: str, label: str, totals: Totals) -> str:
    """One group's line; failed calls are named only when there were some."""
    if totals.failed_calls:
        return t(
            locale,
            "usage.row_failed",
            label=label,
            calls=t(locale, "count.calls", count=totals.calls),
            failed=totals.failed_calls,
            total=t(locale, "count.tokens", count=totals.total_tokens),
        )
    calls = t(locale, "count.calls", count=totals.calls)
    return t(
        locale, "usage.row", label=label, calls=calls, total=tokens(locale, totals.total_tokens)
    )


def tokens(locale: str, count: int) -> str:
    return t(locale, "count.tokens", count=count)


@cli.command()
@click.option("--since", "since_text", help="Count calls from this day on (YYYY-MM-DD).")
@owner_option
@json_option
def usage(since_text: str | None, owner: str | None, as_json: bool) -> None:
    """Sum the tokens every model call used (from .trinho/usage.jsonl)."""
    ws = state().working(owner)
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
                calls=t(ws.locale, "count.calls", count=total.calls),
                total=tokens(ws.locale, total.total_tokens),
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
