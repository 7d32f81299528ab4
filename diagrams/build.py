"""Build diagrams/memory.html, the memory dataflow diagram, from memory-diagram.json.

The page is generated so that its stages, nodes, flows and cards are exactly the seed's; the
layout (lanes, rows, arrow routes) is computed here. Run `python diagrams/build.py` after editing
the seed or the English texts; a test checks that the committed page is up to date.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SEED = HERE / "memory-diagram.json"
ENGLISH = HERE / "memory-diagram.en.json"
OUTPUT = HERE / "memory.html"

MARGIN = 24
LANE_TOP, LANE_BOTTOM, LANE_PAD = 82, 450, 12
LANE_WIDTHS = (140, 160, 160, 160, 160)
# Narrow gaps where the labels are short, wide ones where they are long.
LANE_GAPS = (88, 36, 36, 92)
ROW_Y = (178, 290, 402)
CARD_TOP, CARD_HEIGHT, CARD_GAP = 468, 148, 18
CORNER = 10

SUBTITLE = "Luồng dữ liệu của trinho: ai ghi gì, đi đâu, và code giữ điều gì"
PAGE_TITLE = "Sơ đồ luồng dữ liệu của trí nhớ trinho"
TYPE_NAMES = {
    "frontend": "Giao diện",
    "external": "Bên ngoài",
    "backend": "Xử lý",
    "security": "Kiểm soát",
    "database": "Lưu trữ",
}
TYPE_COLOURS = {
    "frontend": "#38bdf8",
    "external": "#c084fc",
    "backend": "#34d399",
    "security": "#fbbf24",
    "database": "#818cf8",
}
FLOW_COLOURS = {
    "default": "#8494ab",
    "emphasis": "#38bdf8",
    "security": "#fbbf24",
    "dashed": "#cbd5e1",
}
DOT_COLOURS = {"cyan": "#22d3ee", "amber": "#fbbf24", "emerald": "#34d399"}
# Identifiers and paths are set in monospace: memory_save, MEMORY.md, users/owner/facts/.
CODE_LIKE = re.compile(r"^(?=.*[_/.])[\w./-]+$")


@dataclass(frozen=True)
class Box:
    """A node's rectangle in viewBox units."""

    x: float
    y: float
    w: float
    h: float

    @property
    def cx(self) -> float:
        return self.x + self.w / 2

    @property
    def cy(self) -> float:
        return self.y + self.h / 2

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def bottom(self) -> float:
        return self.y + self.h


Point = tuple[float, float]
Translate = Callable[[str], str]


def lane_lefts() -> list[float]:
    lefts, x = [], float(MARGIN)
    for width, gap in zip(LANE_WIDTHS, (*LANE_GAPS, 0), strict=True):
        lefts.append(x)
        x += width + gap
    return lefts


def node_boxes(seed: dict[str, Any]) -> dict[str, Box]:
    lefts = lane_lefts()
    boxes = {}
    for node in seed["nodes"]:
        stage, row = node["stage"], node["row"]
        width = node.get("width", LANE_WIDTHS[stage] - 2 * LANE_PAD)
        height = node.get("height", 72)
        cx = lefts[stage] + LANE_WIDTHS[stage] / 2
        cy = ROW_Y[row] + node.get("yOffset", 0)
        boxes[node["id"]] = Box(cx - width / 2, cy - height / 2, width, height)
    return boxes


def translator(english: dict[str, str]) -> Translate:
    def en(text: str) -> str:
        if text not in english:
            raise SystemExit(f"build.py: no English for {text!r} in {ENGLISH.name}")
        return english[text]

    return en


def attr(text: str) -> str:
    return escape(text, quote=True)


@dataclass(frozen=True)
class Route:
    """An arrow as a polyline, and where its label sits."""

    points: list[Point]
    label_at: Point
    label_anchor: str  # "middle" or "start"
    label_room: float
    pill: bool


