"""A strict fake of Anthropic's Messages API on 127.0.0.1, for driving the SDK's own tool runner.

It plays scripted assistant turns (lists of content blocks) in order and refuses, with the
API's 400 error shape, any request the real API would refuse in a tool loop:

- a path other than `/v1/messages`, no credentials (`x-api-key` or a bearer token), a
  top-level field the API does not know, a `max_tokens` that is not a positive integer;
- a tool that is neither a custom tool (`name`, `input_schema` of type object) nor the memory
  tool exactly as the API declares it (`{"type": "memory_20250818", "name": "memory"}`, an
  optional `cache_control`);
- a `thread` without the threads beta header, a `continue` naming another message than the
  last one this server sent, a new thread whose first message is not the user's;
- a user turn after a reply with `tool_use` blocks that does not answer each of them exactly
  once with a `tool_result` (content a string or text blocks, `is_error` a boolean), or any
  unknown block field.

A script running out is an error too (the test asked for more turns than it wrote).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from types import TracebackType
from typing import Any

from support.loopback import LoopbackServer, send_json

THREADS_BETA = "message-threads-2026-08-12"
FIELDS = frozenset(
    {
        "model", "messages", "max_tokens", "system", "tools", "tool_choice", "temperature",
        "top_p", "top_k", "stop_sequences", "stream", "metadata", "thinking", "thread",
        "context_management", "service_tier",
    }
)  # fmt: skip
MEMORY_TOOL_FIELDS = frozenset({"type", "name", "cache_control"})
BLOCK_FIELDS = {
    "text": frozenset({"type", "text", "cache_control", "citations"}),
    "tool_use": frozenset({"type", "id", "name", "input", "cache_control", "caller"}),
    "tool_result": frozenset({"type", "tool_use_id", "content", "is_error", "cache_control"}),
}


@dataclass
class Exchange:
    """One request, the tool results it carried (by tool_use id), and the answer sent."""

    body: dict[str, Any]
    headers: dict[str, str]
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    status: int = 200
    answer: Any = None


class FakeClaude:
    """`with FakeClaude(turns) as api:` then point the SDK's `base_url` at `api.url`."""

    def __init__(self, turns: Sequence[list[dict[str, Any]]]) -> None:
        self.turns = list(turns)
        self.exchanges: list[Exchange] = []
        self._last_id: str | None = None
        self._pending: list[str] = []
        self._lock = threading.Lock()
        self._server = LoopbackServer(self._handler())

    @property
    def url(self) -> str:
        return self._server.url

    @property
    def refusals(self) -> list[Exchange]:
        return [e for e in self.exchanges if e.status != 200]

    def results(self) -> dict[str, dict[str, Any]]:
        """Every tool result the SDK sent, by tool_use id."""
        found: dict[str, dict[str, Any]] = {}
        for exchange in self.exchanges:
            found.update(exchange.results)
        return found

    def _answer(self, path: str, headers: dict[str, str], body: Any) -> tuple[int, Any]:
        with self._lock:
            exchange = Exchange(body if isinstance(body, dict) else {}, headers)
            self.exchanges.append(exchange)
            problem = self._problem(path, headers, body, exchange)
            if problem is None and not self.turns:
                problem = "the fake's script has no more turns"
            if problem is not None:
                exchange.status = 400
                exchange.answer = {
                    "type": "error",
                    "error": {"type": "invalid_request_error", "message": problem},
                }
                return 400, exchange.answer
            content = self.turns.pop(0)
            number = len([e for e in self.exchanges if e.status == 200])
            self._last_id = f"msg_{number:04d}"
            self._pending = [b["id"] for b in content if b.get("type") == "tool_use"]
            exchange.answer = {
                "id": self._last_id,
                "type": "message",
                "role": "assistant",
                "model": str(body.get("model")),
                "content": content,
                "stop_reason": "tool_use" if self._pending else "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 10},
            }
            return 200, exchange.answer

    def _problem(
        self, path: str, headers: dict[str, str], body: Any, exchange: Exchange
    ) -> str | None:
        if path.split("?", 1)[0] != "/v1/messages":
            return f"unknown path {path}"
        if not (headers.get("x-api-key") or headers.get("authorization", "").startswith("Bearer ")):
            return "x-api-key header is required"
        if not isinstance(body, dict):
            return "the body is not a JSON object"
        unknown = sorted(set(body) - FIELDS)
        if unknown:
            return f"{unknown[0]}: Extra inputs are not permitted"
        limit = body.get("max_tokens")
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            return "max_tokens: a positive integer is required"
        problem = _tools_problem(body.get("tools"))
        if problem is not None:
            return problem
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return "messages: at least one message is required"
        for message in messages:
            problem = _message_problem(message)
            if problem is not None:
                return problem
        problem = self._thread_problem(headers, body.get("thread"), messages)
        if problem is not None:
            return problem
        return self._answers_problem(messages, exchange)

    def _thread_problem(
        self, headers: dict[str, str], thread: Any, messages: list[Any]
    ) -> str | None:
        if thread is None:
            if messages[0]["role"] != "user":
                return "messages: the first message must use the user role"
            self._pending = _unanswered_in(messages[:-1]) if len(messages) > 1 else []
            return None
        if THREADS_BETA not in headers.get("anthropic-beta", ""):
            return f"thread: requires the anthropic-beta header {THREADS_BETA}"
        kind = thread.get("type") if isinstance(thread, dict) else None
        if kind == "create":
            if messages[0]["role"] != "user":
                return "messages: the first message must use the user role"
            self._pending = []
            return None
        if kind == "continue":
            if thread.get("previous_message_id") != self._last_id:
                return f"thread.previous_message_id: expected {self._last_id}"
            return None
        return f"thread.type: unknown {kind!r}"

    def _answers_problem(self, messages: list[Any], exchange: Exchange) -> str | None:
        """The user turn after a tool_use reply answers each call exactly once."""
        if not self._pending:
            return None
        first = messages[-1] if messages[-1]["role"] == "user" else None
        blocks = first["content"] if first and isinstance(first["content"], list) else []
        answered = [b["tool_use_id"] for b in blocks if b.get("type") == "tool_result"]
        if sorted(answered) != sorted(self._pending):
            return f"tool_use ids {self._pending} were not each answered once: {answered}"
        exchange.results = {b["tool_use_id"]: b for b in blocks if b.get("type") == "tool_result"}
        return None

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length", "0")))
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = None
                headers = {k.lower(): v for k, v in self.headers.items()}
                status, answer = fake._answer(self.path, headers, body)
                send_json(self, status, answer)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler

    def __enter__(self) -> FakeClaude:
        self._server.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.stop()


