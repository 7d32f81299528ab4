"""Gate reasons and stale messages as codes: every code renders in English and Vietnamese,
the English text is what `reason` holds, and stored changes without a code keep their text."""

from __future__ import annotations

import json
import unicodedata
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support.catalogs import CATALOG
from trinho.condense.rules.gate import Change, gate
from trinho.condense.rules.held import Stale, apply_held
from trinho.condense.rules.reasons import (
    REASON_CODES,
    STALE_CODES,
    Reason,
    StaleReason,
    reason_key,
    stale_key,
    stored_reason,
)

TODAY = date(2026, 11, 29)
SINCE = date(2026, 11, 23)
OLD = (
    "# Memory\n"
    "- 2026-11-01: Likes green tea\n"
    "- 2026-11-02: Lives in Hà Nội\n"
    "- 2026-11-03: Has a cat named Mướp\n"
    "- 2026-02-30: Đi Huế\n"
    "Ghi chú viết tay: nhớ mua quà\n"
    "# Work\n"
    "<!-- openclaw-memory-promotion:memory:memory/2026-11-05.md:1:1 -->\n"
    "- 2026-11-05: Works at a bakery\n"
)
MARKER = "<!-- openclaw-memory-promotion:memory:memory/2026-11-05.md:1:1 -->\n"

# One rewrite of OLD per gate reason code, each making the gate give that code.
EXAMPLES: dict[str, str] = {
    "added_in_window": OLD + "- 2026-11-28: Bắt đầu học piano\n",
    "not_a_date": OLD + "- 2026-11-31: Đi Đà Lạt\n",
    "future": OLD + "- 2026-12-01: Đi Đà Lạt\n",
    "outside_window": OLD + "- 2026-11-10: Đi Đà Lạt\n",
    "new_date_not_a_date": OLD.replace("2026-11-01", "2026-13-01"),
    "old_date_not_a_date": OLD.replace("2026-02-30", "2026-11-28"),
    "moved_earlier": OLD.replace("2026-11-01", "2026-10-31"),
    "moved_later": OLD.replace("2026-11-01", "2026-11-27"),
    "edited": OLD.replace("Lives in Hà Nội", "Lives in Đà Nẵng"),
    "malformed": OLD + "* 2026-11-28 forgot the format\n",
    "control_chars": OLD + "- 2026-11-28: hidden \x1b[8mtext\n",
    "suspicious": "# Memory\n",
    "heading_unscreened": OLD + "# Family\n",
    "edited_letters": OLD.replace("Lives in Hà Nội", "Lives in Hà nội"),
    "duplicate_heading": OLD + "# Memory\n",
    "heading_takes_entries": OLD.replace("# Memory\n", "# Memory\n# Drinks\n"),
    "heading_accepted": OLD + "# Family\n",
    "edited_heading": OLD.replace("# Work\n", "# Work life\n"),
    "removed_heading": OLD.replace("# Work\n", ""),
    "removed_marker": OLD.replace(MARKER, ""),
    "order_changed": OLD.replace(
        "- 2026-11-01: Likes green tea\n- 2026-11-02: Lives in Hà Nội\n",
        "- 2026-11-02: Lives in Hà Nội\n- 2026-11-01: Likes green tea\n",
    ),
    "section_changed": OLD.replace(
        "Ghi chú viết tay: nhớ mua quà\n# Work\n", "# Work\nGhi chú viết tay: nhớ mua quà\n"
    ),
    "removed_entry": OLD.replace("- 2026-11-03: Has a cat named Mướp\n", ""),
    "removed_line": OLD.replace("Ghi chú viết tay: nhớ mua quà\n", ""),
    "duplicate_of_entry": OLD + "- 2026-11-28: Likes green tea\n",
    "duplicate_addition": OLD + "- 2026-11-28: Đi Đà Lạt\n- 2026-11-28: Đi Đà Lạt\n",
}
PIANO = "- 2026-11-28: Bắt đầu học piano"
HOLD: dict[str, Reason] = {
    "screen_unreadable": Reason("screen_unreadable"),
    "screen_failed": Reason.of("screen_failed", error="timeout: no answer within 60 s"),
}
"""Codes the gate gives to a new line whose screening could not be read (`hold`)."""
for _code in HOLD:
    EXAMPLES[_code] = OLD + PIANO + "\n"
