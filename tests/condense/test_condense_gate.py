"""The gate: one test per row of the docs/rules.md table, hostile rewrites, and the invariants."""

from __future__ import annotations

import unicodedata
from collections import Counter
from datetime import date

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from trinho.condense.rules.gate import (
    Change,
    GateResult,
    addition_verdict,
    date_verdict,
    edit_verdict,
    fold_verdict,
    gate,
    malformed_verdict,
    move_verdict,
    owner_line_verdict,
    removal_verdict,
    suspicious_verdict,
    unread_verdict,
)
from trinho.condense.rules.held import HeldApplied, apply_held
from trinho.condense.rules.match import loose_key
from trinho.condense.rules.reasons import Reason
from trinho.memory.format import Entry, Loose, parse, parse_entry_date
from trinho.textnorm import has_hidden, match_key

# --- strategies: MEMORY.md texts and rewrites of them ------------------------------------
TODAY = date(2026, 11, 29)
SINCE = date(2026, 11, 23)
WINDOW_DATES = [f"2026-11-{d:02d}" for d in range(23, 30)]
DATES = [
    *WINDOW_DATES,
    "2026-11-01",
    "2025-02-14",
    "2026-11-30",
    "2027-01-01",
    "2026-13-01",
    "2026-02-30",
    "2026-11-5",
    "0000-00-00",
]
WORDS = [
    "likes",
    "tea",
    "Tea",
    "cà",
    "phê",
    "sữa",
    "đá",
    "Hà",
    "Nội",
    "Đà",
    "Nẵng",
    unicodedata.normalize("NFD", "Nội"),
    "ĐI",
    "straße",
    "STRASSE",
    "🙂",
    "a",
    "b",
]
text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join)
entry = st.builds(lambda d, x: f"- {d}: {x}", st.sampled_from(DATES), text)
window_entry = st.builds(lambda d, x: f"- {d}: {x}", st.sampled_from(WINDOW_DATES), text)
heading = st.builds(lambda n, x: "#" * n + " " + x, st.integers(1, 3), text)
junk = st.one_of(
    st.sampled_from(
        [
            "Sure! Here is the updated MEMORY.md:",
            "I cannot help with that.",
            "```",
            "* 2026-11-25: starred bullet",
            "- 2026-11-25 missing colon",
            "-2026-11-25: no space",
            "Ghi chú viết tay: nhớ mua quà",
            "   ",
            "",
        ]
    ),
    st.text(
        alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\n"),
        max_size=12,
    ),
)
line = st.one_of(entry, entry, entry, heading, junk)
lines = st.lists(line, max_size=14)


@st.composite
def rewrite_of(draw: st.DrawFn, old: list[str]) -> list[str]:
    """A rewrite made from `old` by dropping, reordering, re-dating, rewording and adding."""
    new: list[str] = []
    for raw in old:
        choice = draw(st.integers(0, 9))
        if choice == 0:
            continue
        if choice == 1 and raw.startswith("- "):
            new.append(f"- {draw(st.sampled_from(DATES))}:{raw.split(':', 1)[-1]}")
        elif choice == 2 and raw.startswith("- "):
            new.append(raw + " " + draw(st.sampled_from(WORDS)))
        elif choice == 3:
            new.append(raw.upper())
        else:
            new.append(raw)
    if draw(st.booleans()):
        new = draw(st.permutations(new))
    for extra in draw(st.lists(line, max_size=4)):
        new.insert(draw(st.integers(0, len(new))), extra)
    return new


@st.composite
def old_new(draw: st.DrawFn) -> tuple[str, str]:
    old = draw(lines)
    new = draw(st.one_of(lines, rewrite_of(old), rewrite_of(old)))
    ending = draw(st.sampled_from(["", "\n"]))
    return "\n".join(old) + ending, "\n".join(new) + draw(st.sampled_from(["", "\n"]))


def run(old: str, new: str) -> GateResult:
    return gate(old, new, TODAY, SINCE)


def only(result: GateResult) -> Change:
    assert len(result.changes) == 1, result.changes
    return result.changes[0]


OLD = "# Memory\n- 2026-11-01: Likes green tea\n- 2026-11-02: Lives in Hà Nội\n"


