"""Claude's memory tool over a trinho workspace: the pure part (paths, limits, answer texts).

The tool's contract (Anthropic's `memory_20250818`) names files under `/memories`; this module
says which part of the workspace a path means and refuses any other, and writes every answer in
the words and shapes of the SDK's own local filesystem backend
(`anthropic.lib.tools._beta_builtin_memory_tool.BetaLocalFilesystemMemoryTool`), so a model
that learnt the tool on that backend reads the same answers here.

What differs is what a write does, and every such answer says so plainly: a day note is
appended (notes are append-only), a MEMORY.md change goes through the gate, and a change to a
line the owner wrote waits for the owner as a proposal. A wait is not an error: the model is
told not to retry.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

ROOT = "/memories"
MEMORY_NAME = "MEMORY.md"
NOTES = "notes"
FACTS = "facts"
FILES_DIR = "claude_memories"
"""The workspace folder of the files outside trinho's layout that the model creates."""

MAX_PATH_CHARS = 255
MAX_PART_CHARS = 100
MAX_DEPTH = 6
MAX_TEXT_CHARS = 20_000
"""The longest `file_text`, `insert_text`, `old_str` or `new_str` a command may carry."""
MAX_FILE_CHARS = 100_000
"""The largest a file in the model's own folder may grow."""
MAX_NOTES_PER_CALL = 20
MAX_LINES = 999_999
LINE_NUMBER_WIDTH = len(str(MAX_LINES))

Area = Literal["root", "memory", "notes", "facts", "files"]

_DAY_NAME = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}\.md$")
_FACT_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*\.md$")
_BULLET = re.compile(r"^\s*(?:[-*+]\s+)?(?:[0-9]{1,2}:[0-9]{2}\s+)?")


class Refused(Exception):
    """A command the tool refuses, with the message the model reads (an error result)."""


@dataclass(frozen=True)
class Target:
    """Where a `/memories` path leads: its area and the parts below the area."""

    path: str
    area: Area
    parts: tuple[str, ...]

    @property
    def is_area_root(self) -> bool:
        return not self.parts


def _bad_part(part: str) -> bool:
    return (
        part in (".", "..")
        or part.startswith(".")
        or len(part) > MAX_PART_CHARS
        or "\\" in part
        or any(unicodedata.category(ch)[0] in "CZ" and ch != " " for ch in part)
    )


def parse_path(path: object) -> Target:
    """The area a path names, or `Refused`: it must be `/memories` or below it, with no
    traversal, no hidden part (`.trinho`), no control character, within the length limits."""
    if not isinstance(path, str) or not path.startswith(ROOT):
        raise Refused(f"Path must start with /memories, got: {path}")
    rest = path[len(ROOT) :]
    if rest and not rest.startswith("/"):
        raise Refused(f"Path must start with /memories, got: {path}")
    parts = tuple(part for part in rest.split("/") if part)
    if len(path) > MAX_PATH_CHARS or len(parts) > MAX_DEPTH or any(map(_bad_part, parts)):
        raise Refused(f"Path {path} would escape /memories directory")
    if not parts:
        return Target(path, "root", ())
    head, below = parts[0], parts[1:]
    if head == MEMORY_NAME and not below:
        return Target(path, "memory", ())
    if head == NOTES:
        if len(below) > 1 or (below and not _DAY_NAME.fullmatch(below[0])):
            raise Refused(
                f"The path {path} does not exist. Day notes are /memories/notes/YYYY-MM-DD.md."
            )
        return Target(path, "notes", below)
    if head == FACTS:
        if len(below) > 1 or (below and not _FACT_NAME.fullmatch(below[0])):
            raise Refused(
                f"The path {path} does not exist. Facts are /memories/facts/<key>.md, "
                "the key in lowercase letters, digits, '-' and '_'."
            )
        return Target(path, "facts", below)
    return Target(path, "files", parts)


def check_size(what: str, text: str, limit: int = MAX_TEXT_CHARS) -> str:
    if len(text) > limit:
        raise Refused(f"The {what} is {len(text)} characters; at most {limit} are accepted.")
    return text


