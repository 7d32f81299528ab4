"""The bulk rule: a bulk decision covers a change only when every line it touches is whole on
the screen, and approving the small ones never covers an edit or removal of an owner's line."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from trinho.channels.screen import Shown, change_lines, covered_keep, covered_small, on_screen
from trinho.textnorm import printable

_WORD = st.text(alphabet="abcxyzĐđêơ0129:-", min_size=1, max_size=12)


@st.composite
def _changes(draw: st.DrawFn) -> list[Shown]:
    """Changes whose lines are all different words (each tagged with its own number), so a
    line is on a screen only where the screen puts it."""
    count = draw(st.integers(0, 8))
    changes = []
    tag = 0
    for _ in range(count):
        sides: list[str | None] = []
        for _side in range(2):
            lines = draw(st.lists(_WORD, max_size=3))
            if not lines or draw(st.booleans()):
                sides.append(None)
                continue
            tagged = []
            for word in lines:
                tag += 1
                tagged.append(f"- 2026-11-{tag:02d}: L{tag}#{word}")
            sides.append("\n".join(tagged))
        changes.append(Shown(sides[0], sides[1], draw(st.booleans())))
    return changes


_DECOR = st.sampled_from(["", "✏️ Edits: ", "• ", "  − ", "Old: "])
_AFTER = st.sampled_from(["", " (approved)", " → x", "  "])


@settings(max_examples=200)
@given(_changes(), st.data())
def test_a_change_is_covered_exactly_when_every_line_of_it_is_whole_on_the_screen(
    changes: list[Shown], data: st.DataObject
) -> None:
    every = [line for change in changes for line in change_lines(change)]
    put = data.draw(st.lists(st.sampled_from(every), unique=True) if every else st.just([]))
    cut = data.draw(st.lists(st.sampled_from(every), unique=True) if every else st.just([]))
    rows = [data.draw(_DECOR) + line + data.draw(_AFTER) for line in put]
    rows += [line[:-1] for line in cut if line not in put]  # a line cut short shows nothing
    rows += ["3 changes wait for your approval:", ""]
    screen = "\n".join(data.draw(st.permutations(rows)))
    keep = covered_keep(changes, screen)
    expected = [
        i for i, c in enumerate(changes) if change_lines(c) and set(change_lines(c)) <= set(put)
    ]
    assert keep == expected
    small = covered_small(changes, screen)
    assert set(small) <= set(keep)
    assert all(not changes[i].owner_line for i in small)
    assert [i for i in keep if not changes[i].owner_line] == small  # no hidden character here


@given(_changes())
def test_an_owner_line_change_is_never_in_the_small_bulk_even_when_all_is_shown(
    changes: list[Shown],
) -> None:
    screen = "\n".join(line for change in changes for line in change_lines(change))
    assert covered_keep(changes, screen) == [i for i, c in enumerate(changes) if change_lines(c)]
    assert covered_small(changes, screen) == [
        i for i, c in enumerate(changes) if change_lines(c) and not c.owner_line
    ]


def test_the_reported_edit_is_not_covered_when_only_its_new_text_is_shown() -> None:
    edit = Shown("- 2026-09-01: Accountant at Bình Minh company", "- 2026-11-28: Teacher", False)
    screen = "✅ Approve the small changes\n✏️ Edits: - 2026-11-28: Teacher"
    assert covered_keep([edit], screen) == []
    both = screen + "\n✏️ Edits: - 2026-09-01: Accountant at Bình Minh company → x"
    assert covered_keep([edit], both) == [0]
    assert covered_small([Shown(edit.old, edit.new, True)], both) == []


def test_a_line_counts_only_whole_and_as_rendered() -> None:
    assert not on_screen("- 2026-11-28: ở Huế", "➕ Adds: - 2026-11-28: ở Huếxyz")
    assert not on_screen("- 2026-11-28: ở Huế", "➕ Adds: x- 2026-11-28: ở Huế")
    assert on_screen("- 2026-11-28: ở Huế", "➕ Adds: - 2026-11-28: ở Huế (approved)")
    assert not on_screen("", "anything")
    hidden = "- 2026-11-28: pay \u202eevil"
    shown = Shown(None, hidden, False)
    assert covered_keep([shown], f"➕ Adds: {printable(hidden)}") == [0]
    assert covered_small([shown], f"➕ Adds: {printable(hidden)}") == []  # one at a time
    assert covered_keep([Shown(None, None, False)], "") == []
    assert covered_keep([Shown(None, "  \n", False)], "  ") == []
