"""Text normalisation shared by every store: NFC, one kind of line break, matching keys."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable

from trinho.errors import TrinhoError
from trinho.i18n import N_, Term

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


_UNSAFE_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""What a terminal or a chat client acts on instead of showing: every C0 control but line feed
and tab (ESC starts an escape sequence, CR and backspace overwrite, BEL rings), DEL, the C1
controls (U+009B is a one-character escape on many terminals), and the bidirectional
overrides and isolates that make text display in another order than it is stored."""


def has_unsafe(text: str) -> bool:
    return _UNSAFE_RE.search(text) is not None


def printable(text: str) -> str:
    """`text` safe to print or send: each character of `_UNSAFE_RE` shown as its escape
    (ESC as `\\x1b`), so the owner sees what is stored and no terminal acts on it. Stored
    text is never changed; only what trinho prints is. Idempotent."""
    return _UNSAFE_RE.sub(lambda m: ascii(m.group())[1:-1], text)


def json_text(data: object, *, indent: int | None = None) -> str:
    """JSON as trinho prints it: UTF-8 kept readable (Vietnamese stays Vietnamese), and every
    character of `_UNSAFE_RE` written as a `\\u` escape. `json.dumps` escapes the C0 controls
    but leaves DEL, the C1 controls and the bidi controls raw; the value parsed back is the
    same either way."""
    text = json.dumps(data, ensure_ascii=False, indent=indent, default=str)
    return _UNSAFE_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp"})
"""The held class, by Unicode general category: controls (Cc), format characters (Cf: bidi
marks, overrides and isolates, zero-width joiners and spaces, the byte-order mark, the tag
characters U+E0000-E007F), private use (Co), unassigned (Cn), surrogates (Cs) and the line and
paragraph separators (Zl, Zp). A new line from a model holding one is held for the owner:
each either changes how the text around it reads or is text no screen shows."""

_ZWJ = "\u200d"
_BLACK_FLAG = "\U0001f3f4"
_CANCEL_TAG = "\U000e007f"
_FLAG_TAGS = frozenset({"gbeng", "gbsct", "gbwls"})
"""The subdivision flags Unicode recommends (England, Scotland, Wales): the only tag
sequences an emoji keyboard writes."""
_EMOJI_MODIFIERS = frozenset({"\ufe0f", "\ufe0e", *map(chr, range(0x1F3FB, 0x1F400))})


def _pictograph_at(text: str, i: int, step: int) -> bool:
    """Whether the character next to `i` in direction `step`, past variation selectors and skin
    tones, is a pictograph (a Symbol, other)."""
    i += step
    while 0 <= i < len(text) and text[i] in _EMOJI_MODIFIERS:
        i += step
    return 0 <= i < len(text) and unicodedata.category(text[i]) == "So"


def _emoji_spans(text: str) -> set[int]:
    """Indices of held-class characters that belong to an emoji sequence: a zero-width joiner
    between two pictographs, and the tags of a recommended subdivision flag."""
    spans: set[int] = set()
    for i, c in enumerate(text):
        if c == _ZWJ and _pictograph_at(text, i, -1) and _pictograph_at(text, i, 1):
            spans.add(i)
        elif c == _BLACK_FLAG:
            end = text.find(_CANCEL_TAG, i + 1, i + 8)
            tags = text[i + 1 : end] if end > 0 else ""
            letters = "".join(chr(ord(t) - 0xE0000) for t in tags)
            if letters in _FLAG_TAGS and all(0xE0061 <= ord(t) <= 0xE007A for t in tags):
                spans.update(range(i + 1, end + 1))
    return spans


def hidden_chars(text: str) -> list[str]:
    """The characters of `text` in the held class (`HIDDEN_CATEGORIES`), in order, emoji
    sequences aside; one carriage return ending the line (a CRLF file) is not one."""
    body = text.removesuffix("\r")
    emoji = _emoji_spans(body) if (_ZWJ in body or _BLACK_FLAG in body) else set()
    return [
        c
        for i, c in enumerate(body)
        if unicodedata.category(c) in HIDDEN_CATEGORIES and i not in emoji
    ]


def has_hidden(text: str) -> bool:
    return bool(hidden_chars(text))


def show_hidden(text: str) -> str:
    """`text` as a review screen shows it: each held-class character (emoji sequences aside)
    written as `⟨U+202E⟩`, so the owner sees what is stored. Idempotent."""
    body = text.removesuffix("\r")
    if not any(unicodedata.category(c) in HIDDEN_CATEGORIES for c in body):
        return body
    emoji = _emoji_spans(body)
    return "".join(
        f"⟨U+{ord(c):04X}⟩"
        if unicodedata.category(c) in HIDDEN_CATEGORIES and i not in emoji
        else c
        for i, c in enumerate(body)
    )


def show_hidden_lines(text: str) -> str:
    """`show_hidden` line by line: the line breaks between a change's lines stay breaks."""
    return "\n".join(show_hidden(line) for line in text.split("\n"))


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


SHORT_ID = 6
"""How many characters of a proposal's id (10 hex digits) the owner is shown and asked for:
listings (more where two ids share them), announcements, the answers to a decision and the
error for a bad id say this length; any start of the id this long or longer that no other id
shares names it, the whole id too."""


def shown_id(proposal_id: str) -> str:
    """A proposal's id as the owner is shown it where it is the only one (`SHORT_ID`)."""
    return proposal_id[:SHORT_ID]


def short_ids(ids: Iterable[str], minimum: int = SHORT_ID) -> dict[str, str]:
    """Each id's shortest prefix of at least `minimum` characters that no other id shares."""
    every = sorted(set(ids))
    out: dict[str, str] = {}
    for n, pid in enumerate(every):
        length = minimum
        for other in (every[n - 1] if n else "", every[n + 1] if n + 1 < len(every) else ""):
            shared = next(
                (i for i, (a, b) in enumerate(zip(pid, other, strict=False)) if a != b),
                min(len(pid), len(other)),
            )
            length = max(length, shared + 1)
        out[pid] = pid[: min(length, len(pid))]
    return out


SLUG_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"
"""User ids, fact keys, agent and job names; tool schemas carry the same pattern."""
_SLUG_RE = re.compile(SLUG_PATTERN)


SLUG_WHAT = {
    "fact key": N_("slug.fact_key"),
    "user id": N_("slug.user_id"),
    "agent name": N_("slug.agent_name"),
    "owner id": N_("slug.owner_id"),
    "job name": N_("slug.job_name"),
    "file name": N_("slug.file_name"),
}
"""What a slug names, each a word of the catalogs: the error says it in the owner's language."""


def validate_slug(value: str, what: str, where: str = "") -> str:
    """A user id, fact key or agent name (`what`, a key of `SLUG_WHAT`): lowercase letters,
    digits, '-' and '_' only; `where` (a file, a line, an option) prefixes the error."""
    if not _SLUG_RE.fullmatch(value):
        shown = value if len(value) <= 80 else value[:77] + "..."
        raise TrinhoError.keyed(
            "error.slug.invalid",
            what=Term(SLUG_WHAT[what]),
            value=shown,
            where=f"{where}: " if where else "",
        )
    return value
