"""Approving a held change applies it to MEMORY.md as it is then, or reports it stale."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trinho.condense.rules.gate import Change, ChangeClass, gate
from trinho.condense.rules.held import (
    TAKEN_BACK_CLASSES,
    HeldApplied,
    Stale,
    apply_held,
    take_back_held,
)

TODAY, SINCE = date(2026, 11, 29), date(2026, 11, 23)
OLD = "# Memory\n- 2026-11-01: Likes green tea\n- 2026-11-02: Lives in Hà Nội\n"


def held_of(new: str, old: str = OLD) -> Change:
    (change,) = gate(old, new, TODAY, SINCE).held
    return change


def test_removal_applies_while_the_line_is_there() -> None:
    change = held_of("# Memory\n- 2026-11-02: Lives in Hà Nội\n")
    assert apply_held(OLD, change) == HeldApplied("# Memory\n- 2026-11-02: Lives in Hà Nội\n")


def test_removal_finds_the_entry_after_a_hand_edit_of_surrounding_space_only() -> None:
    change = held_of("# Memory\n- 2026-11-02: Lives in Hà Nội\n")
    current = OLD.replace("Likes green tea", "Likes green tea  ")
    assert apply_held(current, change) == HeldApplied("# Memory\n- 2026-11-02: Lives in Hà Nội\n")


def test_removal_is_stale_after_a_hand_edit_of_case_the_screen_never_showed() -> None:
    """The owner rewrote the line since: the screen showed the old letters, so approving the
    removal must not take the owner's new words."""
    change = held_of("# Memory\n- 2026-11-02: Lives in Hà Nội\n")
    current = OLD.replace("Likes green tea", "likes   GREEN tea")
    outcome = apply_held(current, change)
    assert isinstance(outcome, Stale) and outcome.why.code == "line_gone"


def test_removal_is_stale_once_the_line_is_gone() -> None:
    change = held_of("# Memory\n- 2026-11-02: Lives in Hà Nội\n")
    outcome = apply_held("# Memory\n- 2026-11-02: Lives in Hà Nội\n", change)
    assert isinstance(outcome, Stale)
    assert outcome.why.code == "line_gone"
    assert "no longer in your long-term memory" in outcome.why.text("en")
    assert "Likes green tea" in outcome.why.text("en")


def test_edit_replaces_the_old_line_in_place() -> None:
    change = held_of("# Memory\n- 2026-11-01: Likes green tea\n- 2026-11-28: Lives in Đà Nẵng\n")
    assert change.cls == "edited"
    current = OLD + "- 2026-11-25: added by hand\n"
    assert apply_held(current, change) == HeldApplied(
        "# Memory\n- 2026-11-01: Likes green tea\n- 2026-11-28: Lives in Đà Nẵng\n"
        "- 2026-11-25: added by hand\n"
    )


def test_edit_is_stale_when_the_old_line_changed_meanwhile() -> None:
    change = held_of("# Memory\n- 2026-11-01: Likes green tea\n- 2026-11-28: Lives in Đà Nẵng\n")
    current = OLD.replace("Lives in Hà Nội", "Lives in Huế")
    assert isinstance(apply_held(current, change), Stale)


def test_date_fix_applies_while_the_old_line_is_there_and_is_stale_otherwise() -> None:
    change = held_of("# Memory\n- 2026-10-01: Likes green tea\n- 2026-11-02: Lives in Hà Nội\n")
    assert change.cls == "strange_date"
    assert apply_held(OLD, change) == HeldApplied(OLD.replace("2026-11-01", "2026-10-01"))
    assert isinstance(apply_held(OLD.replace("2026-11-01", "2026-11-05"), change), Stale)


def test_held_addition_goes_after_the_line_it_followed() -> None:
    change = held_of(
        "# Memory\n- 2026-11-01: Likes green tea\n- 2026-12-24: Giáng sinh\n"
        "- 2026-11-02: Lives in Hà Nội\n"
    )
    assert change.after == "- 2026-11-01: Likes green tea"
    assert apply_held(OLD, change) == HeldApplied(
        "# Memory\n- 2026-11-01: Likes green tea\n- 2026-12-24: Giáng sinh\n"
        "- 2026-11-02: Lives in Hà Nội\n"
    )


