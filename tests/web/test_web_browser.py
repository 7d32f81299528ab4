"""The review page in a real headless Chromium, driven over WebDriver (Debian's chromium and
chromium-driver; no downloaded browser): log in with the link, see a held edit's diff, approve
it, reject another with a reason, undo a run, search "ha noi" and open a hit, at a phone's
width, with screenshots checked for the key elements."""

from __future__ import annotations

import base64
import io
import json
import os
import shutil
import socket
import struct
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from condense_weeks import EN_MEMORY, en_week, two_roles
from conftest import FixedClock
from test_diagram import CHROMIUM_FLAGS, decode_png, near
from trinho.channels import ConsoleChannel
from trinho.condense import RunReport, run_condensation
from trinho.notes.store import save_note
from trinho.proposals import store as proposals
from trinho.web.app import WebHttp
from trinho.workspace import Workspace

ANNA = "- 2026-02-11: Sister Anna lives in Lisbon"
PORTO = "- 2026-11-23: Sister Anna lives in Porto"
PENICILLIN = "- 2026-10-05: Allergic to penicillin"
WIDTH = 375
FLAGS = [
    *(flag for flag in CHROMIUM_FLAGS if not flag.startswith("--host-resolver-rules")),
    # no test reaches the internet; the page under test is on 127.0.0.1
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_for(port: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listens on {port}")


class Browser:
    """A WebDriver session: plain JSON over HTTP to chromedriver, nothing else."""

    def __init__(self, port: int, profile: Path) -> None:
        self.base = f"http://127.0.0.1:{port}"
        options = {
            "binary": shutil.which("chromium"),
            "args": [*FLAGS, f"--user-data-dir={profile}"],
            # a phone's viewport: a desktop window cannot be narrower than 500 px
            "mobileEmulation": {"deviceMetrics": {"width": WIDTH, "height": 812, "pixelRatio": 1}},
        }
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

    def url(self) -> str:
        return str(self.command("GET", "/url"))

    def script(self, code: str) -> Any:
        return self.command("POST", "/execute/sync", {"script": code, "args": []})

    def screenshot(self, path: Path) -> bytes:
        data = base64.b64decode(self.command("GET", "/screenshot"))
        path.write_bytes(data)
        return data

    def close(self) -> None:
        self.command("DELETE", "")


@pytest.fixture
def chromedriver() -> str:
    found = shutil.which("chromedriver")
    if found is None or shutil.which("chromium") is None:
        if os.environ.get("TRINHO_REQUIRE_CHROMIUM") == "1":
            pytest.fail("chromium or chromedriver is not installed and TRINHO_REQUIRE_CHROMIUM=1")
        pytest.skip("chromium and chromium-driver (Debian) are not installed")
    return found


@pytest.fixture
def browser(chromedriver: str, tmp_path: Path) -> Iterator[Browser]:
    port = _free_port()
    driver = subprocess.Popen(
        [chromedriver, f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        _wait_for(port)
        session = Browser(port, tmp_path / "profile")
        try:
            yield session
        finally:
            session.close()
    finally:
        driver.terminate()
        driver.wait(timeout=30)


@pytest.fixture
def held(workspace: Workspace, clock: FixedClock) -> RunReport:
    en_week(workspace, clock)
    save_note(workspace, "Flight to Hà Nội on Friday, 07:40")
    rewrite = EN_MEMORY.replace(ANNA, PORTO).replace(PENICILLIN + "\n", "")
    channel = ConsoleChannel(workspace.locale, io.StringIO())
    return run_condensation(workspace, model=two_roles(rewrite), channel=channel)


@pytest.fixture
def site(workspace: Workspace, held: RunReport) -> Iterator[WebHttp]:
    web = WebHttp(workspace, "127.0.0.1", _free_port())
    thread = threading.Thread(target=web.server.run, daemon=True)
    thread.start()
    _wait_for(web.server.config.port)
    try:
        yield web
    finally:
        web.stop()
        thread.join(timeout=30)


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def shows(data: bytes, colour: str, at_least: int = 50) -> bool:
    """Whether the screenshot has a patch of `colour` (a highlight the page paints)."""
    image = decode_png(data)
    return sum(near(pixel, colour, tolerance=6) for pixel in image.pixels) >= at_least


def test_the_owner_reviews_decides_undoes_and_searches_in_a_browser(
    browser: Browser, site: WebHttp, workspace: Workspace, held: RunReport, tmp_path: Path
) -> None:
    ids = {rc.change.cls: rc.proposal_id for rc in held.held}
    edited, removed = str(ids["edited"]), str(ids["removed"])
    browser.go(site.url)  # the login link, as `trinho web` prints it
    page = browser.source()
    assert (
        f"Run {held.run_id}" in page and "<ins>Porto</ins>" in page and "<del>Lisbon</del>" in page
    )
    assert browser.script("return window.innerWidth") == WIDTH
    assert browser.script("return document.documentElement.scrollWidth") <= WIDTH  # no sideways
    shot = browser.screenshot(tmp_path / "queue.png")
    assert png_size(shot)[0] == WIDTH
    assert shows(shot, "#99ee99") and shows(shot, "#ff9999")  # the word diff's ins and del

    browser.click(f'form[action="/proposals/{edited}/approve"] button')
    assert proposals.get_proposal(workspace, edited).status == "approved"
    assert PORTO in workspace.memory_file.read_text(encoding="utf-8")

    browser.go(site.url.split("/login")[0] + "/")
    browser.type(f'form[action="/proposals/{removed}/reject"] input[name="reason"]', "keep it")
    browser.click(f'form[action="/proposals/{removed}/reject"] button')
    rejected = proposals.get_proposal(workspace, removed)
    assert rejected.status == "rejected" and rejected.decision_note == "keep it"
    assert rejected.decided_by == "owner (web)"

    base = site.url.split("/login")[0]
    browser.go(f"{base}/runs/{held.run_id}/undo")
    assert "undo" in browser.source().lower()
    browser.click(f'form[action="/runs/{held.run_id}/undo"] button')
    assert ANNA in workspace.memory_file.read_text(encoding="utf-8")
    browser.screenshot(tmp_path / "undone.png")

    browser.go(base + "/")
    browser.type('input[name="q"]', "ha noi")
    browser.click('nav form[action="/search"] button')
    assert "Hà Nội" in browser.source()
    browser.click('main a[href^="/file?path=memory/"]')
    assert "/file?path=memory" in browser.url() and "#L" in browser.url()
    assert "Flight to Hà Nội" in browser.source()
    shot = browser.screenshot(tmp_path / "hit.png")
    assert png_size(shot)[0] == WIDTH
    assert shows(shot, "#ffff99")  # the hit's line, highlighted as the link's target
