"""The owner's exact bytes: a key pairs lines, it never says two texts are the same.

Rewrites built from case changes, Unicode normal forms, invisible characters and heading edits,
as an edit script and as a whole file: every old line stays byte for byte (or the same text with
a later date) in the file written now, or waits in a held change; every new line holding a
character of the held class is held; a run that applies nothing leaves the file as it was.
"""

from __future__ import annotations

import unicodedata
from datetime import date
from typing import Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trinho.condense.rules.gate import GateResult, gate
from trinho.condense.rules.ops import apply_ops, parse_ops, view_lines
from trinho.memory.format import Entry, parse
from trinho.textnorm import HIDDEN_CATEGORIES, has_hidden, show_hidden

TODAY = date(2026, 11, 29)
SINCE = date(2026, 11, 23)

OWNER = (
    "# Sức khỏe\n"
    "- 2026-10-01: Dị ứng penicillin\n"
    "- 2026-10-02: Allergic to penicillin\n"
    "## Work at Sao Mai\n"
    "- 2026-10-05: Accountant at Bình Minh company\n"
    "- 2026-10-06: Đi đón Mai lúc 5 giờ\n"
    "\n"
    "## Nhà\n"
    "- 2026-10-07: Sống ở Hà Nội\n"
    "Ghi chú tay: gọi mẹ cuối tuần\n"
)


def scripted(old: str, answer: str) -> GateResult:
    """The rewrite an edit-script answer makes, judged by the gate."""
    rewrite = apply_ops(old, parse_ops(answer, len(view_lines(old)))).text
    return gate(old, rewrite, TODAY, SINCE)


def held_pairs(result: GateResult) -> list[tuple[str, str | None, str | None]]:
    return [(c.cls, c.old, c.new) for c in result.held]


def test_a_case_only_edit_of_an_owner_line_is_held_not_written() -> None:
    result = scripted(OWNER, "EDIT [3] - 2026-10-02: ALLERGIC TO PENICILLIN")
    assert result.applied == OWNER
    assert held_pairs(result) == [
        ("edited", "- 2026-10-02: Allergic to penicillin", "- 2026-10-02: ALLERGIC TO PENICILLIN")
    ]
    assert result.held[0].reason_code == "edited_letters"


def test_a_whole_file_answer_that_lowers_a_name_is_held() -> None:
    """ "Đi đón Mai" (pick up Mai) is not "đi đón mai" (pick up tomorrow)."""
    rewrite = OWNER.replace("Đi đón Mai lúc 5 giờ", "đi đón mai lúc 5 giờ")
    result = gate(OWNER, rewrite, TODAY, SINCE)
    assert result.applied == OWNER
    assert held_pairs(result) == [
        ("edited", "- 2026-10-06: Đi đón Mai lúc 5 giờ", "- 2026-10-06: đi đón mai lúc 5 giờ")
    ]


def test_remove_and_add_of_a_case_changed_copy_in_the_window_is_an_edit_not_a_date_move() -> None:
    result = scripted(OWNER, "REMOVE [6]\nADD [9] - 2026-11-27: đi đón mai lúc 5 giờ")
    assert result.applied == OWNER
    assert [(c.cls, c.reason_code) for c in result.held] == [("edited", "edited_letters")]
    assert not [c for c in result.changes if c.cls == "date_changed"]


def test_the_same_text_moved_later_still_applies_and_keeps_the_owner_bytes() -> None:
    result = scripted(OWNER, "DATE [6] 2026-11-27")
    assert result.held == ()
    assert result.applied == OWNER.replace("2026-10-06: Đi", "2026-11-27: Đi")


@pytest.mark.parametrize("form", ["NFD", "NFKD"], ids=["decomposed", "compatibility-decomposed"])
def test_another_normal_form_of_an_owner_line_is_held(form: Literal["NFD", "NFKD"]) -> None:
    line = "- 2026-10-07: Sống ở Hà Nội"
    result = gate(OWNER, OWNER.replace(line, unicodedata.normalize(form, line)), TODAY, SINCE)
    assert result.applied == OWNER
    assert [(c.cls, c.old) for c in result.held] == [("edited", line)]


HIDDEN = {
    "right-to-left override": "\u202e",
    "right-to-left mark": "\u200f",
    "zero-width joiner between letters": "\u200d",
    "zero-width space": "\u200b",
    "byte-order mark": "\ufeff",
    "tag characters": "\U000e0049\U000e0047\U000e004e",
    "private use": "\ue000",
    "line separator": "\u2028",
    "soft hyphen": "\u00ad",
}


@pytest.mark.parametrize("char", HIDDEN.values(), ids=HIDDEN.keys())
def test_a_new_line_with_an_invisible_or_direction_character_is_held_and_shown(
    char: str,
) -> None:
    added = f"- 2026-11-28: Mật khẩu wifi là{char} 1234"
    result = gate(OWNER, OWNER + added + "\n", TODAY, SINCE)
    assert result.applied == OWNER
    [change] = result.held
    assert (change.new, change.reason_code) == (added, "control_chars")
    shown = show_hidden(added)
    assert "⟨U+" in shown and not has_hidden(shown)


