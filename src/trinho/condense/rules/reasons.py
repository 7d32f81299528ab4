"""Why the gate held or applied a change, and why an approval came too late, as codes.

The gate and `apply_held` decide with codes and plain parameters; the text is rendered where
the owner reads it, in their locale, so a proposal made under one locale reads right after the
owner switches. The English rendering is also kept as `reason` in stored changes and `--json`
output, where it stays the same whatever the locale. Older stored changes have no code: their
English `reason` is shown as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from trinho.i18n import t
from trinho.i18n.keys import GATE_REASON, OWNER_REASON, STALE_REASON

Param = str | int | float
Params = tuple[tuple[str, Param], ...]
"""Parameters in a hashable form (a change is a dict key); dates are ISO strings."""

ReasonCode = Literal[
    "added_in_window",
    "not_a_date",
    "future",
    "outside_window",
    "new_date_not_a_date",
    "old_date_not_a_date",
    "moved_earlier",
    "moved_later",
    "edited",
    "edited_letters",
    "malformed",
    "control_chars",
    "screen_unreadable",
    "screen_failed",
    "suspicious",
    "heading_added",
    "heading_removed",
    "heading_accepted",
    "heading_unscreened",
    "heading_takes_entries",
    "duplicate_heading",
    "edited_heading",
    "order_changed",
    "section_changed",
    "removed_entry",
    "removed_line",
    "removed_heading",
    "removed_marker",
    "duplicate_of_entry",
    "duplicate_addition",
    "over_budget",
]
REASON_CODES: tuple[str, ...] = get_args(ReasonCode)

StaleCode = Literal["memory_changed", "line_gone"]
STALE_CODES: tuple[str, ...] = get_args(StaleCode)

ENGLISH = "en"


@dataclass(frozen=True)
class Reason:
    """A gate decision's why: a code of `REASON_CODES` and the values its text shows."""

    code: ReasonCode
    params: Params = ()

    @classmethod
    def of(cls, code: ReasonCode, **params: Param) -> Reason:
        return cls(code, tuple(params.items()))

    def text(self, locale: str) -> str:
        return reason_text(self.code, self.params, locale)


@dataclass(frozen=True)
class StaleReason:
    """Why a held change can no longer be applied: a code of `STALE_CODES` and its values."""

    code: StaleCode
    params: Params = ()

    @classmethod
    def of(cls, code: StaleCode, **params: Param) -> StaleReason:
        return cls(code, tuple(params.items()))

    def text(self, locale: str) -> str:
        return stale_text(self.code, self.params, locale)


def reason_key(code: str) -> str:
    return GATE_REASON[code]


def stale_key(code: str) -> str:
    return STALE_REASON[code]


def reason_text(code: str, params: Params | Mapping[str, Any], locale: str) -> str:
    return t(locale, reason_key(code), **dict(params))


def stale_text(code: str, params: Params | Mapping[str, Any], locale: str) -> str:
    return t(locale, stale_key(code), **dict(params))


def stored_reason(change: Mapping[str, Any], fallback: str, locale: str) -> str:
    """The reason of a stored change (a proposal's, a run journal's) in `locale`.

    `fallback` (the stored text) is shown when the change has no usable code: a file written
    before codes existed, or one whose code or parameters this version cannot render.
    """
    params = change.get("reason_params") or {}
    if not isinstance(params, dict):
        return fallback
    return reason_or(change.get("reason_code"), params, fallback, locale)


def owner_reason(
    change: Mapping[str, Any], fallback: str, locale: str, why: str | None = None
) -> str:
    """A stored MEMORY.md change's reason as every review surface words it for the owner:
    in words where the gate's text is technical (`OWNER_REASON`: a similarity, a size), with
    the model's own reason beside it when it gave one (a removal's `REMOVE [n] reason`)."""
    code = change.get("reason_code")
    if isinstance(code, str) and code in OWNER_REASON:
        params = change.get("reason_params")
        count = params.get("count") if isinstance(params, dict) else None
        counted = {"count": count} if isinstance(count, int) else {}
        reason = t(locale, OWNER_REASON[code], **counted)
    else:
        reason = stored_reason(change, fallback, locale)
    return t(locale, "review.reason_with_why", reason=reason, why=why) if why else reason


def reason_or(code: object, params: Params | Mapping[str, Any], fallback: str, locale: str) -> str:
    """`code` rendered in `locale`, or `fallback` when there is no code or it does not render
    (unknown to this version, parameters missing or of the wrong type)."""
    if not isinstance(code, str) or code not in GATE_REASON:
        return fallback
    try:
        return reason_text(code, params, locale)
    except (KeyError, ValueError, TypeError, IndexError):
        return fallback
