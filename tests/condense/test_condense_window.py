"""Fitting an edit-script call into a small context: the compact instructions state every rule
of the full ones, the room is shared between the week and a window of MEMORY.md, and a window
never lets the model change a line it was not shown."""

from __future__ import annotations

import re
from datetime import date
from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from trinho.condense.rules.chunks import MIN_ROOM_TOKENS
from trinho.condense.rules.ops import (
    Add,
    Edit,
    Op,
    Remove,
    Script,
    SetDate,
    apply_ops,
    parse_ops,
    script_tokens,
    view_lines,
)
from trinho.condense.rules.prompt import Prompt
from trinho.condense.rules.rewrite import screen_line_tokens, screen_overhead_tokens, screen_request
from trinho.condense.rules.window import (
    FULL_SHARE,
    GAP,
    GAP_TOKENS,
    Window,
    choose_window,
    compact_instructions,
    confine,
    render_window,
    screen_batches,
    split_room,
    whole_window,
)
from trinho.condense.store.prompts import SMALL_REWRITE, choose_rewrite_prompt, load_prompt
from trinho.context.budget import TokenEstimate, estimate_tokens
from trinho.i18n import t

TODAY, SINCE = date(2026, 11, 29), date(2026, 11, 23)
MEMORY = """\
# MEMORY

Viết tay: giữ nguyên.

## Gia đình
- 2026-03-02: Vợ tên Lan, làm giáo viên tiếng Anh
- 2026-05-10: Con gái tên Mai, học lớp ba, thích bơi
- 2026-08-15: Mẹ sống ở Huế

## Preferences
- 2026-04-18: Prefers green tea to coffee after lunch
- 2026-07-09: Reads on a Kindle; likes history books
- 2026-10-11: Plays badminton on Thursday evenings
"""


# --- the instructions ------------------------------------------------------------------------


def test_the_compact_instructions_state_every_rule_of_the_full_ones() -> None:
    full, compact = load_prompt("rewrite"), load_prompt(SMALL_REWRITE)
    assert len(full.rules) >= 15
    assert full.rules <= compact.rules, sorted(full.rules - compact.rules)
    assert compact.placeholders == full.placeholders
    for prompt in (full, compact):  # the tags are for the tests, not for the model
        assert "[[" not in prompt.text and "]]" not in prompt.text
        filled = prompt.fill(TODAY, SINCE, memory_budget=4000, memory_tokens=860)
        assert not re.search(r"\{[a-z_]+\}", filled)
    for keyword in ("ADD [N]", "EDIT [N]", "DATE [N]", "REMOVE [N]", "NONE", "Vietnamese"):
        assert keyword in compact.text


def test_the_compact_instructions_take_under_half_the_tokens_in_both_languages() -> None:
    for locale in ("en", "vi"):
        week = t(locale, "condense.prompt.week", since=SINCE, today=TODAY, part=1, of=3)
        frame = estimate_tokens(t(locale, "condense.prompt.memory") + "\n" + week)
        full = estimate_tokens(load_prompt("rewrite").text) + frame
        compact = estimate_tokens(load_prompt(SMALL_REWRITE).text) + frame
        assert compact * 2 < full


def test_the_compact_example_is_an_operation_this_module_reads() -> None:
    filled = load_prompt(SMALL_REWRITE).fill(TODAY, SINCE, memory_budget=1, memory_tokens=1)
    example = filled.split("Example: ", 1)[1].split("\n", 1)[0]
    script = parse_ops(example, 3)
    assert script.ops == (Add(3, f"- {TODAY.isoformat()}: Em gái tên là Lan", 1),)


@given(st.text(alphabet="ab [[]] x_yz\n", max_size=80))
def test_rule_tags_come_out_and_nothing_else_does(source: str) -> None:
    prompt = Prompt.tagged("p", "p.v1", source)
    assert " [[" not in prompt.text or "]]" not in prompt.text.split(" [[", 1)[1]
    untagged = source.replace(" [[", "").replace("]]", "")
    assert len(prompt.text) <= len(source)
    if " [[" not in source:
        assert prompt.text == source and prompt.rules == frozenset()
    assert all(rule in untagged for rule in prompt.rules)


def test_a_small_context_gets_the_compact_instructions_a_large_one_the_full() -> None:
    full = estimate_tokens(load_prompt("rewrite").text)
    assert compact_instructions(full, TokenEstimate().usable(2048))
    assert not compact_instructions(full, TokenEstimate().usable(8192))
    assert compact_instructions(full, int(full / FULL_SHARE) - 1)
    assert not compact_instructions(full, int(full / FULL_SHARE) + 1)
    usable = TokenEstimate().usable
    assert choose_rewrite_prompt("ops", usable(2048)).version == "rewrite_small.v1"
    assert choose_rewrite_prompt("ops", usable(128000)).version == "rewrite.v2"
    assert choose_rewrite_prompt("file", usable(2048)).version == "rewrite.v1"


