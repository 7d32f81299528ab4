"""diagrams/memory.html: the seed's dataflow, complete, self-contained, and rendered by Chromium."""

from __future__ import annotations

import collections
import importlib.util
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
DIAGRAMS = ROOT / "diagrams"
PAGE = DIAGRAMS / "memory.html"
SEED = json.loads((DIAGRAMS / "memory-diagram.json").read_text(encoding="utf-8"))
ENGLISH: dict[str, str] = json.loads(
    (DIAGRAMS / "memory-diagram.en.json").read_text(encoding="utf-8")
)["en"]
WIDTH, HEIGHT = 1280, 800
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost",  # no test reaches the internet
]


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    text: str = ""


class Page(HTMLParser):
    """Every element of the page, each with the text it contains."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self.open_: list[Element] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs})
        self.elements.append(element)
        if tag not in {"meta", "path", "rect", "circle", "br", "i"}:
            self.open_.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append(Element(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        while self.open_:
            if self.open_.pop().tag == tag:
                break

    def handle_data(self, data: str) -> None:
        for element in self.open_:
            element.text += data

    def having(self, name: str) -> list[Element]:
        return [e for e in self.elements if name in e.attrs]

    def translated(self) -> dict[str, str]:
        """Shown text -> its data-en, for every translatable element."""
        return {e.text: e.attrs["data-en"] for e in self.having("data-en")}


def parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    page.close()
    return page


def seed_texts() -> list[str]:
    texts = [SEED["meta"]["title"]]
    texts += [stage["label"] for stage in SEED["stages"]]
    for node in SEED["nodes"]:
        texts += [node["label"], node["sublabel"], node["tag"]]
    texts += [flow["label"] for flow in SEED["flows"]]
    for card in SEED["cards"]:
        texts += [card["title"], *card["items"]]
    return texts


@pytest.fixture(scope="module")
def page() -> Page:
    return parse(PAGE.read_text(encoding="utf-8"))


def test_five_stages_twelve_nodes_eleven_flows_three_cards(page: Page) -> None:
    stages = page.having("data-stage")
    nodes = page.having("data-node")
    flows = page.having("data-flow")
    cards = page.having("data-card")
    assert [s.attrs["data-stage"] for s in stages] == ["0", "1", "2", "3", "4"]
    assert [(n.attrs["data-node"], n.attrs["data-type"]) for n in nodes] == [
        (n["id"], n["type"]) for n in SEED["nodes"]
    ]
    assert [(f.attrs["data-from"], f.attrs["data-to"]) for f in flows] == [
        (f["from"], f["to"]) for f in SEED["flows"]
    ]
    assert len(cards) == 3
    (svg,) = [e for e in page.elements if e.tag == "svg"]
    assert svg.attrs["viewbox"] == "0 0 {} {}".format(*SEED["meta"]["viewBox"])


def test_every_flow_is_an_arrow_with_its_label(page: Page) -> None:
    flows = page.having("data-flow")
    for flow, seed in zip(flows, SEED["flows"], strict=True):
        assert flow.text == seed["label"]
    arrows = [e for e in page.elements if e.tag == "path" and "marker-end" in e.attrs]
    assert len(arrows) == len(SEED["flows"])
    markers = {e.attrs["id"] for e in page.elements if e.tag == "marker"}
    for arrow, seed in zip(arrows, SEED["flows"], strict=True):
        assert arrow.attrs["marker-end"] == f"url(#arrow-{seed['variant']})"
        assert f"arrow-{seed['variant']}" in markers


def test_every_seed_text_is_shown_in_vietnamese_with_its_english(page: Page) -> None:
    shown = page.translated()
    for text in seed_texts():
        assert text in shown, f"seed text missing from the page: {text!r}"
        assert shown[text] == ENGLISH[text], f"wrong English for {text!r}"


def test_nodes_show_label_sublabel_and_tag(page: Page) -> None:
    for element, node in zip(page.having("data-node"), SEED["nodes"], strict=True):
        assert element.text == node["label"] + node["sublabel"] + node["tag"]


def test_english_names_every_text_and_nothing_else(page: Page) -> None:
    shown = page.translated()
    button = shown.pop("English")
    assert button == "Tiếng Việt"
    assert set(shown) == set(ENGLISH)
    assert all(value.strip() for value in ENGLISH.values())
    assert all(text == text.strip() and "\n" not in text for text in shown)


def test_page_is_self_contained(page: Page) -> None:
    html = PAGE.read_text(encoding="utf-8")
    assert not [e for e in page.elements if e.tag in {"link", "img", "iframe", "object"}]
    assert not [e for e in page.elements if e.tag == "script" and "src" in e.attrs]
    assert not re.search(r"@import|url\((?!#)", html)
    # The only address is the XHTML namespace of the cards and the legend, never fetched.
    assert set(re.findall(r"https?://[^\s\"')]+", html)) == {"http://www.w3.org/1999/xhtml"}


def test_committed_page_is_what_build_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = importlib.util.spec_from_file_location("diagram_build", DIAGRAMS / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    assert module.build() == PAGE.read_text(encoding="utf-8"), "run: python diagrams/build.py"


# Headless Chromium: the page renders, and #en switches it to English.


@pytest.fixture(scope="module")
def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("TRINHO_REQUIRE_CHROMIUM") == "1":
            pytest.fail("chromium is not installed and TRINHO_REQUIRE_CHROMIUM=1")
        pytest.skip("chromium is not installed")
    return found


def run_chromium(chromium: str, tmp: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    profile = tmp / "profile"
    command = [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args]
    result = subprocess.run(command, capture_output=True, timeout=180, check=False)
    assert result.returncode == 0, result.stderr.decode(errors="replace")[-2000:]
    return result


@dataclass(frozen=True)
class Image:
    width: int
    height: int
    pixels: list[bytes]  # one RGB(A) tuple of bytes per pixel, row after row


def decode_png(data: bytes) -> Image:
    """A minimal PNG decoder (8-bit RGB or RGBA, no interlace): enough to look at a screenshot."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert (depth, interlace) == (8, 0) and colour in (2, 6), (depth, colour, interlace)
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    previous = bytearray(stride)
    rows = []
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        unfilter(kind, line, previous, bpp)
        rows.append(bytes(line))
        previous = line
    pixels = [row[i : i + bpp] for row in rows for i in range(0, stride, bpp)]
    return Image(width, height, pixels)


