"""What a model's work looks like while it runs: events, the state they add up to, one line.

The model client (`models.ledger.LedgeredModel`) says when a call starts and ends, the
condensation run which step it is at; neither knows who listens. A listener is any
`Observer`, installed for a stretch of work with `observed`: the CLI's terminal line
(`trinho.cli.terminal`) is the only one, and without it `notify` does nothing. The observer
travels in a context variable, so no signature between the command and the model changes.

The state and its rendering are pure: the terminal writer only adds a clock and a width.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Protocol

from trinho.i18n import N_, t

STEPS: dict[str, tuple[str, str]] = {
    "reading": (N_("progress.step.reading"), N_("progress.step.reading")),
    "rewriting": (N_("progress.step.rewriting"), N_("progress.step.rewriting_part")),
    "screening": (N_("progress.step.screening"), N_("progress.step.screening_part")),
    "thinking": (N_("progress.step.thinking"), N_("progress.step.thinking")),
    "facts": (N_("progress.step.facts"), N_("progress.step.facts")),
    "job": (N_("progress.step.job"), N_("progress.step.job")),
}
"""A step's name -> its label alone, and with its part (`chunk 2 of 3`)."""
SEPARATOR = " · "


@dataclass(frozen=True)
class Step:
    """The work moved on to step `name` (a key of `STEPS`), part `part` of `parts` of it
    (0: the step has no parts)."""

    name: str
    part: int = 0
    parts: int = 0


@dataclass(frozen=True)
class CallStarted:
    """A model call was sent; its answer is awaited."""


@dataclass(frozen=True)
class CallEnded:
    """A model call came back (or failed), having cost `tokens` (prompt and answer)."""

    tokens: int = 0


@dataclass(frozen=True)
class Finished:
    """The model's work is over: nothing to show from now on (what follows is the report)."""


Event = Step | CallStarted | CallEnded | Finished


@dataclass(frozen=True)
class Progress:
    """Where the work is: its step (None: nothing to show), calls answered and awaited, and
    the tokens the answered ones cost. The adapters do not stream, so tokens count as each
    call returns."""

    step: Step | None = None
    done: int = 0
    waiting: int = 0
    tokens: int = 0


def advance(state: Progress, event: Event) -> Progress:
    """The state after `event`. An end without a start, or negative tokens, count as nothing:
    the counts never go below zero."""
    if isinstance(event, Step):
        return replace(state, step=event)
    if isinstance(event, CallStarted):
        return replace(state, waiting=state.waiting + 1)
    if isinstance(event, CallEnded):
        if state.waiting == 0:
            return state
        tokens = state.tokens + max(0, event.tokens)
        return replace(state, done=state.done + 1, waiting=state.waiting - 1, tokens=tokens)
    return replace(state, step=None)


def render(state: Progress, locale: str, seconds: float, width: int) -> str:
    """The state as one line of at most `width - 1` characters (the last column left free,
    so a terminal never wraps it): the step, the seconds (ticking first, so a narrow terminal
    keeps them), the calls and the tokens once there are some. "" when there is nothing to
    show or no room at all."""
    if state.step is None or width < 2:
        return ""
    alone, with_part = STEPS.get(state.step.name, STEPS["thinking"])
    step = state.step
    if step.parts > 1 and 0 < step.part <= step.parts:
        label = t(locale, with_part, part=step.part, parts=step.parts)
    else:
        label = t(locale, alone)
    parts = [label, t(locale, "progress.seconds", seconds=max(0, int(seconds)))]
    if state.done and state.waiting:
        parts.append(t(locale, "progress.calls", count=state.done, waiting=state.waiting))
    elif state.done:
        parts.append(t(locale, "progress.calls_done", count=state.done))
    elif state.waiting:
        parts.append(t(locale, "progress.calls_waiting", count=state.waiting))
    if state.tokens:
        parts.append(t(locale, "count.tokens", count=state.tokens))
    line = SEPARATOR.join(parts)
    room = width - 1
    return line if len(line) <= room else line[: max(0, room - 1)] + "…"


class Observer(Protocol):
    """Anything told of the events: the terminal line, a test's list."""

    def __call__(self, event: Event, /) -> None: ...


_observer: ContextVar[Observer | None] = ContextVar("trinho_progress", default=None)


def notify(event: Event) -> None:
    """Tell the observer installed by `observed`, if any, of `event`."""
    observer = _observer.get()
    if observer is not None:
        observer(event)


@contextmanager
def observed(observer: Observer) -> Iterator[None]:
    """`observer` hears every event notified in this context until the block ends."""
    token = _observer.set(observer)
    try:
        yield
    finally:
        _observer.reset(token)
