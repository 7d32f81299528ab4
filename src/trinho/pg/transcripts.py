"""Conversation transcripts in PostgreSQL: each line of `conversations/DAY.jsonl` a row.

The file store's promises: a turn is filed under the owner's day of its time, appended with
the commit that writes it (the day's lock held, as the file's lock is); a last line left
without its newline is kept when it is a turn (the next line starts after it) and cut off
when it is torn, as the file store cuts it. Reading gives the file store's own parse of the
same text (`trinho.conversations.store.parse_transcript`), so both backends read alike, and
an export writes the exact text back. The day's search units are replaced in the same
transaction.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import date, datetime
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from trinho.conversations.store import (
    ImportReport,
    StoredTurn,
    Turn,
    make_turn,
    parse_transcript,
    parse_turn_line,
    turn_line,
)
from trinho.errors import TrinhoError
from trinho.pg.connect import Database, check_owner
from trinho.pg.lines import lines_text, text_lines
from trinho.pg.locks import xact_lock
from trinho.pg.search import replace_path_docs
from trinho.search.documents import Doc, conversation_docs
from trinho.workspace import CONVERSATIONS_DIR

if TYPE_CHECKING:
    import psycopg

Clock = Callable[[], datetime]
NUL_SHOWN = "\ufffd"


def transcript_name(day: date) -> str:
    return f"{CONVERSATIONS_DIR}/{day.isoformat()}.jsonl"


def without_nul(doc: Doc) -> Doc:
    """A turn may hold NUL (its JSON line escapes it); PostgreSQL's text cannot, so the
    search unit shows U+FFFD there. The transcript itself keeps it (escaped)."""
    if "\x00" not in doc.text + doc.body + doc.context + doc.speaker + "".join(doc.refs):
        return doc
    return replace(
        doc,
        text=doc.text.replace("\x00", NUL_SHOWN),
        body=doc.body.replace("\x00", NUL_SHOWN),
        context=doc.context.replace("\x00", NUL_SHOWN),
        speaker=doc.speaker.replace("\x00", NUL_SHOWN),
        refs=tuple(ref.replace("\x00", NUL_SHOWN) for ref in doc.refs),
    )


class PgTranscripts:
    """One owner's transcripts; `clock` and `timezone` file a turn as a workspace does."""

    def __init__(self, db: Database, owner: str, *, clock: Clock, timezone: str) -> None:
        self.db = db
        self.owner = check_owner(owner)
        self._clock = clock
        self.tz = ZoneInfo(timezone)

    def now(self) -> datetime:
        return self._clock().astimezone(self.tz)

    def record_turn(
        self, role: str, text: str, at: datetime | None = None, ref: str | None = None
    ) -> StoredTurn:
        """Append one turn to the transcript of its day, in one transaction."""
        turn = make_turn(role, text, at or self.now(), ref, "turn")
        return self.append(turn.at.astimezone(self.tz).date(), [turn])[0]

    def append(self, day: date, turns: Sequence[Turn]) -> list[StoredTurn]:
        """Append validated turns to one day, in order, in one transaction."""
        with self.db.owner_tx(self.owner) as conn:
            xact_lock(conn, self.owner, "transcript", day.isoformat())
            return self._append(conn, day, turns)

    def _append(
        self, conn: psycopg.Connection, day: date, turns: Sequence[Turn]
    ) -> list[StoredTurn]:
        rel = transcript_name(day)
        last = conn.execute(
            "SELECT line, body, newline FROM transcript_lines WHERE owner_id = %s"
            " AND day = %s ORDER BY line DESC LIMIT 1",
            (self.owner, day),
        ).fetchone()
        first = 1
        if last is not None:
            line, body, newline = last
            first = line + 1
            if not newline:
                first = self._end_tail(conn, day, line, body, rel)
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO transcript_lines (owner_id, day, line, body) VALUES (%s, %s, %s, %s)",
                [(self.owner, day, first + i, turn_line(t)) for i, t in enumerate(turns)],
            )
        self._index(conn, day)
        return [StoredTurn(turn, rel, first + i) for i, turn in enumerate(turns)]

    def _end_tail(self, conn: psycopg.Connection, day: date, line: int, body: str, rel: str) -> int:
        """A last line without its newline: ended when it is a turn or blank (the file store
        writes the newline first), removed when torn. The first line number after it."""
        if body.strip():
            try:
                parse_turn_line(body, f"{rel}:{line}")
            except TrinhoError:
                conn.execute(
                    "DELETE FROM transcript_lines WHERE owner_id = %s AND day = %s AND line = %s",
                    (self.owner, day, line),
                )
                return line
        conn.execute(
            "UPDATE transcript_lines SET newline = true WHERE owner_id = %s AND day = %s"
            " AND line = %s",
            (self.owner, day, line),
        )
        return line + 1

    def _text(self, conn: psycopg.Connection, day: date) -> str:
        rows = conn.execute(
            "SELECT body, newline FROM transcript_lines WHERE owner_id = %s AND day = %s"
            " ORDER BY line",
            (self.owner, day),
        ).fetchall()
        return lines_text(rows)

    def _index(self, conn: psycopg.Connection, day: date) -> None:
        rel = transcript_name(day)
        docs = conversation_docs(rel, day, self._text(conn, day))
        replace_path_docs(conn, self.owner, rel, [without_nul(doc) for doc in docs])

    def import_turns(
        self, turns: Iterable[Turn], progress: Callable[[int], None] | None = None
    ) -> ImportReport:
        """File validated turns under their days, as `trinho import conversations` does; a
        turn already there verbatim is skipped, so an import run again adds nothing. Each
        day is one transaction."""
        by_day: dict[date, list[Turn]] = defaultdict(list)
        for turn in turns:
            by_day[turn.at.astimezone(self.tz).date()].append(turn)
        imported = skipped = 0
        for day in sorted(by_day):
            fresh = self._fresh(day, by_day[day])
            skipped += len(by_day[day]) - len(fresh)
            imported += len(fresh)
            if progress is not None:
                progress(len(by_day[day]))
        return ImportReport(imported, skipped, len(by_day))

    def _fresh(self, day: date, turns: list[Turn]) -> list[Turn]:
        """Append the day's turns not there yet, under the day's lock; those appended."""
        rel = transcript_name(day)
        with self.db.owner_tx(self.owner) as conn:
            xact_lock(conn, self.owner, "transcript", day.isoformat())
            text = self._text(conn, day)
            present = {turn_line(s.turn) for s in parse_transcript(text.encode("utf-8"), rel)}
            fresh = []
            for turn in turns:
                line = turn_line(turn)
                if line not in present:
                    present.add(line)
                    fresh.append(turn)
            if fresh:
                self._append(conn, day, fresh)
        return fresh

    def read_day(self, day: date) -> list[StoredTurn]:
        """Turns of one day, in order, as the file store reads the same text."""
        return parse_transcript(self.day_text(day).encode("utf-8"), transcript_name(day))

    def day_text(self, day: date) -> str:
        """The day's transcript as its file says it ("" when there is none)."""
        with self.db.owner_tx(self.owner) as conn:
            return self._text(conn, day)

    def days(self) -> list[date]:
        """The days with a transcript, in order."""
        with self.db.owner_tx(self.owner) as conn:
            rows = conn.execute(
                "SELECT DISTINCT day FROM transcript_lines WHERE owner_id = %s ORDER BY day",
                (self.owner,),
            ).fetchall()
        return [row[0] for row in rows]

    def put_file(self, conn: psycopg.Connection, day: date, text: str) -> None:
        """A transcript file's exact text as the day's lines (an import), in the caller's
        transaction; `reindex` makes its search units after."""
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO transcript_lines (owner_id, day, line, body, newline)"
                " VALUES (%s, %s, %s, %s, %s)",
                [(self.owner, day, n, b, nl) for n, (b, nl) in enumerate(text_lines(text), 1)],
            )

    def text_in(self, conn: psycopg.Connection, day: date) -> str:
        """The day file's text in the caller's transaction."""
        return self._text(conn, day)

    def append_text_in(self, conn: psycopg.Connection, day: date, text: str) -> None:
        """Lines of the day file appended as they are (a working copy's check-in), in the
        caller's transaction, which holds the day's lock."""
        row = conn.execute(
            "SELECT coalesce(max(line), 0) FROM transcript_lines WHERE owner_id = %s AND day = %s",
            (self.owner, day),
        ).fetchone()
        last: int = row[0] if row else 0
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO transcript_lines (owner_id, day, line, body, newline)"
                " VALUES (%s, %s, %s, %s, %s)",
                [
                    (self.owner, day, last + n, b, nl)
                    for n, (b, nl) in enumerate(text_lines(text), 1)
                ],
            )
        self._index(conn, day)

    def reindex(self) -> None:
        """Every day's search units again (after the owner's whole index was rebuilt)."""
        with self.db.owner_tx(self.owner) as conn:
            found = conn.execute(
                "SELECT DISTINCT day FROM transcript_lines WHERE owner_id = %s", (self.owner,)
            ).fetchall()
            for (day,) in found:
                self._index(conn, day)
