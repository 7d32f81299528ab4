"""What gets indexed: workspace files turned into plain `Doc` records (pure functions).

A file that a person edited by hand may hold lines no parser understands; those are skipped
here rather than failing a search, because the file itself stays the source of truth.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date
from typing import Literal

from trinho.errors import TrinhoError
from trinho.facts.format import parse_fact
from trinho.memory import format as memory_md
from trinho.notes.format import NoteEntry, parse_note_file
from trinho.openclaw.markers import line_roles, memory_entry_lines, strip_annotations
from trinho.search.dates import Said, day_tokens, said_days
from trinho.search.tokenize import terms

Kind = Literal["note", "memory", "fact", "conversation"]
KINDS: tuple[Kind, ...] = ("note", "memory", "fact", "conversation")


@dataclass(frozen=True)
class Doc:
    """One searchable unit: a note entry, a MEMORY.md entry, a fact version or a turn.

    `body` and `context` are the index terms joined by spaces: `context` holds the terms of
    the neighbouring turns, so a turn that answers a question asked just before it is found.
    `dense` is what the semantic layer embeds: what the lexical side knows too (the day, the
    speaker, the neighbouring turns), not the bare text. `speaker` is a turn's role; `current`
    is false for a fact's past versions. `dates` holds the day tokens (`with_days`), `said`
    the relative days its words say, resolved.
    """

    kind: Kind
    path: str
    line: int
    day: date | None
    text: str
    refs: tuple[str, ...]
    body: str
    context: str = ""
    dense: str = ""
    speaker: str = ""
    current: bool = True
    dates: str = ""
    said: str = ""


def with_days(doc: Doc) -> Doc:
    """`doc` with its day tokens (`dates`: its own day and every day its words say, from
    `trinho.search.dates`) and, for `--explain`, what it says of which day (`said`)."""
    said = said_days(doc.text, doc.day) if doc.day is not None else []
    return replace(doc, dates=" ".join(day_tokens(doc.day, said)), said=said_text(said))


def said_text(said: Sequence[Said]) -> str:
    """`yesterday = 2023-12-04; last week = 2023-11-27..2023-12-03`: what `--explain` shows."""
    return "; ".join(
        f"{s.words} = {s.first.isoformat()}"
        + ("" if s.first == s.last else f"..{s.last.isoformat()}")
        for s in said
    )


DENSE_BEFORE = 0
DENSE_AFTER = 0
"""Neighbouring turns embedded with a turn (before, after). None by default: the lexical side
already reads the neighbours (the `context` column), and `day Speaker: text` is what was
measured on LoCoMo (docs/benchmarks.md); a window costs the encoder about twice the tokens."""

DENSE_NEIGHBOUR_CHARS = 200
"""A neighbour is cut here, so the turn itself stays most of what is embedded."""


def dated(day: date | None, text: str) -> str:
    """The text the semantic layer embeds for a dated line: the day first, as the index has it."""
    return text if day is None else f"{day.isoformat()} {text}"


def turn_dense(day: date, said: Sequence[str], i: int) -> str:
    """A turn as embedded: `day Speaker: text`, then its neighbours as `(Speaker: text)`."""
    around = [
        f"({said[j][:DENSE_NEIGHBOUR_CHARS]})"
        for j in range(max(0, i - DENSE_BEFORE), min(len(said), i + DENSE_AFTER + 1))
        if j != i
    ]
    return " ".join([dated(day, said[i]), *around])


def note_docs(path: str, day: date, text: str) -> list[Doc]:
    """Every `- HH:MM text` entry of a day file, every other line of prose typed into it and
    every heading (OpenClaw's notes say `## 14:00 - Lesson booking`), dated with the file's
    day. Blank lines and OpenClaw's machine lines (markers, managed blocks) are not memory."""
    docs = []
    for item in parse_note_file(text).items:
        shown = strip_annotations(item.text if isinstance(item, NoteEntry) else item.shown)
        if not shown and not isinstance(item, NoteEntry):
            continue
        refs = (f"{path}:{item.line}",)
        body = " ".join(terms(shown))
        docs.append(
            with_days(Doc("note", path, item.line, day, shown, refs, body, dense=dated(day, shown)))
        )
    return docs


def memory_docs(path: str, text: str) -> list[Doc]:
    """Every MEMORY.md entry and every loose line of prose (undated), so a MEMORY.md written
    by hand or by another tool is searchable too; an entry with an impossible date is kept,
    undated. Headings, blank lines and OpenClaw's markers are structure, not memory."""
    docs = []
    lines = text.split("\n")
    roles = line_roles(lines, memory_entry_lines(lines))
    for item in memory_md.parse(text).items:
        if roles[item.line - 1] != "text":
            continue
        if isinstance(item, memory_md.Entry):
            shown, day = item.text, item.date
        elif isinstance(item, memory_md.Loose) and not item.blank:
            shown, day = item.raw.lstrip("\ufeff").strip(), None
        else:
            continue
        shown = strip_annotations(shown)
        refs = (f"{path}:{item.line}",)
        body = " ".join(terms(shown))
        docs.append(
            with_days(
                Doc("memory", path, item.line, day, shown, refs, body, dense=dated(day, shown))
            )
        )
    return docs


@dataclass(frozen=True)
class _Turn:
    line: int
    role: str
    text: str
    ref: str | None


def _turns(text: str) -> list[_Turn]:
    found = []
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except json.JSONDecodeError:
            continue
        if not isinstance(record, dict):
            continue
        role, body, ref = record.get("role"), record.get("text"), record.get("ref")
        if not isinstance(role, str) or not isinstance(body, str):
            continue
        found.append(_Turn(number, role, body, None if ref is None else str(ref)))
    return found


def conversation_docs(path: str, day: date, text: str, neighbours: int = 2) -> list[Doc]:
    """Every turn of a day's transcript; the speaker's name is indexed with the turn."""
    turns = _turns(text)
    said = [" ".join(terms(turn.text)) for turn in turns]
    spoken = [f"{turn.role}: {turn.text}" for turn in turns]
    docs = []
    for i, turn in enumerate(turns):
        around = [
            said[j]
            for j in range(max(0, i - neighbours), min(len(turns), i + neighbours + 1))
            if j != i
        ]
        ref = turn.ref if turn.ref is not None else f"{path}:{turn.line}"
        docs.append(
            with_days(
                Doc(
                    "conversation",
                    path,
                    turn.line,
                    day,
                    turn.text,
                    (ref,),
                    " ".join([*terms(turn.role), said[i]]),
                    " ".join(around),
                    dense=turn_dense(day, spoken, i),
                    speaker=turn.role,
                )
            )
        )
    return docs


def fact_docs(path: str, key: str, text: str) -> list[Doc]:
    """Every version of a fact file, current and past, dated from when it became true.

    The text shows the validity, so a hit says when the value held. A file the facts store
    cannot parse gives nothing here (`trinho facts` reports it).
    """
    try:
        fact = parse_fact(text, path, expected_key=key)
    except TrinhoError:
        return []
    words = key.replace("-", " ").replace("_", " ")
    docs = []
    for version in fact.versions():
        until = version.valid_to.isoformat() if version.valid_to else "…"
        shown = f"{key}: {version.value} ({version.valid_from.isoformat()} → {until})"
        docs.append(
            Doc(
                "fact",
                path,
                version.line,
                version.valid_from,
                shown,
                (f"{path}:{version.line}",),
                " ".join(terms(f"{words} {version.value}")),
                dense=f"{words}: {version.value}",
                current=version.valid_to is None,
            )
        )
    return docs
