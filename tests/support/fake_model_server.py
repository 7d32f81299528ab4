"""A small HTTP server on 127.0.0.1 that answers like a model API, for adapter tests.

It plays a script of replies in order (the last one repeats) and keeps every request it got,
so tests see exactly what the real SDKs sent and how often they retried. Like the strictest
real servers, it refuses a body they would refuse, whatever reply was scripted (see
`openai_refusal` and `anthropic_problem`):

- a `content` that is not a string (a list of text parts, for a user message): a null one with
  HTTP 500 and a multi-line pydantic dump, as llama.cpp's server does; an unknown role, a
  malformed tool call, a `tool` message answering no earlier call, a tool call left
  unanswered, an unknown field: HTTP 400 with a pydantic dump or OpenAI's words;
- a prompt that with `max_tokens` does not fit `context_tokens`: HTTP 400 in vLLM's words
  ("This model's maximum context length is N tokens...");
- a tool schema whose `pattern` holds an escape llama.cpp's grammar cannot parse (`\\d`):
  HTTP 500 "unknown escape at ..."; one with a `maxLength` over `GRAMMAR_MAX_LENGTH`: HTTP 500
  "failed to parse grammar" (llama.cpp writes one nested optional per character allowed, and
  its parser fails, then the server crashes, between 1,000 and 2,000);
- a `strict` tool whose schema is outside the strict subset (a property left out of
  `required`, a keyword such as `minLength`): HTTP 400 in OpenAI's words ("Invalid schema for
  function ..."), on Chat Completions and the Responses API alike; for Anthropic, a strict
  tool with a keyword `anthropic.transform_schema` would not keep.

A reply whose `body` is a function is answered with what it returns for the request's body:
a model that reads what it is sent (its answer is then checked and cut as any other).

`GET .../models` lists `models`; without them the endpoint is missing (404). With `models`, a
chat naming another model is refused with a 404 as vLLM does, unless `any_model` (llama.cpp
answers with its one model whatever name is asked).

`llamacpp=True` plays a llama.cpp server as trinho meets it on a small machine: answers report
the prompt's real size in `usage.prompt_tokens` (counted by `fake_tokens`, a tokenizer that
spends more on Vietnamese than `estimate_tokens` guesses for English), `POST /tokenize`
counts the same way, `GET /props` and `/slots` tell `context_tokens`, a prompt over the
context is refused as llama.cpp refuses it (HTTP 400, `exceed_context_size_error` with
`n_prompt_tokens` and `n_ctx`), and an answer that would pass the context is cut there
(`finish_reason` "length"). `drop_system=True` throws the system messages away before
counting, as llama-cpp-python's `gemma` chat format does. A reply's `delay` is computing:
while one runs (its client may have given up long before), `/slots` says `is_processing`
and `/health` answers 503, as a server still working on an abandoned answer.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler
from types import TracebackType
from typing import Any

from support.loopback import LoopbackServer, send_json

DEFAULT_CONTEXT_TOKENS = 32768
"""The context size the fake serves by default: `[condense] context_tokens`' default."""


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
    def __init__(
        self,
        *replies: Reply,
        models: Sequence[str] | None = None,
        any_model: bool = False,
        context_tokens: int = DEFAULT_CONTEXT_TOKENS,
        llamacpp: bool = False,
        drop_system: bool = False,
    ) -> None:
        if not replies:
            raise ValueError("give the fake server at least one reply")
        self.llamacpp = llamacpp or drop_system
        self.drop_system = drop_system
        self._computing = 0
        self.replies = list(replies)
        self.models = tuple(models) if models is not None else None
        self.any_model = any_model
        self.context_tokens = context_tokens
        self.requests: list[Seen] = []
        """Every request, listings (GET) included."""
        self._posts = 0
        self._release = threading.Event()
        self._lock = threading.Lock()
        self._server = LoopbackServer(self._handler())

    @property
    def url(self) -> str:
        return self._server.url

    @property
    def posts(self) -> list[Seen]:
        """The requests that asked for an answer (listings and probes left out)."""
        return [s for s in self.requests if s.method == "POST" and s.path.startswith("/v1")]

    @property
    def busy(self) -> bool:
        return self._computing > 0

    def _next(self, seen: Seen) -> Reply:
        if self.llamacpp and seen.path.endswith("/tokenize"):
            with self._lock:
                self.requests.append(seen)
            content = seen.body.get("content") if isinstance(seen.body, dict) else None
            if not isinstance(content, str):
                return llamacpp_error('"content" must be provided', 400)
            return Reply({"tokens": list(range(fake_tokens(content)))})
        if not seen.path.startswith("/v1"):  # a server's own endpoint this one does not have
            with self._lock:
                self.requests.append(seen)
            return Reply(error_body("File Not Found"), status=404)
        with self._lock:
            self.requests.append(seen)
            self._posts += 1
            scripted = self.replies[min(self._posts, len(self.replies)) - 1]
        if callable(scripted.body):  # a model that reads the request: its answer to this one
            scripted = replace(scripted, body=scripted.body(seen.body))
        if self.llamacpp and seen.path.endswith("/chat/completions"):
            return self._llamacpp_chat(seen.body, scripted)
        refused = refusal_for(seen.path, seen.body, self.context_tokens)
        if refused is not None:
            return refused
        wanted = seen.body.get("model") if isinstance(seen.body, dict) else None
        if self.models is not None and not self.any_model and wanted not in self.models:
            return vllm_error(f"The model `{wanted}` does not exist.", 404, "NotFoundError")
        return scripted

    def _llamacpp_chat(self, body: Any, scripted: Reply) -> Reply:
        """The scripted reply as llama.cpp would send it for this body: refused when the
        prompt passes the context, cut where it would fill it, the real prompt size told."""
        refused = openai_refusal(body, 10**9)
        if refused is not None:
            return refusal_for("/chat/completions", body, 10**9) or scripted
        messages = [m for m in body.get("messages") or () if isinstance(m, dict)]
        if self.drop_system:
            messages = [m for m in messages if m.get("role") != "system"]
        prompt = fake_prompt_tokens({**body, "messages": messages})
        if prompt > self.context_tokens:
            return llamacpp_context_error(prompt, self.context_tokens)
        if scripted.status != 200 or not isinstance(scripted.body, dict):
            return scripted
        answer = json.loads(json.dumps(scripted.body))
        choice = answer["choices"][0]
        text = choice["message"].get("content") or ""
        room = min(self.context_tokens - prompt, int(body.get("max_tokens") or 10**9))
        words = text.split(" ")
        if fake_tokens(text) > room:
            kept: list[str] = []
            while words and fake_tokens(" ".join([*kept, words[0]])) <= room:
                kept.append(words.pop(0))
            choice["message"]["content"] = " ".join(kept)
            choice["finish_reason"] = "length"
        completion = fake_tokens(choice["message"].get("content") or "")
        answer["usage"] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
        return Reply(answer, scripted.status, scripted.delay, scripted.headers)

    def _llamacpp_get(self, path: str) -> Reply:
        """llama.cpp's `/props`, `/slots` and `/health`."""
        if path == "/props":
            settings = {"n_ctx": self.context_tokens, "n_predict": -1}
            return Reply({"default_generation_settings": settings, "total_slots": 1})
        if path == "/slots":
            return Reply([{"id": 0, "n_ctx": self.context_tokens, "is_processing": self.busy}])
        if path == "/health":
            if self.busy:
                return Reply({"status": "no slot available"}, status=503)
            return Reply({"status": "ok"})
        return Reply(error_body("File Not Found"), status=404)

    def _listing(self, seen: Seen) -> Reply:
        with self._lock:
            self.requests.append(seen)
        if self.llamacpp and not seen.path.startswith("/v1"):
            return self._llamacpp_get(seen.path)
        if self.models is None or not seen.path.endswith("/models"):
            return Reply(error_body("File Not Found"), status=404)
        data = [
            {"id": m, "object": "model", "created": 1764400000, "owned_by": "fake"}
            for m in self.models
        ]
        return Reply({"object": "list", "data": data})

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                raw = self.rfile.read(length)
                body = json.loads(raw) if raw else None
                self._answer(server._next(Seen("POST", self.path, self._headers(), body)))

            def do_GET(self) -> None:
                self._answer(server._listing(Seen("GET", self.path, self._headers(), None)))

            def _headers(self) -> dict[str, str]:
                return {k.lower(): v for k, v in self.headers.items()}

            def _answer(self, reply: Reply) -> None:
                if reply.delay:
                    with server._lock:
                        server._computing += 1
                    try:
                        server._release.wait(reply.delay)
                    finally:
                        with server._lock:
                            server._computing -= 1
                send_json(self, reply.status, reply.body, reply.headers)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler

    def __enter__(self) -> FakeServer:
        self._server.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._release.set()
        self._server.stop()


