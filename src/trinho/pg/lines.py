"""A file of lines as rows: each line's exact text, and whether its newline was written.

Transcripts, the usage ledger and the inbox are appended line by line; their rows give the
file back byte for byte (a last line written without its newline too), and an append ends
such a line first, as the file stores' appends do.
"""

from __future__ import annotations

from collections.abc import Sequence


def lines_text(rows: Sequence[tuple[str, bool]]) -> str:
    """A file's text from its lines: each with its newline, unless written without."""
    return "".join(body + ("\n" if newline else "") for body, newline in rows)


def text_lines(text: str) -> list[tuple[str, bool]]:
    """The inverse of `lines_text`: a file's text as its lines (pure)."""
    pieces = text.split("\n")
    rows = [(piece, True) for piece in pieces[:-1]]
    return [*rows, (pieces[-1], False)] if pieces[-1] else rows
