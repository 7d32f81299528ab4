"""Shared facts about a user, in four parts that import only downwards:

- `trinho.facts.rules`: the reconciliation table of docs/rules.md and its plain values (pure);
- `trinho.facts.format`: the fact file, written and read back;
- `trinho.facts.render`: the facts index, one line a fact that holds (pure);
- `trinho.facts.store`: the files under `users/<user>/facts/`, saving and reading them.

The prompt takes the index through `trinho.context.assembly`. Every name is also here, loaded
on first use, so importing the pure rules never loads the store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trinho.exports import lazy_exports

if TYPE_CHECKING:
    from trinho.facts.format import CHANGE_CONTEXT as CHANGE_CONTEXT
    from trinho.facts.format import MAX_SOURCE_CHARS as MAX_SOURCE_CHARS
    from trinho.facts.format import MAX_VALUE_BYTES as MAX_VALUE_BYTES
    from trinho.facts.format import check_basis as check_basis
    from trinho.facts.format import clean_source as clean_source
    from trinho.facts.format import clean_value as clean_value
    from trinho.facts.format import fact_digest as fact_digest
    from trinho.facts.format import parse_fact as parse_fact
    from trinho.facts.format import render_fact as render_fact
    from trinho.facts.render import DEFAULT_INDEX_CHARS as DEFAULT_INDEX_CHARS
    from trinho.facts.render import FactsIndex as FactsIndex
    from trinho.facts.render import IndexLine as IndexLine
    from trinho.facts.render import build_index as build_index
    from trinho.facts.render import index_line as index_line
    from trinho.facts.rules import ACTORS as ACTORS
    from trinho.facts.rules import BASES as BASES
    from trinho.facts.rules import ActorKind as ActorKind
    from trinho.facts.rules import Basis as Basis
    from trinho.facts.rules import Decision as Decision
    from trinho.facts.rules import Fact as Fact
    from trinho.facts.rules import FactConflict as FactConflict
    from trinho.facts.rules import FactOutcome as FactOutcome
    from trinho.facts.rules import FactVersion as FactVersion
    from trinho.facts.rules import Incoming as Incoming
    from trinho.facts.rules import ProposalReason as ProposalReason
    from trinho.facts.rules import check_actor as check_actor
    from trinho.facts.rules import check_dates as check_dates
    from trinho.facts.rules import reconcile as reconcile
    from trinho.facts.store import FACTS_DIR as FACTS_DIR
    from trinho.facts.store import FactListing as FactListing
    from trinho.facts.store import Saved as Saved
    from trinho.facts.store import VersionRef as VersionRef
    from trinho.facts.store import apply_fact_proposal as apply_fact_proposal
    from trinho.facts.store import fact_on as fact_on
    from trinho.facts.store import fact_path as fact_path
    from trinho.facts.store import facts_dir as facts_dir
    from trinho.facts.store import facts_index as facts_index
    from trinho.facts.store import get_fact as get_fact
    from trinho.facts.store import iter_fact_versions as iter_fact_versions
    from trinho.facts.store import list_facts as list_facts
    from trinho.facts.store import load_fact as load_fact
    from trinho.facts.store import save_fact as save_fact


__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "trinho.facts.render": (
            "DEFAULT_INDEX_CHARS",
            "FactsIndex",
            "IndexLine",
            "build_index",
            "index_line",
        ),
        "trinho.facts.format": (
            "CHANGE_CONTEXT",
            "MAX_SOURCE_CHARS",
            "MAX_VALUE_BYTES",
            "check_basis",
            "clean_source",
            "clean_value",
            "fact_digest",
            "parse_fact",
            "render_fact",
        ),
        "trinho.facts.rules": (
            "ACTORS",
            "BASES",
            "ActorKind",
            "Basis",
            "Decision",
            "Fact",
            "FactConflict",
            "FactOutcome",
            "FactVersion",
            "Incoming",
            "ProposalReason",
            "check_actor",
            "check_dates",
            "reconcile",
        ),
        "trinho.facts.store": (
            "FACTS_DIR",
            "FactListing",
            "Saved",
            "VersionRef",
            "apply_fact_proposal",
            "fact_on",
            "fact_path",
            "facts_dir",
            "facts_index",
            "get_fact",
            "iter_fact_versions",
            "list_facts",
            "load_fact",
            "save_fact",
        ),
    },
)