def fake_tokens(text: str) -> int:
    """The fake llama.cpp's tokenizer: a token per 3 ASCII letters or digits, one per other
    ASCII mark and line break, and 1.5 per character outside ASCII (an English-trained
    vocabulary splits a Vietnamese letter with its diacritics in two), rounded up. Spaces
    are free, as a small BPE folds them into the next word."""
    letters = sum(c.isascii() and c.isalnum() for c in text)
    marks = sum(c.isascii() and not c.isalnum() and (c == "\n" or not c.isspace()) for c in text)
    other = sum(not c.isascii() for c in text)
    return math.ceil(letters / 3 + marks + other * 1.5)


def fake_prompt_tokens(body: Mapping[str, Any]) -> int:
    """The prompt as the fake llama.cpp counts it: every text, tool call and tool schema by
    `fake_tokens`, and 5 tokens a message for the chat template around it."""
    parts: list[str] = []
    for message in body.get("messages") or ():
        content = message.get("content")
        parts.append(content if isinstance(content, str) else json.dumps(content))
        parts += [json.dumps(call, ensure_ascii=False) for call in message.get("tool_calls") or ()]
    parts += [json.dumps(tool, ensure_ascii=False) for tool in body.get("tools") or ()]
    return sum(fake_tokens(part) for part in parts) + 5 * len(body.get("messages") or ())


