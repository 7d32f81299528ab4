"""A condensation prompt's text and filling it in: a value, read from the package's files by
`trinho.condense.store.prompts`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

_PLACEHOLDER_RE = re.compile(r"\{([a-z_]+)\}")


@dataclass(frozen=True)
class Prompt:
    name: str
    version: str
    """E.g. "rewrite.v1": the file the text came from."""
    text: str

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