# --- sharing the room ------------------------------------------------------------------------


@given(st.integers(0, 200_000), st.integers(MIN_ROOM_TOKENS, 100_000))
def test_the_week_and_the_window_share_the_room_and_never_overfill_it(
    left: int, by_output: int
) -> None:
    room, window = split_room(left, by_output)
    assert MIN_ROOM_TOKENS <= room <= by_output
    # the material, the edit script asked over it and the window fit in what is left
    assert room + script_tokens(room, room) + max(window, 0) <= left or window < 0


def test_at_2048_tokens_the_compact_instructions_leave_room_for_a_window_and_a_chunk() -> None:
    compact = estimate_tokens(load_prompt(SMALL_REWRITE).text) + 60
    room, window = split_room(TokenEstimate().usable(2048) - compact, 10_000)
    assert room >= MIN_ROOM_TOKENS and window >= 400


# --- the window ------------------------------------------------------------------------------


def test_a_file_that_fits_is_shown_whole() -> None:
    window = choose_window(MEMORY, "anything", 10_000)
    assert window.whole and window == whole_window(MEMORY)
    assert GAP not in render_window(MEMORY, window)


def test_the_window_holds_the_headings_and_the_entries_the_week_speaks_of() -> None:
    material = "- 08:10 [note] Mai được chọn vào đội bơi của trường\n- 09:00 [note] badminton moved"
    window = choose_window(MEMORY, material, 125)
    lines = view_lines(MEMORY)
    assert not window.whole
    headings = {n for n, line in enumerate(lines, 1) if line.startswith("#")}
    assert headings <= window.shown
    mai = lines.index("- 2026-05-10: Con gái tên Mai, học lớp ba, thích bơi") + 1
    badminton = lines.index("- 2026-10-11: Plays badminton on Thursday evenings") + 1
    assert {mai, badminton} <= window.shown
    tea = lines.index("- 2026-04-18: Prefers green tea to coffee after lunch") + 1
    assert tea not in window.shown  # an entry the week does not speak of waits for room
    assert estimate_tokens(render_window(MEMORY, window)) <= 125
    shown = render_window(MEMORY, window)
    assert f"[{mai}] - 2026-05-10: Con gái tên Mai" in shown  # numbered in the whole file
    assert "\n".join([GAP, GAP]) not in shown  # one gap line for each run left out


memories = st.lists(
    st.one_of(
        st.just(""),
        st.builds(lambda s: "## " + s, st.text(alphabet="abc Huế", min_size=1, max_size=12)),
        st.builds(
            lambda d, s: f"- 2026-{d:02d}-01: {s}",
            st.integers(1, 12),
            st.text(alphabet="abcdeđ ơ xyz", min_size=1, max_size=30),
        ),
        st.text(alphabet="hand typed ư", max_size=20),
    ),
    max_size=25,
).map(lambda lines: "".join(line + "\n" for line in lines))


@given(memories, st.text(alphabet="abcdeđ ơ xyz\n", max_size=60), st.integers(GAP_TOKENS, 400))
def test_a_window_fits_its_budget_or_is_the_whole_file(
    memory: str, material: str, budget: int
) -> None:
    window = choose_window(memory, material, budget)
    rendered = render_window(memory, window)
    assert window.whole or estimate_tokens(rendered) <= budget
    numbers = {int(n) for n in re.findall(r"^\[(\d+)\]", rendered, re.MULTILINE)}
    assert numbers == window.shown
    lines = view_lines(memory)
    for n in window.shown:
        assert (f"[{n}] {lines[n - 1]}" if lines[n - 1] else f"[{n}]") in rendered.split("\n")


def ops_over(count: int) -> st.SearchStrategy[list[Op]]:
    line = st.integers(1, max(count, 1) + 2)
    text = st.sampled_from(["- 2026-11-28: mới", "## Mới", "- 2026-11-29: Lan đổi việc"])
    return st.lists(
        st.one_of(
            st.builds(Add, st.one_of(st.none(), st.integers(0, count + 2)), text, st.just(1)),
            st.builds(Edit, line, text, st.just(1)),
            st.builds(SetDate, line, st.just("2026-11-29"), st.just(1)),
            st.builds(Remove, line, st.just("cũ"), st.just(1)),
        ),
        max_size=12,
    )