def llamacpp_context_error(prompt: int, context: int) -> Reply:
    """llama.cpp's refusal of a prompt longer than its context, word for word."""
    message = f"request ({prompt} tokens) exceeds the available context size ({context} tokens)"
    body = {
        "error": {
            "code": 400,
            "message": message,
            "type": "exceed_context_size_error",
            "n_prompt_tokens": prompt,
            "n_ctx": context,
        }
    }
    return Reply(body, status=400)


# ---- chat completions: what llama.cpp, vLLM and OpenAI refuse -------------------------------

OPENAI_FIELDS = frozenset(
    {
        "model", "messages", "max_tokens", "max_completion_tokens", "temperature", "top_p",
        "tools", "tool_choice", "parallel_tool_calls", "stream", "stream_options", "stop",
        "seed", "n", "response_format", "user", "metadata", "store", "reasoning_effort",
    }
)  # fmt: skip
OPENAI_ROLES = ("system", "developer", "user", "assistant", "tool")
GRAMMAR_ESCAPES = frozenset('xuUtrn\\"-^$.[]()|{}*+?')
"""What may follow a backslash in a pattern llama.cpp turns into a grammar: its converter
unescapes the regex metacharacters and its grammar parser knows a few escapes more; a class
escape (`\\d`, `\\w`, `\\s`) is none of them."""


@dataclass(frozen=True)
class Refusal:
    """Why a server refuses a body: the HTTP status and its words (maybe several lines)."""

    status: int
    message: str


def pydantic(loc: str, message: str, kind: str, value: object) -> str:
    """A validation error as pydantic prints it, the way vLLM and llama.cpp pass it on."""
    return (
        "1 validation error for ChatCompletionRequest\n"
        f"{loc}\n"
        f"  {message} [type={kind}, input_value={value!r}, input_type={type(value).__name__}]\n"
        f"    For further information visit https://errors.pydantic.dev/2.11/v/{kind}"
    )


