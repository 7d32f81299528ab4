"""A hand edit made while a run was calling the model: the pure rules that respect it.

The rewrite was made from the MEMORY.md the run started with (`seen`); the file may have
changed since (`current`). The gate runs again against `current`, with two adjustments so
that the run does not undo the owner's edit or ask them to confirm it:

- a line the owner deleted (in `seen`, gone from `current`) is taken out of the rewrite, so
  it does not come back as an addition;
- a held removal or edit of a line the model never saw (the owner added it during the run)
  is not proposed: the gate keeps that line in the file, and that is all.
"""

from __future__ import annotations

from collections import Counter

from trinho.condense.rules.gate import Change


def drop_deleted(seen: str, current: str, rewrite: str) -> str:
    """`rewrite` without the lines deleted from `seen` by hand (as many times as deleted)."""
    gone = Counter(_lines(seen)) - Counter(_lines(current))
    if not gone:
        return rewrite
    kept: list[str] = []
    for line in rewrite.split("\n"):
        if gone[line] > 0:
            gone[line] -= 1
            continue
        kept.append(line)
    return "\n".join(kept)


def carry_added(seen: str, current: str, rewrite: str) -> str:
    """`rewrite` with the lines the owner added by hand during the run (in `current`, not in
    `seen`) put back, each after the line that precedes it in `current` when the rewrite has
    that line, else at the end: the rewrite was asked about `seen`, so it cannot have meant to
    remove them, and they must not count as lost."""
    added = Counter(_lines(current)) - Counter(_lines(seen))
    if not added:
        return rewrite
    out = rewrite.split("\n")
    ending = bool(out) and out[-1] == ""
    if ending:
        out.pop()
    previous: str | None = None
    for line in current.split("\n"):
        if added[line] > 0:
            added[line] -= 1
            at = len(out) if previous is not None and previous not in out else 0
            if previous is not None and previous in out:
                at = out.index(previous) + 1
            out.insert(at, line)
        previous = line
    return "\n".join(out) + ("\n" if ending else "")


def added_during_run(change: Change, seen: str) -> bool:
    """A held removal or edit whose old line was not in the file the model read."""
    return (
        change.held
        and change.cls in ("removed", "edited")
        and change.old is not None
        and change.old not in set(seen.split("\n"))
    )


def _lines(text: str) -> list[str]:
    return [line for line in text.split("\n") if line.strip()]
