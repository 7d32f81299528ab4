"""Fitting an edit-script call into a small context (pure): which instructions, how much of
MEMORY.md, how much of the week.

A model served with a 2,048-token context cannot read the full instructions, a realistic
MEMORY.md, a chunk of notes and write its answer in one call. Three things make it fit:

- `compact_instructions`: the full prompt is swapped for its compact form (the same rules,
  tagged with the same ids, in about a third of the tokens) when it would take more than
  `FULL_SHARE` of the usable context.
- `split_room`: when the whole numbered MEMORY.md leaves no room for a chunk, what is left
  beside the instructions is shared between a chunk of the week and a window of MEMORY.md.
- `choose_window`: the window holds the headings and the entries that share words with the
  chunk, most shared first, then the rest in file order while they fit; `render_window` numbers
  them as the whole file is numbered (OpenClaw's marker lines never shown) and shows each run
  of lines left out as one "…".

Screening calls are sized the same way (`screen_batches`): as many new lines a call as fit.

The model may only name lines it was shown: `confine` sets aside every operation on another
line (`not_shown`), and a whole MEMORY.md written back from a part of it, so every line outside
the window is carried unchanged, byte for byte. The gate still judges the whole file against
the whole rewrite, as for any run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from trinho.condense.rules.chunks import MIN_ROOM_TOKENS
from trinho.condense.rules.ops import (
    CHATTER_SAMPLES,
    SAMPLE_CHARS,
    SCRIPT_SLACK_TOKENS,
    Add,
    Ignored,
    Op,
    Script,
    material_beside,
    op_text,
    shown_lines,
    view_lines,
)
from trinho.context.budget import estimate_tokens
from trinho.memory.format import Entry, Heading, parse_line
from trinho.search.tokenize import terms

FULL_SHARE = 1 / 3
"""The largest share of the usable context the full instructions may take; past it, the
compact ones are sent (the full ones, about 1,100 tokens, below about 3,600 of context)."""
MIN_WINDOW_TOKENS = 128
"""Below this much room for MEMORY.md, a window would show the model too little to edit."""
GAP = "…"
"""What stands for a run of lines left out of the window."""
GAP_TOKENS = estimate_tokens(GAP) + 1


def compact_instructions(full_tokens: int, usable: int) -> bool:
    """Whether to send the compact instructions: the full ones would take more than
    `FULL_SHARE` of the `usable` context (both in the same estimate's units)."""
    return full_tokens > FULL_SHARE * usable


def split_room(left: int, by_output: int) -> tuple[int, int]:
    """(material room, window budget) for calls that have `left` tokens beside their
    instructions, a chunk's material at most `by_output` (the output limit's share).

    The material takes half of what it could take with no MEMORY.md at all, never less than
    `MIN_ROOM_TOKENS` and never more than `by_output`; the window gets what the material and
    the edit script over it leave (`material_beside`'s reckoning: m + slack + 3m/4)."""
    room = min(by_output, max(MIN_ROOM_TOKENS, material_beside(left) // 2))
    return room, left - room - SCRIPT_SLACK_TOKENS - math.ceil(room * 3 / 4)


@dataclass(frozen=True)
class Window:
    """The lines of a MEMORY.md of `line_count` lines the model is shown (1-based)."""

    line_count: int
    shown: frozenset[int]

    @property
    def whole(self) -> bool:
        return len(self.shown) == self.line_count

    def holds(self, op: Op) -> bool:
        """Whether `op` names only lines shown: an ADD at the end or before line 1 names none."""
        if isinstance(op, Add):
            return op.after is None or op.after == 0 or op.after in self.shown
        return op.line in self.shown


def seen_lines(text: str) -> list[str]:
    """The lines of MEMORY.md `text` as the model may be shown them, numbered from 1 as
    `number_lines` numbers them: OpenClaw's marker lines are never among them."""
    lines = view_lines(text)
    return [lines[at - 1] for at in shown_lines(text)]


def whole_window(text: str) -> Window:
    count = len(seen_lines(text))
    return Window(count, frozenset(range(1, count + 1)))


def _line_cost(number: int, line: str) -> int:
    """What line `number` costs in the window, with its line break and a gap it may open."""
    shown = f"[{number}] {line}" if line else f"[{number}]"
    return estimate_tokens(shown) + 1 + GAP_TOKENS


def choose_window(text: str, material: str, budget: int) -> Window:
    """The lines of MEMORY.md `text` to show beside `material`, within `budget` tokens of
    `render_window`: headings first (where new entries go), then entries by the words they
    share with the material (most first), then every other non-blank line, in file order.
    The whole file when it fits."""
    lines = seen_lines(text)
    full = whole_window(text)
    if estimate_tokens(render_window(text, full)) <= budget:
        return full
    wanted = frozenset(terms(material))
    ranked: list[tuple[int, int, int]] = []  # (group, -shared words, line number)
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        item = parse_line(line, n)
        shared = len(wanted.intersection(terms(item.text))) if isinstance(item, Entry) else 0
        group = 0 if isinstance(item, Heading) else 1 if shared else 2
        ranked.append((group, -shared, n))
    ranked.sort()
    shown: set[int] = set()
    used = GAP_TOKENS
    for _, _, n in ranked:
        cost = _line_cost(n, lines[n - 1])
        if used + cost <= budget:
            shown.add(n)
            used += cost
    return Window(len(lines), frozenset(shown))


def render_window(text: str, window: Window) -> str:
    """The numbered lines of `window` (`[N] line`, numbered as `number_lines` numbers the
    whole file), each run of lines left out shown as one `GAP` line."""
    out: list[str] = []
    for n, line in enumerate(seen_lines(text), 1):
        if n in window.shown:
            out.append(f"[{n}] {line}" if line else f"[{n}]")
        elif not out or out[-1] != GAP:
            out.append(GAP)
    return "\n".join(out)


def confine(script: Script, window: Window) -> Script:
    """`script` with every operation on a line outside `window` set aside (`not_shown`), and
    a whole MEMORY.md written back from a part of it read as chatter: the lines the model was
    not shown stay as they are."""
    if window.whole:
        return script
    if script.whole_file is not None:
        lines = [line for line in script.whole_file.split("\n") if line.strip()]
        return replace(
            script,
            whole_file=None,
            chatter=script.chatter + len(lines),
            samples=tuple(x[:SAMPLE_CHARS] for x in (*script.samples, *lines))[:CHATTER_SAMPLES],
        )
    kept = tuple(op for op in script.ops if window.holds(op))
    unseen = tuple(
        Ignored(op.source, op_text(op), "not_shown") for op in script.ops if not window.holds(op)
    )
    return replace(script, ops=kept, ignored=(*script.ignored, *unseen))


def screen_batches(costs: Sequence[int], room: int, most: int) -> list[range]:
    """The screening calls for lines costing `costs` tokens each: consecutive batches of at
    most `most` lines, each within `room` tokens (a line larger than `room` alone)."""
    batches: list[range] = []
    start, used = 0, 0
    for i, cost in enumerate(costs):
        if i > start and (used + cost > room or i - start == most):
            batches.append(range(start, i))
            start, used = i, 0
        used += cost
    if start < len(costs):
        batches.append(range(start, len(costs)))
    return batches
