"""The agent loop: one turn = context, the model with the memory tools, tool calls, a reply.

Used for the owner's chat (actor `chat`: Telegram, `trinho chat`) and for unattended jobs
(actor `job`: whatever a job finds becomes a proposal, by the rules in `trinho.facts`).
The owner's message is recorded in the transcript before the model is asked, and the reply
once it exists, so a failing model never loses what the owner said.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from trinho.context.budget import TokenEstimate, estimate_tokens
from trinho.context.run import build_context
from trinho.conversations.store import Turn, read_turns, record_turn
from trinho.i18n import t
from trinho.models import (
    ChatModel,
    ChatRequest,
    Message,
    ModelError,
    ToolCall,
    ToolSpec,
    assistant,
    system,
    user,
)
from trinho.models import tool_result as tool_message
from trinho.models.config import max_output_tokens
from trinho.models.ledger import token_estimate
from trinho.proposals.format import Source
from trinho.tools import service as tools
from trinho.tools.service import Actor
from trinho.workspace import Workspace

MAX_TOOL_ROUNDS = 8
"""Model calls that may ask for tools in one turn; the next call is offered no tools."""
MAX_REPLY_TOKENS = 1024
MIN_REPLY_TOKENS = 128
"""A reply is asked for less than `MAX_REPLY_TOKENS` when the context is short, not less
than this: below it the turn does not fit at all."""
MESSAGE_FRAME_TOKENS = 4
"""What the chat template adds around each message."""
CUT_STOP_REASONS = ("length", "max_tokens")


def message_tokens(message: Message) -> int:
    """One message's estimate, its tool calls and the template's frame included."""
    calls = "".join(c.name + str(dict(c.arguments)) for c in message.tool_calls)
    return estimate_tokens(message.text + calls) + MESSAGE_FRAME_TOKENS


def specs_tokens(specs: Sequence[ToolSpec]) -> int:
    """What the tools' schemas cost in a request (a chat template writes them out in JSON)."""
    return estimate_tokens(
        "".join(json.dumps([s.name, s.description, dict(s.parameters)]) for s in specs)
    )


def fit_history(history: Sequence[Message], budget: int) -> tuple[Message, ...]:
    """The newest turns of `history` that fit `budget` tokens, whole turns only: the oldest
    leave first (they stay in the transcripts, and search finds them), and what is kept
    never starts with a reply whose question left."""
    kept: list[Message] = []
    used = 0
    for message in reversed(history):
        used += message_tokens(message)
        if used > budget:
            break
        kept.append(message)
    kept.reverse()
    while kept and kept[0].role != "user":
        kept.pop(0)
    return tuple(kept)


