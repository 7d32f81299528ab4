"""Conversation transcripts `conversations/YYYY-MM-DD.jsonl`: one JSON object per turn.

Each turn is filed under the owner's calendar day of its time. Bulk import validates every
line before writing anything, so a bad line leaves the workspace untouched.

Every turn ends with a newline. A last line without one that is not a valid turn is what a
writer killed mid-append leaves (its call never returned): readers skip it and the next append
cuts it off, so one crash cannot make a day unreadable.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any, Self

from trinho.clock import check_instant, parse_now
from trinho.durable import append_bytes, read_regular, truncate
from trinho.errors import TrinhoError
from trinho.notes.format import require_unicode
from trinho.textnorm import decode, nfc
from trinho.workspace import CONVERSATIONS_DIR, Workspace

MAX_TURN_CHARS = 200_000
# JSON leaves these unescaped, but str.splitlines() breaks lines at them: escape them so any
# line-based reader sees one turn per line.
_LINE_BREAK_ESCAPES = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})
MAX_ROLE_CHARS = 64


@dataclass(frozen=True)
class Turn:
    at: datetime
    role: str
    text: str
    ref: str | None = None

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {"at": self.at.isoformat(), "role": self.role, "text": self.text}
        if self.ref is not None:
            record["ref"] = self.ref
        return record

    @classmethod
    def from_json(cls, data: object, where: str) -> Self:
        """A turn from its JSON object (a transcript line, an import file's entry), checked."""
        if not isinstance(data, dict):
            raise TrinhoError.keyed("error.turn.not_object", where=where)
        missing = [k for k in ("at", "role", "text") if k not in data]
        if missing:
            raise TrinhoError.keyed("error.field.missing", where=where, names=", ".join(missing))
        turn = make_turn(data["role"], data["text"], data["at"], data.get("ref"), where)
        return cls(turn.at, turn.role, turn.text, turn.ref)


def turn_line(turn: Turn) -> str:
    """The turn as one transcript line (without its newline), one line for any reader."""
    return json.dumps(turn.to_json(), ensure_ascii=False).translate(_LINE_BREAK_ESCAPES)


@dataclass(frozen=True)
class StoredTurn:
    """A turn as read back, with where it is (`path`, 1-based `line`)."""

    turn: Turn
    path: str
    line: int


def make_turn(role: object, text: object, at: object, ref: object, where: str) -> Turn:
    """Validate one turn's fields; `where` names the source in any error."""
    if not isinstance(role, str) or not role.strip() or len(role) > MAX_ROLE_CHARS:
        raise TrinhoError.keyed("error.turn.bad_role", where=where, limit=MAX_ROLE_CHARS)
    if "\n" in role or "\r" in role:
        raise TrinhoError.keyed("error.turn.role_lines", where=where)
    if not isinstance(text, str):
        raise TrinhoError.keyed("error.turn.text_type", where=where)
    if len(text) > MAX_TURN_CHARS:
        raise TrinhoError.keyed("error.turn.text_too_long", where=where, limit=MAX_TURN_CHARS)
    if isinstance(at, datetime):
        moment = at
        if moment.tzinfo is None:
            raise TrinhoError.keyed("error.turn.at_no_offset", where=where)
        check_instant(moment, f"{where}: 'at'")
    elif isinstance(at, str):
        moment = parse_now(at, f"{where}: 'at'")
    else:
        raise TrinhoError.keyed("error.turn.at_type", where=where)
    if ref is not None and (not isinstance(ref, str | int) or isinstance(ref, bool)):
        raise TrinhoError.keyed("error.turn.ref_type", where=where)
    require_unicode(role, f"{where}: 'role'")
    require_unicode(text, f"{where}: 'text'")
    if isinstance(ref, str):
        require_unicode(ref, f"{where}: 'ref'")
    return Turn(moment, role.strip(), nfc(text), None if ref is None else str(ref))


def parse_turn_line(line: str, where: str) -> Turn:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise TrinhoError.keyed(
            "error.turn.not_json", where=where, error=exc.msg, column=exc.colno
        ) from None
    return Turn.from_json(record, where)


def record_turn(
    workspace: Workspace,
    role: str,
    text: str,
    at: datetime | None = None,
    ref: str | None = None,
) -> StoredTurn:
    """Append one turn to the transcript of its day (owner's zone)."""
    turn = make_turn(role, text, at or workspace.now(), ref, "turn")
    return _append_turns(workspace, workspace.local_date(turn.at), [turn])[0]


def _split_tail(data: bytes, where: str) -> tuple[str, Turn | None, bool]:
    """The complete lines, the turn on a last line without a newline, and whether it is torn."""
    cut = data.rfind(b"\n") + 1
    complete = decode(data[:cut], where)
    tail = data[cut:]
    if not tail.strip():
        return complete, None, False
    line = complete.count("\n") + 1
    try:
        return complete, parse_turn_line(tail.decode("utf-8"), f"{where}:{line}"), False
    except (UnicodeDecodeError, TrinhoError):
        return complete, None, True


def _append_turns(workspace: Workspace, day: date, turns: list[Turn]) -> list[StoredTurn]:
    path = workspace.conversation_path(day)
    rel = f"{CONVERSATIONS_DIR}/{day.isoformat()}.jsonl"
    payload = "".join(turn_line(turn) + "\n" for turn in turns).encode("utf-8")
    with workspace.lock(path):
        data = read_regular(path) if path.exists() else b""
        complete, _, torn = _split_tail(data, rel)
        if torn:
            data = data[: data.rfind(b"\n") + 1]
            truncate(path, len(data))
        first = complete.count("\n") + 1 + (1 if data and not data.endswith(b"\n") else 0)
        append_bytes(path, payload)
    workspace.written([rel])
    return [StoredTurn(turn, rel, first + i) for i, turn in enumerate(turns)]


def read_day(workspace: Workspace, day: date) -> list[StoredTurn]:
    """Turns of one day, in file order; a line that does not parse is an error naming it."""
    path = workspace.conversation_path(day)
    if not path.exists():
        return []
    rel = f"{CONVERSATIONS_DIR}/{day.isoformat()}.jsonl"
    with workspace.read_lock(path):
        data = read_regular(path)
    return parse_transcript(data, rel)


def parse_transcript(data: bytes, rel: str) -> list[StoredTurn]:
    """A day's transcript as read (pure, so any backend reads one alike): its turns in order,
    a torn last line left out, any other line that does not parse an error naming it."""
    complete, tail_turn, _ = _split_tail(data, rel)
    turns = []
    number = 0
    for number, line in enumerate(complete.split("\n")[:-1], start=1):
        if line.strip():
            turns.append(StoredTurn(parse_turn_line(line, f"{rel}:{number}"), rel, number))
    if tail_turn is not None:
        turns.append(StoredTurn(tail_turn, rel, number + 1))
    return turns


def read_turns(workspace: Workspace, since: date, until: date) -> list[StoredTurn]:
    """Turns filed under the days `since`..`until` inclusive, day by day."""
    result: list[StoredTurn] = []
    for day in workspace.days_between(since, until):
        result.extend(read_day(workspace, day))
    return result


@dataclass(frozen=True)
class ImportReport:
    imported: int
    skipped: int
    days: int


def read_import_file(path: Path) -> list[Turn]:
    """Parse every line of an import file first; any bad line stops the import before writing."""
    try:
        data = read_regular(path)
    except OSError as exc:
        raise TrinhoError.keyed("error.file.cannot_read", path=path, error=exc.strerror) from None
    text = decode(data, str(path))
    turns = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            turns.append(parse_turn_line(line, f"{path}:{number}"))
    return turns


def import_turns(
    workspace: Workspace,
    turns: Iterable[Turn],
    progress: Callable[[int], None] | None = None,
) -> ImportReport:
    """File validated turns under their days; turns already present verbatim are skipped."""
    by_day: dict[date, list[Turn]] = defaultdict(list)
    for turn in turns:
        by_day[workspace.local_date(turn.at)].append(turn)
    imported = skipped = 0
    for day in sorted(by_day):
        present = {turn_line(stored.turn) for stored in read_day(workspace, day)}
        fresh = []
        for turn in by_day[day]:
            line = turn_line(turn)
            if line in present:
                skipped += 1
            else:
                present.add(line)
                fresh.append(turn)
        if fresh:
            _append_turns(workspace, day, fresh)
            imported += len(fresh)
        if progress is not None:
            progress(len(by_day[day]))
    return ImportReport(imported, skipped, len(by_day))
