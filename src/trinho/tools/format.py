"""OpenClaw's result shapes for memory_search and memory_get, as pure functions over values.

OpenClaw 2026.9.6's memory tools answer a read with a `status` (`ok`, `not_found`, or `error`
with a `code`), a bounded excerpt (120 lines, 12,000 characters by default) that says when it
was `truncated` and where to go on (`nextFrom`), and answer a corpus they cannot search with an
empty, flagged result the model is told to report. The openclaw profile speaks the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

GET_LINES = 120
"""Lines an OpenClaw memory_get reads when `lines` is left out."""

GET_CHARS = 12_000
"""Characters an OpenClaw memory_get answers at most: whole lines, never more than this."""

MEMORY_PATH_NOT_ALLOWED = "MEMORY_PATH_NOT_ALLOWED"
MEMORY_READ_FAILED = "MEMORY_READ_FAILED"


def excerpt(
    path: str,
    lines: Sequence[str],
    start: int,
    count: int | None = None,
    max_chars: int = GET_CHARS,
) -> dict[str, Any]:
    """Lines `start`.. (1-based) of a file, at most `count` (default GET_LINES) and `max_chars`.

    Whole lines are kept while they fit; a first line longer than the budget alone is cut to
    it. When anything after the excerpt is left unread, `truncated` is true, `nextFrom` names
    the first line not shown, and the text ends with a line saying how to go on.
    """
    wanted = lines[start - 1 : start - 1 + (count or GET_LINES)]
    shown: list[str] = []
    size = 0
    for line in wanted:
        grown = size + len(line) + (1 if shown else 0)
        if shown and grown > max_chars:
            break
        shown.append(line)
        size = grown
    cut_line = bool(shown) and len(shown[0]) > max_chars
    text = "\n".join(shown)[:max_chars]
    next_line = start + len(shown)
    truncated = cut_line or next_line <= len(lines)
    result: dict[str, Any] = {
        "status": "ok",
        "path": path,
        "text": text,
        "from": start,
        "lines": len(shown),
    }
    if truncated:
        result["truncated"] = True
        if next_line <= len(lines):
            result["nextFrom"] = next_line
        result["text"] = text + continuation(next_line if next_line <= len(lines) else None)
    return result


def continuation(next_line: int | None) -> str:
    """The line an excerpt ends with when more is left: where to read on, or that a line was
    cut at the budget (then only a plain file read gives all of it)."""
    if next_line is None:
        return f"\n\n[Cut at {GET_CHARS:,} characters: the rest of this line is not shown.]"
    return f"\n\n[More follows: call memory_get again with from={next_line}.]"


def not_found(path: str) -> dict[str, Any]:
    """A file that does not exist (or a corpus trinho lacks): nothing to read, not an error."""
    return {"status": "not_found", "path": path, "text": ""}


def read_error(path: str, code: str, message: str) -> dict[str, Any]:
    """A read that was refused or failed: `code` says which, `error` why."""
    return {"status": "error", "path": path, "text": "", "code": code, "error": message}


def sessions_unavailable() -> dict[str, Any]:
    """memory_search with `corpus: "sessions"`: OpenClaw's own transcript search, which trinho
    does not stand in for. An empty answer flagged so the model tells the owner, never an
    error."""
    return {
        "results": [],
        "disabled": True,
        "unavailable": True,
        "error": "Session transcript search is not provided by trinho.",
        "warning": "Session transcript search is unavailable: trinho searches memory files, "
        "facts and saved conversations, not OpenClaw's session transcripts.",
        "action": "Search again with corpus 'memory' or 'all': trinho's results include the "
        "saved conversations, with source 'sessions'.",
    }
