"""A small HTTP server on 127.0.0.1 that answers like a model API, for adapter tests.

It plays a script of replies in order (the last one repeats) and keeps every request it got,
so tests see exactly what the real SDKs sent and how often they retried. Like the real APIs,
it refuses with a 400 a body the API would refuse (an unknown field, a null content, a bad
cache mark), whatever reply was scripted: see `openai_problem` and `anthropic_problem`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any


@dataclass(frozen=True)
class Reply:
    body: Any = None
    status: int = 200
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


class FakeServer:
    def __init__(self, *replies: Reply) -> None:
        if not replies:
            raise ValueError("give the fake server at least one reply")
        self.replies = list(replies)
        self.requests: list[Seen] = []
        self._release = threading.Event()
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def _next(self, seen: Seen) -> Reply:
        with self._lock:
            self.requests.append(seen)
            index = min(len(self.requests), len(self.replies)) - 1
            scripted = self.replies[index]
        problem = body_problem(seen.path, seen.body)
        return scripted if problem is None else Reply(error_body(problem), status=400)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                raw = self.rfile.read(length)
                body = json.loads(raw) if raw else None
                headers = {k.lower(): v for k, v in self.headers.items()}
                reply = server._next(Seen("POST", self.path, headers, body))
                if reply.delay:
                    server._release.wait(reply.delay)
                payload = json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:
                    pass  # the client gave up (a timeout test)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler

    def __enter__(self) -> FakeServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._release.set()
        self._httpd.shutdown()
        self._httpd.server_close()


OPENAI_FIELDS = frozenset(
    {
        "model", "messages", "max_tokens", "max_completion_tokens", "temperature", "top_p",
        "tools", "tool_choice", "parallel_tool_calls", "stream", "stream_options", "stop",
        "seed", "n", "response_format", "user", "metadata", "store", "reasoning_effort",
    }
)  # fmt: skip
OPENAI_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})


def openai_problem(body: Any) -> str | None:
    """Why a chat-completions server would refuse `body`, or None."""
    if not isinstance(body, dict):
        return "the body is not a JSON object"
    unknown = sorted(set(body) - OPENAI_FIELDS)
    if unknown:
        return f"Unrecognized request argument supplied: {', '.join(unknown)}"
    if "max_tokens" in body and "max_completion_tokens" in body:
        return "max_tokens and max_completion_tokens cannot both be set"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages must be a non-empty array"
    return next((p for p in map(_openai_message_problem, messages) if p), None)


def _openai_message_problem(message: Any) -> str | None:
    if not isinstance(message, dict) or message.get("role") not in OPENAI_ROLES:
        return f"invalid message: {message!r}"
    content = message.get("content")
    if content is None and not (message["role"] == "assistant" and message.get("tool_calls")):
        return f"messages with role {message['role']!r} must have a content that is not null"
    if content is not None and not isinstance(content, str | list):
        return f"invalid content: {content!r}"
    if message["role"] == "tool" and not isinstance(message.get("tool_call_id"), str):
        return "tool messages need a tool_call_id"
    return None


ANTHROPIC_FIELDS = frozenset(
    {
        "model", "messages", "max_tokens", "system", "tools", "tool_choice", "temperature",
        "top_p", "top_k", "stop_sequences", "stream", "metadata", "thinking", "service_tier",
    }
)  # fmt: skip
ANTHROPIC_BLOCK_FIELDS: Mapping[str, frozenset[str]] = {
    "text": frozenset({"type", "text", "cache_control", "citations"}),
    "tool_use": frozenset({"type", "id", "name", "input", "cache_control"}),
    "tool_result": frozenset({"type", "tool_use_id", "content", "is_error", "cache_control"}),
}
MAX_CACHE_BREAKPOINTS = 4


def anthropic_problem(body: Any) -> str | None:
    """Why the Messages API would refuse `body`, or None."""
    if not isinstance(body, dict):
        return "the body is not a JSON object"
    unknown = sorted(set(body) - ANTHROPIC_FIELDS)
    if unknown:
        return f"{unknown[0]}: Extra inputs are not permitted"
    limit = body.get("max_tokens")
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        return "max_tokens: a positive integer is required"
    system = body.get("system", "")
    if not isinstance(system, str | list):
        return "system: Input should be a string or a list of text blocks"
    blocks = list(system) if isinstance(system, list) else []
    if any(not isinstance(b, dict) or b.get("type") != "text" for b in blocks):
        return "system: only text blocks are allowed"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    for message in messages:
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            return f"messages: invalid message {message!r}"
        content = message.get("content")
        if not isinstance(content, str | list):
            return f"messages: invalid content {content!r}"
        blocks += content if isinstance(content, list) else []
    return _blocks_problem(blocks)


def _blocks_problem(blocks: list[Any]) -> str | None:
    marks = 0
    for block in blocks:
        kind = block.get("type") if isinstance(block, dict) else None
        allowed = ANTHROPIC_BLOCK_FIELDS.get(kind) if isinstance(kind, str) else None
        if allowed is None:
            return f"unknown content block {block!r}"
        extra = sorted(set(block) - allowed)
        if extra:
            return f"{block['type']}.{extra[0]}: Extra inputs are not permitted"
        if block["type"] == "text" and not (isinstance(block["text"], str) and block["text"]):
            return "text content blocks must be non-empty"
        mark = block.get("cache_control")
        if mark is not None and not _is_cache_mark(mark):
            return f"cache_control: invalid {mark!r}"
        marks += mark is not None
    if marks > MAX_CACHE_BREAKPOINTS:
        return f"a maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided"
    return None


def _is_cache_mark(mark: Any) -> bool:
    return (
        isinstance(mark, dict)
        and mark.get("type") == "ephemeral"
        and set(mark) <= {"type", "ttl"}
        and mark.get("ttl", "5m") in ("5m", "1h")
    )


CHECKS: Mapping[str, Callable[[Any], str | None]] = {
    "/chat/completions": openai_problem,
    "/v1/messages": anthropic_problem,
}


def body_problem(path: str, body: Any) -> str | None:
    """What the API at `path` would refuse in `body` (None for paths it does not check)."""
    return next((check(body) for end, check in CHECKS.items() if path.endswith(end)), None)


def openai_reply(
    text: str | None = "", tool_calls: list[dict[str, Any]] | None = None, **usage: int
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1764400000,
        "model": "served-model",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if tool_calls else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": usage.get("prompt", 11),
            "completion_tokens": usage.get("completion", 7),
            "total_tokens": usage.get("prompt", 11) + usage.get("completion", 7),
        },
    }


def anthropic_reply(
    content: list[dict[str, Any]],
    stop: str = "end_turn",
    usage: Mapping[str, int | None] | None = None,
) -> dict[str, Any]:
    """A Messages reply; `usage` adds to or overrides its counts (e.g. cache_read_input_tokens)."""
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-served",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 21, "output_tokens": 5, **(usage or {})},
    }


def error_body(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "error"}}
