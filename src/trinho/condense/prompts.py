"""The condensation prompts: versioned files shipped in the package (`prompts/NAME.vN.md`).

A prompt is changed by adding a new version file and bumping `VERSIONS`; the version used is
recorded in every run report, so a run can be traced to the exact instructions it was given.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from importlib import resources

VERSIONS: dict[str, int] = {"rewrite": 1, "screen": 1}


@dataclass(frozen=True)
class Prompt:
    name: str
    version: str
    """E.g. "rewrite.v1": the file the text came from."""
    text: str

    def fill(self, today: date, since: date) -> str:
        return self.text.replace("{today}", today.isoformat()).replace("{since}", since.isoformat())


def load_prompt(name: str) -> Prompt:
    """The current version of prompt `name` ("rewrite" or "screen")."""
    version = f"{name}.v{VERSIONS[name]}"
    text = resources.files("trinho.condense").joinpath("prompts", f"{version}.md")
    return Prompt(name, version, text.read_text(encoding="utf-8"))
