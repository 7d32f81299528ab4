"""Which applier carries out an approved proposal of each built-in kind.

Wired here, in one place, so `trinho.proposals.store` knows no kind of change and imports no store:
whoever decides (the CLI, the channels' decider, the demo) passes `APPLIERS` to
`proposals.approve`, and a new kind is one more entry (or the caller's own mapping).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from trinho.condense.store.apply import apply_memory_proposal
from trinho.facts.store import apply_fact_proposal
from trinho.proposals.store import Applier

APPLIERS: Mapping[str, Applier] = MappingProxyType(
    {"fact": apply_fact_proposal, "memory": apply_memory_proposal}
)
