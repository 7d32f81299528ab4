"""The review page in a real headless Chromium, driven over WebDriver (`webdriver.py`): log in
with the link, decide, undo a run and search at a phone's width; and the owner's review of a
Vietnamese week at 375 px and 1280 px, in Vietnamese and English: tap targets measured, no
sideways scroll, the next card in view after a decision, and a bulk approval that removes no
line the screen did not show first."""

from __future__ import annotations

import io
import os
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import FixedClock
from support.catalogs import internal_terms_in
from support.condense_weeks import EN_MEMORY, en_week, two_roles
from support.review_week import SHRIMP, ReviewWeek, review_week, review_workspace
from support.webdriver import DESKTOP, PHONE, Browser, browsers_installed, chromium, serving
from test_diagram import decode_png, near
from trinho.channels import ConsoleChannel
from trinho.condense import RunReport, run_condensation
from trinho.notes.store import save_note
from trinho.proposals import store as proposals
from trinho.review.bulk import bulk_covered
from trinho.review.risk import review_order
from trinho.web.app import WebHttp
from trinho.web.pages import entry_text, shown_lines
from trinho.workspace import Workspace

ANNA = "- 2026-02-11: Sister Anna lives in Lisbon"
PORTO = "- 2026-11-23: Sister Anna lives in Porto"
PENICILLIN = "- 2026-10-05: Allergic to penicillin"


@pytest.fixture
def installed() -> None:
    if not browsers_installed():
        if os.environ.get("TRINHO_REQUIRE_CHROMIUM") == "1":
            pytest.fail("chromium or chromedriver is not installed and TRINHO_REQUIRE_CHROMIUM=1")
        pytest.skip("chromium and chromium-driver (Debian) are not installed")


@pytest.fixture
def browser(installed: None, tmp_path: Path) -> Iterator[Browser]:
    with chromium(tmp_path / "profile", PHONE) as session:
        yield session


@pytest.fixture
def held(workspace: Workspace, clock: FixedClock) -> RunReport:
    en_week(workspace, clock)
    save_note(workspace, "Flight to Hà Nội on Friday, 07:40")
    rewrite = EN_MEMORY.replace(ANNA, PORTO).replace(PENICILLIN + "\n", "")
    channel = ConsoleChannel(workspace.locale, io.StringIO())
    return run_condensation(workspace, model=two_roles(rewrite), channel=channel)


@pytest.fixture
def site(workspace: Workspace, held: RunReport) -> Iterator[WebHttp]:
    with serving(workspace) as web:
        yield web


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
    assert "<ins>Porto</ins>" in page and "<del>Lisbon</del>" in page
    assert browser.script("return window.innerWidth") == PHONE
    assert browser.script("return document.documentElement.scrollWidth") <= PHONE  # no sideways
    shot = browser.screenshot(tmp_path / "queue.png")
    assert png_size(shot)[0] == PHONE
    assert shows(shot, "#f5a3a3")  # the removal's struck line, in the removal's colour

    browser.click(f'form[action="/proposals/{edited}/approve"] button')
    assert proposals.get_proposal(workspace, edited).status == "approved"
    assert PORTO in workspace.memory_file.read_text(encoding="utf-8")

    base = site.url.split("/login")[0]
    browser.go(base + "/")
    browser.type(f'form[action="/proposals/{removed}/reject"] input[name="reason"]', "keep it")
    browser.click(f'form[action="/proposals/{removed}/reject"] button')
    rejected = proposals.get_proposal(workspace, removed)
    assert rejected.status == "rejected" and rejected.decision_note == "keep it"
    assert rejected.decided_by == "owner (web)"

    browser.go(f"{base}/runs/{held.run_id}/undo")
    assert "undo" in browser.source().lower()
    browser.click(f'form[action="/runs/{held.run_id}/undo"] button')
    assert ANNA in workspace.memory_file.read_text(encoding="utf-8")

    browser.go(base + "/")
    browser.type('nav input[name="q"]', "ha noi")
    browser.click('nav form[action="/search"] button')
    assert "Hà Nội" in browser.source()
    assert browser.script("return document.querySelector('main input[name=q]').value") == "ha noi"
    browser.click('main a[href^="/file?path=memory/"]')
    assert "/file?path=memory" in browser.url() and "#L" in browser.url()
    assert "Flight to Hà Nội" in browser.source()
    shot = browser.screenshot(tmp_path / "hit.png")
    assert png_size(shot)[0] == PHONE
    assert shows(shot, "#ffff99")  # the hit's line, highlighted as the link's target