def route(flow: dict[str, Any], seed: dict[str, Any], boxes: dict[str, Box]) -> Route:
    """Orthogonal route from one node to another, chosen from where the two nodes sit."""
    nodes = {n["id"]: n for n in seed["nodes"]}
    src, dst = boxes[flow["from"]], boxes[flow["to"]]
    s_node, d_node = nodes[flow["from"]], nodes[flow["to"]]
    if s_node["stage"] == d_node["stage"]:
        down = dst.y > src.y
        start = (src.cx, src.bottom if down else src.y)
        end = (dst.cx, dst.y if down else dst.bottom)
        mid_y = (start[1] + end[1]) / 2
        lane_right = lane_lefts()[s_node["stage"]] + LANE_WIDTHS[s_node["stage"]]
        room = lane_right - src.cx - 13
        return Route([start, end], (src.cx + 9, mid_y + 3.5), "start", room, pill=False)
    port_y = right_port(flow, seed, boxes)
    top, bottom = max(src.y, dst.y), min(src.bottom, dst.bottom)
    if top + 12 <= port_y <= bottom - 12:
        start, end = (src.right, port_y), (dst.x, port_y)
        below = flow.get("labelDy", 0) > 0
        label_y = port_y + 15 if below else port_y - 7
        room = dst.x - src.right - 8
        return Route([start, end], ((src.right + dst.x) / 2, label_y), "middle", room, False)
    if free_below(flow, seed):
        # Nothing below the source in its own lane: leave by the bottom, turn once.
        points = [(src.cx, src.bottom), (src.cx, dst.cy), (dst.x, dst.cy)]
        label = ((src.cx + dst.x) / 2 + 14, dst.cy - 7)
        return Route(points, label, "middle", 2 * (dst.x - label[0]) - 8, pill=False)
    mid_x = (src.right + dst.x) / 2
    points = [(src.right, port_y), (mid_x, port_y), (mid_x, dst.cy), (dst.x, dst.cy)]
    segment = flow.get("labelSegment", 2)
    (ax, ay), (bx, by) = points[segment], points[segment + 1]
    return Route(points, ((ax + bx) / 2, (ay + by) / 2 + 3.5), "middle", 72, pill=True)


def right_port(flow: dict[str, Any], seed: dict[str, Any], boxes: dict[str, Box]) -> float:
    """Where a flow leaves its source's right side: spread out when several leave together."""
    nodes = {n["id"]: n for n in seed["nodes"]}
    src = boxes[flow["from"]]
    siblings = [
        f
        for f in seed["flows"]
        if f["from"] == flow["from"] and nodes[f["to"]]["stage"] != nodes[f["from"]]["stage"]
    ]
    lane_exits = [f for f in siblings if not free_below(f, seed)]
    if len(lane_exits) <= 1:
        dst = boxes[flow["to"]]
        return round((max(src.y, dst.y) + min(src.bottom, dst.bottom)) / 2)
    lane_exits.sort(key=lambda f: boxes[f["to"]].cy)
    index = lane_exits.index(flow)
    return round(src.y + src.h * (index + 1) / (len(lane_exits) + 1))


def free_below(flow: dict[str, Any], seed: dict[str, Any]) -> bool:
    """True when the source's lane is empty on the target's row, so the arrow can turn there."""
    nodes = {n["id"]: n for n in seed["nodes"]}
    s_node, d_node = nodes[flow["from"]], nodes[flow["to"]]
    return not any(
        n["stage"] == s_node["stage"] and n["row"] == d_node["row"] for n in seed["nodes"]
    )


def path_data(points: list[Point]) -> str:
    """An SVG path through the points with rounded corners."""
    parts = [f"M{points[0][0]:g},{points[0][1]:g}"]
    for i in range(1, len(points) - 1):
        (px, py), (x, y), (nx, ny) = points[i - 1], points[i], points[i + 1]
        r_in = min(CORNER, abs(x - px) + abs(y - py)) / max(abs(x - px) + abs(y - py), 1)
        r_out = min(CORNER, abs(nx - x) + abs(ny - y)) / max(abs(nx - x) + abs(ny - y), 1)
        before = (x - (x - px) * r_in, y - (y - py) * r_in)
        after = (x + (nx - x) * r_out, y + (ny - y) * r_out)
        parts.append(f"L{before[0]:g},{before[1]:g}Q{x:g},{y:g} {after[0]:g},{after[1]:g}")
    parts.append(f"L{points[-1][0]:g},{points[-1][1]:g}")
    return "".join(parts)


def text(x: float, y: float, cls: str, vi: str, en: str, fit: float | None = None) -> str:
    fit_attr = f' data-fit="{fit:g}"' if fit else ""
    return (
        f'<text x="{x:g}" y="{y:g}" class="{cls}"{fit_attr} data-en="{attr(en)}">'
        f"{escape(vi)}</text>"
    )


