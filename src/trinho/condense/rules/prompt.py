"""A condensation prompt's text and filling it in: a value, read from the package's files by
`trinho.condense.store.prompts`.

A prompt file may tag a rule with ids (` [[numbered no_echo]]` at the end of the rule's first
line): the tags are taken out of the text the model reads and kept as `rules`, so a shorter
prompt can be checked to state every rule of the full one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

_PLACEHOLDER_RE = re.compile(r"\{([a-z_]+)\}")
_RULE_TAG_RE = re.compile(r" \[\[([a-z_ ]+)\]\]")


@dataclass(frozen=True)
class Prompt:
    name: str
    version: str
    """E.g. "rewrite.v1": the file the text came from."""
    text: str
    rules: frozenset[str] = frozenset()
    """The ids of the rules the text states (see the module docstring)."""

    @classmethod
    def tagged(cls, name: str, version: str, source: str) -> Prompt:
        """The prompt of a file's `source`, its rule tags taken out of the text."""
        rules = frozenset(i for tag in _RULE_TAG_RE.findall(source) for i in tag.split())
        return cls(name, version, _RULE_TAG_RE.sub("", source), rules)

    @property
    def placeholders(self) -> frozenset[str]:
        """The `{name}`s the text holds: `fill` must be given every one."""
        return frozenset(_PLACEHOLDER_RE.findall(self.text))

    def fill(self, today: date, since: date, **values: object) -> str:
        """The text with `{today}`, `{since}` and each `{name}` of `values` filled in."""
        text = self.text.replace("{today}", today.isoformat()).replace("{since}", since.isoformat())
        for name, value in values.items():
            text = text.replace(f"{{{name}}}", str(value))
        return text