TAPPABLE = "main button, main a, nav a, nav button, main input, nav input"
SIZES = """
return [...document.querySelectorAll(arguments[0])]
  .filter(e => e.offsetParent !== null && e.type !== 'hidden')
  .map(e => { const r = e.getBoundingClientRect();
    return {what: e.outerHTML.slice(0, 80), w: r.width, h: r.height}; })
"""
GAP = """
const a = document.querySelector(arguments[0]).getBoundingClientRect();
const b = document.querySelector(arguments[1]).getBoundingClientRect();
return Math.max(b.top - a.bottom, a.top - b.bottom, b.left - a.right, a.left - b.right)
"""
COLOUR = "return getComputedStyle(document.querySelector(arguments[0])).backgroundColor"
RECT = """
const r = document.querySelector(arguments[0]).getBoundingClientRect();
return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}
"""


def no_sideways_scroll(browser: Browser) -> None:
    width = browser.script("return document.documentElement.scrollWidth")
    assert width <= browser.width, f"{browser.url()} scrolls sideways: {width} px"


def tap_targets_are_big_enough(browser: Browser) -> None:
    found = browser.script(SIZES, TAPPABLE)
    assert found
    small = [t for t in found if t["h"] < 44 or t["w"] < 44]
    assert small == [], small


@pytest.fixture(params=[(PHONE, "vi"), (PHONE, "en"), (DESKTOP, "vi"), (DESKTOP, "en")])
def week_in_a_browser(
    request: pytest.FixtureRequest, installed: None, tmp_path: Path, clock: FixedClock
) -> Iterator[tuple[Browser, str, Workspace, ReviewWeek]]:
    width, locale = request.param
    ws = review_workspace(tmp_path / "ws", clock, locale)
    week = review_week(ws, clock)
    with serving(ws) as site, chromium(tmp_path / "profile", width) as browser:
        browser.go(site.url)
        yield browser, site.url.split("/login")[0], ws, week