def render_lanes(seed: dict[str, Any], en: Translate) -> list[str]:
    out = ['<g class="lanes">']
    for index, (stage, left) in enumerate(zip(seed["stages"], lane_lefts(), strict=True)):
        width = LANE_WIDTHS[index]
        out.append(
            f'<g class="stage" data-stage="{index}">'
            f'<rect class="lane" x="{left:g}" y="{LANE_TOP}" width="{width}" '
            f'height="{LANE_BOTTOM - LANE_TOP}" rx="14"/>'
            f'<text x="{left + 14:g}" y="{LANE_TOP + 25}" class="stage-no">0{index + 1}</text>'
            + text(
                left + 34,
                LANE_TOP + 25,
                "stage-label",
                stage["label"],
                en(stage["label"]),
                width - 44,
            )
            + "</g>"
        )
    out.append("</g>")
    return out


def render_node(node: dict[str, Any], box: Box, en: Translate) -> str:
    kind = node["type"]
    inner = box.w - 16
    label_cls = "node-label mono" if CODE_LIKE.search(node["label"]) else "node-label"
    sub_cls = "node-sub mono" if CODE_LIKE.search(node["sublabel"]) else "node-sub"
    return "".join(
        [
            f'<g class="node t-{kind}" data-node="{attr(node["id"])}" data-type="{kind}">',
            f'<rect class="node-box" x="{box.x:g}" y="{box.y:g}" width="{box.w:g}" '
            f'height="{box.h:g}" rx="10"/>',
            f'<path class="node-foot" d="M{box.x:g},{box.bottom - 22:g}h{box.w:g}v12'
            f'a10,10 0 0 1 -10,10h{-(box.w - 20):g}a10,10 0 0 1 -10,-10z"/>',
            text(box.cx, box.y + 24, label_cls, node["label"], en(node["label"]), inner),
            text(box.cx, box.y + 40, sub_cls, node["sublabel"], en(node["sublabel"]), inner),
            text(box.cx, box.bottom - 7.5, "node-tag", node["tag"], en(node["tag"]), inner),
            "</g>",
        ]
    )


def render_flow(
    index: int, flow: dict[str, Any], seed: dict[str, Any], boxes: dict[str, Box], en: Translate
) -> str:
    variant = flow["variant"]
    path = route(flow, seed, boxes)
    x, y = path.label_at
    label = flow["label"]
    pill = ""
    if path.pill:
        pill = f'<rect class="pill" x="{x - 40:g}" y="{y - 13:g}" width="80" height="19" rx="9.5"/>'
    return (
        f'<g class="flow v-{variant}" data-flow="{index}" data-from="{attr(flow["from"])}" '
        f'data-to="{attr(flow["to"])}">'
        f'<path d="{path_data(path.points)}" marker-end="url(#arrow-{variant})"/>'
        + pill
        + f'<text x="{x:g}" y="{y:g}" class="flow-label" text-anchor="{path.label_anchor}" '
        f'data-fit="{path.label_room:g}" data-en="{attr(en(label))}">{escape(label)}</text></g>'
    )


def render_cards(seed: dict[str, Any], en: Translate) -> list[str]:
    width = (seed["meta"]["viewBox"][0] - 2 * MARGIN - 2 * CARD_GAP) / 3
    out = ['<g class="cards">']
    for index, card in enumerate(seed["cards"]):
        x = MARGIN + index * (width + CARD_GAP)
        items = "".join(
            f'<li data-en="{attr(en(item))}">{escape(item)}</li>' for item in card["items"]
        )
        out.append(
            f'<foreignObject x="{x:g}" y="{CARD_TOP}" width="{width:g}" height="{CARD_HEIGHT}">'
            f'<div xmlns="http://www.w3.org/1999/xhtml" class="card" data-card="{index}" '
            f'style="--dot:{DOT_COLOURS[card["dot"]]}">'
            f'<h2><span class="dot"></span><span data-en="{attr(en(card["title"]))}">'
            f"{escape(card['title'])}</span></h2><ul>{items}</ul></div></foreignObject>"
        )
    out.append("</g>")
    return out