# --- one test per row of the gate table ---------------------------------------------------


def test_row_added_entry_inside_window_applies_by_itself() -> None:
    new = OLD + "- 2026-11-28: Bắt đầu học piano\n"
    result = run(OLD, new)
    assert result.applied == new
    change = only(result)
    assert (change.cls, change.action, change.old) == ("added", "auto", None)
    assert change.new == "- 2026-11-28: Bắt đầu học piano"


def test_row_an_addition_repeating_an_old_entry_folds_whatever_its_date() -> None:
    new = OLD + "- 2026-11-28: Likes green tea\n- 2019-05-01: Lives in Hà Nội\n"
    result = run(OLD, new)
    assert result.applied == OLD
    assert [(c.cls, c.action, c.old, c.reason_code) for c in result.changes] == [
        ("folded", "auto", None, "duplicate_of_entry")
    ] * 2
    kept = [dict(c.reason_params)["kept"] for c in result.changes]
    assert kept == ["- 2026-11-01: Likes green tea", "- 2026-11-02: Lives in Hà Nội"]
    assert [c.new for c in result.changes] == new.splitlines()[-2:]


def test_row_a_line_added_twice_is_written_once_and_the_repeat_folds() -> None:
    new = OLD + "- 2026-11-28: Bắt đầu học piano\n- 2026-11-27: Bắt đầu học piano\n"
    result = run(OLD, new)
    assert result.applied == OLD + "- 2026-11-28: Bắt đầu học piano\n"
    assert [(c.cls, c.action, c.reason_code) for c in result.changes] == [
        ("added", "auto", "added_in_window"),
        ("folded", "auto", "duplicate_addition"),
    ]
    other = run(OLD, OLD + "- 2026-11-28: Bắt đầu học piano\n- 2026-11-27: bắt đầu  học PIANO\n")
    assert [(c.cls, c.action, c.reason_code) for c in other.changes] == [
        ("added", "auto", "added_in_window"),
        ("added", "held", "edited_letters"),
    ]
    assert dict(result.changes[1].reason_params) == {"kept": "- 2026-11-28: Bắt đầu học piano"}


def test_row_the_first_of_a_repeated_addition_may_be_held_the_repeat_still_folds() -> None:
    new = OLD + "- 2026-12-25: Tiệc Giáng sinh\n- 2026-11-28: Tiệc Giáng sinh\n"
    result = run(OLD, new)
    assert result.applied == OLD
    assert [(c.cls, c.action) for c in result.changes] == [
        ("strange_date", "held"),
        ("folded", "auto"),
    ]
    assert [c.new for c in result.held] == ["- 2026-12-25: Tiệc Giáng sinh"]


def test_duplicates_typed_by_hand_stay_as_they_are() -> None:
    old = "# Memory\n- 2026-11-01: tea\n- 2026-11-01: Tea\n- 2026-11-05: tea\n"
    assert run(old, old) == GateResult(old, ())
    new = old + "- 2026-11-28: tea\n"
    result = run(old, new)
    assert result.applied == old
    assert [(c.cls, c.reason_code) for c in result.changes] == [("folded", "duplicate_of_entry")]
    other_letters = run(old, old + "- 2026-11-28: TEA\n")  # the same key is not the same text
    assert other_letters.applied == old
    assert [(c.cls, c.action, c.reason_code) for c in other_letters.changes] == [
        ("added", "held", "edited_letters")
    ]


def test_row_same_text_date_moved_later_inside_window_applies_by_itself() -> None:
    new = "# Memory\n- 2026-11-27: Likes green tea\n- 2026-11-02: Lives in Hà Nội\n"
    result = run(OLD, new)
    assert result.applied == new
    change = only(result)
    assert (change.cls, change.action) == ("date_changed", "auto")
    assert change.old == "- 2026-11-01: Likes green tea"
    assert change.new == "- 2026-11-27: Likes green tea"


