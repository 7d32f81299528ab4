"""`memory/archive.md` in PostgreSQL: the sections moved out of MEMORY.md, in order.

The file store appends a section (locked, fsync'd, one write) unless one with the same
heading is there already, and replaces the file atomically on a rewrite; here each is one
transaction under the archive's lock. The file's text is the sections' concatenation, each
stored with the gap the file store writes before it (`append_gap`), so an export is the file
byte for byte. Its search units are replaced in the same transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from trinho.pg.connect import Database, check_owner
from trinho.pg.locks import xact_lock
from trinho.pg.search import replace_path_docs
from trinho.search.documents import memory_docs
from trinho.workspace import ARCHIVE_FILE

if TYPE_CHECKING:
    import psycopg


def append_gap(existing: str) -> str:
    """What the file store writes before a section appended to `existing`: a blank line
    between sections, and the newline a hand-edited last line lacks (pure)."""
    if not existing:
        return ""
    if not existing.endswith("\n"):
        return "\n\n\n"
    return "" if existing.endswith("\n\n") else "\n"


class PgArchive:
    def __init__(self, db: Database, owner: str) -> None:
        self.db = db
        self.owner = check_owner(owner)

    def _text(self, conn: psycopg.Connection) -> str:
        row = conn.execute(
            "SELECT coalesce(string_agg(body, '' ORDER BY seq), '') FROM archive_sections"
            " WHERE owner_id = %s",
            (self.owner,),
        ).fetchone()
        return row[0] if row else ""

    def _write(self, conn: psycopg.Connection, sections: list[str], text: str | None) -> None:
        """Append `sections`; with the archive's whole `text`, replace its search units."""
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO archive_sections (owner_id, seq, body) VALUES (%s,"
                " (SELECT coalesce(max(seq), 0) + 1 FROM archive_sections WHERE owner_id = %s),"
                " %s)",
                [(self.owner, self.owner, body) for body in sections],
            )
        if text is not None:
            replace_path_docs(conn, self.owner, ARCHIVE_FILE, memory_docs(ARCHIVE_FILE, text))

    def archive(self, section: str) -> bool:
        """Append one section; False, writing nothing, when its heading is there already."""
        heading = section.split("\n", 1)[0]
        with self.db.owner_tx(self.owner) as conn:
            xact_lock(conn, self.owner, "archive")
            existing = self._text(conn)
            if heading in existing.split("\n"):
                return False
            body = append_gap(existing) + section
            self._write(conn, [body], existing + body)
        return True

    def rewrite(self, change: Callable[[str], str]) -> bool:
        """Replace the archive with `change` of its text (removed when left empty); False,
        writing nothing, when that is the text it has or there is no archive."""
        with self.db.owner_tx(self.owner) as conn:
            xact_lock(conn, self.owner, "archive")
            found = conn.execute(
                "SELECT 1 FROM archive_sections WHERE owner_id = %s LIMIT 1", (self.owner,)
            ).fetchone()
            if found is None:
                return False
            old = self._text(conn)
            new = change(old)
            if new == old:
                return False
            conn.execute("DELETE FROM archive_sections WHERE owner_id = %s", (self.owner,))
            self._write(conn, [new] if new else [], new)
        return True

    def archived_text(self) -> str:
        """The archive's text, "" when there is none."""
        with self.db.owner_tx(self.owner) as conn:
            return self._text(conn)

    def exists(self) -> bool:
        with self.db.owner_tx(self.owner) as conn:
            found = conn.execute(
                "SELECT 1 FROM archive_sections WHERE owner_id = %s LIMIT 1", (self.owner,)
            ).fetchone()
        return found is not None

    def put_file(self, conn: psycopg.Connection, text: str) -> None:
        """The archive file's exact text as one section (an import), in the caller's
        transaction; `reindex` makes its search units after."""
        self._write(conn, [text], None)

    def reindex(self) -> None:
        with self.db.owner_tx(self.owner) as conn:
            text = self._text(conn)
            replace_path_docs(conn, self.owner, ARCHIVE_FILE, memory_docs(ARCHIVE_FILE, text))
