"""The rewrite step, pure parts: the request for one chunk, and cleaning the model's answer.

Two protocols (`[condense] protocol`). `ops` (the default) shows MEMORY.md numbered and asks
for an edit script (`trinho.condense.rules.ops`): the request puts what stays the same first (the
instructions and the numbered file, in the system message) and the week after it, so the
prefix is byte-identical across a run's chunks and across weeks while MEMORY.md is unchanged.
`file` asks for the whole new MEMORY.md; only a code fence around all of it is removed, any
other chatter stays in, so the gate sees it and holds it as malformed.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from trinho.condense.rules.chunks import Chunk, answer_tokens, render_material
from trinho.condense.rules.ops import number_lines, script_tokens, unfenced
from trinho.condense.rules.prompt import Prompt
from trinho.condense.rules.window import Window, render_window
from trinho.i18n import t
from trinho.models import ChatRequest, estimate_tokens, system, user
from trinho.textnorm import nfc, unify_breaks

MEMORY_BEGIN = "<<<MEMORY.md"
MEMORY_END = "MEMORY.md>>>"


def rewrite_request(
    prompt: Prompt,
    memory_text: str,
    chunk: Chunk,
    chunks: int,
    today: date,
    since: date,
    locale: str,
) -> ChatRequest:
    """One rewrite call: the instructions, MEMORY.md so far, and one chunk of the week."""
    parts = [
        t(locale, "condense.prompt.memory"),
        MEMORY_BEGIN,
        memory_text.rstrip("\n"),
        MEMORY_END,
        "",
        t(locale, "condense.prompt.week", since=since, today=today, part=chunk.number, of=chunks),
        render_material(chunk.items),
    ]
    memory_tokens = estimate_tokens(memory_text)
    return ChatRequest(
        messages=(system(prompt.fill(today, since)), user("\n".join(parts))),
        max_tokens=answer_tokens(memory_tokens, chunk.tokens),
    )


def ops_prefix(
    prompt: Prompt,
    memory_text: str,
    today: date,
    since: date,
    locale: str,
    budget: int,
    window: Window | None = None,
) -> str:
    """The system message of every edit-script call of a run: instructions, numbered file
    (only the lines of `window`, when it is given: a small context's call)."""
    instructions = prompt.fill(
        today, since, memory_budget=budget, memory_tokens=estimate_tokens(memory_text)
    )
    numbered = number_lines(memory_text) if window is None else render_window(memory_text, window)
    return "\n".join(
        [instructions, "", t(locale, "condense.prompt.memory"), MEMORY_BEGIN, numbered, MEMORY_END]
    )


def ops_request(
    prefix: str,
    chunk: Chunk,
    chunks: int,
    today: date,
    since: date,
    locale: str,
    max_output: int,
) -> ChatRequest:
    """One edit-script call: the run's stable prefix, then one chunk of the week."""
    week = t(locale, "condense.prompt.week", since=since, today=today, part=chunk.number, of=chunks)
    return ChatRequest(
        messages=(system(prefix), user(week + "\n" + render_material(chunk.items))),
        max_tokens=min(max_output, script_tokens(chunk.tokens, len(chunk.items))),
        cache_prefix=True,
    )


def week_frame_tokens(today: date, since: date, locale: str) -> int:
    """What an edit-script request's user message costs besides the material."""
    week = t(locale, "condense.prompt.week", since=since, today=today, part=99, of=99)
    return estimate_tokens(week) + 16


def overhead_tokens(prompt: Prompt, today: date, since: date, locale: str) -> int:
    """What a rewrite request costs besides MEMORY.md and the material."""
    frame = "\n".join(
        [
            prompt.fill(today, since),
            t(locale, "condense.prompt.memory"),
            MEMORY_BEGIN,
            MEMORY_END,
            t(locale, "condense.prompt.week", since=since, today=today, part=99, of=99),
        ]
    )
    return estimate_tokens(frame) + 16


def clean_answer(text: str) -> str:
    """NFC, one kind of line break, and a code fence around the whole answer removed."""
    return unfenced(unify_breaks(nfc(text)).split("\n"))


SCREEN_ANSWER_TOKENS = 64
SCREEN_LINE_ANSWER_TOKENS = 40
"""A screening answer's `max_tokens`: this much, and room for a short reason on every line."""


def _screen_lines(number: int, line: str, old: str | None) -> list[str]:
    return [f"{number}. {line}", *([] if old is None else [f"   replaces: {old}"])]


def screen_request(
    prompt: Prompt, lines: Sequence[tuple[str, str | None]], locale: str
) -> ChatRequest:
    """One screening call over up to a batch of (new line, line it replaces or None)."""
    body = [t(locale, "condense.prompt.screen")]
    for number, (line, old) in enumerate(lines, 1):
        body += _screen_lines(number, line, old)
    return ChatRequest(
        messages=(system(prompt.text), user("\n".join(body))),
        max_tokens=SCREEN_ANSWER_TOKENS + SCREEN_LINE_ANSWER_TOKENS * len(lines),
    )


def screen_overhead_tokens(prompt: Prompt, locale: str) -> int:
    """What a screening call costs besides its lines: the instructions, the heading, the
    answer's fixed part and the messages' frames."""
    frame = prompt.text + "\n" + t(locale, "condense.prompt.screen")
    return estimate_tokens(frame) + SCREEN_ANSWER_TOKENS + 16


def screen_line_tokens(number: int, line: str, old: str | None) -> int:
    """What one line costs a screening call: its text (and the line it replaces) and its
    verdict."""
    shown = "\n".join(_screen_lines(number, line, old))
    return estimate_tokens(shown) + 1 + SCREEN_LINE_ANSWER_TOKENS
