"""The catalog keys chosen by a value (a change's class, a run's outcome, a status).

Each is a literal `N_("key")`, so Babel's extraction sees every key the code can ask for;
a value missing here is one the code does not know (a file from a newer version).
"""

from __future__ import annotations

from trinho.i18n import N_

GATE_CLASS: dict[str, str] = {
    "added": N_("gate.class.added"),
    "archive": N_("gate.class.archive"),
    "date_changed": N_("gate.class.date_changed"),
    "edited": N_("gate.class.edited"),
    "folded": N_("gate.class.folded"),
    "malformed": N_("gate.class.malformed"),
    "moved": N_("gate.class.moved"),
    "removed": N_("gate.class.removed"),
    "strange_date": N_("gate.class.strange_date"),
    "suspicious": N_("gate.class.suspicious"),
}
"""A change's class (`Change.cls`) -> its label."""

GATE_ACTION: dict[str, str] = {
    "auto": N_("gate.action.auto"),
    "held": N_("gate.action.held"),
}
"""The gate's action on a change -> its label."""

GATE_REASON: dict[str, str] = {
    "added_in_window": N_("gate.reason.added_in_window"),
    "control_chars": N_("gate.reason.control_chars"),
    "duplicate_addition": N_("gate.reason.duplicate_addition"),
    "duplicate_of_entry": N_("gate.reason.duplicate_of_entry"),
    "edited": N_("gate.reason.edited"),
    "edited_letters": N_("gate.reason.edited_letters"),
    "duplicate_heading": N_("gate.reason.duplicate_heading"),
    "heading_takes_entries": N_("gate.reason.heading_takes_entries"),
    "edited_heading": N_("gate.reason.edited_heading"),
    "future": N_("gate.reason.future"),
    "heading_accepted": N_("gate.reason.heading_accepted"),
    "heading_added": N_("gate.reason.heading_added"),
    "heading_removed": N_("gate.reason.heading_removed"),
    "heading_unscreened": N_("gate.reason.heading_unscreened"),
    "malformed": N_("gate.reason.malformed"),
    "moved_earlier": N_("gate.reason.moved_earlier"),
    "moved_later": N_("gate.reason.moved_later"),
    "new_date_not_a_date": N_("gate.reason.new_date_not_a_date"),
    "not_a_date": N_("gate.reason.not_a_date"),
    "old_date_not_a_date": N_("gate.reason.old_date_not_a_date"),
    "order_changed": N_("gate.reason.order_changed"),
    "outside_window": N_("gate.reason.outside_window"),
    "over_budget": N_("gate.reason.over_budget"),
    "removed_entry": N_("gate.reason.removed_entry"),
    "removed_heading": N_("gate.reason.removed_heading"),
    "removed_line": N_("gate.reason.removed_line"),
    "removed_marker": N_("gate.reason.removed_marker"),
    "screen_failed": N_("gate.reason.screen_failed"),
    "screen_unreadable": N_("gate.reason.screen_unreadable"),
    "section_changed": N_("gate.reason.section_changed"),
    "suspicious": N_("gate.reason.suspicious"),
}
"""A reason code (`REASON_CODES`) -> its text."""

STALE_REASON: dict[str, str] = {
    "line_gone": N_("condense.stale.line_gone"),
    "memory_changed": N_("condense.stale.memory_changed"),
}
"""A stale code (`STALE_CODES`) -> its text."""

RUN_OUTCOME: dict[str, str] = {
    "already_done": N_("condense.outcome.already_done"),
    "done": N_("condense.outcome.done"),
    "dry_run": N_("condense.outcome.dry_run"),
    "resumed": N_("condense.outcome.resumed"),
    "skipped": N_("condense.outcome.skipped"),
}
"""A condense run's outcome -> its line."""

SCREEN_DECISION: dict[str, str] = {
    "accept": N_("condense.screen.accept"),
    "reject": N_("condense.screen.reject"),
    "unreadable": N_("condense.screen.unreadable"),
    "unscreened": N_("condense.screen.unscreened"),
}
"""A screening decision -> its label."""

LINE_NOTE: dict[str, str] = {
    "hand_edit": N_("condense.note.hand_edit"),
    "rejected_before": N_("condense.note.rejected_before"),
}
"""Why a line was proposed, not applied -> its note."""

