"""The weekly rewrite as an edit script: the numbered MEMORY.md a model reads, and its answer.

The model is shown MEMORY.md with every line numbered (`[1] # Về chủ nhân`, blank lines
included) but OpenClaw's marker lines, which it never sees (`shown_lines`; `on_file_lines`
turns its numbers into the file's), and answers one operation per line:

    ADD [N] - YYYY-MM-DD: text     a new line after line N ([0]: before line 1)
    ADD - YYYY-MM-DD: text         a new line at the end of the file
    ADD [N] ## Heading             headings may be added too
    EDIT [N] - YYYY-MM-DD: text    line N replaced
    DATE [N] YYYY-MM-DD            entry N confirmed on that day: its date set
    REMOVE [N] reason              line N removed
    NONE                           nothing to change

so the answer grows with the week's changes, not with MEMORY.md. Reading is tolerant (spaces,
bullets or list numbers before the keyword, any case, `N` or `[N]:` for `[N]`, bold markers);
what reaches the rewrite is strict: a new line is the model's text after `[N] ` with white
space collapsed, and it must be an entry or a heading. Every other line of the answer is
chatter: counted, sampled for the run report, never applied. An operation on a line that does
not exist, or a second EDIT, DATE or REMOVE of one line, is reported and ignored.

`apply_ops` turns a script into a rewrite of the old text, which the gate then judges as it
judges any rewrite (docs/rules.md, "The gate"); every line no operation names is kept byte for
byte, in place. An answer that is a whole MEMORY.md instead of a script is recognised and
handed back as such, to be gated as a whole-file rewrite.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from trinho.context.budget import estimate_tokens
from trinho.memory.format import BOM, Entry, Heading, parse_line
from trinho.openclaw.markers import line_roles, memory_entry_lines
from trinho.textnorm import nfc, one_line, unify_breaks

IgnoreWhy = Literal[
    "unreadable",
    "not_a_line",
    "no_such_line",
    "line_taken",
    "not_an_entry",
    "cut",
    "whole_file",
    "not_shown",
]
"""Why an operation was not applied: its arguments could not be read; its new line is not an
entry or a heading; its line number is not in the file; its line already has an EDIT, DATE or
REMOVE; a DATE names a line that is not a dated entry; it is the last line of an answer cut at
the output limit, so it may be incomplete; another chunk of the run answered with a whole
MEMORY.md, which is gated instead; it names a line left out of the window of MEMORY.md the
model was shown (`trinho.condense.rules.window`)."""

CHATTER_SAMPLES = 5
"""How many chatter lines a script keeps, for the run report."""
SAMPLE_CHARS = 200


@dataclass(frozen=True)
class Add:
    """A new line after old line `after` (0: before the first line; None: at the end)."""

    after: int | None
    text: str
    source: int
    """The answer line (1-based) the operation was read from, as for every operation."""


@dataclass(frozen=True)
class Edit:
    line: int
    text: str
    source: int


@dataclass(frozen=True)
class SetDate:
    """`date_text` is as the model wrote it (YYYY-M-D shape, not necessarily a real date:
    the gate holds an impossible one)."""

    line: int
    date_text: str
    source: int


@dataclass(frozen=True)
class Remove:
    line: int
    reason: str
    source: int


Op = Add | Edit | SetDate | Remove


@dataclass(frozen=True)
class Ignored:
    """An answer line read as an operation but not applied. `raw` is the line as written
    (stripped); for a DATE refused by the text it names, the operation as read."""

    source: int
    raw: str
    why: IgnoreWhy


@dataclass(frozen=True)
class Script:
    """A model's answer, read against a MEMORY.md of `line_count` numbered lines.

    `ops` are in answer order. `chatter` counts the non-blank lines that are not operations
    (code fences and refusals included); `samples` keeps the first few. `whole_file` is the
    cleaned answer when it is a whole MEMORY.md rather than a script (then `ops` is empty).
    """

    line_count: int
    ops: tuple[Op, ...] = ()
    ignored: tuple[Ignored, ...] = ()
    chatter: int = 0
    samples: tuple[str, ...] = ()
    none: bool = False
    whole_file: str | None = None


@dataclass(frozen=True)
class NewLine:
    """A line of the rewrite the old file did not have: what the screening judges.

    `index` is its 0-based line in `Applied.text`; `replaces` and `old` are the old line
    number and text (no line ending) an EDIT put it in place of, None for an ADD.
    """

    index: int
    text: str
    replaces: int | None = None
    old: str | None = None


@dataclass(frozen=True)
class Applied:
    """The rewrite to gate, and what changed in it.

    `redated` and `removed` are old line numbers. `ignored` holds the script's ignored lines
    and the operations that could not be applied to this text. For a whole-file answer, `text`
    is that answer and the rest is empty: the caller finds its new lines by matching, as for
    any rewrite.
    """

    text: str
    new_lines: tuple[NewLine, ...] = ()
    redated: tuple[int, ...] = ()
    removed: tuple[int, ...] = ()
    ignored: tuple[Ignored, ...] = ()
    whole_file: bool = False


# --- the numbered view -------------------------------------------------------------------


def view_lines(text: str) -> list[str]:
    """The lines the model sees and numbers refer to: the newline after the last line does
    not start another one; a line's CR and the file's byte-order mark are not shown."""
    if not text:
        return []
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    lines = [line.removesuffix("\r") for line in lines]
    lines[0] = lines[0].removeprefix(BOM)
    return lines


def shown_lines(text: str) -> tuple[int, ...]:
    """The view lines (1-based) the model is shown, in order: every line but OpenClaw's marker
    lines (`<!-- openclaw-memory-promotion:... -->` and any other whole-line comment), which
    nobody said and the model may not touch. A script's numbers count these lines only."""
    lines = view_lines(text)
    roles = line_roles(lines, memory_entry_lines(lines))
    return tuple(n for n, role in enumerate(roles, 1) if role != "marker")


