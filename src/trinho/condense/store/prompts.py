"""The condensation prompts: versioned files shipped in the package (`prompts/NAME.vN.md`).

A prompt is changed by adding a new version file and bumping `VERSIONS`; the version used is
recorded in every run report, so a run can be traced to the exact instructions it was given.
A version file may be shipped before it is current (`rewrite.v2`, the edit-script prompt of
`trinho.condense.rules.ops`); `load_prompt(name, version)` reads it.
"""

from __future__ import annotations

from importlib import resources

from trinho.condense.rules.prompt import Prompt
from trinho.condense.rules.window import compact_instructions
from trinho.config import CondenseProtocol
from trinho.context.budget import estimate_tokens

VERSIONS: dict[str, int] = {"rewrite": 2, "rewrite_small": 1, "screen": 1}
FILE_REWRITE_VERSION = 1
"""The whole-file rewrite prompt, kept for `[condense] protocol = "file"`."""
SMALL_REWRITE = "rewrite_small"
"""The edit-script prompt's compact form, for a context the full one would fill
(`trinho.condense.rules.window.compact_instructions`): the same rules, in fewer tokens."""


def load_prompt(name: str, version: int | None = None) -> Prompt:
    """Prompt `name` ("rewrite", "rewrite_small" or "screen"): its current version, or the one
    asked for."""
    file = f"{name}.v{VERSIONS[name] if version is None else version}"
    text = resources.files("trinho.condense").joinpath("prompts", f"{file}.md")
    return Prompt.tagged(name, file, text.read_text(encoding="utf-8"))


def choose_rewrite_prompt(protocol: CondenseProtocol, usable: int) -> Prompt:
    """The rewrite prompt of a run: the whole-file one for protocol `file`; else the edit-script
    one, in its compact form when the full one would crowd a `usable` context this small."""
    if protocol == "file":
        return load_prompt("rewrite", FILE_REWRITE_VERSION)
    full = load_prompt("rewrite")
    if compact_instructions(estimate_tokens(full.text), usable):
        return load_prompt(SMALL_REWRITE)
    return full
