"""What an OpenClaw agent's own file writes to memory become (pure).

OpenClaw's seeded `AGENTS.md` tells its agent to fold facts into MEMORY.md and to remove
outdated entries, with its `write` (`path`, `content`) and `edit` (`path`, `edits`: exact
`oldText`/`newText` replacements against the file as it was) tools. trinho's plugin hands such
a call to trinho instead of letting it through: the agent's new text is judged by the gate as
any writer that is not the owner's (`trinho.condense.rules.gate`), so an added entry applies,
and a removed or edited owner line waits for the owner as a proposal. This module says which
file a path means, makes the new text an `edit` asks for, and words the answer the agent reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Literal

Target = Literal["memory", "facts", "other"]

MAX_EDITS = 50
"""The most replacements one `edit` call may carry."""
MAX_MEMORY_CHARS = 1_000_000
"""The longest MEMORY.md an agent's `write` or `edit` may leave."""


class EditRefused(ValueError):
    """An `edit` that cannot be made of the file as it is: the agent reads the message."""


@dataclass(frozen=True)
class Replacement:
    old: str
    new: str


def target_of(path: str, memory_name: str, users_dir: str | None) -> Target:
    """Which of trinho's files a workspace-relative `path` names: `memory` (the workspace's
    MEMORY.md, `memory_name`), `facts` (anything under `users/<user>/facts/`, when the users
    folder is in the workspace at `users_dir`), or `other`. `./` and repeated slashes do not
    count; a path that climbs (`..`) is `other`."""
    if path.startswith(("/", "\\")):
        return "other"
    parts = _parts(path)
    if not parts or ".." in parts:
        return "other"
    if parts == [memory_name]:
        return "memory"
    if users_dir is not None:
        base = _parts(users_dir)
        rest = parts[len(base) :]
        if parts[: len(base)] == base and len(rest) >= 3 and rest[1] == "facts":
            return "facts"
    return "other"


def _parts(path: str) -> list[str]:
    return [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]


def replacements(raw: object) -> tuple[Replacement, ...]:
    """The `edits` of an OpenClaw `edit` call, checked: a list of `{oldText, newText}`, each
    `oldText` not blank."""
    if not isinstance(raw, list) or not raw:
        raise EditRefused("edits must be a list of at least one {oldText, newText}.")
    if len(raw) > MAX_EDITS:
        raise EditRefused(f"At most {MAX_EDITS} edits per call.")
    found: list[Replacement] = []
    for n, item in enumerate(raw, 1):
        old = item.get("oldText") if isinstance(item, Mapping) else None
        new = item.get("newText") if isinstance(item, Mapping) else None
        if not isinstance(old, str) or not old.strip() or not isinstance(new, str):
            raise EditRefused(f"edits[{n}] needs oldText (not blank) and newText, both text.")
        found.append(Replacement(old, new))
    return tuple(found)


def apply_edits(text: str, edits: Sequence[Replacement], path: str) -> str:
    """`text` with every replacement made, as OpenClaw's `edit` makes them: each `oldText`
    must occur exactly once in the file as it was (line breaks compared as `\\n`; an
    occurrence overlapping another counts, so the place is never ambiguous), no two
    may overlap, and all apply together. A file with CRLF line breaks keeps them; a
    byte-order mark stays first."""
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    body = text.removeprefix(bom)
    crlf = "\r\n" in body
    plain = body.replace("\r\n", "\n")
    spans: list[tuple[int, int, str]] = []
    for n, edit in enumerate(edits, 1):
        old = edit.old.replace("\r\n", "\n")
        at = plain.find(old)
        if at < 0:
            raise EditRefused(
                f"Could not find edits[{n}].oldText in {path}. It must match exactly, "
                "including all white space and line breaks."
            )
        if plain.find(old, at + 1) >= 0:
            raise EditRefused(
                f"edits[{n}].oldText occurs more than once in {path}: give more of the "
                "text around it so it is unique."
            )
        spans.append((at, at + len(old), edit.new.replace("\r\n", "\n")))
    spans.sort()
    for (_, end, _), (start, _, _) in pairwise(spans):
        if start < end:
            raise EditRefused(f"Two edits overlap in {path}: merge them into one.")
    out: list[str] = []
    last = 0
    for start, end, new in spans:
        out.extend((plain[last:start], new))
        last = end
    out.append(plain[last:])
    made = "".join(out)
    return bom + (made.replace("\n", "\r\n") if crlf else made)


