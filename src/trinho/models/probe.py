"""What a local OpenAI-compatible server tells besides answers: its tokenizer, its context
length, whether it is still computing. Each probe is best effort: a server without the
endpoint answers None and trinho falls back on its estimate or its settings.

The endpoints, by server: llama.cpp's `POST /tokenize` (`{"content"}` -> `{"tokens"}`),
`GET /props` (`default_generation_settings.n_ctx`), `GET /slots` (`n_ctx`, `is_processing`)
and `GET /health` (503 while no slot is free, in older builds); llama-cpp-python's
`POST /extras/tokenize/count` (`{"input"}` -> `{"count"}`); vLLM's `POST /tokenize`
(`{"prompt"}` -> `{"count", "max_model_len"}`). LM Studio's HTTP API has no tokenizer: its
counts come from the answers' `usage` (see `trinho.models.ledger.calibrated`).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

PROBE_TIMEOUT = 5.0
"""Seconds one probe may take: a server that cannot tell in that time is not asked again."""


def server_root(base_url: str) -> str:
    """The server's root: the base URL without its `/v1`."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


def _request(url: str, body: object | None = None) -> tuple[int, Any]:
    """(status, parsed JSON or None); status 0 when nothing answered."""
    data = None if body is None else json.dumps(body).encode("utf-8")
    headers = {"content-type": "application/json"} if data is not None else {}
    request = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=PROBE_TIMEOUT) as answer:
            status, raw = answer.status, answer.read()
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read()
    except (OSError, ValueError):
        return 0, None
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, None


def token_count(answer: object) -> int | None:
    """The count in a tokenize answer: `count`, else the length of `tokens`."""
    if not isinstance(answer, dict):
        return None
    count = answer.get("count")
    if isinstance(count, int) and not isinstance(count, bool) and count >= 0:
        return count
    tokens = answer.get("tokens")
    return len(tokens) if isinstance(tokens, list) else None


def context_length(props: object, slots: object) -> int | None:
    """`n_ctx` from llama.cpp's `/props` or, failing that, its first slot."""
    if isinstance(props, dict):
        settings = props.get("default_generation_settings")
        n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
        if isinstance(n_ctx, int) and n_ctx > 0:
            return n_ctx
    if isinstance(slots, list) and slots and isinstance(slots[0], dict):
        n_ctx = slots[0].get("n_ctx")
        if isinstance(n_ctx, int) and n_ctx > 0:
            return n_ctx
    return None


def slots_busy(slots: object) -> bool | None:
    """Whether any slot is computing (`is_processing`, or a non-zero `state` in older
    builds); None when the answer is no list of slots."""
    if not isinstance(slots, list) or not all(isinstance(s, dict) for s in slots):
        return None
    return any(bool(s.get("is_processing")) or bool(s.get("state")) for s in slots)


@dataclass
class ServerProbe:
    """The probes of one server, each endpoint that failed not asked again."""

    base_url: str
    model: str
    _tokenize: str | None = None
    _dead: set[str] = field(default_factory=set)

    def _get(self, path: str) -> tuple[int, Any]:
        if path in self._dead:
            return 0, None
        status, answer = _request(server_root(self.base_url) + path)
        if status in (0, 404, 405, 501):
            self._dead.add(path)
        return status, answer

    def tokens(self, text: str) -> int | None:
        """`text`'s tokens by the server's tokenizer, or None."""
        bodies = {
            "/tokenize": {"content": text, "prompt": text, "model": self.model},
            "/extras/tokenize/count": {"input": text, "model": self.model},
        }
        paths = [self._tokenize] if self._tokenize else [p for p in bodies if p not in self._dead]
        for path in paths:
            status, answer = _request(server_root(self.base_url) + path, bodies[path])
            count = token_count(answer) if status == 200 else None
            if count is not None:
                self._tokenize = path
                return count
            self._dead.add(path)
            self._tokenize = None
        return None

    def context(self) -> int | None:
        """The context length the server was started with, when it says."""
        _, props = self._get("/props")
        _, slots = self._get("/slots")
        found = context_length(props, slots)
        if found is not None:
            return found
        if "/tokenize" not in self._dead:  # vLLM tells it beside a count
            status, answer = _request(
                server_root(self.base_url) + "/tokenize", {"prompt": "", "model": self.model}
            )
            length = answer.get("max_model_len") if isinstance(answer, dict) else None
            if status == 200 and isinstance(length, int) and length > 0:
                return length
        return None

    def busy(self) -> bool | None:
        """Whether the server is still computing an answer: its slots, else its health (503
        while no slot is free); None when it tells neither."""
        status, slots = self._get("/slots")
        if status == 200:
            found = slots_busy(slots)
            if found is not None:
                return found
        status, _ = self._get("/health")
        return True if status == 503 else None