def test_row_order_or_section_changed_and_a_heading_moving_with_its_section_apply() -> None:
    old = "# Food\n- 2026-11-01: Likes green tea\n# Home\n- 2026-11-02: Lives in Hà Nội\n"
    new = "# Home\n- 2026-11-02: Lives in Hà Nội\n# Food\n- 2026-11-01: Likes green tea\n"
    result = run(old, new)
    assert result.applied == new
    assert result.held == ()
    assert {c.cls for c in result.changes} == {"moved"}
    new = "# Food\n# Home\n- 2026-11-02: Lives in Hà Nội\n- 2026-11-01: Likes green tea\n"
    result = run(old, new)
    assert result.applied == new and result.held == ()
    assert {c.cls for c in result.changes} == {"moved"}


def test_row_new_heading_is_held_unless_screening_accepted_it() -> None:
    new = OLD + "## Home\n- 2026-11-28: Mua nhà ở Huế\n"
    result = run(OLD, new)
    assert [(c.cls, c.action, c.reason_code, c.new) for c in result.held] == [
        ("added", "held", "heading_unscreened", "## Home")
    ]
    assert "## Home" not in result.applied.split("\n")
    accepted = gate(OLD, new, TODAY, SINCE, accepted={"## Home"})
    assert accepted.held == () and accepted.applied == new
    assert [c.reason_code for c in accepted.changes if c.cls == "added"] == [
        "heading_accepted",
        "added_in_window",
    ]


def test_row_entry_removed_is_held_and_the_old_line_stays() -> None:
    new = "# Memory\n- 2026-11-02: Lives in Hà Nội\n"
    result = run(OLD + "- 2026-11-03: Has a cat\n", new + "- 2026-11-03: Has a cat\n")
    assert result.applied == OLD + "- 2026-11-03: Has a cat\n"
    change = only(result)
    assert (change.cls, change.action) == ("removed", "held")
    assert (change.old, change.new) == ("- 2026-11-01: Likes green tea", None)


def test_row_entry_edited_is_held_as_one_change_and_neither_side_applies() -> None:
    new = "# Memory\n- 2026-11-01: Likes green tea\n- 2026-11-28: Lives in Đà Nẵng\n"
    result = run(OLD, new)
    assert result.applied == OLD
    change = only(result)
    assert (change.cls, change.action) == ("edited", "held")
    assert change.old == "- 2026-11-02: Lives in Hà Nội"
    assert change.new == "- 2026-11-28: Lives in Đà Nẵng"
    assert change.similarity is not None and change.similarity >= 0.6


@pytest.mark.parametrize(
    ("new_line", "why"),
    [
        ("- 2026-02-30: Likes green tea", "not a calendar date"),
        ("- 2026-12-01: Likes green tea", "in the future"),
        ("- 2026-10-31: Likes green tea", "moved earlier"),
        ("- 2026-11-10: Likes green tea", "outside the window"),
    ],
)
def test_row_strange_date_on_an_existing_entry_is_held(new_line: str, why: str) -> None:
    new = f"# Memory\n{new_line}\n- 2026-11-02: Lives in Hà Nội\n"
    result = run(OLD, new)
    assert result.applied == OLD
    change = only(result)
    assert (change.cls, change.action) == ("strange_date", "held")
    assert (change.old, change.new) == ("- 2026-11-01: Likes green tea", new_line)
    assert why in change.reason


@pytest.mark.parametrize(
    ("new_line", "why"),
    [
        ("- 2026-11-31: Đi Huế", "not a calendar date"),
        ("- 2026-11-30: Đi Huế", "in the future"),
        ("- 2026-11-22: Đi Huế", "outside the window"),
        ("- 2019-05-01: Đi Huế", "outside the window"),
    ],
)
def test_row_strange_date_on_an_addition_is_held(new_line: str, why: str) -> None:
    result = run(OLD, OLD + new_line + "\n")
    assert result.applied == OLD
    change = only(result)
    assert (change.cls, change.action, change.old, change.new) == (
        "strange_date",
        "held",
        None,
        new_line,
    )
    assert why in change.reason
    assert change.after == "- 2026-11-02: Lives in Hà Nội"


def test_row_malformed_line_in_the_rewrite_is_held() -> None:
    result = run(OLD, OLD + "* 2026-11-28 forgot the format\n")
    assert result.applied == OLD
    change = only(result)
    assert (change.cls, change.action, change.new) == (
        "malformed",
        "held",
        "* 2026-11-28 forgot the format",
    )