def openai_refusal(body: Any, context_tokens: int = DEFAULT_CONTEXT_TOKENS) -> Refusal | None:
    """Why a chat-completions server would refuse `body`, or None."""
    if not isinstance(body, dict):
        return Refusal(400, "the body is not a JSON object")
    unknown = sorted(set(body) - OPENAI_FIELDS)
    if unknown:
        return Refusal(400, f"Unrecognized request argument supplied: {', '.join(unknown)}")
    if "max_tokens" in body and "max_completion_tokens" in body:
        return Refusal(400, "max_tokens and max_completion_tokens cannot both be set")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return Refusal(400, "messages must be a non-empty array")
    return (
        _messages_refusal(messages)
        or _tools_refusal(body.get("tools"))
        or _context_refusal(body, context_tokens)
    )


def openai_problem(body: Any) -> str | None:
    """The words of `openai_refusal`, or None."""
    refused = openai_refusal(body)
    return None if refused is None else refused.message


def _messages_refusal(messages: list[Any]) -> Refusal | None:
    unanswered: list[str] = []
    for index, message in enumerate(messages):
        where = f"messages.{index}"
        refused = _message_refusal(where, message)
        if refused is not None:
            return refused
        if message["role"] == "tool":
            if message["tool_call_id"] not in unanswered:
                return Refusal(
                    400,
                    "Invalid parameter: messages with role 'tool' must be a response to a "
                    f"preceding message with 'tool_calls' ({where}.tool_call_id)",
                )
            unanswered.remove(message["tool_call_id"])
            continue
        if unanswered:
            return _unanswered(unanswered)
        unanswered = [call["id"] for call in message.get("tool_calls") or ()]
    return _unanswered(unanswered) if unanswered else None


def _unanswered(ids: list[str]) -> Refusal:
    return Refusal(
        400,
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        + ", ".join(ids),
    )


def _message_refusal(where: str, message: Any) -> Refusal | None:
    if not isinstance(message, dict):
        return Refusal(400, pydantic(where, "Input should be an object", "dict_type", message))
    role = message.get("role")
    if role not in OPENAI_ROLES:
        allowed = ", ".join(repr(r) for r in OPENAI_ROLES)
        return Refusal(
            400, pydantic(f"{where}.role", f"Input should be {allowed}", "literal_error", role)
        )
    content = message.get("content")
    if content is None:
        return Refusal(
            500, pydantic(f"{where}.content", "Input should be a valid string", "string_type", None)
        )
    if not isinstance(content, str) and not (role == "user" and _text_parts(content)):
        return Refusal(
            400,
            pydantic(f"{where}.content", "Input should be a valid string", "string_type", content),
        )
    if role == "tool" and not (isinstance(message.get("tool_call_id"), str)):
        value = message.get("tool_call_id")
        return Refusal(
            400,
            pydantic(f"{where}.tool_call_id", "Field required", "missing", value),
        )
    if "tool_calls" in message:
        return _tool_calls_refusal(where, role, message["tool_calls"])
    return None


def _text_parts(content: object) -> bool:
    return isinstance(content, list) and all(
        isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
        for part in content
    )


def _tool_calls_refusal(where: str, role: str, calls: object) -> Refusal | None:
    if role != "assistant" or not isinstance(calls, list) or not calls:
        return Refusal(
            400,
            pydantic(f"{where}.tool_calls", "List should have at least 1 item", "too_short", calls),
        )
    for number, call in enumerate(calls):
        at = f"{where}.tool_calls.{number}"
        function = call.get("function") if isinstance(call, dict) else None
        problems = (
            (f"{at}.id", isinstance(call, dict) and _filled(call.get("id"))),
            (f"{at}.type", isinstance(call, dict) and call.get("type") == "function"),
            (f"{at}.function.name", isinstance(function, dict) and _filled(function.get("name"))),
            (f"{at}.function.arguments", isinstance(function, dict) and _json_object(function)),
        )
        bad = next((loc for loc, fine in problems if not fine), None)
        if bad is not None:
            return Refusal(400, pydantic(bad, "Input should be valid", "value_error", call))
    return None