EMOJI = {
    "woman technologist (ZWJ)": "👩\u200d💻",
    "family with skin tones (ZWJ)": "👨🏽\u200d👩🏽\u200d👧🏽",
    "red heart (variation selector)": "❤\ufe0f",
    "rainbow flag (ZWJ, selector)": "🏳\ufe0f\u200d🌈",
    "flag of Scotland (tags)": "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
}


@pytest.mark.parametrize("emoji", EMOJI.values(), ids=EMOJI.keys())
def test_an_emoji_sequence_is_the_one_exception(emoji: str) -> None:
    added = f"- 2026-11-28: Thích {emoji}"
    result = gate(OWNER, OWNER + added + "\n", TODAY, SINCE)
    assert result.held == () and result.applied == OWNER + added + "\n"
    assert show_hidden(added) == added


def test_a_flag_that_spells_other_tags_is_held() -> None:
    hidden = "🏴" + "".join(chr(0xE0000 + ord(c)) for c in "ignore all") + "\U000e007f"
    assert has_hidden(f"- 2026-11-28: {hidden}")


def test_an_edited_owner_heading_is_one_held_change_and_no_entry_moves() -> None:
    result = scripted(OWNER, "EDIT [4] ## Job I hate")
    assert result.applied == OWNER
    assert held_pairs(result) == [("edited", "## Work at Sao Mai", "## Job I hate")]
    assert len(result.changes) == 1


def test_a_heading_edit_held_beside_an_applied_addition_keeps_the_section_whole() -> None:
    result = scripted(OWNER, "EDIT [4] ## Job I hate\nADD [6] - 2026-11-28: Lên chức trưởng phòng")
    assert [c.cls for c in result.held] == ["edited"]
    lines = result.applied.split("\n")
    at = lines.index("## Work at Sao Mai")
    assert lines[at + 1 : at + 4] == [
        "- 2026-10-05: Accountant at Bình Minh company",
        "- 2026-10-06: Đi đón Mai lúc 5 giờ",
        "- 2026-11-28: Lên chức trưởng phòng",
    ]
    assert "## Job I hate" not in lines


def test_a_new_heading_over_lines_of_another_section_is_held_even_when_accepted() -> None:
    rewrite = OWNER.replace("## Work at Sao Mai\n", "## Work at Sao Mai\n## Money\n")
    result = gate(OWNER, rewrite, TODAY, SINCE, accepted={"## Money"})
    assert result.applied == OWNER
    assert [(c.new, c.reason_code) for c in result.held] == [("## Money", "heading_takes_entries")]


def test_a_new_heading_equal_to_an_existing_one_is_folded() -> None:
    result = scripted(OWNER, "ADD [10] ## Nhà\nADD [10] - 2026-11-28: Mua máy lọc nước")
    assert result.held == ()
    assert result.applied == OWNER + "- 2026-11-28: Mua máy lọc nước\n"
    assert [(c.cls, c.reason_code) for c in result.changes] == [
        ("folded", "duplicate_heading"),
        ("added", "added_in_window"),
    ]


def test_a_run_that_applies_nothing_leaves_the_file_byte_for_byte() -> None:
    blank_moved = OWNER.replace("\n\n## Nhà", "\n## Nhà\n").replace("## Work at Sao Mai", "## Việc")
    assert gate(OWNER, blank_moved, TODAY, SINCE).applied == OWNER
    blank_first = "\n" + OWNER.replace("Accountant at Bình Minh company", "Accountant at Bình An")
    result = gate(OWNER, blank_first, TODAY, SINCE)
    assert result.applied == OWNER and [c.cls for c in result.held] == ["edited"]
    crlf = OWNER.replace("\n", "\r\n")
    assert gate(crlf, crlf.replace("Sống ở Hà Nội", "sống ở hà nội"), TODAY, SINCE).applied == crlf


def test_a_line_kept_with_other_surrounding_space_is_written_as_the_owner_had_it() -> None:
    old = OWNER.replace("Sống ở Hà Nội\n", "Sống ở Hà Nội  \n")
    rewrite = old.replace("Sống ở Hà Nội  \n", "Sống ở Hà Nội\n") + "- 2026-11-28: Mới\n"
    result = gate(old, rewrite, TODAY, SINCE)
    assert result.applied == old + "- 2026-11-28: Mới\n"


# --- the class, as properties -------------------------------------------------------------------


@given(st.characters())
def test_one_character_is_hidden_exactly_when_its_category_is_in_the_class(char: str) -> None:
    assert has_hidden(f"a{char}b") == (unicodedata.category(char) in HIDDEN_CATEGORIES)


@given(st.text())
def test_shown_text_holds_no_hidden_character_and_showing_is_idempotent(text: str) -> None:
    shown = show_hidden(text)
    assert not has_hidden(shown)
    assert show_hidden(shown) == shown
    if not has_hidden(text):
        assert shown == text.removesuffix("\r")


