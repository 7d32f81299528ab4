"""What one bulk decision may cover, given the exact text of the screen that carries its button
(a chat message: Telegram's list, its confirmation).

A change is covered only when every line it touches, its old text and its new text as the
screen renders them, is on that screen, each whole on one of its lines. Approving the small
changes never covers one that edits or removes a line the owner has (an edit, a removal, a
heading edit, a rewrite held whole, an archive), nor one holding an invisible character: those
are decided one at a time, after being shown on their own.

Pure: the screen is text, the changes are plain values; no surface is imported.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from trinho.textnorm import has_hidden, printable


@dataclass(frozen=True)
class Shown:
    """A change as a bulk decision sees it: its old and new text (None: no such side) and
    whether approving it edits or removes a line the owner has."""

    old: str | None
    new: str | None
    owner_line: bool


def change_lines(change: Shown) -> list[str]:
    """The lines the change touches, as a screen renders them (made printable), blank ones
    left out: they are not text the owner reads."""
    sides = [side for side in (change.old, change.new) if side is not None]
    return [
        printable(line).strip()
        for side in sides
        for line in side.split("\n")
        if printable(line).strip()
    ]


def on_screen(line: str, screen: str) -> bool:
    """Whether `line` is whole on one line of `screen`: found there, with nothing of its own
    word before or after it (a longer text that starts with it does not show it)."""
    if not line:
        return False
    pattern = re.compile(r"(?:^|(?<=\s))" + re.escape(line) + r"(?=\s|$)")
    return any(pattern.search(row) for row in screen.split("\n"))


def shown(change: Shown, screen: str) -> bool:
    """Whether every line the change touches is on the screen (a change touching no line is
    never shown: there is nothing the owner could have read)."""
    lines = change_lines(change)
    return bool(lines) and all(on_screen(line, screen) for line in lines)


def covered_keep(changes: Sequence[Shown], screen: str) -> list[int]:
    """The indices a bulk "keep as they are" (reject) covers: the changes fully on the screen."""
    return [i for i, change in enumerate(changes) if shown(change, screen)]


def covered_small(changes: Sequence[Shown], screen: str) -> list[int]:
    """The indices a bulk approval of small changes covers: those fully on the screen that
    neither edit nor remove an owner's line nor hold an invisible character."""
    return [
        i
        for i in covered_keep(changes, screen)
        if not changes[i].owner_line
        and not any(
            has_hidden(line)
            for side in (changes[i].old, changes[i].new)
            for line in (side or "").split("\n")
        )
    ]