def test_window_edges_are_inclusive() -> None:
    new = OLD + "- 2026-11-23: first day\n- 2026-11-29: run day\n"
    result = run(OLD, new)
    assert result.applied == new
    assert [c.cls for c in result.changes] == ["added", "added"]


# --- loose lines, duplicates, Unicode -----------------------------------------------------


def test_a_hand_written_line_the_rewrite_omits_is_held_and_stays_in_place() -> None:
    old = "# Memory\nGhi chú tay: đừng xoá dòng này\n- 2026-11-01: Likes green tea\n"
    new = "# Memory\n- 2026-11-01: Likes green tea\n"
    result = run(old, new)
    assert result.applied == old
    change = only(result)
    assert (change.cls, change.action, change.old) == (
        "removed",
        "held",
        "Ghi chú tay: đừng xoá dòng này",
    )


def test_a_hand_written_line_the_rewrite_retypes_is_not_rewritten_silently() -> None:
    old = "Ghi chú tay: Mẹ thích hoa sen\n- 2026-11-01: Likes green tea\n"
    new = "ghi chú tay: mẹ thích hoa sen\n- 2026-11-01: Likes green tea\n"
    result = run(old, new)
    assert result.applied == old
    assert sorted((c.cls, c.action) for c in result.changes) == [
        ("malformed", "held"),
        ("removed", "held"),
    ]


def test_duplicates_count_as_a_multiset() -> None:
    old = "- 2026-11-01: tea\n- 2026-11-01: tea\n- 2026-11-02: cat\n"
    new = "- 2026-11-01: tea\n- 2026-11-02: cat\n"
    result = run(old, new)
    assert result.applied.count("- 2026-11-01: tea") == 2
    assert [(c.cls, c.action) for c in result.held] == [("removed", "held")]


def test_nfd_and_case_differences_pair_the_entry_and_are_an_edit() -> None:
    rest = "- 2026-11-02: Thích trà\n- 2026-11-03: Nuôi mèo\n"
    old = "- 2026-11-01: Sống ở Hà Nội\n"
    for new in [
        unicodedata.normalize("NFD", "- 2026-11-01: SỐNG Ở   HÀ NỘI\n"),
        unicodedata.normalize("NFD", old),
        "- 2026-11-01: Sống ở  Hà Nội\n",
    ]:
        result = run(old + rest, new + rest)
        assert result.applied == old + rest
        assert [(c.cls, c.action, c.reason_code, c.old) for c in result.changes] == [
            ("edited", "held", "edited_letters", old.strip())
        ]
    assert run(old, "- 2026-11-01:   Sống ở Hà Nội  \n") == GateResult(old, ())


def test_an_unchanged_file_gives_no_changes() -> None:
    assert run(OLD, OLD) == GateResult(OLD, ())


# --- hostile rewrites ---------------------------------------------------------------------

WEEK_OLD = "\n".join(
    [
        "# Trí nhớ",
        "- 2026-10-01: Chủ nhân tên Lan, sống ở Đà Nẵng",
        "- 2026-10-02: Thích cà phê sữa đá, không đường",
        "- 2026-10-03: Con gái tên Mai, học lớp 3",
        "- 2026-10-04: Dị ứng tôm",
        "- 2026-10-05: Works at a logistics company",
        "- 2026-10-06: Runs every Sunday morning",
        "Viết tay: sinh nhật mẹ 12/3",
        "",
    ]
)


def test_hostile_lines_dropped_are_held_one_by_one() -> None:
    new = WEEK_OLD.replace("- 2026-10-04: Dị ứng tôm\n", "").replace(
        "- 2026-10-06: Runs every Sunday morning\n", ""
    )
    result = run(WEEK_OLD, new)
    assert result.applied == WEEK_OLD
    assert sorted(c.old or "" for c in result.held) == [
        "- 2026-10-04: Dị ứng tôm",
        "- 2026-10-06: Runs every Sunday morning",
    ]


def test_hostile_invented_and_future_dates_are_held() -> None:
    new = (
        WEEK_OLD.replace("2026-10-04: Dị ứng tôm", "2026-12-25: Dị ứng tôm")
        + "- 2027-01-01: Sẽ chuyển ra Hà Nội\n- 2024-06-01: Found an old memory\n"
    )
    result = run(WEEK_OLD, new)
    assert result.applied == WEEK_OLD
    assert [(c.cls, c.action) for c in result.changes] == [("strange_date", "held")] * 3


