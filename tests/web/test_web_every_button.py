"""What the owner sees is what changes, in a real Chromium: every form on every review screen
of a held week (removals, edits, a heading edited, additions, an archive, a line holding an
invisible character, facts) is pressed on a fresh copy of the workspace, and every line that
appeared in or left MEMORY.md or memory/archive.md was on the screen the button was on, as the
screen showed it (`document.body.innerText`; a card's button: its card). Then the decision's
own undo, pressed on its screen the same way, puts both files back byte for byte."""

from __future__ import annotations

import os
import re
import shutil
from collections import Counter
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import FixedClock
from support.review_week import HIDDEN, MORE, ReviewWeek, review_week, review_workspace
from support.webdriver import PHONE, Browser, browsers_installed, chromium, serving
from trinho.proposals import store as proposals
from trinho.textnorm import show_hidden
from trinho.web.pages import entry_text
from trinho.workspace import Workspace, open_workspace

FILES = ("MEMORY.md", "memory/archive.md")
ARCHIVE_HEADING = re.compile(r"## Archived by run \S+ \(sha256 [0-9a-f]{12}\)\Z")
"""The heading an archive's section starts with: trinho's own marker (the run and a hash, for
undo and reruns), which the card names in words ("under a heading for this week's update")."""
FORMS = "return [...document.querySelectorAll('form')].map(f => f.getAttribute('action'))"
SCREEN_OF = """
const form = document.querySelectorAll('form')[arguments[0]];
const card = form.closest('article');
form.setAttribute('data-pressed', '1');
return (card || document.body).innerText
"""
PRESS = 'form[data-pressed="1"] button'
UNDO_LINK = 'main a[href^="/runs/"][href$="/undo"]'


def files(ws: Workspace) -> dict[str, bytes | None]:
    return {f: ws.path(f).read_bytes() if ws.path(f).exists() else None for f in FILES}


def changed_lines(before: dict[str, bytes | None], after: dict[str, bytes | None]) -> list[str]:
    """Every non-blank line that appeared in or left either file (counted, so a line written
    twice or moved to the other file counts)."""
    out: list[str] = []
    for name in FILES:
        old = Counter((before[name] or b"").decode("utf-8").split("\n"))
        new = Counter((after[name] or b"").decode("utf-8").split("\n"))
        out += [line for line in (old - new) + (new - old) if line.strip()]
    return out


def off_screen(lines: list[str], screen: str) -> list[str]:
    """The lines the screen did not show, as a screen shows a line: made visible
    (`⟨U+202E⟩`), a list entry without its marker."""
    return [
        line
        for line in lines
        if entry_text(show_hidden(line)) not in screen and not ARCHIVE_HEADING.match(line)
    ]


@dataclass
class Pressed:
    """One press: the screen's form (by its action) and the lines it changed."""

    action: str
    changed: list[str]


class Site:
    """A fresh copy of the held week, served, with the browser signed in to it."""

    def __init__(self, browser: Browser, template: Path, root: Path, clock: FixedClock) -> None:
        shutil.copytree(template, root)
        self.ws = open_workspace(root, clock)
        self.browser = browser
        self.original = files(self.ws)

    def press(self, index: int) -> Pressed:
        """Press the screen's form `index`: its screen read first, the files compared after."""
        action = self.browser.script(FORMS)[index]
        screen = self.browser.script(SCREEN_OF, index)
        before = files(self.ws)
        self.browser.click(PRESS)
        changed = changed_lines(before, files(self.ws))
        assert off_screen(changed, screen) == [], (action, changed)
        return Pressed(action, changed)

    def press_css(self, css: str) -> Pressed:
        index = self.browser.script(
            "return [...document.querySelectorAll('form')].indexOf("
            "document.querySelector(arguments[0]).closest('form'))",
            css,
        )
        return self.press(int(index))

    def undo(self) -> None:
        """Take the decision back from where the page offers it: the link beside its notice
        to its receipt, the receipt's take-back, or its run's undo (asked once more)."""
        link = self.browser.script("return document.querySelector('a[href^=\"/receipts/\"]')")
        if link is not None and "/receipts/" not in self.browser.url():
            self.browser.click('a[href^="/receipts/"]')
        if self.browser.script("return document.querySelector(arguments[0])", UNDO_LINK):
            self.browser.click(UNDO_LINK)
            self.press_css('main form[action$="/undo"] button')
        else:
            self.press_css('form[action$="/take-back"] button')
        assert files(self.ws) == self.original