def _filled(value: object) -> bool:
    return isinstance(value, str) and bool(value)


def _json_object(function: Mapping[str, Any]) -> bool:
    """Arguments travel as a JSON string holding an object."""
    raw = function.get("arguments")
    if not isinstance(raw, str):
        return False
    try:
        return isinstance(json.loads(raw), dict)
    except json.JSONDecodeError:
        return False


def _tools_refusal(tools: object) -> Refusal | None:
    if tools is None:
        return None
    if not isinstance(tools, list):
        return Refusal(400, pydantic("tools", "Input should be a valid list", "list_type", tools))
    for number, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, dict) else None
        if not (isinstance(function, dict) and tool.get("type") == "function"):
            return Refusal(
                400, pydantic(f"tools.{number}", "Input should be valid", "value_error", tool)
            )
        if not _filled(function.get("name")):
            return Refusal(
                400, pydantic(f"tools.{number}.function.name", "Field required", "missing", None)
            )
        refused = _schema_refusal(function)
        if refused is not None:
            return refused
    return None


def _schema_refusal(function: Mapping[str, Any]) -> Refusal | None:
    """A function tool's schema refused: a grammar-breaking escape, or strict mode broken."""
    parameters = function.get("parameters")
    escape = next(filter(None, map(_bad_escape, _patterns(parameters))), None)
    if escape is not None:
        return Refusal(500, f"JSON schema conversion failed:\nunknown escape at {escape}")
    if max(_lengths(parameters), default=0) > GRAMMAR_MAX_LENGTH:
        return Refusal(500, "parse: error parsing grammar\nfailed to parse grammar")
    if function.get("strict") is True:
        problem = strict_problem(parameters)
        if problem is not None:
            return Refusal(400, f"Invalid schema for function '{function.get('name')}': {problem}")
    return None


OPENAI_STRICT_KEYWORDS = frozenset(
    {
        "type", "description", "properties", "required", "additionalProperties", "enum",
        "const", "anyOf", "pattern", "format", "minimum", "maximum", "exclusiveMinimum",
        "exclusiveMaximum", "multipleOf", "items", "minItems", "maxItems", "$defs", "$ref",
    }
)  # fmt: skip
"""The keywords OpenAI's structured outputs accept in a strict schema."""


def strict_problem(schema: object, context: tuple[str, ...] = ()) -> str | None:
    """Why OpenAI's strict mode refuses `schema`, in its words, or None."""
    if not isinstance(schema, dict):
        return f"In context={context}, schema must be a JSON Schema object."
    for keyword in schema:
        if keyword not in OPENAI_STRICT_KEYWORDS:
            return f"In context={context}, '{keyword}' is not permitted."
    kinds = schema.get("type")
    if kinds == "object" or (isinstance(kinds, list) and "object" in kinds):
        properties = schema.get("properties", {})
        if schema.get("additionalProperties") is not False:
            return (
                f"In context={context}, 'additionalProperties' is required to be supplied "
                "and to be false."
            )
        missing = [name for name in properties if name not in schema.get("required", [])]
        if missing:
            return (
                f"In context={context}, 'required' is required to be supplied and to be an "
                f"array including every key in properties. Missing '{missing[0]}'."
            )
        for name, sub in properties.items():
            problem = strict_problem(sub, (*context, "properties", name))
            if problem is not None:
                return problem
    if "items" in schema:
        return strict_problem(schema["items"], (*context, "items"))
    return None


GRAMMAR_MAX_LENGTH = 1000
"""The longest `maxLength` llama.cpp's grammar builder was seen to survive (1,000 worked, 2,000
crashed llama-cpp-python 0.3.36's server)."""


def _lengths(schema: object) -> list[int]:
    """Every `maxLength` anywhere in a JSON schema."""
    if isinstance(schema, dict):
        found = [schema["maxLength"]] if isinstance(schema.get("maxLength"), int) else []
        return found + [n for value in schema.values() for n in _lengths(value)]
    if isinstance(schema, list):
        return [n for value in schema for n in _lengths(value)]
    return []