def number_lines(text: str) -> str:
    """MEMORY.md as the model reads it, its shown lines numbered from 1: `[N] line`, a blank
    line as `[N]`; marker lines are not shown (they stay in the file, byte for byte)."""
    lines = view_lines(text)
    return "\n".join(
        f"[{n}] {lines[at - 1]}" if lines[at - 1] else f"[{n}]"
        for n, at in enumerate(shown_lines(text), 1)
    )


def on_file_lines(script: Script, shown: Sequence[int], line_count: int) -> Script:
    """`script`, read against the shown lines (`shown_lines`), with its numbers turned into the
    file's own (`line_count` view lines): an operation on shown line N names file line
    `shown[N - 1]`; a line added after it goes right after that line, so before the markers
    that tag the next one. Every marker line is then one no operation names."""

    def at(n: int) -> int:
        return shown[n - 1] if n else 0

    ops: list[Op] = []
    for op in script.ops:
        if isinstance(op, Add):
            ops.append(op if op.after is None else replace(op, after=at(op.after)))
        else:
            ops.append(replace(op, line=at(op.line)))
    return replace(script, line_count=line_count, ops=tuple(ops))


# --- reading an answer -------------------------------------------------------------------

_KEYWORD_RE = re.compile(
    r"""^(?:[-*+•>]+\s*|[0-9]{1,3}[.)]\s+)*   # bullets, quotes, list numbers
    (?:\*\*|__)?\s*                          # bold opened before the keyword
    (?P<kw>add|edit|date|remove|none)(?![^\W_])
    (?:\*\*|__)?\s*:?\s*                      # bold closed after it, a colon
    (?P<rest>.*)$""",
    re.IGNORECASE | re.VERBOSE,
)
_REF_RE = re.compile(
    r"""^(?:\[\s*(?P<bracketed>[0-9]{1,7})\s*\](?:\*\*|__)?\s*:?\s*   # [N], [N]:
    |(?P<bare>[0-9]{1,7})(?:\*\*|__)?:?(?:\s+|$))                   # N, N:""",
    re.VERBOSE,
)
_DATE_RE = re.compile(r"^(?:-\s*)?(?P<date>[0-9]{4}-[0-9]{1,2}-[0-9]{1,2})(?![0-9])")
_REASON_EDGE = ":-–—()[] "
_BOLD = ("**", "__")

_Read = Op | Literal["none", "chatter", "unreadable", "not_a_line"]