@pytest.fixture
def week_template(tmp_path: Path, clock: FixedClock) -> tuple[Path, ReviewWeek]:
    if not browsers_installed():
        if os.environ.get("TRINHO_REQUIRE_CHROMIUM") == "1":
            pytest.fail("chromium or chromedriver is not installed and TRINHO_REQUIRE_CHROMIUM=1")
        pytest.skip("chromium and chromium-driver (Debian) are not installed")
    ws = review_workspace(tmp_path / "template", clock, "vi")
    return ws.root, review_week(ws, clock, MORE)


@pytest.fixture
def browser(week_template: object, tmp_path: Path) -> Iterator[Browser]:
    with chromium(tmp_path / "profile", PHONE) as session:
        yield session


def sites(
    browser: Browser, template: Path, tmp_path: Path, clock: FixedClock
) -> Generator[Site, None, None]:
    """A fresh copy of the week for each press, served, the browser signed in at `/`."""
    n = 0
    while True:
        n += 1
        site = Site(browser, template, tmp_path / f"copy-{n}", clock)
        with serving(site.ws) as web:
            browser.go(web.url)
            yield site


@pytest.mark.slow
def test_every_button_changes_only_lines_its_screen_showed_and_its_undo_puts_them_back(
    browser: Browser,
    week_template: tuple[Path, ReviewWeek],
    tmp_path: Path,
    clock: FixedClock,
) -> None:
    template, week = week_template
    fresh = sites(browser, template, tmp_path, clock)
    try:
        every_form(browser, week, fresh)
    finally:
        fresh.close()


def every_form(browser: Browser, week: ReviewWeek, fresh: Iterator[Site]) -> None:
    """Each form of the review (`/`), then of the bulk step and of rejecting everything."""
    first = next(fresh)
    text = browser.text()
    assert show_hidden(HIDDEN)[2:] in text and "⟨U+202E⟩" in text
    actions = browser.script(FORMS)
    assert len(actions) == 1 + 2 * len(week.all_ids)  # the search, and each card's two
    pressed: dict[str, list[str]] = {}
    for index, action in enumerate(actions):
        site = first if index == 0 else next(fresh)
        done = site.press(index)
        pressed[done.action] = done.changed
        if action.endswith(("/approve", "/reject")):
            pid = action.split("/")[2]
            status = proposals.get_proposal(site.ws, pid).status
            assert status in ("approved", "rejected"), action
            if action.endswith("/reject"):
                assert done.changed == []  # rejecting keeps memory as it is
            site.undo()
            if action.endswith("/reject"):
                assert proposals.get_proposal(site.ws, pid).status == "pending"
    for pid in (*week.removals, *week.edits, week.archive, *week.others):
        assert pressed[f"/proposals/{pid}/approve"], pid  # each of these changes lines
    assert any("\u202e" in line for lines in pressed.values() for line in lines)

    for path in ("/bulk", "/reject-all"):
        site = next(fresh)
        base = "/".join(browser.url().split("/")[:3])
        browser.go(base + path)
        for index, action in enumerate(browser.script(FORMS)):
            if action in ("/bulk", "/reject-all"):
                site.press(index)
        assert "/receipts/" in browser.url()
        site.undo()
        if path == "/reject-all":
            assert all(
                proposals.get_proposal(site.ws, pid).status == "pending" for pid in week.all_ids
            )
