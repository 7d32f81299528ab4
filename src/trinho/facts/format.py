"""The fact file: `users/<user>/facts/<key>.md`, written and read back exactly (docs/files.md).

Front matter holds the latest version, a `## History` list every earlier one. Reading names the
file and line of any problem, in the owner's locale, and says how to fix it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import Any

from trinho.clock import parse_day
from trinho.errors import TrinhoError
from trinho.facts.rules import BASES, Basis, Fact, FactVersion, Incoming
from trinho.textnorm import nfc, one_line, unify_breaks, validate_slug

MAX_VALUE_BYTES = 16 * 1024
"""A fact is a short statement; anything longer belongs in notes or MEMORY.md."""
_BAD_CHARS_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")

_FIELDS = ("value", "basis", "valid_from", "valid_to", "recorded_at", "confirmed_on", "source")
_OPTIONAL = ("valid_to", "confirmed_on")

Raw = dict[str, tuple[str, int]]
"""A version's fields as written: name to (text, line number)."""


def clean_value(value: str, key: str) -> str:
    """NFC, one kind of line break, no control characters, at most MAX_VALUE_BYTES."""
    cleaned = unify_breaks(nfc(value)).strip()
    if not cleaned:
        raise TrinhoError.keyed("error.fact.empty_value", key=key)
    size = len(cleaned.encode("utf-8"))
    if size > MAX_VALUE_BYTES:
        raise TrinhoError.keyed(
            "error.fact.value_too_long", key=key, size=size, limit=MAX_VALUE_BYTES
        )
    bad = _BAD_CHARS_RE.search(cleaned)
    if bad:
        raise TrinhoError.keyed("error.fact.control_char", key=key, code=ord(bad.group()))
    return cleaned


def check_basis(value: str) -> Basis:
    if value not in BASES:
        raise TrinhoError.keyed("error.fact.bad_basis", value=value, choices=", ".join(BASES))
    return value


# ---- writing -----------------------------------------------------------------------------------


def render_fact(fact: Fact) -> str:
    """The fact file: front matter for the latest version, then the history, oldest first."""
    lines = ["---", f"key: {fact.key}"]
    if fact.head:
        lines += _version_lines(fact.head, "")
    lines.append("---")
    if fact.history:
        lines += ["", "## History", ""]
        for version in fact.history:
            first, *rest = _version_lines(version, "  ")
            lines += ["- " + first.lstrip(), *rest]
    return "\n".join(lines) + "\n"


def _version_lines(v: FactVersion, indent: str) -> list[str]:
    values: dict[str, str | None] = {
        "value": json.dumps(v.value, ensure_ascii=False),
        "basis": v.basis,
        "valid_from": v.valid_from.isoformat(),
        "valid_to": v.valid_to.isoformat() if v.valid_to else None,
        "recorded_at": v.recorded_at.isoformat(),
        "confirmed_on": v.confirmed_on.isoformat() if v.confirmed_on else None,
        "source": json.dumps(v.source, ensure_ascii=False),
    }
    return [f"{indent}{name}: {text}" for name, text in values.items() if text is not None]


# ---- reading -----------------------------------------------------------------------------------


def parse_fact(text: str, where: str, expected_key: str | None = None) -> Fact:
    """Read a fact file; any problem names the file (`where`) and line and how to fix it."""
    lines = unify_breaks(text.removeprefix("\ufeff")).split("\n")  # an editor's BOM is no text
    close = _front_matter_end(lines, where)
    front: Raw = {}
    for number in range(2, close + 1):
        _field_into(front, lines[number - 1], number, where)
    key = _key(front, where, close + 1, expected_key)
    head = _version(front, where) if front else None
    history = _history(lines, close + 2, where)
    for version in history:
        if version.valid_to is None:
            raise TrinhoError.keyed("error.fact_file.no_valid_to", where=where, line=version.line)
    return Fact(key, head, tuple(history))


def _front_matter_end(lines: list[str], where: str) -> int:
    """The index of the closing '---' line (its line number less one)."""
    if not lines or lines[0].strip() != "---":
        raise TrinhoError.keyed("error.fact_file.no_front_matter", where=where, line=1)
    try:
        return next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise TrinhoError.keyed("error.fact_file.not_closed", where=where, line=1) from None


def _key(front: Raw, where: str, close_line: int, expected: str | None) -> str:
    """Take the `key:` field out of the front matter and check it names this file."""
    found = front.pop("key", None)
    if found is None:
        raise TrinhoError.keyed("error.fact_file.no_key", where=where, line=close_line)
    key, line = found
    validate_slug(key, "fact key", f"{where}:{line}")
    if expected is not None and key != expected:
        raise TrinhoError.keyed(
            "error.fact_file.key_mismatch", where=where, line=line, key=key, expected=expected
        )
    return key


def _history(lines: list[str], first: int, where: str) -> list[FactVersion]:
    """The `## History` items from line `first` on, each read when the next one starts."""
    history: list[FactVersion] = []
    item: Raw | None = None
    for number in range(first, len(lines) + 1):
        line = lines[number - 1]
        if line.startswith("- "):
            if item is not None:
                history.append(_version(item, where))
            item = {}
            _field_into(item, line[2:], number, where)
        elif item is not None and line.startswith("  ") and line.strip():
            _field_into(item, line, number, where)
        elif line.strip() and not line.lstrip().startswith("#"):
            raise TrinhoError.keyed("error.fact_file.unexpected_line", where=where, line=number)
    if item is not None:
        history.append(_version(item, where))
    return history


