"""The condensation prompts: versioned files shipped in the package (`prompts/NAME.vN.md`).

A prompt is changed by adding a new version file and bumping `VERSIONS`; the version used is
recorded in every run report, so a run can be traced to the exact instructions it was given.
A version file may be shipped before it is current (`rewrite.v2`, the edit-script prompt of
`trinho.condense.rules.ops`); `load_prompt(name, version)` reads it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from importlib import resources

VERSIONS: dict[str, int] = {"rewrite": 2, "screen": 1}
FILE_REWRITE_VERSION = 1
"""The whole-file rewrite prompt, kept for `[condense] protocol = "file"`."""
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


def load_prompt(name: str, version: int | None = None) -> Prompt:
    """Prompt `name` ("rewrite" or "screen"): its current version, or the one asked for."""
    file = f"{name}.v{VERSIONS[name] if version is None else version}"
    text = resources.files("trinho.condense").joinpath("prompts", f"{file}.md")
    return Prompt(name, file, text.read_text(encoding="utf-8"))