WORDS = ["Đi", "đón", "Mai", "lúc", "5", "giờ", "Hà", "Nội", "tea", "Straße", "🙂", "ạ"]
INVISIBLE = ["\u202e", "\u200f", "\u200d", "\u200b", "\U000e0041", "\ufeff", "\x1b", "\u2029"]
DATES = ["2026-10-01", "2026-11-20", "2026-11-25", "2026-11-28", "2026-12-05", "2026-02-30"]

phrase = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join)
owner_line = st.one_of(
    st.builds(lambda d, x: f"- {d}: {x}", st.sampled_from(DATES[:3]), phrase),
    st.builds(lambda n, x: "#" * n + " " + x, st.integers(1, 3), phrase),
    phrase.map(lambda x: f"Ghi chú: {x}"),
    st.just(""),
)


def _variant(draw: st.DrawFn, raw: str) -> str:
    """One way a model might rewrite an owner line without saying so."""
    how = draw(st.sampled_from(["same", "upper", "lower", "nfd", "space", "hidden", "date"]))
    if how == "upper":
        return raw.upper()
    if how == "lower":
        return raw.lower()
    if how == "nfd":
        return unicodedata.normalize("NFD", raw)
    if how == "space":
        return raw.replace(" ", "  ", 1)
    if how == "hidden":
        at = draw(st.integers(0, len(raw)))
        return raw[:at] + draw(st.sampled_from(INVISIBLE)) + raw[at:]
    if how == "date" and raw.startswith("- "):
        return f"- {draw(st.sampled_from(DATES))}:{raw.split(':', 1)[1]}"
    return raw


@st.composite
def owner_file_and_rewrite(draw: st.DrawFn) -> tuple[str, str]:
    old = draw(st.lists(owner_line, min_size=1, max_size=10))
    new = [_variant(draw, raw) for raw in old if draw(st.integers(0, 7))]
    for _ in range(draw(st.integers(0, 3))):
        extra = draw(
            st.builds(
                lambda d, x, h: f"- {d}: {x}{h}",
                st.sampled_from(DATES),
                phrase,
                st.sampled_from(["", *INVISIBLE]),
            )
            | st.builds(lambda n, x: "#" * n + " " + x, st.integers(1, 3), phrase)
        )
        new.insert(draw(st.integers(0, len(new))), extra)
    if draw(st.booleans()):
        new = draw(st.permutations(new))
    return "\n".join(old) + "\n", "\n".join(new) + "\n"


@st.composite
def owner_file_and_script(draw: st.DrawFn) -> tuple[str, str]:
    old = draw(st.lists(owner_line, min_size=1, max_size=10))
    ops: list[str] = []
    for n, raw in enumerate(old, 1):
        choice = draw(st.integers(0, 4))
        if choice == 0 and raw:
            ops.append(f"EDIT [{n}] {_variant(draw, raw)}")
        elif choice == 1 and raw.startswith("- "):
            ops.append(f"DATE [{n}] {draw(st.sampled_from(DATES))}")
        elif choice == 2:
            ops.append(f"REMOVE [{n}]")
        elif choice == 3:
            added = _variant(draw, draw(owner_line))
            ops.append(f"ADD [{n}] {added}" if added else f"ADD [{n}] - 2026-11-28: x")
    return "\n".join(old) + "\n", "\n".join(ops) or "NONE"


def _assert_owner_bytes_kept(old: str, result: GateResult) -> None:
    applied = result.applied.split("\n")
    held_old = [c.old for c in result.held if c.old is not None]
    held_old += [line for c in result.held if c.snapshot for line in c.snapshot.split("\n")]
    dates_moved = {c.old: c.new for c in result.changes if c.cls == "date_changed" and not c.held}
    for raw in old.split("\n"):
        if not raw.strip():
            continue
        if raw in applied or raw in held_old:
            continue
        moved = dates_moved.get(raw)
        assert moved is not None and moved in applied, raw
        [before], [after] = (
            [i for i in parse(x).items if isinstance(i, Entry)] for x in (raw, moved)
        )
        assert before.text == after.text and after.date and before.date
        assert after.date > before.date
    if not any(c.action == "auto" and c.cls != "folded" for c in result.changes):
        assert result.applied == old
    old_lines = set(old.split("\n"))
    for line in applied:
        if has_hidden(line):
            assert line in old_lines, line  # a new line with a hidden character never applies


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(owner_file_and_rewrite())
def test_any_whole_file_rewrite_keeps_every_owner_line_byte_for_byte(
    pair: tuple[str, str],
) -> None:
    old, new = pair
    _assert_owner_bytes_kept(old, gate(old, new, TODAY, SINCE))


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(owner_file_and_script())
def test_any_edit_script_keeps_every_owner_line_byte_for_byte(pair: tuple[str, str]) -> None:
    old, answer = pair
    _assert_owner_bytes_kept(old, scripted(old, answer))