def _field_into(target: Raw, line: str, number: int, where: str) -> None:
    name, sep, rest = line.strip().partition(":")
    if not sep or (name not in _FIELDS and name != "key"):
        fields = ", ".join(("key", *_FIELDS))
        raise TrinhoError.keyed(
            "error.fact_file.bad_field", where=where, line=number, fields=fields
        )
    if name in target:
        raise TrinhoError.keyed("error.fact_file.field_twice", where=where, line=number, name=name)
    target[name] = (rest.strip(), number)


def _version(raw: Raw, where: str) -> FactVersion:
    """One version from its fields; `raw` holds at least one (the line it starts on)."""
    for name in _FIELDS:
        if name not in raw and name not in _OPTIONAL:
            first = min(number for _, number in raw.values())
            raise TrinhoError.keyed(
                "error.fact_file.missing_field", where=where, line=first, name=name
            )
    basis_text, basis_line = raw["basis"]
    recorded_at = _recorded_at(raw, where)
    if basis_text not in BASES:
        raise TrinhoError.keyed(
            "error.fact_file.bad_basis", where=where, line=basis_line, choices=", ".join(BASES)
        )
    valid_from = parse_day(raw["valid_from"][0], f"{where}:{raw['valid_from'][1]}: valid_from")
    valid_to = _day(raw, "valid_to", where)
    if valid_to is not None and valid_to < valid_from:
        raise TrinhoError.keyed("error.fact_file.dates_order", where=where, line=raw["valid_to"][1])
    return FactVersion(
        value=_json_text(raw, "value", where),
        basis=basis_text,
        valid_from=valid_from,
        valid_to=valid_to,
        recorded_at=recorded_at,
        source=_json_text(raw, "source", where),
        confirmed_on=_day(raw, "confirmed_on", where),
        line=raw["value"][1],
    )


def _json_text(raw: Raw, name: str, where: str) -> str:
    value, number = raw[name]
    try:
        decoded = json.loads(value)
    except json.JSONDecodeError:
        decoded = None
    if not isinstance(decoded, str):
        raise TrinhoError.keyed(
            "error.fact_file.not_json_string", where=where, line=number, name=name
        )
    return decoded


def _day(raw: Raw, name: str, where: str) -> date | None:
    if name not in raw:
        return None
    value, number = raw[name]
    return parse_day(value, f"{where}:{number}: {name}")


def _recorded_at(raw: Raw, where: str) -> datetime:
    text, number = raw["recorded_at"]
    try:
        recorded_at = datetime.fromisoformat(text)
    except ValueError:
        recorded_at = None
    if recorded_at is None or recorded_at.tzinfo is None:
        raise TrinhoError.keyed("error.fact_file.bad_recorded_at", where=where, line=number)
    return recorded_at


MAX_SOURCE_CHARS = 200


def clean_source(text: str) -> str:
    """Where a value came from: one NFC line of at most `MAX_SOURCE_CHARS` characters."""
    cleaned = one_line(nfc(text))
    if not cleaned or len(cleaned) > MAX_SOURCE_CHARS:
        raise TrinhoError.keyed("error.fact.source_length", limit=MAX_SOURCE_CHARS)
    return cleaned


def fact_digest(fact: Fact | None) -> str | None:
    """Identifies the fact's stored state, so an approval can tell that it changed since.

    The owner restating the same value only moves `confirmed_on`: that is not a change that
    makes a pending proposal stale.
    """
    if fact is None:
        return None

    def plain(v: FactVersion) -> FactVersion:
        return replace(v, confirmed_on=None)

    state = Fact(fact.key, plain(fact.head) if fact.head else None, tuple(map(plain, fact.history)))
    return hashlib.sha256(render_fact(state).encode("utf-8")).hexdigest()[:16]


CHANGE_CONTEXT = ("current_value", "current_basis", "base")
"""The keys of a fact proposal that describe the fact when it was proposed, not the change."""


def proposal_change(
    user: str, incoming: Incoming, current: Fact | None, today: date
) -> dict[str, object]:
    """A fact proposal's change: what is asked, and the fact as it stood (`CHANGE_CONTEXT`)."""
    live = current.live_head(today) if current else None
    return {
        "user": user,
        "key": incoming.key,
        "value": incoming.value,
        "basis": incoming.basis,
        "valid_from": incoming.valid_from.isoformat() if incoming.valid_from else None,
        "valid_to": incoming.valid_to.isoformat() if incoming.valid_to else None,
        "current_value": live.value if live else None,
        "current_basis": live.basis if live else None,
        "base": fact_digest(current),
    }


@dataclass(frozen=True)
class FactChange:
    """What a fact proposal asks, read back from its stored change."""

    user: str
    key: str
    value: str
    valid_from: date | None
    valid_to: date | None
    base: object
    """The fact's digest when it was proposed (`fact_digest`): approving checks it is still so."""


def fact_target(change: Mapping[str, Any], where: str) -> tuple[str, str]:
    """The (user, key) a stored fact change is about; one keyed line when one is missing."""
    try:
        return (
            validate_slug(str(change["user"]), "user id", where),
            validate_slug(str(change["key"]), "fact key", where),
        )
    except KeyError as missing:
        raise TrinhoError.keyed("error.field.missing", where=where, names=str(missing)) from None


def read_fact_change(change: Mapping[str, Any], where: str) -> FactChange:
    """A stored fact change, checked as a save checks it; `where` names the proposal."""
    user, key = fact_target(change, where)
    try:
        value = clean_value(str(change["value"]), key)
    except KeyError as missing:
        raise TrinhoError.keyed("error.field.missing", where=where, names=str(missing)) from None
    valid_from, valid_to = (
        parse_day(str(change[name]), f"{where}: {name}") if change.get(name) else None
        for name in ("valid_from", "valid_to")
    )
    return FactChange(user, key, value, valid_from, valid_to, change.get("base"))
