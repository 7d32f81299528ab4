"""The HTTP plumbing the fake model servers share: a server on a free loopback port, served
on a daemon thread, and a JSON answer written the one way every fake writes it."""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class LoopbackServer:
    """Serves `handler` on 127.0.0.1 at a free port; `start` and `stop` bracket a `with`."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def send_json(
    handler: BaseHTTPRequestHandler,
    status: int,
    body: Any,
    headers: Mapping[str, str] | None = None,
) -> None:
    """Answer with `body` as JSON; a client that already gave up (a timeout test) is no error."""
    payload = json.dumps(body).encode()
    try:
        handler.send_response(status)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(payload)))
        for key, value in (headers or {}).items():
            handler.send_header(key, value)
        handler.end_headers()
        handler.wfile.write(payload)
    except OSError:
        pass