@pytest.mark.slow
def test_the_owner_reviews_the_week_on_a_phone_and_a_desktop(
    week_in_a_browser: tuple[Browser, str, Workspace, ReviewWeek],
) -> None:
    browser, base, ws, week = week_in_a_browser
    locale = ws.locale
    assert browser.script("return window.innerWidth") == browser.width
    no_sideways_scroll(browser)
    tap_targets_are_big_enough(browser)
    text = browser.text()
    if locale == "vi":
        assert internal_terms_in(text) == []
    waiting = proposals.list_proposals(ws, include_decided=False).proposals
    order = [p.id for p in review_order(waiting)]
    ids = browser.script("return [...document.querySelectorAll('article')].map(a => a.id.slice(5))")
    assert ids == order and set(ids[:2]) == set(week.removals)  # removals first
    first = browser.script(RECT, f"#card-{ids[0]}")["top"]
    assert first < browser.script("return window.innerHeight")  # on the first screen

    removal = week.removals[0]
    approve = f'#card-{removal} form[action$="/approve"] button'
    keep = f'#card-{removal} form[action$="/reject"] button'
    assert browser.script(COLOUR, approve) != browser.script(COLOUR, keep)
    assert browser.script(GAP, approve, keep) >= 8

    edit = week.edits[0]
    memory_font = browser.script(
        f"return getComputedStyle(document.querySelector('#card-{edit} td.old')).fontFamily"
    )
    assert "mono" not in memory_font.lower() and "Noto Sans" in memory_font
    old = browser.script(RECT, f"#card-{edit} td.old")
    new = browser.script(RECT, f"#card-{edit} td.new")
    if browser.width < 600:
        assert new["top"] >= old["bottom"] - 1 and abs(new["left"] - old["left"]) < 1  # stacked
    else:
        assert new["left"] >= old["right"] - 1 and abs(new["top"] - old["top"]) < 1  # beside

    # a decision: the page comes back at the next card, in view, saying what was done
    browser.click(keep)
    after = order[order.index(removal) + 1]
    assert browser.url().endswith(f"#card-{after}")
    top = browser.script(RECT, f"#card-{after}")["top"]
    assert -1 <= top < browser.script("return window.innerHeight") / 2
    notice = browser.script(f"return document.querySelector('#card-{after} .notice').innerText")
    assert notice and SHRIMP in ws.memory_file.read_text(encoding="utf-8")
    tap_targets_are_big_enough(browser)

    # a bulk approval removes no line the screen did not show first
    browser.go(f"{base}/bulk")
    no_sideways_scroll(browser)
    tap_targets_are_big_enough(browser)
    shown = browser.text()
    if locale == "vi":
        assert internal_terms_in(shown) == []
    before = ws.memory_file.read_text(encoding="utf-8").split("\n")
    waiting = proposals.list_proposals(ws, include_decided=False).proposals
    eligible = bulk_covered(waiting, shown_lines(waiting))
    cards = browser.script(
        "return [...document.querySelectorAll('article')].map(a => a.id.slice(5))"
    )
    assert eligible and [p.id for p in eligible] == cards  # each change it covers, on the page
    browser.click('form[action="/bulk"] button')
    assert "/receipts/" in browser.url()
    after_lines = ws.memory_file.read_text(encoding="utf-8").split("\n")
    gone = [line for line in before if line not in after_lines]
    assert all(entry_text(line) in shown for line in gone)  # each was on the screen first
    assert all(line in after_lines for line in before if "Dị ứng tôm" in line)
    receipt = browser.text()
    assert not any(p.id in receipt for p in eligible)  # the owner reads changes, not ids
    no_sideways_scroll(browser)
    tap_targets_are_big_enough(browser)

    # the receipt's short undo takes that decision back, every line as it was
    browser.click('form[action$="/take-back"] button')
    assert "/receipts/" in browser.url()
    assert ws.memory_file.read_text(encoding="utf-8").split("\n") == before
    assert all(proposals.get_proposal(ws, p.id).status == "reverted" for p in eligible)
    taken_back = browser.text()
    assert not any(p.id in taken_back for p in eligible)
    assert browser.script("return document.querySelector('form[action$=\"/take-back\"]')") is None
    if locale == "vi":
        assert internal_terms_in(taken_back) == []
    no_sideways_scroll(browser)
    tap_targets_are_big_enough(browser)

    # search: the query stays, hits are named for people, a conversation opens rendered
    browser.go(f"{base}/search?q=")
    empty = browser.text()
    assert {"vi": "Hãy gõ", "en": "Type what"}[locale] in empty
    browser.type('main input[name="q"]', "chạy bộ thứ Tư")
    browser.click('main form[action="/search"] button')
    value = browser.script("return document.querySelector('main input[name=q]').value")
    assert value == "chạy bộ thứ Tư"
    titles = browser.script(
        "return [...document.querySelectorAll('ol.hits a')].map(a => a.innerText)"
    )
    assert titles and not any(title.endswith((".md", ".jsonl")) for title in titles)
    no_sideways_scroll(browser)
    tap_targets_are_big_enough(browser)
    browser.click('ol.hits a[href^="/turn"]')
    assert "/turn?path=conversations/" in browser.url()
    turn = browser.text()
    assert "Từ tuần sau tôi chạy bộ cả sáng thứ Tư nữa" in turn and '"role"' not in turn
    if locale == "vi":
        assert internal_terms_in(turn) == []
