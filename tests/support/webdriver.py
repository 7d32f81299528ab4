"""A real headless Chromium driven over WebDriver (Debian's chromium and chromium-driver; no
downloaded browser), and the review page served on a free local port: shared by the browser
tests and `bench/web_screenshots.py`.

Plain JSON over HTTP to chromedriver, nothing else. A phone is emulated at its width (a
desktop window cannot be narrower than 500 px); a desktop is a window of its size.
"""

from __future__ import annotations

import base64
import json
import shutil
import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from test_diagram import CHROMIUM_FLAGS
from trinho.web.app import WebHttp
from trinho.workspace import Workspace

PHONE = 375
DESKTOP = 1280
FLAGS = [
    *(flag for flag in CHROMIUM_FLAGS if not flag.startswith("--host-resolver-rules")),
    # nothing reaches the internet; the page under test is on 127.0.0.1
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for(port: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listens on {port}")


def browsers_installed() -> bool:
    return shutil.which("chromedriver") is not None and shutil.which("chromium") is not None


class Browser:
    """A WebDriver session at `width` CSS pixels (a phone's, emulated, below 500)."""

    def __init__(self, port: int, profile: Path, width: int = PHONE, height: int = 812) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.width = width
        args = [*FLAGS, f"--user-data-dir={profile}"]
        options: dict[str, Any] = {"binary": shutil.which("chromium"), "args": args}
        if width < 500:
            options["mobileEmulation"] = {
                "deviceMetrics": {"width": width, "height": height, "pixelRatio": 1}
            }
        else:
            args.append(f"--window-size={width},{height}")
        caps = {"capabilities": {"alwaysMatch": {"goog:chromeOptions": options}}}
        self.session = self._call("POST", "/session", caps)["sessionId"]

    def _call(self, method: str, path: str, body: object | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.base + path, data, {"Content-Type": "application/json"}, method=method
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())["value"]

    def command(self, method: str, path: str, body: object | None = None) -> Any:
        return self._call(method, f"/session/{self.session}{path}", body)

    def go(self, url: str) -> None:
        self.command("POST", "/url", {"url": url})

    def find(self, css: str) -> str:
        found = self.command("POST", "/element", {"using": "css selector", "value": css})
        return str(next(iter(found.values())))

    def click(self, css: str) -> None:
        """Click and wait for the page it leads to: a tap in a phone's viewport returns before
        the form's request is answered."""
        self.script("window.__old_page = true")
        self.command("POST", f"/element/{self.find(css)}/click", {})
        deadline = time.monotonic() + 30
        while self.script(
            "return window.__old_page === true || document.readyState !== 'complete'"
        ):
            assert time.monotonic() < deadline, f"clicking {css} led nowhere"
            time.sleep(0.05)

    def type(self, css: str, text: str) -> None:
        self.command("POST", f"/element/{self.find(css)}/value", {"text": text})

    def source(self) -> str:
        return str(self.command("GET", "/source"))

    def text(self) -> str:
        """What the page shows a reader (its title too), without markup."""
        return str(self.script("return document.title + '\\n' + document.body.innerText"))

    def url(self) -> str:
        return str(self.command("GET", "/url"))

    def script(self, code: str, *args: object) -> Any:
        return self.command("POST", "/execute/sync", {"script": code, "args": list(args)})

    def screenshot(self, path: Path | None = None) -> bytes:
        data = base64.b64decode(self.command("GET", "/screenshot"))
        if path is not None:
            path.write_bytes(data)
        return data

    def shot_of(self, css: str, path: Path | None = None) -> bytes:
        """A screenshot of the page from its top to the bottom of the element `css`, at most
        2400 px tall: a whole card, however far down it is."""
        bottom = self.script(
            "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
            "return Math.ceil(r.bottom + window.scrollY)",
            css,
        )
        return self.clip(0, min(int(bottom) + 8, 2400), path)

    def clip(self, top: int, height: int, path: Path | None = None) -> bytes:
        """A screenshot of `height` CSS pixels of the page from `top`, past the viewport too."""
        clip = {"x": 0, "y": top, "width": self.width, "height": height, "scale": 1}
        found = self.command(
            "POST",
            "/goog/cdp/execute",
            {
                "cmd": "Page.captureScreenshot",
                "params": {"format": "png", "clip": clip, "captureBeyondViewport": True},
            },
        )
        data = base64.b64decode(found["data"])
        if path is not None:
            path.write_bytes(data)
        return data

    def close(self) -> None:
        self.command("DELETE", "")


@contextmanager
def chromium(profile: Path, width: int = PHONE) -> Iterator[Browser]:
    """A chromedriver of its own and one browser session in it, both ended after."""
    found = shutil.which("chromedriver")
    assert found is not None, "chromedriver is not installed"
    port = free_port()
    driver = subprocess.Popen(
        [found, f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_for(port)
        session = Browser(port, profile, width)
        try:
            yield session
        finally:
            session.close()
    finally:
        driver.terminate()
        driver.wait(timeout=30)


@contextmanager
def serving(ws: Workspace) -> Iterator[WebHttp]:
    """The review page of `ws` on a free local port, stopped after."""
    web = WebHttp(ws, "127.0.0.1", free_port())
    thread = threading.Thread(target=web.server.run, daemon=True)
    thread.start()
    wait_for(web.server.config.port)
    try:
        yield web
    finally:
        web.stop()
        thread.join(timeout=30)