def render_legend(en: Translate) -> str:
    items = "".join(
        f'<span class="key" style="--c:{TYPE_COLOURS[kind]}"><i></i>'
        f'<span data-en="{attr(en(name))}">{escape(name)}</span></span>'
        for kind, name in TYPE_NAMES.items()
    )
    return (
        '<foreignObject x="600" y="24" width="456" height="30">'
        f'<div xmlns="http://www.w3.org/1999/xhtml" class="legend">{items}</div></foreignObject>'
    )


def markers() -> str:
    defs = "".join(
        f'<marker id="arrow-{variant}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" '
        f'markerHeight="8" markerUnits="userSpaceOnUse" orient="auto">'
        f'<path d="M0,0.8 L9.5,5 L0,9.2 L2.2,5z" fill="{colour}"/></marker>'
        for variant, colour in FLOW_COLOURS.items()
    )
    return f"<defs>{defs}</defs>"


def render(seed: dict[str, Any], english: dict[str, str]) -> str:
    en = translator(english)
    boxes = node_boxes(seed)
    width, height = seed["meta"]["viewBox"]
    title = seed["meta"]["title"]
    svg = [
        f'<svg viewBox="0 0 {width} {height}" role="img" aria-labelledby="diagram-title">',
        markers(),
        f'<text id="diagram-title" x="{MARGIN}" y="44" class="title" '
        f'data-en="{attr(en(title))}">{escape(title)}</text>',
        text(MARGIN, 66, "subtitle", SUBTITLE, en(SUBTITLE)),
        render_legend(en),
        *render_lanes(seed, en),
        '<g class="flows">',
        *(render_flow(i, f, seed, boxes, en) for i, f in enumerate(seed["flows"])),
        "</g>",
        '<g class="nodes">',
        *(render_node(n, boxes[n["id"]], en) for n in seed["nodes"]),
        "</g>",
        *render_cards(seed, en),
        "</svg>",
    ]
    colours = "".join(f".t-{kind}{{--c:{c}}}" for kind, c in TYPE_COLOURS.items())
    flow_colours = "".join(f".v-{v}{{--f:{c}}}" for v, c in FLOW_COLOURS.items())
    return TEMPLATE.format(
        title_vi=escape(PAGE_TITLE),
        title_en=attr(en(PAGE_TITLE)),
        style=STYLE + colours + flow_colours,
        svg="\n".join(svg),
        script=SCRIPT,
    )


