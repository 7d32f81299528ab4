"""A MEMORY.md and the held changes of a run over it, for the tests that approve them (on each
backend in tests/review, on PostgreSQL alone in tests/pg)."""

from __future__ import annotations

from trinho.condense.rules.gate import Change
from trinho.records.protocol import Records

LISBON = "- 2026-02-11: Sister Anna lives in Lisbon"
PORTO = "- 2026-11-23: Sister Anna lives in Porto"
PENICILLIN = "- 2026-10-05: Allergic to penicillin"
MEMORY = f"# Memory\n\n{LISBON}\n{PENICILLIN}\n"
RUN = "2026-W48"


def held(cls: str, old: str | None, new: str | None, **more: str) -> dict[str, object]:
    """A held change of class `cls` as its proposal carries it."""
    return Change(cls, "held", old, new, f"held {cls}", **more).to_dict()  # type: ignore[arg-type]


def submit(records: Records, change: dict[str, object]) -> str:
    """The change proposed by the run RUN; its proposal's id."""
    return records.submit("memory", change, reason="held", origin=f"condense:{RUN}").proposal.id