def test_hostile_reworded_lines_are_held_as_edits() -> None:
    new = WEEK_OLD.replace("Thích cà phê sữa đá, không đường", "Thích cà phê đen đá").replace(
        "Runs every Sunday morning", "Runs every Saturday morning"
    )
    result = run(WEEK_OLD, new)
    assert result.applied == WEEK_OLD
    assert [c.cls for c in result.changes] == ["edited", "edited"]


def test_hostile_chatter_around_the_list_never_reaches_the_file() -> None:
    new = "Sure! Here is the updated MEMORY.md:\n```markdown\n" + WEEK_OLD + "```\nHope it helps!\n"
    result = run(WEEK_OLD, new)
    assert "Sure!" not in result.applied and "```" not in result.applied
    assert "Hope" not in result.applied
    assert {(c.cls, c.action) for c in result.changes} == {("malformed", "held")}
    assert len(result.changes) == 4


@pytest.mark.parametrize(
    "answer",
    ["", "\n", "I'm sorry, but I can't help with rewriting personal information.", "Xin lỗi."],
)
def test_hostile_empty_answer_or_refusal_is_held_whole_as_one_suspicious_change(
    answer: str,
) -> None:
    result = run(WEEK_OLD, answer)
    assert result.applied == WEEK_OLD
    change = only(result)
    assert (change.cls, change.action) == ("suspicious", "held")
    assert (change.snapshot, change.rewrite) == (WEEK_OLD, answer)
    assert "7 of 7 lines" in change.reason  # 6 entries and 1 hand-written line


def test_removing_exactly_half_is_not_suspicious_but_more_is() -> None:
    old = "".join(f"- 2026-10-0{i}: fact number {i}\n" for i in range(1, 5))
    keep_two = "".join(old.splitlines(keepends=True)[:2])
    keep_one = old.splitlines(keepends=True)[0]
    assert [c.cls for c in run(old, keep_two).changes] == ["removed", "removed"]
    assert [c.cls for c in run(old, keep_one).changes] == ["suspicious"]


# --- invariants (docs/rules.md, the gate) -------------------------------------------------


def _entry_keys(text: str) -> Counter[str]:
    """The entries' texts, exactly: the owner's bytes, not their match keys."""
    return Counter(i.text for i in parse(text).items if isinstance(i, Entry))


def _loose_keys(text: str) -> Counter[str]:
    return Counter(
        match_key(i.raw) for i in parse(text).items if isinstance(i, Loose) and not i.blank
    )


def _nonblank(text: str) -> Counter[str]:
    return Counter(line for line in text.split("\n") if line.strip())


def _folded(result: GateResult) -> Counter[str]:
    """The rewrite lines folded away as repeats: never written."""
    return Counter(c.new for c in result.changes if c.cls == "folded" and c.new is not None)


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(old_new())
def test_every_old_entry_and_loose_line_is_applied_or_held(pair: tuple[str, str]) -> None:
    old, new = pair
    result = run(old, new)
    held_old = "\n".join(c.old for c in result.held if c.old is not None)
    if any(c.cls == "suspicious" for c in result.changes):
        assert result.applied == old
        return
    assert _entry_keys(old) <= _entry_keys(result.applied) + _entry_keys(held_old)
    assert _loose_keys(old) <= _loose_keys(result.applied) + _loose_keys(held_old)
    for change in result.held:
        assert change.old is None or change.old in result.applied.split("\n")


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(lines, st.lists(window_entry, min_size=1, max_size=5), st.data())
def test_only_additions_inside_the_window_apply_whole(
    old_lines: list[str], added: list[str], data: st.DataObject
) -> None:
    texts = {e.key: e.text for e in _entries("\n".join([*old_lines, *added]))}
    assume(all(texts[e.key] == e.text for e in _entries("\n".join([*old_lines, *added]))))
    new_lines = list(old_lines)  # (an addition keyed like a line of other letters is held)
    for line in added:
        new_lines.insert(data.draw(st.integers(0, len(new_lines))), line)
    old, new = "\n".join(old_lines) + "\n", "\n".join(new_lines) + "\n"
    result = run(old, new)
    assert result.held == ()
    if not _folded(result):
        assert result.applied == new
    assert _nonblank(result.applied) == _nonblank(new) - _folded(result)


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(old_new())
def test_applying_then_approving_every_held_change_gives_the_rewrite(
    pair: tuple[str, str],
) -> None:
    old, new = pair
    result = run(old, new)
    text = result.applied
    for change in result.held:
        outcome = apply_held(text, change)
        assert isinstance(outcome, HeldApplied), outcome
        text = outcome.text
    assert _nonblank(text) == _nonblank(new) - _folded(result)