@given(st.data(), memories, st.booleans())
def test_lines_outside_the_window_are_carried_byte_for_byte(
    data: st.DataObject, memory: str, crlf: bool
) -> None:
    if crlf:
        memory = memory.replace("\n", "\r\n")
    count = len(view_lines(memory))
    shown = data.draw(st.frozensets(st.integers(1, max(count, 1)), max_size=count))
    window = Window(count, frozenset(n for n in shown if n <= count))
    ops = data.draw(ops_over(count))
    named: set[int] = set()
    unique: list[Op] = []
    for op in ops:  # one EDIT, DATE or REMOVE a line, numbers in the file: as parse_ops reads
        if isinstance(op, Add):
            if op.after is None or op.after <= count:
                unique.append(op)
        elif op.line <= count and op.line not in named:
            named.add(op.line)
            unique.append(op)
    confined = confine(Script(count, tuple(unique)), window)
    assert all(window.holds(op) for op in confined.ops)
    assert len(confined.ops) + len(confined.ignored) == len(unique)
    out = apply_ops(memory, confined).text.split("\n")
    raws = memory.split("\n")
    unseen = [raws[n - 1] for n in range(1, count + 1) if n not in window.shown]
    it = iter(out)
    assert all(any(line == raw for line in it) for raw in unseen)  # in order, byte for byte


def test_a_whole_file_written_back_from_a_window_is_not_a_rewrite() -> None:
    answer = MEMORY.replace("- 2026-08-15: Mẹ sống ở Huế\n", "")
    script = parse_ops(answer, len(view_lines(MEMORY)))
    assert script.whole_file is not None
    window = Window(len(view_lines(MEMORY)), frozenset({1, 5, 6}))
    confined = confine(script, window)
    assert confined.whole_file is None and confined.ops == () and confined.chatter > 0
    assert apply_ops(MEMORY, confined).text == MEMORY
    assert confine(script, whole_window(MEMORY)) == script


# --- screening calls -------------------------------------------------------------------------


@given(st.lists(st.integers(1, 300), max_size=120), st.integers(1, 2000), st.integers(1, 60))
def test_screening_batches_cover_every_line_once_each_within_its_room(
    costs: list[int], room: int, most: int
) -> None:
    batches = screen_batches(costs, room, most)
    assert [i for batch in batches for i in batch] == list(range(len(costs)))
    for batch in batches:
        assert 1 <= len(batch) <= most
        assert len(batch) == 1 or sum(costs[i] for i in batch) <= room
    for before, after in pairwise(batches):  # a batch ends when full
        total = sum(costs[i] for i in before) + costs[after.start]
        assert len(before) == most or total > room


def test_a_small_context_screens_in_as_many_calls_as_its_lines_need() -> None:
    prompt = load_prompt("screen")
    room = TokenEstimate().usable(2048) - screen_overhead_tokens(prompt, "vi")
    line = "- 2026-11-28: Hẹn ngân hàng thứ Ba 2026-12-01 bàn khoản vay mua nhà ở Long Biên"
    costs = [screen_line_tokens(n, line, None) for n in range(1, 51)]
    batches = screen_batches(costs, room, 50)
    assert len(batches) > 1
    for batch in batches:
        request = screen_request(prompt, [(line, None)] * len(batch), "vi")
        sent = sum(estimate_tokens(m.text) + 4 for m in request.messages)
        assert sent + request.max_tokens <= TokenEstimate().usable(2048)


MARKER = "<!-- openclaw-memory-promotion:memory:memory/2026-04-20.md:3:3 -->"


@given(st.sets(st.integers(min_value=1, max_value=14)), st.integers(min_value=40, max_value=400))
def test_a_window_never_shows_a_marker_and_numbers_lines_as_the_whole_view_does(
    tagged: set[int], budget: int
) -> None:
    """OpenClaw's marker lines are never in a window, and a window's numbers are the numbers
    the whole file's view gives (markers not counted), so `on_file_lines` maps both alike."""
    from trinho.condense.rules.ops import number_lines, on_file_lines, shown_lines

    lines = MEMORY.rstrip("\n").split("\n")
    marked: list[str] = []
    for n, line in enumerate(lines, 1):
        if n in tagged and line.startswith("- "):
            marked.append(MARKER)
        marked.append(line)
    text = "\n".join(marked) + "\n"
    whole = number_lines(text).split("\n")
    window = choose_window(text, "Mai học bơi", budget)
    shown = render_window(text, window)
    assert "openclaw-memory-promotion" not in shown
    assert all(line == GAP or line in whole for line in shown.split("\n"))
    script = confine(parse_ops("DEL [1]", len(shown_lines(text))), window)
    on_file = on_file_lines(script, shown_lines(text), len(view_lines(text)))
    assert "openclaw-memory-promotion" in apply_ops(text, on_file).text or MARKER not in text