STYLE = """
:root{color-scheme:dark;--bg:#0b1120;--ink:#e8eef7;--muted:#94a3b8;--line:#1e293b}
*{box-sizing:border-box}
html,body{margin:0;background:var(--bg);color:var(--ink)}
body{font-family:Inter,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Liberation Sans",
"Noto Sans",sans-serif;-webkit-font-smoothing:antialiased}
main{max-width:1180px;margin:0 auto;padding:14px 20px 20px}
.bar{display:flex;align-items:center;justify-content:space-between;gap:12px;margin-bottom:8px}
.brand{font:600 12px/1 ui-monospace,"SFMono-Regular",Menlo,"DejaVu Sans Mono",monospace;
color:var(--muted);letter-spacing:.02em}
#lang-toggle{margin-left:auto;font:inherit;font-size:13px;font-weight:600;line-height:1;color:var(--ink);
background:#111a2e;border:1px solid #334155;
border-radius:999px;padding:8px 16px;cursor:pointer}
#lang-toggle:hover{border-color:#38bdf8}
#lang-toggle:focus-visible{outline:2px solid #38bdf8;outline-offset:2px}
figure{margin:0;overflow-x:auto;border-radius:18px;background:#0e1628;border:1px solid var(--line)}
svg{display:block;width:100%;height:auto;min-width:760px;font-family:inherit}
.title{font-size:22px;font-weight:700;fill:var(--ink);letter-spacing:-.01em}
.subtitle{font-size:12.5px;fill:var(--muted)}
.lane{fill:#111b30;stroke:#1c2942}
.stage-no{font:700 11px ui-monospace,Menlo,"DejaVu Sans Mono",monospace;fill:#475569}
.stage-label{font-size:12.5px;font-weight:600;fill:#cbd5e1}
.node-box{fill:color-mix(in srgb,var(--c) 9%,#0e1628);stroke-width:1.3;
stroke:color-mix(in srgb,var(--c) 62%,#0e1628)}
.node-foot{fill:color-mix(in srgb,var(--c) 16%,#0e1628)}
.node text{text-anchor:middle}
.node-label{font-size:13.5px;font-weight:650;fill:#f8fafc}
.node-label.mono{font-size:12.5px}
.node-sub{font-size:10.5px;fill:#9fb0c6}
.mono{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,"DejaVu Sans Mono",monospace}
.node-sub.mono{font-size:9.5px}
.node-tag{font-size:9.5px;font-weight:600;fill:color-mix(in srgb,var(--c) 80%,#ffffff);
letter-spacing:.02em}
.flow path{fill:none;stroke:var(--f);stroke-width:1.6;stroke-linecap:round;stroke-linejoin:round}
.v-emphasis path{stroke-width:2.4}
.v-dashed path{stroke-dasharray:5 4}
.flow-label{font-size:10.5px;font-weight:600;fill:color-mix(in srgb,var(--f) 75%,#ffffff)}
.v-default .flow-label{fill:#b6c2d3}
.pill{fill:#0e1628;stroke:color-mix(in srgb,var(--f) 55%,#0e1628)}
.legend{display:flex;justify-content:flex-end;gap:14px;font-size:11.5px;color:var(--muted);
padding-top:6px}
.key{display:inline-flex;align-items:center;gap:6px;white-space:nowrap}
.key i{width:10px;height:10px;border-radius:3px;background:color-mix(in srgb,var(--c) 25%,#0e1628);
border:1.5px solid var(--c)}
.card{height:100%;padding:14px 16px 12px;border-radius:14px;background:#111b30;
border:1px solid #1c2942;font-size:12.5px;line-height:1.45;color:#cbd5e1}
.card h2{display:flex;align-items:center;gap:8px;margin:0 0 8px;font-size:14px;color:var(--ink)}
.card .dot{width:9px;height:9px;border-radius:50%;background:var(--dot);
box-shadow:0 0 0 3px color-mix(in srgb,var(--dot) 22%,transparent)}
.card ul{margin:0;padding:0;list-style:none}
.card li{position:relative;padding-left:14px;margin:0 0 5px}
.card li::before{content:"";position:absolute;left:2px;top:.62em;width:5px;height:1.5px;
background:var(--dot)}
/* On a wide screen the whole diagram fits the window; on a narrow one it scrolls sideways. */
@media (min-width:761px){svg{max-height:calc(100vh - 80px)}}
@media (max-width:760px){main{padding:10px}.brand{display:none}}
"""

SCRIPT = """
(() => {
  const texts = [...document.querySelectorAll("[data-en]")];
  for (const el of texts) el.dataset.vi = el.textContent;
  const button = document.getElementById("lang-toggle");
  function fit() {
    for (const el of document.querySelectorAll("svg text[data-fit]")) {
      el.style.fontSize = "";
      const room = Number(el.dataset.fit), used = el.getComputedTextLength();
      if (used > room) {
        const size = parseFloat(getComputedStyle(el).fontSize);
        el.style.fontSize = (size * room / used).toFixed(2) + "px";
      }
    }
  }
  function show(lang) {
    for (const el of texts) el.textContent = el.dataset[lang];
    document.documentElement.lang = lang;
    button.setAttribute("aria-pressed", String(lang === "en"));
    fit();
  }
  const wanted = () => (location.hash === "#en" ? "en" : "vi");
  button.addEventListener("click", () => {
    const next = document.documentElement.lang === "en" ? "vi" : "en";
    history.replaceState(null, "", next === "en" ? "#en" : location.pathname + location.search);
    show(next);
  });
  addEventListener("hashchange", () => show(wanted()));
  show(wanted());
})();
"""

TEMPLATE = """<!doctype html>
<html lang="vi">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title data-en="{title_en}">{title_vi}</title>
<style>{style}</style>
</head>
<body>
<main>
<div class="bar">
<span class="brand">trinho · diagrams/memory.html</span>
<button id="lang-toggle" type="button" aria-pressed="false" data-en="Tiếng Việt">English</button>
</div>
<figure>
{svg}
</figure>
</main>
<script>{script}</script>
</body>
</html>
"""


def build() -> str:
    seed = json.loads(SEED.read_text(encoding="utf-8"))
    english = json.loads(ENGLISH.read_text(encoding="utf-8"))["en"]
    return render(seed, english)


if __name__ == "__main__":
    OUTPUT.write_text(build(), encoding="utf-8")
    sys.stdout.write(f"wrote {OUTPUT}\n")