IGNORED_WHY: dict[str, str] = {
    "cut": N_("condense.ignored.cut"),
    "line_taken": N_("condense.ignored.line_taken"),
    "no_such_line": N_("condense.ignored.no_such_line"),
    "not_a_line": N_("condense.ignored.not_a_line"),
    "not_an_entry": N_("condense.ignored.not_an_entry"),
    "not_shown": N_("condense.ignored.not_shown"),
    "unreadable": N_("condense.ignored.unreadable"),
    "whole_file": N_("condense.ignored.whole_file"),
}
"""Why a model's change was ignored -> its text."""

APPROVED: dict[str, str] = {
    "added": N_("condense.approved.added"),
    "archive": N_("condense.approved.archive"),
    "date_changed": N_("condense.approved.date_changed"),
    "edited": N_("condense.approved.edited"),
    "malformed": N_("condense.approved.malformed"),
    "removed": N_("condense.approved.removed"),
    "strange_date": N_("condense.approved.strange_date"),
    "suspicious": N_("condense.approved.suspicious"),
}
"""An approved memory change's class -> what was done."""

CHANNEL_KIND: dict[str, str] = {
    "archive": N_("channel.kind.archive"),
    "edited": N_("channel.kind.edited"),
    "fact": N_("channel.kind.fact"),
    "malformed": N_("channel.kind.malformed"),
    "other": N_("channel.kind.other"),
    "removed": N_("channel.kind.removed"),
    "strange_date": N_("channel.kind.strange_date"),
    "suspicious": N_("channel.kind.suspicious"),
}
"""A notification's kind -> its label."""

RISK_LABEL: dict[int, str] = {
    0: N_("channel.risk.removes"),
    1: N_("channel.risk.archives"),
    2: N_("channel.risk.replaces_owner"),
    3: N_("channel.risk.edits"),
    4: N_("channel.risk.adds"),
}
"""A change's risk (`trinho.review.risk.Risk`) -> the word its line in a summary starts with."""

DECIDED_LABEL: dict[str, str] = {
    "approved": N_("channel.state.approved"),
    "rejected": N_("channel.state.rejected"),
    "stale": N_("channel.state.stale"),
    "reverted": N_("channel.state.reverted"),
}
"""Where a decided change stands -> the word its line in a summary ends with."""

OWNER_REASON: dict[str, str] = {
    "edited": N_("review.why.edited"),
    "edited_heading": N_("review.why.edited_heading"),
}
"""Gate reasons whose technical text (a similarity) the owner's review says in words instead;
the run report keeps the technical one. An archive's (a token count) is said by
`trinho.condense.rules.archive.budget_words`."""

BASIS_WORDS: dict[str, str] = {
    "user": N_("web.fact.basis_user"),
    "inferred": N_("web.fact.basis_inferred"),
}
"""A fact value's basis -> who it comes from, in words (never the field's code)."""

FACT_REASON: dict[str, str] = {
    "contradicts_user": N_("fact.reason.contradicts_user"),
    "job": N_("fact.reason.job"),
    "hidden_chars": N_("fact.reason.hidden_chars"),
}
"""Why a fact change waits for approval -> its text."""

FACT_OUTCOME: dict[str, str] = {
    "created": N_("fact.outcome.created"),
    "historical": N_("fact.outcome.historical"),
    "proposed": N_("fact.outcome.proposed"),
    "superseded": N_("fact.outcome.superseded"),
    "unchanged": N_("fact.outcome.unchanged"),
}
"""A fact write's outcome -> its line."""

PROPOSAL_STATUS: dict[str, str] = {
    "approved": N_("proposal.status.approved"),
    "pending": N_("proposal.status.pending"),
    "rejected": N_("proposal.status.rejected"),
    "stale": N_("proposal.status.stale"),
    "reverted": N_("proposal.status.reverted"),
}
"""A proposal's status -> its label."""

BUDGET_OVER: dict[str, str] = {
    "run": N_("budget.over_run"),
    "week": N_("budget.over_week"),
}
"""Which budget a model call would pass -> its error."""

BUDGET_WARNING: dict[str, str] = {
    "facts": N_("context.budget_warning.facts"),
    "memory": N_("context.budget_warning.memory"),
    "notes": N_("context.budget_warning.notes"),
}
"""The context part over its budget -> the warning."""
