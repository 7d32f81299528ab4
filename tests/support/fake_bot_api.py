"""A fake Telegram Bot API server on 127.0.0.1, for tests of the real python-telegram-bot.

It answers the methods PTB calls (getMe, sendMessage, editMessageText, answerCallbackQuery,
getUpdates, deleteWebhook...), records every call, serves updates a test injects, and can
fail a method with a 5xx a given number of times.

It refuses what the real Bot API refuses, with its status and words: a message text empty or
over 4096 UTF-16 units; an edit of a message it never sent, or one that changes neither the
text nor the buttons ("message is not modified"); a button with no text, with not exactly one
of `callback_data` and `url`, with `callback_data` over 64 bytes, or with a URL that is not a
public http(s) address; a button press answer over 200 characters.

Updates are confirmed as Telegram confirms them: once getUpdates asks for an offset, every
update below it is gone for good. A getUpdates while another one is still waiting is answered
409 Conflict, as Telegram answers two pollers of one bot. `before` lets a test act inside a
call before it is answered (kill the client there, or change what the call returns).
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

BOT_USER = {"id": 4242, "is_bot": True, "first_name": "trinho", "username": "trinho_test_bot"}
LONG_POLL_CAP = 0.3


@dataclass
class Call:
    method: str
    params: dict[str, Any]
    status: int


class FakeBotApi:
    """Start with `with FakeBotApi() as api:`; point PTB at `api.base_url`."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.updates: list[dict[str, Any]] = []
        self.failures: dict[str, list[int]] = {}
        self.confirmed = 0
        """Every update below this offset was confirmed and dropped."""
        self.before: Callable[[str, dict[str, Any]], bool] | None = None
        """Called with each call before it is answered; True drops the call unanswered."""
        self.messages: dict[int, tuple[str, str]] = {}
        """Every message sent or edited: its id -> (text, buttons as JSON)."""
        self._polls = 0
        self._cond = threading.Condition()
        self._ids = itertools.count(1)
        self._update_ids = itertools.count(1)
        self._callback_ids = itertools.count(1)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/bot"

    def __enter__(self) -> FakeBotApi:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- what a test controls --------------------------------------------------------------

    def fail(self, method: str, times: int, status: int = 502) -> None:
        """Answer the next `times` calls of `method` with an HTTP `status` error."""
        with self._cond:
            self.failures.setdefault(method, []).extend([status] * times)

    def press(self, data: str, *, user_id: int, chat_id: int, message_id: int = 1) -> str:
        """Inject a button press; returns the callback query id."""
        query_id = f"cq{next(self._callback_ids)}"
        self._inject(
            {
                "callback_query": {
                    "id": query_id,
                    "from": {"id": user_id, "is_bot": False, "first_name": "U"},
                    "chat_instance": "ci",
                    "data": data,
                    "message": {
                        "message_id": message_id,
                        "date": int(time.time()),
                        "chat": {"id": chat_id, "type": "private" if chat_id > 0 else "group"},
                        "text": "...",
                    },
                }
            }
        )
        return query_id

    def say(self, text: str, *, user_id: int, chat_id: int) -> None:
        """Inject a text message."""
        self._inject(
            {
                "message": {
                    "message_id": next(self._ids),
                    "date": int(time.time()),
                    "chat": {"id": chat_id, "type": "private" if chat_id > 0 else "group"},
                    "from": {"id": user_id, "is_bot": False, "first_name": "U"},
                    "text": text,
                }
            }
        )

    def _inject(self, update: dict[str, Any]) -> None:
        with self._cond:
            update["update_id"] = next(self._update_ids)
            self.updates.append(update)
            self._cond.notify_all()

    def ok_calls(self, method: str) -> list[Call]:
        with self._cond:
            return [c for c in self.calls if c.method == method and c.status == 200]

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 15.0) -> None:
        """Block until `predicate()` holds (checked after every call), or fail the test."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"condition not met; calls: {self.calls!r}")
                self._cond.wait(min(left, 0.1))

    @staticmethod
    def buttons(call: Call) -> list[tuple[str, str]]:
        """(label, callback_data or url) of every inline button a call carried."""
        markup = call.params.get("reply_markup")
        if not markup:
            return []
        rows = json.loads(markup)["inline_keyboard"]
        return [(b["text"], b.get("callback_data") or b["url"]) for row in rows for b in row]

    # -- the server ------------------------------------------------------------------------

    def _handle(self, method: str, params: dict[str, Any]) -> tuple[int, Any]:
        if self.before is not None and self.before(method, params):
            with self._cond:
                self.calls.append(Call(method, params, 0))
                self._cond.notify_all()
            return 502, {"ok": False, "error_code": 502, "description": "Bad Gateway"}
        with self._cond:
            pending = self.failures.get(method)
            if pending:
                status = pending.pop(0)
                self.calls.append(Call(method, params, status))
                self._cond.notify_all()
                return status, {"ok": False, "error_code": status, "description": "Bad Gateway"}
        if method == "getUpdates":
            got = self._get_updates(params)
            if got is None:
                with self._cond:
                    self.calls.append(Call(method, params, 409))
                    self._cond.notify_all()
                conflict = "Conflict: terminated by other getUpdates request"
                return 409, {"ok": False, "error_code": 409, "description": conflict}
            result: Any = got
        elif method == "getMe":
            result = BOT_USER
        elif (refused := self._refusal(method, params)) is not None:
            with self._cond:
                self.calls.append(Call(method, params, 400))
                self._cond.notify_all()
            return 400, {"ok": False, "error_code": 400, "description": f"Bad Request: {refused}"}
        elif method in ("sendMessage", "editMessageText"):
            result = {
                "message_id": int(params.get("message_id") or next(self._ids)),
                "date": int(time.time()),
                "chat": {"id": int(params.get("chat_id", 0)), "type": "private"},
                "from": BOT_USER,
                "text": params.get("text", ""),
            }
        else:
            result = True
        if method in ("sendMessage", "editMessageText"):
            with self._cond:
                self.messages[result["message_id"]] = self._shown(params)
        with self._cond:
            self.calls.append(Call(method, params, 200))
            self._cond.notify_all()
        return 200, {"ok": True, "result": result}

    @staticmethod
    def _shown(params: dict[str, Any]) -> tuple[str, str]:
        markup = params.get("reply_markup") or ""
        rows = json.loads(markup).get("inline_keyboard", []) if markup else []
        return str(params.get("text", "")), json.dumps(rows, sort_keys=True)

    def _refusal(self, method: str, params: dict[str, Any]) -> str | None:
        """What the real Bot API answers 400 to, or None."""
        if method == "answerCallbackQuery" and len(str(params.get("text") or "")) > 200:
            return "MESSAGE_TOO_LONG"
        if method not in ("sendMessage", "editMessageText"):
            return None
        text = str(params.get("text", ""))
        if not text.strip():
            return "message text is empty"
        if len(text.encode("utf-16-le")) // 2 > 4096:
            return "message is too long"
        markup = params.get("reply_markup")
        for row in json.loads(markup).get("inline_keyboard", []) if markup else []:
            for button in row:
                refused = _button_refusal(button)
                if refused is not None:
                    return refused
        if method == "editMessageText":
            with self._cond:
                before = self.messages.get(int(params.get("message_id") or 0))
            if before is None:
                return "message to edit not found"
            if before == self._shown(params):
                return (
                    "message is not modified: specified new message content and reply markup "
                    "are exactly the same as a current content and reply markup of the message"
                )
        return None

    def _get_updates(self, params: dict[str, Any]) -> list[dict[str, Any]] | None:
        """The updates from `offset` on (None: another poll is waiting, a 409)."""
        offset = int(params.get("offset") or 0)
        wait = min(float(params.get("timeout") or 0), LONG_POLL_CAP)
        deadline = time.monotonic() + wait
        with self._cond:
            if self._polls:
                return None
            if offset > self.confirmed:
                self.confirmed = offset
                self.updates = [u for u in self.updates if u["update_id"] >= offset]
            self._polls += 1
            try:
                while True:
                    ready = list(self.updates)
                    left = deadline - time.monotonic()
                    if ready or left <= 0:
                        return ready
                    self._cond.wait(left)
            finally:
                self._polls -= 1

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode("utf-8")
                if "json" in (self.headers.get("Content-Type") or ""):
                    params = json.loads(body or "{}")
                else:
                    params = dict(parse_qsl(body))
                method = self.path.rsplit("/", 1)[-1]
                status, payload = api._handle(method, params)
                data = json.dumps(payload).encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a long poll cut short at shutdown)

            do_GET = do_POST

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


def _button_refusal(button: dict[str, Any]) -> str | None:
    """Why the Bot API refuses an inline button, or None."""
    if not str(button.get("text") or "").strip():
        return "text buttons are unallowed in the inline keyboard"
    kinds = [k for k in ("callback_data", "url") if k in button]
    if len(kinds) != 1:
        return "text buttons are unallowed in the inline keyboard"
    if "callback_data" in button:
        size = len(str(button["callback_data"]).encode("utf-8"))
        return None if 1 <= size <= 64 else "BUTTON_DATA_INVALID"
    url = str(button["url"])
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    local = host in ("localhost", "") or host.startswith("127.") or "." not in host
    if parts.scheme not in ("http", "https") or local:
        return f"inline keyboard button URL '{url}' is invalid: Wrong HTTP URL"
    return None