def parse_ops(answer: str, line_count: int, *, cut: bool = False) -> Script:
    """Read a model's answer as an edit script for a MEMORY.md of `line_count` lines.

    `cut`: the answer stopped at the output limit, so its last non-blank line may be
    incomplete; it is ignored rather than trusted.
    """
    lines = unify_breaks(nfc(answer)).split("\n")
    filled = [i for i, line in enumerate(lines) if line.strip()]
    dropped = None
    if cut and filled:
        dropped = Ignored(filled[-1] + 1, lines[filled[-1]].strip(), "cut")
        lines = lines[: filled[-1]]
    reader = _Reader(line_count)
    for i, raw in enumerate(lines):
        if raw.strip():
            reader.read(raw.strip(), i + 1)
    if dropped is not None:
        reader.ignored.append(dropped)
    if reader.wrote_no_operation() and _is_whole_file(lines):
        return Script(line_count, whole_file=unfenced(lines))
    return reader.script()


class _Reader:
    """What an answer's lines say, read one by one."""

    def __init__(self, line_count: int) -> None:
        self.line_count = line_count
        self.ops: list[Op] = []
        self.ignored: list[Ignored] = []
        self.chatter: list[str] = []
        self.none = False
        self.named: set[int] = set()

    def read(self, line: str, source: int) -> None:
        read = _read_line(line, source)
        if read == "chatter":
            self.chatter.append(line)
        elif read == "none":
            self.none = True
        elif isinstance(read, str):
            self.ignored.append(Ignored(source, line, read))
        else:
            why = self._refused(read)
            if why is None:
                self.ops.append(read)
            else:
                self.ignored.append(Ignored(source, line, why))

    def _refused(self, op: Op) -> IgnoreWhy | None:
        """Why `op` cannot stand in this script, or None."""
        if isinstance(op, Add):
            return None if op.after is None or op.after <= self.line_count else "no_such_line"
        if not 1 <= op.line <= self.line_count:
            return "no_such_line"
        if op.line in self.named:
            return "line_taken"
        self.named.add(op.line)
        return None

    def wrote_no_operation(self) -> bool:
        """No operation, not even one that could not stand, and no NONE."""
        refused = any(item.why in ("no_such_line", "line_taken") for item in self.ignored)
        return not (self.ops or self.none or refused)

    def script(self) -> Script:
        samples = tuple(line[:SAMPLE_CHARS] for line in self.chatter[:CHATTER_SAMPLES])
        return Script(
            self.line_count,
            tuple(self.ops),
            tuple(self.ignored),
            len(self.chatter),
            samples,
            self.none,
        )


def _read_line(line: str, source: int) -> _Read:
    """One non-blank answer line: an operation, NONE, chatter, or why it is not readable."""
    m = _KEYWORD_RE.match(line)
    if m is None:
        return "chatter"
    keyword, rest = m.group("kw").upper(), m.group("rest")
    if keyword == "NONE":  # "NONE." or "NONE: nothing new", but "None of them" is prose
        tail = line[m.end("kw") :].lstrip("*_ ")
        return "none" if not tail or not tail[0].isalnum() else "chatter"
    ref = _REF_RE.match(rest)
    number = None if ref is None else int(ref.group("bracketed") or ref.group("bare"))
    after = rest if ref is None else rest[ref.end() :]
    bold = _open_bold(line[: m.start("kw")], line[m.end("kw") : len(line) - len(after)])
    if keyword == "ADD":
        text = _new_line(after, bold)
        return "not_a_line" if text is None else Add(number, text, source)
    if number is None:
        return "unreadable"
    if keyword == "EDIT":
        text = _new_line(after, bold)
        return "not_a_line" if text is None else Edit(number, text, source)
    if keyword == "REMOVE":
        return Remove(number, after.strip(_REASON_EDGE), source)
    date = _DATE_RE.match(after)
    return "unreadable" if date is None else SetDate(number, date.group("date"), source)


def _open_bold(before: str, between: str) -> str:
    """The bold marker opened before the keyword and not closed before the text, or ""."""
    for mark in _BOLD:
        if before.count(mark) > between.count(mark):
            return mark
    return ""


def _new_line(text: str, bold: str) -> str | None:
    """The line an ADD or EDIT writes, or None when it is neither an entry nor a heading.

    A bold marker left open before the text and closed at the end of the line
    (`**ADD [3] - 2026-11-28: x**`) is not part of it.
    """
    if bold:
        text = text.removesuffix(bold)
    line = one_line(text)
    item = parse_line(line, 2)
    if isinstance(item, Entry) or (isinstance(item, Heading) and item.title):
        return line
    return None


