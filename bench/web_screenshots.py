"""Photograph every review screen as the owner sees it, for docs/web.md: the list of what
waits, its cards (a removal, an edit of a heading, a line holding an invisible character, an
archive, a change to what the owner said), a single decision with its take-back link and
receipt, the review step of a bulk approval, its receipt and its short undo, rejecting
everything (asked once more) and its receipt, a removal's receipt and its run's undo, and a
search: every one at a phone's width (375 px) in Vietnamese and English, and the main ones at a
desktop's (1280 px).

Run: .venv/bin/python bench/web_screenshots.py [--out docs/img]

It builds the week of `tests/support/review_week.py` with `MORE` (eight held MEMORY.md changes,
three fact proposals) in a temporary workspace, serves the page on a free local port and drives
Debian's chromium over chromedriver. Nothing is written outside `--out`; rerunning rewrites
the same files. Each PNG is one page region, kept small (the sizes are printed).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from conftest import FixedClock
from support.review_week import MORE, ReviewWeek, review_week, review_workspace
from support.webdriver import DESKTOP, PHONE, Browser, chromium, serving
from trinho.proposals import store as proposals
from trinho.textnorm import has_hidden
from trinho.workspace import Workspace

LIMIT = 150_000
"""Bytes a screenshot may take in the repository."""

DESKTOP_PAGES = {"vi": True, "en": False}
"""Whether a locale's desktop screens are photographed beyond the list and a removal."""


CARD_MAX = 1500
"""The tallest card photographed whole (an archive's sources run on below it)."""


def card_shot(browser: Browser, pid: str, path: Path) -> None:
    """One card, whole up to `CARD_MAX` px, wherever it is on the page."""
    top = int(browser.script(f"return document.getElementById('card-{pid}').offsetTop"))
    height = int(browser.script(f"return document.getElementById('card-{pid}').offsetHeight"))
    browser.clip(max(top - 8, 0), min(height + 16, CARD_MAX), path)


def hidden_one(ws: Workspace, week: ReviewWeek) -> str:
    """The held line that holds an invisible character."""
    return next(
        pid
        for pid in week.others
        if has_hidden(str(proposals.get_proposal(ws, pid).change.get("new") or ""))
    )


def shots(
    browser: Browser, base: str, login: str, ws: Workspace, week: ReviewWeek, out: Path
) -> None:
    """The review's screens in `browser`, each `web-SCREEN-LOCALE-WIDTH.png`."""
    tag = f"{ws.locale}-{browser.width}"
    phone = browser.width < 500
    tall = 1400 if phone else 900
    browser.go(login)
    browser.clip(0, tall, out / f"web-review-{tag}.png")
    card_shot(browser, week.removals[0], out / f"web-removal-{tag}.png")
    if not phone and not DESKTOP_PAGES[ws.locale]:
        return
    card_shot(browser, week.coffee, out / f"web-owner-{tag}.png")
    if phone:
        card_shot(browser, week.others[0], out / f"web-heading-{tag}.png")
        card_shot(browser, hidden_one(ws, week), out / f"web-hidden-{tag}.png")
        card_shot(browser, week.archive, out / f"web-archive-{tag}.png")
    browser.go(f"{base}/bulk")
    browser.clip(0, tall, out / f"web-bulk-{tag}.png")
    browser.click('form[action="/bulk"] button')
    browser.clip(0, tall, out / f"web-receipt-{tag}.png")
    browser.click('form[action$="/take-back"] button')
    browser.clip(0, tall, out / f"web-taken-back-{tag}.png")
    browser.go(f"{base}/search?q=chay+bo")
    browser.clip(0, 700, out / f"web-search-{tag}.png")
    if not phone:
        return
    browser.go(f"{base}/reject-all")
    browser.clip(0, 900, out / f"web-reject-all-{tag}.png")
    browser.click('form[action="/reject-all"] button')
    browser.clip(0, 700, out / f"web-rejected-{tag}.png")
    browser.click('form[action$="/take-back"] button')  # everything waits again
    browser.go(f"{base}/")
    edit = week.edits[0]
    browser.click(f'form[action="/proposals/{edit}/approve"] button')
    after = browser.url().rsplit("#card-", 1)[-1]
    card_shot(browser, after, out / f"web-decided-{tag}.png")
    browser.click('a[href^="/receipts/"]')
    browser.clip(0, 700, out / f"web-single-receipt-{tag}.png")
    browser.go(f"{base}/")
    browser.click(f'form[action="/proposals/{week.removals[0]}/approve"] button')
    browser.click('a[href^="/receipts/"]')
    browser.clip(0, 700, out / f"web-removal-receipt-{tag}.png")
    browser.click('main a[href$="/undo"]')
    browser.clip(0, 900, out / f"web-run-undo-{tag}.png")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("docs/img"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for locale in ("vi", "en"):
        for width in (PHONE, DESKTOP):
            with tempfile.TemporaryDirectory() as tmp:
                clock = FixedClock()
                ws = review_workspace(Path(tmp) / "ws", clock, locale)
                week = review_week(ws, clock, MORE)
                with serving(ws) as site, chromium(Path(tmp) / "profile", width) as browser:
                    base = site.url.split("/login")[0]
                    shots(browser, base, site.url, ws, week, args.out)
    for path in sorted(args.out.glob("web-*.png")):
        size = path.stat().st_size
        over = f"  over {LIMIT // 1000} KB" if size > LIMIT else ""
        print(f"{path}  {size // 1024} KB{over}")


if __name__ == "__main__":
    main()
