"""Checking tool arguments against the tools' JSON Schemas, with messages a model can act on.

Only the subset of JSON Schema the tools use is understood (object, string, integer, number,
boolean, array; properties, required, additionalProperties, enum, minLength, maxLength, pattern,
minimum, maximum, items, maxItems, uniqueItems, format "date"). A schema using anything else
is refused when checked, so a tool can never rely on a keyword that is silently ignored.

The request lines `trinho call --serve` reads are checked here too: one JSON request a line,
so a host that keeps one trinho running (the OpenClaw plugin) gets one clear refusal for a
malformed line and the same answer as `trinho call` for a good one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

from trinho.errors import TrinhoError

KNOWN_KEYWORDS = frozenset(
    {
        "type",
        "description",
        "properties",
        "required",
        "additionalProperties",
        "enum",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "items",
        "maxItems",
        "uniqueItems",
        "format",
        "default",
        "examples",
    }
)

_TYPE_NAMES = {
    "object": "an object",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
}


def unknown_keywords(schema: Mapping[str, Any]) -> set[str]:
    """Keywords in `schema` (at any depth) that `check` does not understand."""
    found = set(schema) - KNOWN_KEYWORDS
    for sub in schema.get("properties", {}).values():
        found |= unknown_keywords(sub)
    if isinstance(schema.get("items"), Mapping):
        found |= unknown_keywords(schema["items"])
    return found


def _is_type(value: Any, kind: str) -> bool:
    if kind == "object":
        return isinstance(value, dict)
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "array":
        return isinstance(value, list)
    raise ValueError(f"unsupported schema type {kind!r}")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check(value: Any, schema: Mapping[str, Any], where: str = "arguments") -> list[str]:
    """Every way `value` breaks `schema`, each naming where (e.g. `limit`), empty when it fits."""
    kind = schema.get("type")
    if kind is not None and not _is_type(value, kind):
        return [f"{where}: must be {_TYPE_NAMES[kind]}, got {_shown(value)}"]
    errors: list[str] = []
    if "enum" in schema and value not in schema["enum"]:
        allowed = ", ".join(repr(v) for v in schema["enum"])
        errors.append(f"{where}: must be one of {allowed}, got {_shown(value)}")
    if isinstance(value, str):
        errors.extend(_check_string(value, schema, where))
    elif kind in ("integer", "number"):
        low, high = schema.get("minimum"), schema.get("maximum")
        if (low is not None and value < low) or (high is not None and value > high):
            bounds = f"from {low} to {high}" if high is not None else f"at least {low}"
            errors.append(f"{where}: must be {bounds}, got {_shown(value)}")
    elif isinstance(value, list):
        errors.extend(_check_array(value, schema, where))
    elif isinstance(value, dict):
        errors.extend(_check_object(value, schema, where))
    return errors


def _check_string(value: str, schema: Mapping[str, Any], where: str) -> list[str]:
    errors: list[str] = []
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate: it could never be stored
        errors.append(f"{where}: character {exc.start + 1} is a lone surrogate, not text")
    if "\x00" in value:
        errors.append(f"{where}: holds a NUL character")
    if len(value) < schema.get("minLength", 0):
        errors.append(
            f"{where}: must not be empty"
            if schema["minLength"] == 1
            else f"{where}: needs at least {schema['minLength']} characters"
        )
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        errors.append(
            f"{where}: is {len(value):,} characters; the limit is {schema['maxLength']:,}"
        )
    if "pattern" in schema and re.search(schema["pattern"], value) is None:
        errors.append(f"{where}: {_shown(value)} does not match {schema['pattern']}")
    if schema.get("format") == "date":
        try:
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
                raise ValueError
            date.fromisoformat(value)
        except ValueError:
            errors.append(f"{where}: {_shown(value)} is not a calendar date (YYYY-MM-DD)")
    return errors


def _check_array(value: list[Any], schema: Mapping[str, Any], where: str) -> list[str]:
    errors: list[str] = []
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        errors.append(f"{where}: at most {schema['maxItems']} items, got {len(value)}")
    if schema.get("uniqueItems") and len({repr(v) for v in value}) != len(value):
        errors.append(f"{where}: items must not repeat")
    items = schema.get("items")
    if isinstance(items, Mapping):
        for i, item in enumerate(value):
            errors.extend(check(item, items, f"{where}[{i}]"))
    return errors


def _check_object(value: dict[str, Any], schema: Mapping[str, Any], where: str) -> list[str]:
    errors: list[str] = []
    properties: Mapping[str, Any] = schema.get("properties", {})
    prefix = "" if where == "arguments" else f"{where}."
    for name in schema.get("required", []):
        if name not in value:
            errors.append(f"{prefix}{name}: required but missing")
    for name, item in value.items():
        if name in properties:
            errors.extend(check(item, properties[name], f"{prefix}{name}"))
        elif schema.get("additionalProperties") is False:
            known = ", ".join(properties) or "none"
            errors.append(f"{prefix}{name}: not an argument of this tool (known: {known})")
    return errors


RequestId = str | int | None


@dataclass(frozen=True)
class Request:
    """One call: the workspace it works on, who calls, the tool and its arguments."""

    id: RequestId
    workspace: str
    tool: str
    params: dict[str, Any]
    kind: Literal["chat", "job"] = "chat"
    agent: str = "main"
    profile: str | None = None


FIELDS = ("id", "workspace", "agent", "as", "tool", "params", "profile")


def request_id(line: str) -> RequestId:
    """The id a line names, when it names one, so a refusal can still be matched to it."""
    try:
        given = json.loads(line)
    except ValueError:
        return None
    if isinstance(given, dict):
        found = given.get("id")
        if isinstance(found, str | int) and not isinstance(found, bool):
            return found
    return None


def parse_request(line: str) -> Request:
    """`line` as a Request, or a keyed error naming the field that is wrong."""
    try:
        given = json.loads(line)
    except ValueError as exc:
        raise TrinhoError.keyed("error.serve.not_json", reason=str(exc)) from None
    if not isinstance(given, dict):
        raise TrinhoError.keyed("error.serve.not_object")
    unknown = sorted(set(given) - set(FIELDS))
    if unknown:
        raise TrinhoError.keyed(
            "error.serve.unknown_field", field=unknown[0], fields=", ".join(FIELDS)
        )
    ident = given.get("id")
    if isinstance(ident, bool) or not isinstance(ident, str | int | None):
        raise TrinhoError.keyed("error.serve.id")
    workspace = _text(given, "workspace", required=True)
    tool = _text(given, "tool", required=True)
    agent = _text(given, "agent") or "main"
    profile = _text(given, "profile")
    kind = given.get("as", "chat")
    if kind not in ("chat", "job"):
        raise TrinhoError.keyed("error.serve.as")
    params = given.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise TrinhoError.keyed("error.serve.params")
    return Request(ident, workspace or "", tool or "", params, kind, agent, profile)


def _text(given: dict[str, Any], name: str, *, required: bool = False) -> str | None:
    value = given.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise TrinhoError.keyed("error.serve.text", field=name)
    return value