def _is_whole_file(lines: list[str]) -> bool:
    """Mostly entries and headings, with at least one entry: a whole MEMORY.md."""
    items = [parse_line(line, 2) for line in unfenced(lines).split("\n") if line.strip()]
    entries = sum(isinstance(item, Entry) for item in items)
    headings = sum(isinstance(item, Heading) for item in items)
    return entries > 0 and 2 * (entries + headings) > len(items)


def unfenced(lines: list[str]) -> str:
    """The answer with a code fence around all of it removed, ending with a line break (as
    the whole-file rewrite has always been cleaned)."""
    filled = [i for i, line in enumerate(lines) if line.strip()]
    if len(filled) >= 2:
        first, last = filled[0], filled[-1]
        if lines[first].strip().startswith("```") and lines[last].strip() == "```":
            lines = lines[first + 1 : last]
    cleaned = "\n".join(lines)
    if cleaned.strip() and not cleaned.endswith("\n"):
        cleaned += "\n"
    return cleaned


# --- applying a script -------------------------------------------------------------------


def apply_ops(old_text: str, script: Script) -> Applied:
    """The rewrite `script` makes of `old_text`, with every line it does not name kept byte
    for byte, in place.

    New lines take a CR before their line break when the file ends with CRLF. The byte-order
    mark, if any, stays at the start of the file whatever happens to its first line. The
    rewrite ends with a line break when the old text did, or was empty.
    """
    if script.whole_file is not None:
        return Applied(script.whole_file, ignored=script.ignored, whole_file=True)
    old = view_lines(old_text)
    if len(old) != script.line_count:
        raise ValueError(f"script read for {script.line_count} lines, text has {len(old)}")
    raws = _raw_lines(old_text)
    eol = "\r" if old_text.endswith("\r\n") else ""
    adds: dict[int | None, list[Add]] = {}
    named: dict[int, Edit | SetDate | Remove] = {}
    for op in script.ops:
        if isinstance(op, Add):
            adds.setdefault(op.after, []).append(op)
        else:
            named[op.line] = op
    out = _Out(eol)
    out.add(adds.get(0, []))
    for n, raw in enumerate(raws, 1):
        out.line(n, raw, old[n - 1], named.get(n))
        out.add(adds.get(n, []))
    out.add(adds.get(None, []))
    text = "\n".join(out.lines)
    last = len(raws)
    cut_last = isinstance(named.get(last), Remove) and not adds.get(last) and not adds.get(None)
    if out.lines and (old_text.endswith("\n") or not old_text or cut_last):
        text += "\n"  # the line before a removed last line keeps the break it had
    if old_text.startswith(BOM) and text:
        text = BOM + text
    return Applied(
        text,
        tuple(out.new_lines),
        tuple(out.redated),
        tuple(out.removed),
        (*script.ignored, *out.ignored),
    )


def _raw_lines(text: str) -> list[str]:
    """The old lines as written (CR kept), matching `view_lines` one for one."""
    if not text:
        return []
    lines = text.removeprefix(BOM).split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


class _Out:
    """The rewrite as it is built, line by line, and what each operation did to it."""

    def __init__(self, eol: str) -> None:
        self.eol = eol
        self.lines: list[str] = []
        self.new_lines: list[NewLine] = []
        self.redated: list[int] = []
        self.removed: list[int] = []
        self.ignored: list[Ignored] = []

    def add(self, adds: list[Add]) -> None:
        for op in adds:
            self.new_lines.append(NewLine(len(self.lines), op.text))
            self.lines.append(op.text + self.eol)

    def line(self, n: int, raw: str, shown: str, op: Edit | SetDate | Remove | None) -> None:
        """Old line `n`: kept, replaced, re-dated or left out, as its operation says."""
        if isinstance(op, Remove):
            self.removed.append(n)
            return
        if isinstance(op, Edit) and op.text != shown:
            self.new_lines.append(NewLine(len(self.lines), op.text, n, shown))
            raw = op.text + ("\r" if raw.endswith("\r") else "")
        elif isinstance(op, SetDate):
            raw = self._redate(n, raw, op)
        self.lines.append(raw)

    def _redate(self, n: int, raw: str, op: SetDate) -> str:
        """The entry with only its date replaced; a DATE of any other line is ignored."""
        item = parse_line(raw.removesuffix("\r"), 2)
        if not isinstance(item, Entry):
            self.ignored.append(Ignored(op.source, f"DATE [{n}] {op.date_text}", "not_an_entry"))
            return raw
        if item.date_text == op.date_text:
            return raw
        self.redated.append(n)
        return f"- {op.date_text}{raw[2 + len(item.date_text) :]}"