def test_gate_takes_the_window_it_is_given() -> None:
    new = OLD + "- 2026-11-10: a week earlier\n"
    assert run(OLD, new).held
    assert gate(OLD, new, date(2026, 11, 15), date(2026, 11, 9)).held == ()


@pytest.mark.parametrize("answer", ["", "I'm sorry, I can't help with that."])
def test_a_refusal_over_a_prose_memory_md_is_one_suspicious_change(answer: str) -> None:
    prose = "# About me\n" + "".join(f"Paragraph {n} about the owner.\n" for n in range(30))
    result = run(prose, answer)
    assert result.applied == prose
    assert [c.cls for c in result.changes] == ["suspicious"]


def test_long_entries_alike_at_the_start_are_one_held_edit() -> None:
    """Similarity is judged on the first EDIT_KEY_CHARS characters (bounded cost); an entry
    whose long text changes only further on is an edit, held, never a silent replacement."""
    head = "Ghi chép dài về dự án Lotus " * 12
    old = f"- 2026-11-20: {head}giai đoạn một\n- 2026-11-21: keep me\n"
    new = f"- 2026-11-24: {head}giai đoạn hai\n- 2026-11-21: keep me\n"
    result = run(old, new)
    assert [(c.cls, c.action) for c in result.changes] == [("edited", "held")]
    assert result.applied == old


# --- the verdict functions agree with the table -------------------------------------------

AUTO_CLASSES = {"added", "folded", "date_changed", "moved"}
day_texts = st.one_of(
    st.dates(date(2026, 10, 1), date(2027, 1, 31)).map(date.isoformat), st.sampled_from(DATES)
)


def _dated(day_text: str) -> Entry:
    return Entry(day_text, "tea", f"- {day_text}: tea", 0)


def _in_window(day_text: str) -> bool:
    day = parse_entry_date(day_text)
    return day is not None and SINCE <= day <= TODAY


@given(day_texts)
def test_addition_verdict_applies_only_a_date_inside_the_window(day_text: str) -> None:
    verdict = addition_verdict(_dated(day_text), TODAY, SINCE)
    inside = _in_window(day_text)
    assert (verdict.cls, verdict.action) == (
        ("added", "auto") if inside else ("strange_date", "held")
    )


@given(day_texts, day_texts)
def test_date_verdict_applies_only_a_date_moved_later_inside_the_window(
    before: str, after: str
) -> None:
    verdict = date_verdict(_dated(before), _dated(after), TODAY, SINCE)
    old, new = parse_entry_date(before), parse_entry_date(after)
    later = old is not None and new is not None and old <= new and _in_window(after)
    assert (verdict.cls, verdict.action) == (
        ("date_changed", "auto") if later else ("strange_date", "held")
    )


@given(st.integers(0, 40), st.integers(0, 40))
def test_suspicious_verdict_holds_a_rewrite_losing_more_than_half(lost: int, kept: int) -> None:
    verdict = suspicious_verdict(lost, lost + kept)
    if lost > kept:
        assert verdict is not None and (verdict.cls, verdict.action) == ("suspicious", "held")
    else:
        assert verdict is None


