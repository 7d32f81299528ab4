"""An approved removal taken back on its own: the line back where it stood, byte for byte,
when the file did not change around it since; refused (stale) when it did."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from trinho.condense.rules.gate import Change
from trinho.condense.rules.held import HeldApplied, Stale, apply_held, restore_removed

_LINES = st.lists(
    st.one_of(st.just(""), st.integers(1, 400).map(lambda n: f"- 2026-01-01: entry {n}")),
    min_size=1,
    max_size=12,
)


def removal(line: str) -> Change:
    return Change("removed", "held", line, None, "gone")


@given(_LINES, st.data())
def test_a_removal_approved_then_taken_back_restores_the_file_byte_for_byte(
    lines: list[str], data: st.DataObject
) -> None:
    entries = [i for i, line in enumerate(lines) if line and lines.count(line) == 1]
    if not entries:
        return
    at = data.draw(st.sampled_from(entries))
    before = "\n".join(lines)
    change = removal(lines[at])
    approved = apply_held(before, change)
    assert isinstance(approved, HeldApplied)
    back = restore_removed(approved.text, change, before)
    assert isinstance(back, Stale) or back.text == before
    if any(line and lines.count(line) == 1 for line in lines[:at]) or not any(lines[:at]):
        assert isinstance(back, HeldApplied) and back.text == before
    again = restore_removed(before, change, before)  # taken back once: a rerun changes nothing
    assert isinstance(again, HeldApplied) and again.text == before


def test_a_removal_is_put_back_among_lines_the_run_changed_elsewhere() -> None:
    before = "# Memory\n\n## Family\n- 2026-01-04: a\n- 2026-01-05: b\n\n## Work\n- 2026-02-01: c"
    now = "# Memory\n\n## Family\n- 2026-01-04: a\n\n## Work\n- 2026-11-28: c, edited"
    back = restore_removed(now, removal("- 2026-01-05: b"), before)
    assert isinstance(back, HeldApplied)
    assert back.text == (
        "# Memory\n\n## Family\n- 2026-01-04: a\n- 2026-01-05: b\n\n"
        "## Work\n- 2026-11-28: c, edited"
    )
    moved = "# Memory\n\n## Work\n- 2026-11-28: c, edited"  # above it gone: below it still
    back = restore_removed(moved, removal("- 2026-01-05: b"), before)
    assert isinstance(back, HeldApplied)
    assert back.text == "# Memory\n- 2026-01-05: b\n\n## Work\n- 2026-11-28: c, edited"
    other = "# Notes\n- 2026-11-28: c, edited"  # no neighbour where it was: not guessed
    assert isinstance(restore_removed(other, removal("- 2026-01-05: b"), before), Stale)