def _patterns(schema: object) -> list[str]:
    """Every `pattern` string anywhere in a JSON schema."""
    if isinstance(schema, dict):
        found = [schema["pattern"]] if isinstance(schema.get("pattern"), str) else []
        return found + [p for value in schema.values() for p in _patterns(value)]
    if isinstance(schema, list):
        return [p for value in schema for p in _patterns(value)]
    return []


def _bad_escape(pattern: str) -> str | None:
    """The rest of `pattern` from its first escape a llama.cpp grammar cannot parse."""
    index = 0
    while index < len(pattern):
        if pattern[index] == "\\":
            if pattern[index + 1 : index + 2] not in GRAMMAR_ESCAPES:
                return pattern[index:]
            index += 1
        index += 1
    return None


def prompt_tokens(body: Mapping[str, Any]) -> int:
    """A tokenizer-free prompt size: 4 UTF-8 bytes a token over the texts, tool calls and tool
    schemas, and 4 tokens a message for the chat template around it."""
    parts: list[str] = []
    for message in body.get("messages") or ():
        content = message.get("content")
        parts.append(
            content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        )
        parts += [json.dumps(call, ensure_ascii=False) for call in message.get("tool_calls") or ()]
    parts += [json.dumps(tool, ensure_ascii=False) for tool in body.get("tools") or ()]
    size = sum(len(part.encode("utf-8")) for part in parts)
    return math.ceil(size / 4) + 4 * len(body.get("messages") or ())


def _context_refusal(body: Mapping[str, Any], context_tokens: int) -> Refusal | None:
    prompt = prompt_tokens(body)
    completion = body.get("max_tokens") or body.get("max_completion_tokens") or 0
    if prompt + completion <= context_tokens:
        return None
    return Refusal(
        400,
        f"This model's maximum context length is {context_tokens} tokens. However, you "
        f"requested {prompt + completion} tokens ({prompt} in the messages, {completion} in "
        "the completion). Please reduce the length of the messages or completion.",
    )


# ---- OpenAI's Responses API ----------------------------------------------------------------

RESPONSES_FIELDS = frozenset(
    {
        "model", "input", "instructions", "tools", "tool_choice", "parallel_tool_calls",
        "previous_response_id", "max_output_tokens", "temperature", "top_p", "store", "stream",
        "metadata", "reasoning", "text", "truncation", "include", "user",
    }
)  # fmt: skip
RESPONSES_TOOL_FIELDS = frozenset({"type", "name", "description", "parameters", "strict"})


def responses_problem(body: Any) -> str | None:
    """Why the Responses API would refuse `body`, or None: Chat Completions-shaped tools
    (`function` nested) included, and strict schemas outside the strict subset."""
    if not isinstance(body, dict):
        return "the body is not a JSON object"
    unknown = sorted(set(body) - RESPONSES_FIELDS)
    if unknown:
        return f"Unknown parameter: '{unknown[0]}'."
    if not isinstance(body.get("input"), str | list) or not body.get("model"):
        return "Missing required parameter: 'input' and 'model'."
    for number, tool in enumerate(body.get("tools") or ()):
        if not isinstance(tool, dict) or tool.get("type") != "function":
            return f"Invalid value for 'tools[{number}].type'."
        extra = sorted(set(tool) - RESPONSES_TOOL_FIELDS)
        if extra:
            return f"Unknown parameter: 'tools[{number}].{extra[0]}'."
        if not _filled(tool.get("name")):
            return f"Missing required parameter: 'tools[{number}].name'."
        refused = _schema_refusal(tool)
        if refused is not None:
            return refused.message
    return _outputs_problem(body["input"]) if isinstance(body["input"], list) else None


def _outputs_problem(items: list[Any]) -> str | None:
    """A `function_call_output` answering no earlier `function_call`, or not a string."""
    calls: set[object] = set()
    for item in items:
        kind = item.get("type") if isinstance(item, dict) else None
        if kind == "function_call":
            calls.add(item.get("call_id"))
        elif kind == "function_call_output" and (
            item.get("call_id") not in calls or not isinstance(item.get("output"), str)
        ):
            return f"No tool call found for function call output with call_id {item['call_id']}."
    return None