ARCHIVE_CODES = {"over_budget"}
"""Codes of the archive proposal (`trinho.condense.rules.archive`), never given by the gate."""
STORED_ONLY = {"heading_added", "heading_removed"}
"""Codes the gate no longer gives (headings were once applied by themselves): a change stored
with one still renders."""
ACCEPTED = {"heading_accepted": frozenset({"# Family"})}
"""New lines screening accepted, for the examples that need it."""


def changes_of(code: str) -> tuple[Change, ...]:
    """The gate's changes for the example of `code` (the piano line held when it is a
    screening code)."""
    hold = {PIANO: HOLD[code]} if code in HOLD else None
    accepted = ACCEPTED.get(code, frozenset())
    return gate(OLD, EXAMPLES[code], TODAY, SINCE, hold=hold, accepted=accepted).changes


def test_every_code_has_an_english_and_a_vietnamese_text() -> None:
    keys = [reason_key(code) for code in REASON_CODES] + [stale_key(c) for c in STALE_CODES]
    for key in keys:
        assert key in CATALOG, f"{key} has no catalog entry"
        assert {"en", "vi"} <= set(CATALOG[key]), f"{key} lacks en or vi"
        assert CATALOG[key]["vi"] != CATALOG[key]["en"], f"{key} is not translated"
        assert unicodedata.is_normalized("NFC", CATALOG[key]["vi"])


def test_every_gate_reason_in_the_catalog_is_a_code() -> None:
    listed = {key for key in CATALOG if key.startswith("gate.reason.")}
    assert listed == {reason_key(code) for code in REASON_CODES}


def test_the_examples_cover_every_code() -> None:
    assert set(EXAMPLES) == set(REASON_CODES) - ARCHIVE_CODES - STORED_ONLY


@pytest.mark.parametrize("code", sorted(EXAMPLES))
def test_the_gate_gives_each_code(code: str) -> None:
    assert code in {c.reason_code for c in changes_of(code)}


@pytest.mark.parametrize("code", sorted(EXAMPLES))
def test_each_code_renders_in_both_locales_with_the_gate_params(code: str) -> None:
    [change] = [c for c in changes_of(code) if c.reason_code == code]
    assert change.reason_in("en") == change.reason
    vi = change.reason_in("vi")
    assert vi != change.reason and "{" not in vi
    for _, value in change.reason_params:
        if isinstance(value, str):
            assert value in vi  # dates and line texts are shown as they are


def test_the_archive_reason_renders_in_both_locales() -> None:
    why = Reason.of("over_budget", tokens=2400, budget=2000, count=12)
    assert why.text("en") == (
        "MEMORY.md is about 2400 tokens, over its budget of 2000; "
        "12 of the least recently dated entries move to memory/archive.md"
    )
    assert "2400" in why.text("vi") and "12" in why.text("vi") and "{" not in why.text("vi")


def test_vietnamese_reasons_read_naturally() -> None:
    [removed] = gate(OLD, EXAMPLES["removed_entry"], TODAY, SINCE).changes
    assert removed.reason_in("vi") == (
        "bản cập nhật hằng tuần bỏ mục này: vẫn giữ, chờ bạn duyệt việc xoá"
    )
    [outside] = gate(OLD, EXAMPLES["outside_window"], TODAY, SINCE).changes
    assert outside.reason_in("vi") == (
        "ngày 2026-11-10 nằm ngoài tuần này (2026-11-23 đến 2026-11-29)"
    )
    [edited] = gate(OLD, EXAMPLES["edited"], TODAY, SINCE).changes
    assert edited.reason.startswith("text changed (similarity 0.")
    assert edited.reason_in("vi").startswith("nội dung bị sửa (giống ")
    assert "%)" in edited.reason_in("vi")


