"""What one bulk approval on a review screen may cover (pure): what the owner sees is what
changes.

A bulk button covers a change only when every line the change takes away or writes, old text
and new, is on the screen the button is on, and never a change that edits or removes a line of
the owner's (any MEMORY.md line, a value the owner stated): those are decided one by one,
after being shown on their own. The review page (`trinho.web`) asks this for its bulk form;
the rule itself is `trinho.channels.screen`'s, the one Telegram's buttons ask too.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from trinho.channels.screen import Shown, covered_small
from trinho.condense.rules.archive import ORIGIN, archive_section
from trinho.proposals.format import Proposal
from trinho.review.risk import one_at_a_time, review_order


def affected_lines(p: Proposal) -> tuple[str, ...]:
    """Every non-blank line approving `p` takes away or writes, as stored: a MEMORY.md change's
    old and new lines (an archive's also as `memory/archive.md` gains them, under its
    section's heading), a fact's value and the value it replaces."""
    change = p.change
    if p.kind == "fact":
        sides = [change.get("current_value"), change.get("value")]
    else:
        sides = [change.get("old"), change.get("new")]
        if change.get("class") == "archive" and p.origin.startswith(ORIGIN):
            moved = str(change.get("old") or "").split("\n")
            sides.append(archive_section(p.origin.removeprefix(ORIGIN), moved))
    lines = (line for side in sides if side is not None for line in str(side).split("\n"))
    return tuple(dict.fromkeys(line for line in lines if line.strip()))


def touches_owner_line(p: Proposal) -> bool:
    """Whether approving `p` edits or removes a line the owner has: any existing MEMORY.md
    line (the gate keeps each byte for byte until the owner decides), or a value the owner
    stated themselves."""
    if p.kind == "fact":
        return p.change.get("current_value") is not None and p.change.get("current_basis") == "user"
    return p.change.get("old") is not None


def bulk_covered(pending: Iterable[Proposal], on_screen: Collection[str]) -> list[Proposal]:
    """The proposals one bulk approval may cover, in review order: pending, decidable together
    (`one_at_a_time`), and covered by the one rule every surface asks
    (`trinho.channels.screen.covered_small`) against the lines the button's screen shows:
    every line they affect on it, none of the owner's edited or removed, none hidden."""
    candidates = [p for p in pending if p.status == "pending" and not one_at_a_time(p)]
    changes = [Shown("\n".join(affected_lines(p)), None, touches_owner_line(p)) for p in candidates]
    covered = covered_small(changes, "\n".join(on_screen))
    return review_order(candidates[i] for i in covered)