def _tools_problem(tools: Any) -> str | None:
    if tools is None:
        return None
    if not isinstance(tools, list):
        return "tools: Input should be a valid list"
    for number, tool in enumerate(tools):
        if not isinstance(tool, dict):
            return f"tools.{number}: Input should be an object"
        if tool.get("type") == "memory_20250818":
            extra = sorted(set(tool) - MEMORY_TOOL_FIELDS)
            if extra:
                return f"tools.{number}.{extra[0]}: Extra inputs are not permitted"
            if tool.get("name") != "memory":
                return f"tools.{number}.name: Input should be 'memory'"
            continue
        schema = tool.get("input_schema")
        if not tool.get("name") or not isinstance(schema, dict) or schema.get("type") != "object":
            return f"tools.{number}: a custom tool needs a name and an object input_schema"
    return None


def _message_problem(message: Any) -> str | None:
    if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
        return f"messages: invalid message {message!r}"
    content = message.get("content")
    if isinstance(content, str):
        return None if content else "messages: text content must be non-empty"
    if not isinstance(content, list) or not content:
        return f"messages: invalid content {content!r}"
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else None
        allowed = BLOCK_FIELDS.get(kind) if isinstance(kind, str) else None
        if allowed is None:
            return f"unknown content block {block!r}"
        extra = sorted(set(block) - allowed)
        if extra:
            return f"{kind}.{extra[0]}: Extra inputs are not permitted"
        if kind == "tool_result":
            problem = _result_problem(block)
            if problem is not None:
                return problem
    return None


def _result_problem(block: dict[str, Any]) -> str | None:
    if "is_error" in block and not isinstance(block["is_error"], bool):
        return "tool_result.is_error: Input should be a valid boolean"
    content = block.get("content")
    if isinstance(content, str):
        return None
    if isinstance(content, list) and all(
        isinstance(part, dict) and part.get("type") == "text" and part.get("text")
        for part in content
    ):
        return None
    return f"tool_result.content: invalid {content!r}"


def _unanswered_in(messages: list[Any]) -> list[str]:
    """The tool_use ids of the last assistant message of a full history, when it is last."""
    last = messages[-1]
    if last["role"] != "assistant" or not isinstance(last["content"], list):
        return []
    return [b["id"] for b in last["content"] if b.get("type") == "tool_use"]


def tool_use(number: int, **command: Any) -> dict[str, Any]:
    """A scripted `tool_use` block of the memory tool."""
    return {"type": "tool_use", "id": f"toolu_{number:03d}", "name": "memory", "input": command}
