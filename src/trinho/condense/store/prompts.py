"""The condensation prompts: versioned files shipped in the package (`prompts/NAME.vN.md`).

A prompt is changed by adding a new version file and bumping `VERSIONS`; the version used is
recorded in every run report, so a run can be traced to the exact instructions it was given.
A version file may be shipped before it is current (`rewrite.v2`, the edit-script prompt of
`trinho.condense.rules.ops`); `load_prompt(name, version)` reads it.
"""

from __future__ import annotations

from importlib import resources

from trinho.condense.rules.prompt import Prompt

VERSIONS: dict[str, int] = {"rewrite": 2, "screen": 1}
FILE_REWRITE_VERSION = 1
"""The whole-file rewrite prompt, kept for `[condense] protocol = "file"`."""


def load_prompt(name: str, version: int | None = None) -> Prompt:
    """Prompt `name` ("rewrite" or "screen"): its current version, or the one asked for."""
    file = f"{name}.v{VERSIONS[name] if version is None else version}"
    text = resources.files("trinho.condense").joinpath("prompts", f"{file}.md")
    return Prompt(name, file, text.read_text(encoding="utf-8"))