def unfilter(kind: int, line: bytearray, up: bytearray, bpp: int) -> None:
    if kind == 1:
        for i in range(bpp, len(line)):
            line[i] = (line[i] + line[i - bpp]) & 0xFF
    elif kind == 2:
        line[:] = bytes((a + b) & 0xFF for a, b in zip(line, up, strict=True))
    elif kind == 3:
        for i in range(len(line)):
            left = line[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + ((left + up[i]) >> 1)) & 0xFF
    elif kind == 4:
        for i in range(len(line)):
            left, corner = (line[i - bpp], up[i - bpp]) if i >= bpp else (0, 0)
            line[i] = (line[i] + paeth(left, up[i], corner)) & 0xFF
    else:
        assert kind == 0, f"unknown PNG filter {kind}"


def paeth(a: int, b: int, c: int) -> int:
    """PNG's Paeth predictor: whichever neighbour is closest to a + b - c."""
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def near(pixel: bytes, colour: str, tolerance: int = 24) -> bool:
    target = bytes.fromhex(colour.lstrip("#"))
    return all(abs(a - b) <= tolerance for a, b in zip(pixel[:3], target, strict=True))


@settings(max_examples=60, deadline=None)
@given(
    width=st.integers(1, 6),
    alpha=st.booleans(),
    rows=st.lists(st.tuples(st.integers(0, 4), st.binary(min_size=24, max_size=24)), min_size=1),
)
def test_decode_png_reads_back_any_filtered_image(
    width: int, alpha: bool, rows: list[tuple[int, bytes]]
) -> None:
    """Any 8-bit RGB(A) image, each row filtered with any of the five filters, decodes exactly."""
    bpp = 4 if alpha else 3
    lines = [data[: width * bpp] for _, data in rows]
    up, encoded = bytes(width * bpp), b""
    for (kind, _), line in zip(rows, lines, strict=True):
        encoded += bytes([kind]) + filter_line(kind, line, up, bpp)
        up = line
    ihdr = struct.pack(">IIBBBBB", width, len(lines), 8, 6 if alpha else 2, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
    compressed = zlib.compress(encoded)
    half = len(compressed) // 2  # image data may be split over several IDAT chunks
    png += chunk(b"IDAT", compressed[:half]) + chunk(b"IDAT", compressed[half:])
    image = decode_png(png + chunk(b"IEND", b""))
    assert (image.width, image.height) == (width, len(lines))
    assert image.pixels == [line[i : i + bpp] for line in lines for i in range(0, len(line), bpp)]


def filter_line(kind: int, line: bytes, up: bytes, bpp: int) -> bytes:
    out = bytearray()
    for i, value in enumerate(line):
        a = line[i - bpp] if i >= bpp else 0
        b, c = up[i], (up[i - bpp] if i >= bpp else 0)
        predictor = [0, a, b, (a + b) >> 1, paeth(a, b, c)][kind]
        out.append((value - predictor) & 0xFF)
    return bytes(out)


def chunk(kind: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(kind + body)
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)


def test_chromium_renders_the_diagram(chromium: str, tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    run_chromium(
        chromium, tmp_path, f"--screenshot={shot}", f"--window-size={WIDTH},{HEIGHT}", PAGE.as_uri()
    )
    assert shot.is_file()
    image = decode_png(shot.read_bytes())
    assert (image.width, image.height) == (WIDTH, HEIGHT)
    counts = collections.Counter(image.pixels)
    assert len(counts) > 500, f"only {len(counts)} colours: the page looks blank"
    (_, commonest), *_ = counts.most_common(1)
    assert commonest < 0.8 * len(image.pixels), "one colour covers most of the page"
    # The arrows were drawn: the emphasis (sky) and security (amber) strokes are on screen.
    for colour in ("#38bdf8", "#fbbf24"):
        assert sum(n for pixel, n in counts.items() if near(pixel, colour)) > 200, colour


def test_chromium_shows_english_with_hash_en(chromium: str, tmp_path: Path) -> None:
    result = run_chromium(chromium, tmp_path, "--dump-dom", PAGE.as_uri() + "#en")
    dom = parse(result.stdout.decode("utf-8"))
    (html,) = [e for e in dom.elements if e.tag == "html"]
    assert html.attrs["lang"] == "en"
    shown = {e.attrs["data-vi"]: e.text for e in dom.having("data-en")}
    for text in seed_texts():
        assert shown[text] == ENGLISH[text], f"{text!r} is not shown in English"
    assert shown["English"] == "Tiếng Việt"


def test_chromium_button_switches_to_english_and_back(chromium: str, tmp_path: Path) -> None:
    """Click the toggle once (English), note what is shown, click again (Vietnamese)."""
    clicks = (
        '<script>const b = document.getElementById("lang-toggle"); b.click();'
        "document.body.dataset.once = [document.documentElement.lang, document.title,"
        ' b.textContent, b.getAttribute("aria-pressed")].join("|"); b.click();</script></body>'
    )
    probe = tmp_path / "memory.html"
    probe.write_text(PAGE.read_text(encoding="utf-8").replace("</body>", clicks), "utf-8")
    dom = parse(run_chromium(chromium, tmp_path, "--dump-dom", probe.as_uri()).stdout.decode())
    (title,) = [e for e in dom.elements if e.tag == "title"]
    (body,) = [e for e in dom.elements if e.tag == "body"]
    assert body.attrs["data-once"] == f"en|{title.attrs['data-en']}|Tiếng Việt|true"
    (html,) = [e for e in dom.elements if e.tag == "html"]
    assert html.attrs["lang"] == "vi"
    shown = {e.attrs["data-vi"]: e.text for e in dom.having("data-en")}
    assert all(shown[text] == text for text in seed_texts())
