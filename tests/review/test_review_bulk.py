"""What one bulk approval on a screen may cover: only changes whose every line, old and new,
the screen shows, and never one that edits or removes a line of the owner's."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from test_review_risk import _QUEUES, fact, memory, proposal

from trinho.proposals.format import Proposal
from trinho.review.bulk import affected_lines, bulk_covered, touches_owner_line
from trinho.review.risk import one_at_a_time
from trinho.textnorm import has_hidden

EDIT = memory("edited", "- 2026-10-20: Run on Sundays", "- 2026-11-27: Run on Sundays, Wednesdays")
ADD = memory("added", None, "- 2026-11-27: Lan paints on Wednesdays")


def every_line(queue: list[Proposal]) -> set[str]:
    return {line for p in queue for line in affected_lines(p)}


@given(_QUEUES, st.data())
def test_a_bulk_covers_only_changes_whose_every_line_is_on_its_screen(
    queue: list[Proposal], data: st.DataObject
) -> None:
    lines = sorted(every_line(queue))
    screen = set(data.draw(st.lists(st.sampled_from(lines)))) if lines else set()
    covered = bulk_covered(queue, screen)
    for p in covered:
        assert p.status == "pending" and not one_at_a_time(p)
        assert not touches_owner_line(p)
        assert set(affected_lines(p)) <= screen
    assert {p.id for p in covered} <= {p.id for p in bulk_covered(queue, every_line(queue))}


@given(_QUEUES)
def test_a_screen_of_every_line_covers_every_change_that_touches_no_line_of_the_owners(
    queue: list[Proposal],
) -> None:
    covered = {p.id for p in bulk_covered(queue, every_line(queue))}
    for p in queue:
        eligible = p.status == "pending" and not one_at_a_time(p) and not touches_owner_line(p)
        hidden = any(has_hidden(line) for line in affected_lines(p))
        shown = bool(affected_lines(p))  # a change with no line has nothing the owner read
        assert (p.id in covered) == (eligible and shown and not hidden)


def test_an_edit_or_removal_of_a_memory_line_is_never_in_a_bulk() -> None:
    edit, add = proposal("memory", EDIT, pid="a" * 10), proposal("memory", ADD, pid="b" * 10)
    removal = proposal("memory", memory("removed", "- 2026-01-01: x", None), pid="c" * 10)
    queue = [edit, add, removal]
    assert bulk_covered(queue, every_line(queue)) == [add]
    replaces_guess = proposal("fact", fact("black", "inferred"))
    assert bulk_covered([replaces_guess], every_line([replaces_guess])) == [replaces_guess]
    replaces_owner = proposal("fact", fact("black", "user"))
    assert bulk_covered([replaces_owner], every_line([replaces_owner])) == []


def test_a_line_missing_from_the_screen_keeps_its_change_out() -> None:
    add = proposal("memory", ADD)
    assert bulk_covered([add], set()) == []
    assert bulk_covered([add], {"- 2026-11-27: Lan paints on Wednesdays"}) == [add]


def test_a_line_holding_an_invisible_character_is_never_approved_in_bulk() -> None:
    hidden = proposal("memory", memory("added", None, "- 2026-11-27: Lan \u202epaints"))
    assert bulk_covered([hidden], every_line([hidden])) == []


def test_an_archive_affects_its_lines_and_the_heading_the_archive_gains() -> None:
    archive = proposal("memory", memory("archive", "- 2026-01-01: a\n- 2026-01-02: b", None))
    lines = affected_lines(archive)
    assert lines[:2] == ("- 2026-01-01: a", "- 2026-01-02: b")
    assert lines[2].startswith("## Archived by run 2026-W48 (sha256 ")
