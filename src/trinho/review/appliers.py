"""Which applier carries out an approved proposal of each built-in kind, and which takes it back.

Wired here, in one place, so `trinho.proposals.store` knows no kind of change and imports no store:
whoever decides (the CLI, the channels' decider, the demo) passes `APPLIERS` to
`proposals.approve`, and a new kind is one more entry (or the caller's own mapping).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from trinho.condense.store.apply import apply_memory_proposal, take_back_memory_proposal
from trinho.facts.store import apply_fact_proposal, take_back_fact_proposal
from trinho.integrations.store import FILE_KIND, apply_file_proposal
from trinho.proposals.store import Applier

APPLIERS: Mapping[str, Applier] = MappingProxyType(
    {
        "fact": apply_fact_proposal,
        "memory": apply_memory_proposal,
        FILE_KIND: apply_file_proposal,
    }
)

TAKERS: Mapping[str, Applier] = MappingProxyType(
    {"fact": take_back_fact_proposal, "memory": take_back_memory_proposal}
)
"""How an approval of each built-in kind is taken back (`trinho.proposals.store.take_back`)."""
