"""Text normalisation shared by every store: NFC, one kind of line break, matching keys."""

from __future__ import annotations

import re
import unicodedata

from trinho.errors import TrinhoError

# Every boundary str.splitlines() knows, so no reader can see a line break we did not write.
_BREAKS_RE = re.compile("\r\n|[\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_SPACE_RE = re.compile(r"\s+")


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def unify_breaks(text: str) -> str:
    """Turn every kind of line break into '\\n'."""
    return _BREAKS_RE.sub("\n", text)


def one_line(text: str) -> str:
    """Collapse all white space, line breaks included, into single spaces."""
    return _SPACE_RE.sub(" ", text).strip()


def match_key(text: str) -> str:
    """The key entries are matched by: NFC, case-folded, white space collapsed."""
    return one_line(nfc(text).casefold())


def decode(data: bytes, where: str) -> str:
    """UTF-8 text of a workspace file, or a clear error naming the file and the bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise TrinhoError.keyed(
            "error.text.invalid_utf8", where=where, line=line, byte=exc.start
        ) from None


SLUG_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"
"""User ids, fact keys, agent and job names; tool schemas carry the same pattern."""
_SLUG_RE = re.compile(SLUG_PATTERN)


def validate_slug(value: str, what: str) -> str:
    """A user id, fact key or agent name: lowercase letters, digits, '-' and '_' only."""
    if not _SLUG_RE.fullmatch(value):
        shown = value if len(value) <= 80 else value[:77] + "..."
        raise TrinhoError.keyed("error.slug.invalid", what=what, value=shown)
    return value
