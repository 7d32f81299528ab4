"""Shared facts about a user, in three parts that import only downwards:

- `trinho.facts.rules`: the reconciliation table of docs/rules.md and its plain values (pure);
- `trinho.facts.format`: the fact file, written and read back;
- `trinho.facts.store`: the files under `users/<user>/facts/`, saving and reading them.

The prompt's facts index is built in `trinho.context.assembly`. Every name is also here, loaded
on first use, so importing the pure rules never loads the store.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trinho.context.assembly import (
        DEFAULT_INDEX_CHARS,
        FactsIndex,
        IndexLine,
        build_index,
        index_line,
    )
    from trinho.facts.format import (
        MAX_VALUE_BYTES,
        check_basis,
        clean_value,
        parse_fact,
        render_fact,
    )
    from trinho.facts.rules import (
        ACTORS,
        BASES,
        ActorKind,
        Basis,
        Decision,
        Fact,
        FactConflict,
        FactOutcome,
        FactVersion,
        Incoming,
        ProposalReason,
        check_actor,
        check_dates,
        reconcile,
    )
    from trinho.facts.store import (
        CHANGE_CONTEXT,
        FACTS_DIR,
        MAX_SOURCE_CHARS,
        FactListing,
        Saved,
        VersionRef,
        apply_fact_proposal,
        fact_digest,
        fact_on,
        fact_path,
        facts_dir,
        facts_index,
        get_fact,
        iter_fact_versions,
        list_facts,
        load_fact,
        save_fact,
    )

__all__ = [
    "ACTORS",
    "BASES",
    "CHANGE_CONTEXT",
    "DEFAULT_INDEX_CHARS",
    "FACTS_DIR",
    "MAX_SOURCE_CHARS",
    "MAX_VALUE_BYTES",
    "ActorKind",
    "Basis",
    "Decision",
    "Fact",
    "FactConflict",
    "FactListing",
    "FactOutcome",
    "FactVersion",
    "FactsIndex",
    "Incoming",
    "IndexLine",
    "ProposalReason",
    "Saved",
    "VersionRef",
    "apply_fact_proposal",
    "build_index",
    "check_actor",
    "check_basis",
    "check_dates",
    "clean_value",
    "fact_digest",
    "fact_on",
    "fact_path",
    "facts_dir",
    "facts_index",
    "get_fact",
    "index_line",
    "iter_fact_versions",
    "list_facts",
    "load_fact",
    "parse_fact",
    "reconcile",
    "render_fact",
    "save_fact",
]

_RULES = "trinho.facts.rules"
_FORMAT = "trinho.facts.format"
_STORE = "trinho.facts.store"
_CONTEXT = "trinho.context.assembly"
_MODULE_OF: dict[str, str] = {
    "ACTORS": _RULES,
    "BASES": _RULES,
    "ActorKind": _RULES,
    "Basis": _RULES,
    "Decision": _RULES,
    "Fact": _RULES,
    "FactConflict": _RULES,
    "FactOutcome": _RULES,
    "FactVersion": _RULES,
    "Incoming": _RULES,
    "ProposalReason": _RULES,
    "check_actor": _RULES,
    "check_dates": _RULES,
    "reconcile": _RULES,
    "MAX_VALUE_BYTES": _FORMAT,
    "check_basis": _FORMAT,
    "clean_value": _FORMAT,
    "parse_fact": _FORMAT,
    "render_fact": _FORMAT,
    "CHANGE_CONTEXT": _STORE,
    "FACTS_DIR": _STORE,
    "MAX_SOURCE_CHARS": _STORE,
    "FactListing": _STORE,
    "Saved": _STORE,
    "VersionRef": _STORE,
    "apply_fact_proposal": _STORE,
    "fact_digest": _STORE,
    "fact_on": _STORE,
    "fact_path": _STORE,
    "facts_dir": _STORE,
    "facts_index": _STORE,
    "get_fact": _STORE,
    "iter_fact_versions": _STORE,
    "list_facts": _STORE,
    "load_fact": _STORE,
    "save_fact": _STORE,
    "DEFAULT_INDEX_CHARS": _CONTEXT,
    "FactsIndex": _CONTEXT,
    "IndexLine": _CONTEXT,
    "build_index": _CONTEXT,
    "index_line": _CONTEXT,
}
"""Where each name is defined."""


def __getattr__(name: str) -> object:
    """Load the submodule that defines `name` the first time it is asked for."""
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
