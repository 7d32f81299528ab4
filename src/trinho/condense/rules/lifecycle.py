"""A condensation run's life, in one table: its states, the steps between them, and what a
restart does from each.

The journal store records a step only when this table allows it (`check_step`, called by
every backend's `advance`), and a run that finds an unfinished journal of its week asks
`recover` what to do with it, so the run's wiring holds no branch of its own on a state.

A run starts in `running` (a fresh journal, under the week's id); the steps it may take:

| from | to | when |
|---|---|---|
| running | running | a budget left material unread: the journal records where reading stopped |
| running | applying | the before copy and the held changes are saved; MEMORY.md is next |
| running | failed | an error before anything was written |
| running | skipped | nothing read (no material the budget allowed) |
| applying | applying | MEMORY.md was edited by hand meanwhile: the gate ran again |
| applying | applied | MEMORY.md is the new text (or was left as it was) |
| applied | proposed | every held change is in the proposals queue |
| applied | done | the run was undone before it proposed: it is ended |
| proposed | done | announced, or undone |
| done | done | undone (again): recorded, the run stays ended |

`failed` and `skipped` are final: the week may run again, under the same id, from a fresh
journal. An undo restoring the journal it could not complete writes that journal back as it
was: that is no step.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, get_args

from trinho.errors import TrinhoError

RunState = Literal["running", "applying", "applied", "proposed", "done", "failed", "skipped"]
RUN_STATES: tuple[RunState, ...] = get_args(RunState)
START: RunState = "running"
"""A run's first journal, and the one a run starting over writes under the same id."""
FINAL: frozenset[RunState] = frozenset({"done", "failed", "skipped"})
WRITTEN: frozenset[RunState] = frozenset({"applied", "proposed", "done"})
"""MEMORY.md holds what the run applied: its span was read, an undo may put it back."""

STEPS: Mapping[RunState, frozenset[RunState]] = {
    "running": frozenset({"running", "applying", "failed", "skipped"}),
    "applying": frozenset({"applying", "applied"}),
    "applied": frozenset({"proposed", "done"}),
    "proposed": frozenset({"done"}),
    "done": frozenset({"done"}),
    "failed": frozenset(),
    "skipped": frozenset(),
}
"""Each state's allowed next states: the table in this module's docstring."""

Restart = Literal["start_over", "settle", "finish", "nothing"]
RESTART: Mapping[RunState, Restart] = {
    "running": "start_over",
    "applying": "settle",
    "applied": "finish",
    "proposed": "finish",
    "done": "nothing",
    "failed": "start_over",
    "skipped": "start_over",
}
"""What a run does with its week's unfinished journal in each state:

- `start_over`: nothing the run wrote stands (MEMORY.md is untouched); the week is read
  again under the same id, from a fresh journal;
- `settle`: cut off while replacing MEMORY.md: when MEMORY.md holds the text the journal
  names, the run is `applied` and finishes; otherwise nothing stands and it starts over;
- `finish`: MEMORY.md is the run's text: the proposals and the announcement are made from
  the journal, nothing twice (a run undone meanwhile is ended instead: `done`);
- `nothing`: the week is condensed."""


@dataclass(frozen=True)
class Recovery:
    """What a restart does: the steps to record first, in order, then what follows."""

    record: tuple[RunState, ...]
    then: Literal["start_over", "finish", "nothing"]


def recover(state: RunState, *, replaced: bool, undone: bool) -> Recovery:
    """A restart's recovery from a journal left in `state`. `replaced`: MEMORY.md holds the
    text the journal says the run applied; `undone`: the run was undone since (it is ended,
    never resumed: nothing it would propose could be approved)."""
    action = RESTART[state]
    if action == "settle":
        if not replaced:
            return Recovery((), "start_over")
        after = recover("applied", replaced=replaced, undone=undone)
        return Recovery(("applied", *after.record), after.then)
    if action == "finish" and undone:
        return Recovery(("done",), "nothing")
    return Recovery((), action)


def check_step(old: RunState, new: RunState, run_id: str) -> None:
    """Refuse a step the table does not allow, naming it: recording it would leave a journal
    that a restart reads wrongly."""
    if new not in STEPS[old]:
        raise TrinhoError.keyed("error.run.bad_step", id=run_id, old=old, new=new)


def reachable(start: RunState) -> frozenset[RunState]:
    """Every state some run can reach from `start` by the table's steps."""
    seen = {start}
    todo = [start]
    while todo:
        for nxt in STEPS[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return frozenset(seen)