@dataclass(frozen=True)
class ChatBudget:
    """The room of one model call in `estimate_tokens` units (see `TokenEstimate.usable`)."""

    usable: int
    factor: float = 1.0

    def reply_tokens(self, fixed: int) -> int:
        """What the reply may be asked for beside `fixed` tokens of prompt (real tokens)."""
        left = math.floor((self.usable - fixed) * self.factor)
        return max(0, min(MAX_REPLY_TOKENS, left))

    def history_room(self, fixed: int) -> int:
        """The tokens left for history beside `fixed` and a reply: a full one, or a quarter
        of a context too short for it."""
        reserve = min(math.ceil(MAX_REPLY_TOKENS / self.factor), self.usable // 4)
        return max(0, self.usable - fixed - reserve)


def chat_budget(ws: Workspace, estimate: TokenEstimate) -> ChatBudget:
    """The model's context (`[condense] context_tokens`, the server's context whatever asks)
    less the margin, in estimate units."""
    return ChatBudget(estimate.usable(ws.config.condense.context_tokens), estimate.factor)


@dataclass(frozen=True)
class ToolUse:
    """One tool call made during a turn, and whether it failed."""

    name: str
    is_error: bool
    result: str


@dataclass(frozen=True)
class TurnResult:
    reply: str
    tool_uses: tuple[ToolUse, ...]
    model_calls: int
    cut: bool = False
    """The server stopped the reply at its length limit: `reply` ends with a mark saying so."""
    history_used: int = 0
    """How many messages of the history the model was given."""


def opening_text(preamble: str, text: str) -> str:
    """The turn's opening message: the recent notes (the preamble), then the message."""
    return f"{preamble}\n\n{text}" if preamble.strip() else text


def run_turn(
    ws: Workspace,
    model: ChatModel,
    text: str,
    *,
    actor: Actor,
    history: Sequence[Message] = (),
    record: bool = True,
    max_rounds: int = MAX_TOOL_ROUNDS,
    estimate: TokenEstimate | None = None,
    extra: Sequence[ExtraTool] = (),
) -> TurnResult:
    """Answer `text`: tool calls go through `tools.call` as `actor`, at most `max_rounds`
    model calls may ask for tools, then the model must answer in words.

    The history given is what fits the context beside the system message, the message and a
    reply; a server that still refuses the request as too long is asked once more with no
    history. A reply the server cut at its length limit is marked as cut."""
    if record:
        said = record_turn(ws, "user", text)
        source = Source("turn", f"{said.path}#{said.line}", text)
        actor = replace(actor, seen=(*actor.seen, source))
    # trinho's own agent: OpenClaw loads none of the workspace's files into this prompt
    context = build_context(ws, actor.user, openclaw=False)
    opening = user(opening_text(context.preamble, text))
    specs = (*tools.model_specs(), *(e.spec for e in extra))
    if estimate is None:
        estimate = token_estimate(ws, model, (context.system,))
    budget = chat_budget(ws, estimate)
    fixed = message_tokens(system(context.system)) + message_tokens(opening)
    if budget.reply_tokens(fixed + specs_tokens(specs)) < MIN_REPLY_TOKENS:
        specs = ()  # a context too short for the tools' schemas: the model answers in words
    fixed += specs_tokens(specs)
    kept = fit_history(history, budget.history_room(fixed))
    try:
        result = _answer(
            ws, model, context.system, kept, opening, specs, actor, max_rounds, budget, extra
        )
    except ModelError as exc:
        if exc.kind != "context_exceeded" or not kept:
            raise
        result = _answer(
            ws, model, context.system, (), opening, specs, actor, max_rounds, budget, extra
        )
    if record and result.reply:
        record_turn(ws, "assistant", result.reply)
    return result


def _answer(
    ws: Workspace,
    model: ChatModel,
    system_text: str,
    history: tuple[Message, ...],
    opening: Message,
    specs: tuple[ToolSpec, ...],
    actor: Actor,
    max_rounds: int,
    budget: ChatBudget,
    extra: Sequence[ExtraTool],
) -> TurnResult:
    messages: list[Message] = [system(system_text), *history, opening]
    uses: list[ToolUse] = []
    calls = 0
    while True:
        offered = specs if calls < max_rounds else ()
        request_tokens = sum(message_tokens(m) for m in messages) + specs_tokens(offered)
        limit = min(budget.reply_tokens(request_tokens), max_output_tokens(ws))
        if limit < MIN_REPLY_TOKENS:
            raise ModelError.failed(
                model.name,
                "context_exceeded",
                "chat.too_long",
                tokens=TokenEstimate(budget.factor).real(request_tokens),
                context=ws.config.condense.context_tokens,
            )
        response = model.chat(ChatRequest(tuple(messages), tools=offered, max_tokens=limit))
        calls += 1
        if not response.tool_calls or not offered:
            reply = response.text.strip()
            break
        messages.append(response.as_message())
        for call in response.tool_calls:
            result = _call(ws, call, actor, [e for e in extra if e.spec in offered])
            uses.append(ToolUse(call.name, result.is_error, result.text))
            messages.append(tool_message(call, result.text))
    cut = response.stop_reason in CUT_STOP_REASONS
    if cut:
        mark = t(ws.locale, "chat.cut")
        reply = f"{reply}\n{mark}".strip()
    return TurnResult(reply, tuple(uses), calls, cut, len(history))


@dataclass(frozen=True)
class ExtraTool:
    """A tool offered beside trinho's own for one model (Claude's memory tool for an
    `anthropic:` model): what the model is told, and what runs a call (answer, is error)."""

    spec: ToolSpec
    run: Callable[[Workspace, Mapping[str, Any], Actor], tuple[str, bool]]


def _call(
    ws: Workspace, call: ToolCall, actor: Actor, offered: Sequence[ExtraTool]
) -> tools.ToolResult:
    """A tool call of the turn: an extra tool offered by that name, else trinho's."""
    for tool in offered:
        if call.name == tool.spec.name and call.error is None:
            answer, failed = tool.run(ws, call.arguments, actor)
            return tools.ToolResult(answer, failed)
    return tools.call_model_tool(ws, call, actor)


def replay_state(turns: Sequence[Turn], ref: str) -> tuple[bool, str | None]:
    """Whether the message `ref` is in the transcript, and the reply recorded for it."""
    asked = any(turn.ref == ref and turn.role == "user" for turn in turns)
    answers = [turn.text for turn in turns if turn.ref == ref and turn.role == "assistant"]
    return asked, (answers[-1] if answers else None)


class ChatSession:
    """A conversation with the owner: recent turns are kept as history for the next turn,
    as many as the model's context holds (see `fit_history`); the session keeps no more
    than that, however long it runs.

    Safe to call from several threads (Telegram handles updates concurrently): turns are
    taken one at a time, so history and the transcript stay in order.
    """

    def __init__(
        self,
        ws: Workspace,
        model: ChatModel,
        *,
        actor: Actor | None = None,
        extra: Sequence[ExtraTool] = (),
    ) -> None:
        self.ws = ws
        self.model = model
        self.extra = tuple(extra)
        self.actor = actor or Actor("chat")
        self.history: list[Message] = []
        self.estimate: TokenEstimate | None = None
        """Measured at the first turn (the server's tokenizer or the ledger), then kept."""
        self._lock = threading.Lock()

    def ask(self, text: str, ref: str | None = None) -> TurnResult:
        """Answer `text`. With a `ref` (a message replayed after a crash carries the same one),
        a turn already in the transcript is not recorded or asked again."""
        with self._lock:
            if self.estimate is None:
                prompt = build_context(self.ws, self.actor.user, openclaw=False).system
                self.estimate = token_estimate(self.ws, self.model, (prompt,))
            if ref is None:
                result = self._turn(text, record=True)
            else:
                result = self._replayable_turn(text, ref)
            self.history += [user(text), assistant(result.reply)]
            self.history = list(
                fit_history(self.history, chat_budget(self.ws, self.estimate).usable)
            )
            return result

    def _replayable_turn(self, text: str, ref: str) -> TurnResult:
        today = self.ws.today()
        turns = [s.turn for s in read_turns(self.ws, today - timedelta(days=1), today)]
        asked, answer = replay_state(turns, ref)
        if answer is not None:
            return TurnResult(answer, (), 0)
        if not asked:
            record_turn(self.ws, "user", text, ref=ref)
        result = self._turn(text, record=False)
        if result.reply:
            record_turn(self.ws, "assistant", result.reply, ref=ref)
        return result

    def _turn(self, text: str, *, record: bool) -> TurnResult:
        return run_turn(
            self.ws,
            self.model,
            text,
            actor=self.actor,
            history=self.history,
            record=record,
            estimate=self.estimate,
            extra=self.extra,
        )

    def __call__(self, text: str, ref: str | None = None) -> str | None:
        """The channel's `MessageHandler`: the reply text, or None when there is none."""
        return self.ask(text, ref).reply or None