@dataclass(frozen=True)
class Held:
    """A change the gate held: its proposal, and the lines it would remove and add."""

    proposal: str
    old: str | None
    new: str | None
    reason: str


@dataclass(frozen=True)
class Outcome:
    """What became of an agent's write: the lines that applied, and what waits."""

    path: str
    added: tuple[str, ...]
    held: tuple[Held, ...]
    changed: bool
    """Whether the file changed at all."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "applied": list(self.added),
            "held": [
                {"proposal": h.proposal, "old": h.old, "new": h.new, "reason": h.reason}
                for h in self.held
            ],
            "changed": self.changed,
        }


DONE = "trinho keeps {path}: your change went through its rules, not straight to the file."
APPLIED = "Written: {lines}."
NOTHING = "Nothing changed: {path} already holds this."
WAITS = (
    "Waiting for the owner's decision (proposal {ids}), the file unchanged there: {what}. "
    "Only the owner approves; this is not an error, do not retry or work around it (no other "
    "tool, no shell); tell the owner if it matters."
)
NEXT_TIME = (
    "Next time save with memory_save (a line in today's note) or user_memory_save (a fact "
    "about the owner); the weekly condensation folds notes into {path}."
)
FACTS = (
    "Not written: the owner's facts under {path} are trinho's records, changed only through "
    "user_memory_save (a new value against the owner's word waits for the owner)."
)
RESTORED = (
    "trinho noticed {path} changed during the last tool call ({tool}), not through its rules: "
    "{what} put back and waiting for the owner's decision (proposal {ids}). Leave {path} to "
    "trinho: save with memory_save or user_memory_save."
)


def _quoted(lines: Sequence[str], most: int = 3) -> str:
    shown = [f'"{line}"' for line in lines[:most]]
    if len(lines) > most:
        shown.append(f"and {len(lines) - most} more")
    return ", ".join(shown)


def _what(held: Sequence[Held]) -> str:
    removed = [h.old for h in held if h.old is not None and h.new is None]
    edited = [h.old for h in held if h.old is not None and h.new is not None]
    added = [h.new for h in held if h.old is None and h.new is not None]
    parts = []
    if removed:
        parts.append(f"removing {_quoted(removed)}")
    if edited:
        parts.append(f"changing {_quoted(edited)}")
    if added:
        parts.append(f"adding {_quoted(added)}")
    whole = [h.reason for h in held if h.old is None and h.new is None]
    if whole:
        parts.append(f"the whole change ({whole[0]})")
    return "; ".join(parts)


def told(outcome: Outcome) -> str:
    """The answer the agent reads for a write trinho made of its `write` or `edit` call."""
    if not outcome.changed and not outcome.held:
        return NOTHING.format(path=outcome.path)
    said = [DONE.format(path=outcome.path)]
    if outcome.added:
        said.append(APPLIED.format(lines=_quoted(outcome.added)))
    if outcome.held:
        ids = ", ".join(dict.fromkeys(h.proposal for h in outcome.held))
        said.append(WAITS.format(ids=ids, what=_what(outcome.held)))
    said.append(NEXT_TIME.format(path=outcome.path))
    return " ".join(said)


def told_restored(outcome: Outcome, tool: str) -> str:
    """What the agent reads after trinho held a change it found made behind its back; empty
    when nothing was held."""
    if not outcome.held:
        return ""
    ids = ", ".join(dict.fromkeys(h.proposal for h in outcome.held))
    return RESTORED.format(path=outcome.path, tool=tool, what=_what(outcome.held), ids=ids)