def unusable(script: Script | None) -> Literal["empty", "chatter"] | None:
    """How a run's merged script is of no use, if it is: `empty` (the model wrote nothing),
    `chatter` (it wrote, but no operation could be read). A script with an operation, an
    explicit NONE or a whole MEMORY.md is an answer."""
    if script is None or script.ops or script.none or script.whole_file is not None:
        return None
    return "chatter" if script.chatter or script.ignored else "empty"


def merge_scripts(scripts: Sequence[Script]) -> Script:
    """The scripts of a run's chunks as one, every chunk having read the same numbered
    MEMORY.md: operations in chunk order, a line named by an earlier chunk taken (the later
    operation ignored). When a chunk answered with a whole MEMORY.md, the last such answer is
    the rewrite and every operation of the other chunks is reported as ignored."""
    if not scripts:
        raise ValueError("no script to merge")
    line_count = scripts[0].line_count
    chatter = sum(s.chatter for s in scripts)
    samples = tuple(x for s in scripts for x in s.samples)[:CHATTER_SAMPLES]
    ignored = [i for s in scripts for i in s.ignored]
    whole = [s for s in scripts if s.whole_file is not None]
    if whole:
        ignored += [Ignored(op.source, op_text(op), "whole_file") for s in scripts for op in s.ops]
        return Script(line_count, (), tuple(ignored), chatter, samples, False, whole[-1].whole_file)
    ops: list[Op] = []
    named: set[int] = set()
    for op in (op for s in scripts for op in s.ops):
        if not isinstance(op, Add) and op.line in named:
            ignored.append(Ignored(op.source, op_text(op), "line_taken"))
            continue
        if not isinstance(op, Add):
            named.add(op.line)
        ops.append(op)
    none = all(s.none or not s.ops for s in scripts) and any(s.none for s in scripts)
    return Script(line_count, tuple(ops), tuple(ignored), chatter, samples, none)


def op_text(op: Op) -> str:
    """An operation written back in the wire format, for reports."""
    if isinstance(op, Add):
        return f"ADD [{op.after}] {op.text}" if op.after is not None else f"ADD {op.text}"
    if isinstance(op, Edit):
        return f"EDIT [{op.line}] {op.text}"
    if isinstance(op, SetDate):
        return f"DATE [{op.line}] {op.date_text}"
    return f"REMOVE [{op.line}] {op.reason}".rstrip()


# --- budgets -----------------------------------------------------------------------------

SCRIPT_SLACK_TOKENS = 256
"""Room in every edit-script answer beyond the estimate: NONE, a few REMOVE reasons."""


def op_tokens(operation: str) -> int:
    """What one operation line costs in the answer, its line break included."""
    return estimate_tokens(operation) + 1


OP_TOKENS = 48
"""What one change costs in an edit script: its frame (`EDIT [123] - 2026-11-28: `, about 12
tokens) and a line of a fact or two."""


def script_tokens(material_tokens: int, items: int) -> int:
    """The `max_tokens` of one edit-script call over `items` notes and turns holding
    `material_tokens` of the week: proportional to the work, so a slow server is not asked
    for thousands of tokens it would take half an hour to write.

    At most one change per note or turn (`OP_TOKENS` each), and never more than the new lines
    could take: half the material, as the whole-file rewrite counts what the material adds,
    and a quarter more for the operations' frames. MEMORY.md's size does not enter: the
    script names lines, it does not repeat them. An estimate, not a bound: an answer cut at
    the limit loses only its last operations (see `parse_ops(cut=True)`).
    """
    return SCRIPT_SLACK_TOKENS + min(OP_TOKENS * items, math.ceil(material_tokens * 3 / 4))


def material_beside(left: int) -> int:
    """The most material that fits in `left` tokens of context together with the edit script
    `script_tokens` reserves for it: m + 256 + 3m/4 <= left."""
    return max(0, (left - SCRIPT_SLACK_TOKENS) * 4 // 7)


def material_for_output(max_output_tokens: int) -> int:
    """The most material one call may carry with `script_tokens` within `max_output_tokens`:
    a chunk room for the model's output limit, beside the one its context gives."""
    return max(0, (max_output_tokens - SCRIPT_SLACK_TOKENS) * 4 // 3)