def test_the_english_reason_is_unchanged_by_the_codes() -> None:
    [edited] = gate(OLD, EXAMPLES["edited"], TODAY, SINCE).changes
    similarity = dict(edited.reason_params)["similarity"]
    assert isinstance(similarity, float)
    assert edited.reason == (
        f"text changed (similarity {similarity:.2f}); the old line stays until decided"
    )
    [suspicious] = gate(OLD, EXAMPLES["suspicious"], TODAY, SINCE).changes
    assert suspicious.reason == (
        "the weekly update would remove 7 of 7 lines; it waits whole, nothing applied"
    )


memory_line = st.one_of(
    st.builds(
        lambda d, x: f"- {d}: {x}",
        st.sampled_from(["2026-11-01", "2026-11-25", "2026-11-30", "2026-02-30", "2019-01-01"]),
        st.sampled_from(["Likes tea", "Sống ở Hà Nội", "Có con mèo Mướp", "đi Đà Nẵng"]),
    ),
    st.sampled_from(["# Memory", "# Việc", "Ghi chú tay", "* bad line", "Sure!"]),
)


@settings(max_examples=150)
@given(st.lists(memory_line, max_size=8), st.lists(memory_line, max_size=8))
def test_every_change_has_a_code_that_renders_and_round_trips(
    old: list[str], new: list[str]
) -> None:
    result = gate("\n".join(old), "\n".join(new), TODAY, SINCE)
    for change in result.changes:
        assert change.reason_code in REASON_CODES
        assert change.reason_in("en") == change.reason
        assert "{" not in change.reason_in("vi")
        data = json.loads(json.dumps(change.to_dict(), ensure_ascii=False))
        again = Change.from_dict(data)
        assert again == change and hash(again) == hash(change)
        assert stored_reason(data, "fallback", "vi") == change.reason_in("vi")


def test_a_stale_approval_says_why_in_both_locales() -> None:
    [removed] = gate(OLD, EXAMPLES["removed_entry"], TODAY, SINCE).changes
    outcome = apply_held(OLD.replace("Has a cat named Mướp", "Has a dog"), removed)
    assert outcome == Stale(StaleReason.of("line_gone", line="- 2026-11-03: Has a cat named Mướp"))
    assert outcome.why.text("en") == (
        "the line is no longer in your long-term memory: - 2026-11-03: Has a cat named Mướp"
    )
    assert outcome.why.text("vi") == (
        "dòng này không còn trong trí nhớ dài hạn: - 2026-11-03: Has a cat named Mướp"
    )


def test_a_change_stored_without_a_code_keeps_its_text() -> None:
    old_style = {
        "class": "removed",
        "action": "held",
        "old": "- 2026-11-03: Has a cat",
        "new": None,
        "reason": "entry missing from the rewrite; it stays until you approve its removal",
        "after": None,
        "snapshot": None,
        "rewrite": None,
        "similarity": None,
    }
    change = Change.from_dict(old_style)
    assert change.reason_code is None
    assert change.reason_in("vi") == old_style["reason"]
    assert stored_reason(old_style, "stored text", "vi") == "stored text"


@pytest.mark.parametrize(
    "bad",
    [
        {"reason_code": "no_such_code"},
        {"reason_code": "future", "reason_params": {"date": "2026-12-01"}},  # `today` missing
        {"reason_code": "edited", "reason_params": {"similarity": "high"}},
        {"reason_code": "future", "reason_params": ["2026-12-01"]},
        {"reason_code": 7},
    ],
)
def test_an_unrenderable_stored_code_shows_the_stored_text(bad: dict[str, object]) -> None:
    assert stored_reason(bad, "stored text", "vi") == "stored text"


def test_a_change_with_params_that_do_not_render_shows_its_stored_text() -> None:
    change = Change("strange_date", "held", None, "- x", "stored", reason_code="future")
    assert change.reason_in("vi") == "stored"


def test_from_dict_refuses_an_unknown_code() -> None:
    data = Change.because("removed", "held", "x", None, Reason("removed_line")).to_dict()
    reason = Change.from_dict(data).reason_in("vi")
    assert reason.startswith("bản cập nhật hằng tuần bỏ dòng bạn tự viết")
    with pytest.raises(ValueError):
        Change.from_dict({**data, "reason_code": "deleted_by_model"})
