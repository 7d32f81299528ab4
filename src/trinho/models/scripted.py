"""A scripted model for tests and the demo: same Protocol, no network.

Replies come from a queue, in order, or from a function of the request. A reply given as plain
text gets estimated usage, so budgets and the ledger behave as with a real model.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable

from trinho.context.budget import estimate_tokens
from trinho.models.base import (
    ChatRequest,
    ChatResponse,
    ModelError,
    Usage,
)

Reply = ChatResponse | str


class ScriptedModel:
    """Answers from `replies` (consumed in order) or `replies(request)` when it is callable."""

    def __init__(
        self,
        replies: Iterable[Reply] | Callable[[ChatRequest], Reply],
        name: str = "scripted:model",
    ) -> None:
        self._name = name
        self._respond = replies if callable(replies) else None
        self._queue: deque[Reply] = deque() if callable(replies) else deque(replies)
        self.requests: list[ChatRequest] = []
        self.usage = Usage()

    @property
    def name(self) -> str:
        return self._name

    @property
    def remaining(self) -> int:
        """Replies still queued (0 for a function-driven model)."""
        return len(self._queue)

    def chat(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        if self._respond is not None:
            reply = self._respond(request)
        elif self._queue:
            reply = self._queue.popleft()
        else:
            raise ModelError.failed(
                self._name, "exhausted", "error.model.script_exhausted", call=len(self.requests)
            )
        response = self._complete(reply, request)
        self.usage = self.usage + response.usage
        return response

    def _complete(self, reply: Reply, request: ChatRequest) -> ChatResponse:
        if isinstance(reply, str):
            prompt = request.estimated_tokens() - request.max_tokens
            return ChatResponse(
                text=reply,
                usage=Usage(prompt, estimate_tokens(reply)),
                model=self._name,
                stop_reason="stop",
            )
        return reply
