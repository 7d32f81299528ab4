"""Photograph the review page as the owner sees it, for docs/web.md: the list of what waits, a
removal's card, a change to what the owner said, the review step of a bulk approval, its
receipt and its short undo, and a search, at a phone's
width (375 px) and a desktop's (1280 px), in Vietnamese and English.

Run: .venv/bin/python bench/web_screenshots.py [--out docs/img]

It builds the week of `tests/review_week.py` (five held MEMORY.md changes, three fact
proposals) in a temporary workspace, serves the page on a free local port and drives
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
from review_week import ReviewWeek, review_week, review_workspace
from webdriver import DESKTOP, PHONE, Browser, chromium, serving

LIMIT = 150_000
"""Bytes a screenshot may take in the repository."""


ALL_PAGES = ("review", "removal", "bulk", "receipt", "taken-back", "search")
PAGES = {"vi": ALL_PAGES, "en": ("review", "removal")}
"""What is photographed in each language: every page in Vietnamese, where the marks and the
wording matter most; the list and a removal in English."""


def card_shot(browser: Browser, pid: str, path: Path) -> None:
    """One card, whole, wherever it is on the page."""
    top = int(browser.script(f"return document.getElementById('card-{pid}').offsetTop"))
    height = int(browser.script(f"return document.getElementById('card-{pid}').offsetHeight"))
    browser.clip(max(top - 8, 0), height + 16, path)


def shots(
    browser: Browser, base: str, login: str, week: ReviewWeek, out: Path, locale: str
) -> None:
    """The review's pages in `browser`, each `web-PAGE-LOCALE-WIDTH.png`."""
    tag = f"{locale}-{browser.width}"
    tall = 1400 if browser.width < 500 else 900
    browser.go(login)
    browser.clip(0, tall, out / f"web-review-{tag}.png")
    card_shot(browser, week.removals[0], out / f"web-removal-{tag}.png")
    if "bulk" not in PAGES[locale]:
        return
    card_shot(browser, week.coffee, out / f"web-owner-{tag}.png")
    browser.go(f"{base}/bulk")
    browser.clip(0, tall, out / f"web-bulk-{tag}.png")
    browser.click('form[action="/bulk"] button')
    browser.clip(0, tall, out / f"web-receipt-{tag}.png")
    browser.click('form[action$="/take-back"] button')
    browser.clip(0, tall, out / f"web-taken-back-{tag}.png")
    browser.go(f"{base}/search?q=chay+bo")
    browser.clip(0, 700, out / f"web-search-{tag}.png")


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
                week = review_week(ws, clock)
                with serving(ws) as site, chromium(Path(tmp) / "profile", width) as browser:
                    base = site.url.split("/login")[0]
                    shots(browser, base, site.url, week, args.out, locale)
    for path in sorted(args.out.glob("web-*.png")):
        size = path.stat().st_size
        over = f"  over {LIMIT // 1000} KB" if size > LIMIT else ""
        print(f"{path}  {size // 1024} KB{over}")


if __name__ == "__main__":
    main()
