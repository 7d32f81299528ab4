"""MEMORY.md: `- YYYY-MM-DD: text` entries, `#` headings, and loose lines kept verbatim.

Pure: parse and render only; `trinho.memory.store` reads and writes the file.

`parse` then `render` gives back the input byte for byte, whatever it holds, so nothing the
parser does not understand can ever be dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from trinho.textnorm import has_hidden, match_key, nfc, one_line

_ENTRY_RE = re.compile(r"^- ([0-9]{4}-[0-9]{1,2}-[0-9]{1,2}): (.*\S.*)$")
BOM = "\ufeff"
_HEADING_RE = re.compile(r"^(#{1,6})(?:[ \t]+(.*))?$")


@dataclass(frozen=True)
class Entry:
    """A dated entry. `date` is None when `date_text` is not a real calendar date."""

    date_text: str
    text: str
    raw: str
    line: int

    @property
    def date(self) -> date | None:
        return parse_entry_date(self.date_text)

    @property
    def key(self) -> str:
        return match_key(self.text)


@dataclass(frozen=True)
class Heading:
    level: int
    title: str
    raw: str
    line: int


@dataclass(frozen=True)
class Loose:
    """Any other line (prose typed by hand, blank lines): kept verbatim, never dropped."""

    raw: str
    line: int

    @property
    def blank(self) -> bool:
        """Only spaces and tabs (and a CRLF's CR): a line of separators or other characters
        of the held class that `str.strip` takes for white space is not blank, it is text
        no screen shows."""
        return not self.raw.strip() and not has_hidden(self.raw.replace("\t", " "))


Item = Entry | Heading | Loose


@dataclass(frozen=True)
class MemoryDoc:
    items: tuple[Item, ...]

    @property
    def entries(self) -> list[Entry]:
        return [item for item in self.items if isinstance(item, Entry)]


def parse_entry_date(text: str) -> date | None:
    parts = text.split("-")
    if len(parts) != 3 or len(parts[0]) != 4:
        return None
    try:
        return date(int(parts[0]), int(parts[1]), int(parts[2]))
    except ValueError:
        return None


def parse_line(raw: str, line: int) -> Item:
    """Classify one line; a CR before the newline and a leading byte-order mark are kept in raw."""
    body = raw[:-1] if raw.endswith("\r") else raw
    if line == 1:
        body = body.removeprefix(BOM)
    match = _ENTRY_RE.match(body)
    if match:
        return Entry(match.group(1), match.group(2).strip(), raw, line)
    match = _HEADING_RE.match(body)
    if match:
        return Heading(len(match.group(1)), (match.group(2) or "").strip(), raw, line)
    return Loose(raw, line)


def parse(text: str) -> MemoryDoc:
    """Every line becomes one item; `render` joins their raw text back, byte for byte."""
    return MemoryDoc(tuple(parse_line(raw, i + 1) for i, raw in enumerate(text.split("\n"))))


def render(doc: MemoryDoc) -> str:
    return "\n".join(item.raw for item in doc.items)


def format_entry(day: date, text: str) -> str:
    """One entry line; the text is folded onto one line and NFC-normalised."""
    return f"- {day.isoformat()}: {one_line(nfc(text))}"