def test_the_other_rows_hold_or_apply_whatever_the_line() -> None:
    entry, line = _dated("2026-11-25"), Loose("Viết tay", 0)
    assert [(v.cls, v.action) for v in (removal_verdict(entry), owner_line_verdict(line))] == [
        ("removed", "held")
    ] * 2
    assert (edit_verdict(0.6).cls, edit_verdict(1.0).action) == ("edited", "held")
    assert (malformed_verdict().cls, malformed_verdict().action) == ("malformed", "held")
    for code in ("order_changed", "section_changed"):
        assert move_verdict(code)[:2] == ("moved", "auto")
    for in_old_file in (True, False):
        assert fold_verdict("- 2026-11-01: tea", in_old_file=in_old_file)[:2] == ("folded", "auto")


def _entries(text: str) -> list[Entry]:
    return [item for item in parse(text).items if isinstance(item, Entry)]


def _hand_keys(text: str) -> Counter[str]:
    return Counter(
        loose_key(i.raw) for i in parse(text).items if isinstance(i, Loose) and not i.blank
    )


def _lost(old: str, new: str) -> tuple[Counter[str], Counter[str]]:
    """What the rewrite loses, per the table: entry texts, and hand-written lines."""
    return _entry_keys(old) - _entry_keys(new), _hand_keys(old) - _hand_keys(new)


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(old_new())
def test_a_random_rewrite_holds_every_loss_and_is_suspicious_past_half(
    pair: tuple[str, str],
) -> None:
    """Checked from the two texts alone, as the table counts: what is lost is held."""
    old, new = pair
    result = run(old, new)
    lost_entries, lost_hand = _lost(old, new)
    lost = lost_entries.total() + lost_hand.total()
    if 2 * lost > len(_entries(old)) + _hand_keys(old).total():
        assert [(c.cls, c.action) for c in result.changes] == [("suspicious", "held")]
        assert result.applied == old
        return
    assert all(c.cls in AUTO_CLASSES for c in result.changes if c.action == "auto")
    assert all(c.held for c in result.changes if c.cls not in AUTO_CLASSES)
    held_lines = [c.old for c in result.held if c.old is not None]
    assert set(held_lines) <= set(result.applied.split("\n"))  # held old lines stay
    held_old = "\n".join(held_lines)
    # the invariant: every old entry and hand-written line is written now or in a held change
    assert _entry_keys(old) <= _entry_keys(result.applied) + _entry_keys(held_old)
    assert _hand_keys(old) <= _hand_keys(result.applied) + _hand_keys(held_old)
    gone = [parse(c.old or "").items[0] for c in result.held if c.cls in ("removed", "edited")]
    assert Counter(i.text for i in gone if isinstance(i, Entry)) == lost_entries
    assert Counter(loose_key(i.raw) for i in gone if isinstance(i, Loose)) == lost_hand


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(old_new())
def test_a_random_rewrite_applies_only_window_dates_and_never_a_malformed_line(
    pair: tuple[str, str],
) -> None:
    old, new = pair
    result = run(old, new)
    if any(c.cls == "suspicious" for c in result.changes):
        return
    applied = set(result.applied.split("\n"))
    old_keys = set(_entry_keys(old))
    for entry in _entries(new):
        if entry.text not in old_keys and entry.raw in applied:
            assert _in_window(entry.date_text), entry  # an addition dated outside is held
    for change in result.changes:
        if change.cls == "date_changed":
            (before,), (after,) = _entries(change.old or ""), _entries(change.new or "")
            assert before.key == after.key and _in_window(after.date_text)
            assert before.date is not None and after.date is not None and before.date < after.date
    old_hand = _hand_keys(old)
    held_new = {c.new for c in result.held if c.cls == "malformed"}
    for item in parse(new).items:
        if isinstance(item, Loose) and not item.blank and loose_key(item.raw) not in old_hand:
            assert item.raw not in applied and item.raw in held_new


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(old_new())
def test_a_random_rewrite_never_writes_an_entry_twice_unless_the_old_file_had_it_twice(
    pair: tuple[str, str],
) -> None:
    old, new = pair
    result = run(old, new)
    before, after = _entry_keys(old), _entry_keys(result.applied)
    for key, count in after.items():
        assert count <= max(1, before[key]), key


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(old_new())
def test_a_folded_change_repeats_a_kept_line_and_never_loses_an_old_one(
    pair: tuple[str, str],
) -> None:
    old, new = pair
    result = run(old, new)
    applied = result.applied.split("\n")
    held_new = [c.new for c in result.held]
    old_entries = {e.text: e.raw for e in reversed(_entries(old))}
    for change in result.changes:
        if change.cls != "folded":
            continue
        assert change.old is None and change.new is not None and change.action == "auto"
        kept = str(dict(change.reason_params)["kept"])
        if change.reason_code == "duplicate_heading":
            assert loose_key(kept) == loose_key(change.new)
            continue
        [repeat], [original] = _entries(change.new), _entries(kept)
        assert repeat.text == original.text
        if change.reason_code == "duplicate_of_entry":
            assert old_entries[repeat.text] == kept
        else:
            assert repeat.text not in old_entries and (kept in applied or kept in held_new)
    held_old = "\n".join(c.old for c in result.held if c.old is not None)
    assert _entry_keys(old) <= _entry_keys(result.applied) + _entry_keys(held_old)
    assert _hand_keys(old) <= _hand_keys(result.applied) + _hand_keys(held_old)


