"""The agent loop: one turn = context, the model with the memory tools, tool calls, a reply.

Used for the owner's chat (actor `chat`: Telegram, `trinho chat`) and for unattended jobs
(actor `job`: whatever a job finds becomes a proposal, by the rules in `trinho.facts`).
The owner's message is recorded in the transcript before the model is asked, and the reply
once it exists, so a failing model never loses what the owner said.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import timedelta

from trinho.context.run import build_context
from trinho.conversations.store import Turn, read_turns, record_turn
from trinho.models import ChatModel, ChatRequest, Message, assistant, system, user
from trinho.models import tool_result as tool_message
from trinho.proposals.store import Source
from trinho.tools import service as tools
from trinho.tools.service import Actor
from trinho.workspace import Workspace

MAX_TOOL_ROUNDS = 8
"""Model calls that may ask for tools in one turn; the next call is offered no tools."""
MAX_HISTORY_MESSAGES = 20
MAX_REPLY_TOKENS = 1024


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
) -> TurnResult:
    """Answer `text`: tool calls go through `tools.call` as `actor`, at most `max_rounds`
    model calls may ask for tools, then the model must answer in words."""
    if record:
        said = record_turn(ws, "user", text)
        source = Source("turn", f"{said.path}#{said.line}", text)
        actor = replace(actor, seen=(*actor.seen, source))
    # trinho's own agent: OpenClaw loads none of the workspace's files into this prompt
    context = build_context(ws, actor.user, openclaw=False)
    messages: list[Message] = [
        system(context.system),
        *history,
        user(opening_text(context.preamble, text)),
    ]
    specs = tools.model_specs()
    uses: list[ToolUse] = []
    calls = 0
    while True:
        offered = specs if calls < max_rounds else ()
        response = model.chat(
            ChatRequest(tuple(messages), tools=offered, max_tokens=MAX_REPLY_TOKENS)
        )
        calls += 1
        if not response.tool_calls or not offered:
            reply = response.text.strip()
            break
        messages.append(response.as_message())
        for call in response.tool_calls:
            result = tools.call_model_tool(ws, call, actor)
            uses.append(ToolUse(call.name, result.is_error, result.text))
            messages.append(tool_message(call, result.text))
    if record and reply:
        record_turn(ws, "assistant", reply)
    return TurnResult(reply, tuple(uses), calls)


def replay_state(turns: Sequence[Turn], ref: str) -> tuple[bool, str | None]:
    """Whether the message `ref` is in the transcript, and the reply recorded for it."""
    asked = any(turn.ref == ref and turn.role == "user" for turn in turns)
    answers = [turn.text for turn in turns if turn.ref == ref and turn.role == "assistant"]
    return asked, (answers[-1] if answers else None)


class ChatSession:
    """A conversation with the owner: recent turns are kept as history for the next turn.

    Safe to call from several threads (Telegram handles updates concurrently): turns are
    taken one at a time, so history and the transcript stay in order.
    """

    def __init__(
        self,
        ws: Workspace,
        model: ChatModel,
        *,
        actor: Actor | None = None,
        max_history: int = MAX_HISTORY_MESSAGES,
    ) -> None:
        self.ws = ws
        self.model = model
        self.actor = actor or Actor("chat")
        self.max_history = max_history
        self.history: list[Message] = []
        self._lock = threading.Lock()

    def ask(self, text: str, ref: str | None = None) -> TurnResult:
        """Answer `text`. With a `ref` (a message replayed after a crash carries the same one),
        a turn already in the transcript is not recorded or asked again."""
        with self._lock:
            if ref is None:
                result = run_turn(self.ws, self.model, text, actor=self.actor, history=self.history)
            else:
                result = self._replayable_turn(text, ref)
            self.history += [user(text), assistant(result.reply)]
            del self.history[: max(0, len(self.history) - self.max_history)]
            return result

    def _replayable_turn(self, text: str, ref: str) -> TurnResult:
        today = self.ws.today()
        turns = [s.turn for s in read_turns(self.ws, today - timedelta(days=1), today)]
        asked, answer = replay_state(turns, ref)
        if answer is not None:
            return TurnResult(answer, (), 0)
        if not asked:
            record_turn(self.ws, "user", text, ref=ref)
        result = run_turn(
            self.ws, self.model, text, actor=self.actor, history=self.history, record=False
        )
        if result.reply:
            record_turn(self.ws, "assistant", result.reply, ref=ref)
        return result

    def __call__(self, text: str, ref: str | None = None) -> str | None:
        """The channel's `MessageHandler`: the reply text, or None when there is none."""
        return self.ask(text, ref).reply or None