def test_held_addition_goes_at_the_end_when_its_neighbour_is_gone() -> None:
    change = held_of(OLD.replace("# Memory\n", "# Memory\n- 2026-12-24: Giáng sinh\n"))
    assert change.after == "# Memory"
    assert apply_held("- 2026-11-02: x\n\n", change) == HeldApplied(
        "- 2026-11-02: x\n- 2026-12-24: Giáng sinh\n\n"
    )
    assert apply_held("", change) == HeldApplied("- 2026-12-24: Giáng sinh\n")


def test_malformed_line_is_added_when_approved() -> None:
    change = held_of(OLD + "Note typed by the model\n")
    assert change.cls == "malformed"
    assert apply_held(OLD, change) == HeldApplied(OLD + "Note typed by the model\n")


def test_suspicious_rewrite_replaces_the_file_only_if_it_did_not_change() -> None:
    change = held_of("I cannot do that.")
    assert change.cls == "suspicious"
    assert apply_held(OLD, change) == HeldApplied("I cannot do that.")
    outcome = apply_held(OLD + "- 2026-11-29: new note\n", change)
    assert isinstance(outcome, Stale)
    assert outcome.why.code == "memory_changed"
    assert "changed" in outcome.why.text("en")


def test_change_round_trips_through_a_dict() -> None:
    change = held_of("I cannot do that.")
    data = change.to_dict()
    assert data["class"] == "suspicious"
    assert Change.from_dict(data) == change
    with pytest.raises(ValueError):
        Change.from_dict({**data, "class": "deleted"})


def test_moved_changes_have_nothing_to_approve() -> None:
    with pytest.raises(ValueError):
        apply_held(OLD, Change("moved", "auto", None, "# X", "heading added"))


def test_a_held_change_can_still_apply_only_while_its_old_lines_are_there() -> None:
    from trinho.condense.rules.held import can_still_apply

    text = "# Me\n- 2026-11-01: likes tea\n- 2026-11-02: lives in Huế\n"
    assert can_still_apply({"class": "removed", "old": "- 2026-11-01: likes tea"}, text)
    assert not can_still_apply({"class": "removed", "old": "- 2026-11-01: likes coffee"}, text)
    archive = {"class": "archive", "old": "- 2026-11-01: likes tea\n- 2026-11-02: lives in Huế"}
    assert can_still_apply(archive, text)
    assert not can_still_apply(archive, text.replace("Huế", "Hà Nội"))
    assert can_still_apply({"class": "added", "old": None, "new": "- 2026-11-28: x"}, text)
    assert can_still_apply({"class": "suspicious", "snapshot": text}, text)
    assert not can_still_apply({"class": "suspicious", "snapshot": text}, text + "more\n")


_line = st.text(st.sampled_from("abcđế -:"), min_size=1, max_size=12).map(lambda s: "- " + s)


@given(st.lists(_line, min_size=1, max_size=8), st.data())
def test_an_approved_line_taken_back_gives_the_text_it_was_approved_on(
    lines: list[str], data: st.DataObject
) -> None:
    text = "\n".join(lines)
    new = data.draw(_line.filter(lambda s: s not in lines))
    old = data.draw(st.one_of(st.none(), st.sampled_from(lines)))
    cls: ChangeClass = "edited" if old is not None else "added"
    change = Change(cls, "held", old, new, "x", after=lines[-1])
    applied = apply_held(text, change)
    assert isinstance(applied, HeldApplied)
    back = take_back_held(applied.text, change)
    assert isinstance(back, HeldApplied) and back.text == text
    again = take_back_held(back.text, change)  # twice: the text changes once
    assert isinstance(again, HeldApplied) and again.text == text


def test_a_line_edited_since_its_approval_is_not_taken_back() -> None:
    change = held_of(OLD.replace("Likes green tea", "Likes green tea and jasmine"))
    assert change.cls in TAKEN_BACK_CLASSES
    applied = apply_held(OLD, change)
    assert isinstance(applied, HeldApplied)
    by_hand = applied.text.replace("jasmine", "oolong")
    assert isinstance(take_back_held(by_hand, change), Stale)


def test_a_removal_or_an_archive_is_taken_back_only_with_its_run() -> None:
    removal = Change("removed", "held", "- 2026-11-01: Likes green tea", None, "x")
    with pytest.raises(ValueError):
        take_back_held(OLD, removal)