# --- the SDK's answers ---------------------------------------------------------------------------


def format_size(size: int) -> str:
    """A size as the SDK's listing shows it (`4.0K`, `512B`)."""
    if size == 0:
        return "0B"
    units = ["B", "K", "M", "G"]
    i = min((size.bit_length() - 1) // 10, len(units) - 1)
    scaled = size / (1024**i)
    return f"{int(scaled)}{units[i]}" if scaled == int(scaled) else f"{scaled:.1f}{units[i]}"


def listing(path: str, own_size: int, items: Iterable[tuple[int, str]]) -> str:
    """A directory's view: the SDK's header, then `size<TAB>path` for it and each item
    (`items` relative to it, a folder ending in `/`)."""
    header = (
        f"Here're the files and directories up to 2 levels deep in {path}, excluding hidden items:"
    )
    lines = [f"{format_size(own_size)}\t{path}"]
    lines += [f"{format_size(size)}\t{path.rstrip('/')}/{name}" for size, name in items]
    return header + "\n" + "\n".join(lines)


def numbered(path: str, content: str, view_range: Sequence[int] | None = None) -> str:
    """A file's view with numbered lines, as the SDK numbers them (a range is 1-based, -1 to
    the end)."""
    lines = content.split("\n")
    start = 1
    if view_range is not None and len(view_range) == 2:
        first = max(1, view_range[0]) - 1
        end = len(lines) if view_range[1] == -1 else view_range[1]
        lines = lines[first:end]
        start = first + 1
    body = "\n".join(
        f"{str(i + start).rjust(LINE_NUMBER_WIDTH)}\t{line}" for i, line in enumerate(lines)
    )
    return f"Here's the content of {path} with line numbers:\n" + body


def replaced(path: str, content: str, old: str, new: str) -> tuple[str, int]:
    """`content` with `old` (which must appear exactly once) replaced by `new`, and the index
    of the line the change starts on; the SDK's refusals otherwise."""
    count = content.count(old) if old else 0
    if count == 0:
        raise Refused(
            f"No replacement was performed, old_str `{old}` did not appear verbatim in {path}."
        )
    if count > 1:
        at, lines = 0, []
        while (pos := content.find(old, at)) != -1:
            lines.append(content[:pos].count("\n") + 1)
            at = pos + 1
        raise Refused(
            f"No replacement was performed. Multiple occurrences of old_str `{old}` in lines: "
            f"{', '.join(map(str, lines))}. Please ensure it is unique"
        )
    pos = content.find(old)
    return content.replace(old, new), content[:pos].count("\n")


def edited_snippet(content: str, index: int) -> str:
    """The SDK's answer to a replacement: two lines either side of the changed one."""
    lines = content.split("\n")
    first, last = max(0, index - 2), min(len(lines), index + 3)
    snippet = [
        f"{str(n).rjust(LINE_NUMBER_WIDTH)}\t{lines[n - 1]}" for n in range(first + 1, last + 1)
    ]
    return (
        "The memory file has been edited. Here is the snippet showing the change "
        "(with line numbers):\n" + "\n".join(snippet)
    )


def inserted(path: str, content: str, line: int, text: str) -> str:
    """`content` with `text` inserted after line `line` (0: at the top), as the SDK does."""
    lines = content.split("\n")
    if lines[-1] == "":
        lines.pop()
    if line < 0 or line > len(lines):
        raise Refused(
            f"Invalid `insert_line` parameter: {line}. "
            f"It should be within the range [0, {len(lines)}]."
        )
    lines.insert(line, text.rstrip("\n"))
    joined = "\n".join(lines)
    return joined if joined.endswith("\n") else joined + "\n"


def created(path: str) -> str:
    return f"File created successfully at: {path}"


def insert_done(path: str) -> str:
    return f"The file {path} has been edited."


def deleted(path: str) -> str:
    return f"Successfully deleted {path}"


def renamed(old: str, new: str) -> str:
    return f"Successfully renamed {old} to {new}"


def missing(path: str) -> Refused:
    return Refused(f"The path {path} does not exist. Please provide a valid path.")


def exists_already(path: str) -> Refused:
    return Refused(f"File {path} already exists")


# --- what trinho adds ----------------------------------------------------------------------------

OWNER_LINE = "it would change or remove a line the owner wrote"
AGAINST_OWNER = "it contradicts what the owner said"

WAITS = (
    "Not changed yet: {what} waits for the owner's decision (proposal {ids}), because {why}. "
    "This is not an error: do not retry or work around it; tell the owner if it matters."
)

PARTLY_WAITS = (
    "Part of it waits for the owner's decision (proposal {ids}), because {why}. This is not "
    "an error: do not retry or work around it; tell the owner if it matters."
)

APPEND_ONLY = (
    "Nothing changed: day notes are append-only, so {path} keeps every line. To correct a "
    "note, insert a new line into /memories/notes/ saying what is right now."
)

FIXED_NAME = (
    "Nothing changed: {path} is part of the memory's layout and keeps its name. Edit it in "
    "place instead."
)

FACTS_STAY = (
    "Nothing changed: facts are never deleted or renamed here. If {path} no longer holds, "
    "write its new value (str_replace or create), or tell the owner."
)

FACT_OUTCOME = {
    "created": "Saved as a new fact.",
    "unchanged": "Already known with this value; nothing changed.",
    "superseded": "Saved; the previous value stays in the fact's history with its end date.",
    "historical": "Recorded in the fact's history only.",
}


def waits(what: str, ids: Sequence[str], why: str = OWNER_LINE) -> str:
    return WAITS.format(what=what, ids=", ".join(ids), why=why)


def partly_waits(ids: Sequence[str], why: str) -> str:
    return PARTLY_WAITS.format(ids=", ".join(ids), why=why)


def parse_day_name(name: str) -> bool:
    """Whether `name` is a day note's file name (`YYYY-MM-DD.md`)."""
    return bool(_DAY_NAME.fullmatch(name))


def note_lines(text: str) -> list[str]:
    """The notes a write to a day note carries: each non-empty line, without a leading bullet
    or `HH:MM` (the store adds its own)."""
    found = [_BULLET.sub("", line, count=1).strip() for line in text.split("\n")]
    notes = [line for line in found if line]
    if len(notes) > MAX_NOTES_PER_CALL:
        raise Refused(f"At most {MAX_NOTES_PER_CALL} note lines are saved per command.")
    return notes


def notes_saved(path: str, lines: Sequence[str]) -> str:
    shown = "\n".join(lines)
    return (
        f"Saved to {path} (day notes are append-only: each line is one timestamped entry "
        f"of today's note):\n{shown}"
    )


def owner_lines(content: str, written: Iterable[str]) -> Counter[str]:
    """The lines of `content` the model did not write (as many times as they occur beyond
    what it wrote): the owner's, whose change or removal waits for the owner."""
    return Counter(_lines(content)) - Counter(written)


def loses_owner_line(content: str, written: Iterable[str], after: str | None) -> bool:
    """Whether turning `content` into `after` (None: gone) changes or removes a line the
    model did not write."""
    theirs = owner_lines(content, written)
    kept = Counter(_lines(after)) if after is not None else Counter[str]()
    return bool(theirs - kept)


def _lines(text: str) -> list[str]:
    return [line for line in text.split("\n") if line.strip()]


def written_after(written: Iterable[str], before: str, after: str) -> list[str]:
    """The lines the model has written once `before` became `after`: what it wrote before
    that is still there, and every line new in `after`."""
    now = Counter(_lines(after))
    mine = Counter(written) & now
    new = now - Counter(_lines(before))
    return sorted((mine | new).elements())


def fact_view(value: str, basis: str, since: str, until: str | None) -> str:
    """A fact as the model sees it: the value on line 1, then how it is known."""
    end = f", until {until}" if until else ""
    return f"{value}\n\nbasis: {basis} (since {since}{end})\n"


def fact_value(path: str, view: str) -> str:
    """The value a fact's view holds after an edit: its first line; an edit of anything but
    the first line is refused."""
    value = view.partition("\n")[0].strip()
    if not value:
        raise Refused(f"The value of {path} (line 1) must not be empty.")
    return value
