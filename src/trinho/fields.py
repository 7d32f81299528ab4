"""Reading the JSON records trinho persists, one checked field at a time.

Every persisted record (a run journal, a proposal, an outbox entry, a usage ledger line) has
`to_json(self) -> dict` and `from_json(cls, data, where)`. `from_json` reads its fields with
these helpers, so a damaged file fails with a keyed error naming the file (`where`) and the
field, never with a bare KeyError or a half-read record.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

from trinho.errors import TrinhoError

if TYPE_CHECKING:
    from pathlib import Path

Where: TypeAlias = "str | Path"
"""The file a record was read from, as an error shows it (only ever an annotation, so the
module needs no `pathlib` to run)."""

T = TypeVar("T")


def as_object(data: object, where: Where) -> Mapping[str, Any]:
    """The record itself: a JSON object."""
    if not isinstance(data, dict):
        raise TrinhoError.keyed("error.record.not_object", file=str(where))
    return data


def typed(data: Mapping[str, Any], name: str, kind: type[T], where: Where) -> T:
    """A field that must be there and of `kind` (a bool is not an int)."""
    value = data.get(name)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TrinhoError.keyed(
            "error.record.type", file=str(where), field=name, kind=kind.__name__
        )
    return value


def maybe(data: Mapping[str, Any], name: str, kind: type[T], where: Where) -> T | None:
    """A field that may be missing or null."""
    return None if data.get(name) is None else typed(data, name, kind, where)


def flag(data: Mapping[str, Any], name: str, default: bool, where: Where) -> bool:
    """A true/false field, `default` when missing."""
    return default if name not in data else typed(data, name, bool, where)


def items(data: Mapping[str, Any], name: str, where: Where) -> list[Any]:
    """A list field, empty when missing."""
    return [] if name not in data else typed(data, name, list, where)


def choice(data: Mapping[str, Any], name: str, allowed: Collection[str], where: Where) -> str:
    """A field whose value is one of `allowed`."""
    value = data.get(name)
    if value not in allowed:
        raise TrinhoError.keyed(
            "error.record.choice",
            file=str(where),
            field=name,
            value=value,
            allowed=", ".join(allowed),
        )
    return str(value)


def moment(data: Mapping[str, Any], name: str, where: Where) -> datetime:
    """An ISO 8601 time with its UTC offset."""
    text = typed(data, name, str, where)
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise TrinhoError.keyed("error.record.not_iso", file=str(where), field=name) from None
    if value.tzinfo is None:
        raise TrinhoError.keyed("error.record.no_offset", file=str(where), field=name)
    return value


def maybe_moment(data: Mapping[str, Any], name: str, where: Where) -> datetime | None:
    return None if data.get(name) is None else moment(data, name, where)


def iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()