@pytest.mark.parametrize("control", ["\x1b[8m", "\x1b]0;pwned\x07", "\x00", "\x08", "\x9b"])
def test_a_new_line_with_control_characters_is_held_never_applied(control: str) -> None:
    old = "- 2026-11-01: Thích trà\n- 2026-11-02: Sống ở Huế\n"
    new = (
        f"- 2026-11-01: Thích trà{control}\n- 2026-11-28: Mới {control}x\n"
        "- 2026-11-27: Sống ở Huế\n"
    )
    result = gate(old, new, TODAY, SINCE)
    assert control not in result.applied
    held = [c for c in result.changes if c.reason_code == "control_chars"]
    assert held and all(c.held for c in held)
    assert "- 2026-11-27: Sống ở Huế" in result.applied  # a clean change still applies


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(["a", " ", "\x1b", "\x00", "\x07", "- 2026-11-28: ", "\n"])))
def test_no_control_character_is_ever_applied_by_itself(pieces: list[str]) -> None:
    old = "# Me\n- 2026-11-01: Thích trà\n"
    result = gate(old, old + "".join(pieces), TODAY, SINCE)
    for change in result.changes:
        if not change.held and change.new is not None and change.cls != "moved":
            assert not has_hidden(change.new)


def test_row_a_new_line_whose_screening_could_not_be_read_is_held() -> None:
    old = "# Me\n- 2026-11-01: Thích trà\n- 2026-11-02: Sống ở Huế\n"
    unread = Reason("screen_unreadable")
    new = old.replace("2026-11-01", "2026-11-27") + "- 2026-11-28: Nuôi mèo\n"
    new += "- 2026-11-28: Học piano\n- 2026-12-25: Đi Đà Lạt\n"
    hold = {
        "- 2026-11-28: Nuôi mèo": unread,
        "- 2026-12-25: Đi Đà Lạt": unread,  # held already: keeps its own reason
        "- 2026-11-27: Thích trà": unread,  # re-dated, not new: held all the same
    }
    result = gate(old, new, TODAY, SINCE, hold=hold)
    assert result.applied == old + "- 2026-11-28: Học piano\n"
    held = {c.new: (c.cls, c.reason_code) for c in result.held}
    assert held == {
        "- 2026-11-27: Thích trà": ("date_changed", "screen_unreadable"),
        "- 2026-11-28: Nuôi mèo": ("added", "screen_unreadable"),
        "- 2026-12-25: Đi Đà Lạt": ("strange_date", "future"),
    }
    assert unread_verdict("added", unread) == ("added", "held", unread)
    assert gate(old, new, TODAY, SINCE).applied != result.applied  # without hold: applied


def test_holding_an_unread_repeat_or_a_moved_line_changes_nothing() -> None:
    old = "# Me\n- 2026-11-01: Thích trà\n# Work\n- 2026-11-02: Sống ở Huế\n"
    new = "# Me\n- 2026-11-02: Sống ở Huế\n- 2026-11-01: Thích trà\n- 2026-11-28: thích TRÀ\n"
    new += "# Work\n"
    hold = dict.fromkeys(new.split("\n"), Reason("screen_unreadable"))
    assert gate(old, new, TODAY, SINCE, hold=hold) == gate(old, new, TODAY, SINCE)