def _responses_refusal(body: Any, context_tokens: int) -> Refusal | None:
    problem = responses_problem(body)
    return None if problem is None else Refusal(400, problem)


def responses_reply(output: list[dict[str, Any]]) -> dict[str, Any]:
    """A Responses API reply with these output items (messages, function calls)."""
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1764400000,
        "model": "served-model",
        "status": "completed",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 11,
            "output_tokens": 7,
            "total_tokens": 18,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


# ---- Anthropic's Messages API ---------------------------------------------------------------

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
    return _blocks_problem(blocks) or _anthropic_tools_problem(body.get("tools"))


ANTHROPIC_TOOL_FIELDS = frozenset(
    {"name", "description", "input_schema", "strict", "cache_control"}
)
ANTHROPIC_STRICT_KEYWORDS = frozenset(
    {
        "type", "description", "properties", "required", "additionalProperties", "enum",
        "const", "anyOf", "allOf", "format", "items", "minItems", "title", "$defs", "$ref",
    }
)  # fmt: skip
"""What Anthropic's strict tool use keeps of a schema, as `anthropic.transform_schema` does."""


def _anthropic_tools_problem(tools: object) -> str | None:
    for number, tool in enumerate(tools if isinstance(tools, list) else ()):
        if not isinstance(tool, dict) or not _filled(tool.get("name")):
            return f"tools.{number}.name: Field required"
        if tool.get("type") == "memory_20250818":  # Claude's memory tool: by its type alone
            extra = sorted(set(tool) - {"type", "name", "cache_control"})
            if extra or tool["name"] != "memory":
                return f"tools.{number}: the memory tool is exactly its type and name 'memory'"
            continue
        extra = sorted(set(tool) - ANTHROPIC_TOOL_FIELDS)
        if extra:
            return f"tools.{number}.{extra[0]}: Extra inputs are not permitted"
        schema = tool.get("input_schema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            return f"tools.{number}.input_schema: type must be object"
        if tool.get("strict") is True:
            outside = sorted(_keywords(schema) - ANTHROPIC_STRICT_KEYWORDS)
            if outside:
                return f"tools.{number}: strict tool schemas do not support '{outside[0]}'"
    return None


def _keywords(schema: object) -> set[str]:
    if not isinstance(schema, dict):
        return set()
    found = set(schema)
    for sub in (schema.get("properties") or {}).values():
        found |= _keywords(sub)
    return found | _keywords(schema.get("items"))


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


def _anthropic_refusal(body: Any, context_tokens: int) -> Refusal | None:
    problem = anthropic_problem(body)
    return None if problem is None else Refusal(400, problem)


CHECKS: Mapping[str, Callable[[Any, int], Refusal | None]] = {
    "/chat/completions": openai_refusal,
    "/v1/messages": _anthropic_refusal,
    "/responses": _responses_refusal,
}


def refusal_for(path: str, body: Any, context_tokens: int) -> Reply | None:
    """The reply refusing `body` at `path`, in the shape of the server that would refuse it:
    llama.cpp's `{"error": {...}}` for a 5xx, vLLM's top-level `message` for a chat 400."""
    for end, check in CHECKS.items():
        if path.endswith(end):
            refused = check(body, context_tokens)
            if refused is None:
                return None
            if refused.status >= 500:
                return llamacpp_error(refused.message, refused.status)
            if end in ("/chat/completions", "/responses"):
                return vllm_error(refused.message, refused.status)
            return Reply(error_body(refused.message), status=refused.status)
    return None


def llamacpp_error(message: str, status: int = 500) -> Reply:
    """An error as llama.cpp's server sends it."""
    kind = "server_error" if status >= 500 else "invalid_request_error"
    return Reply({"error": {"code": status, "message": message, "type": kind}}, status=status)


def vllm_error(message: str, status: int = 400, kind: str = "BadRequestError") -> Reply:
    """An error as vLLM's OpenAI server sends it: the message at the top level."""
    body = {"object": "error", "message": message, "type": kind, "param": None, "code": status}
    return Reply(body, status=status)


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
