"""Advisory locks on (owner, what...): the file stores' file locks, in the database.

A transaction-scoped one serialises the writers of one record as the file lock does and is
released by the commit or the rollback; a session-scoped one is held across transactions
(an outbox entry's send, the one process that polls an inbox) and released when its
connection ends, so a crashed holder never keeps it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import psycopg

    from trinho.pg.connect import Database


def _name(what: tuple[str, ...]) -> str:
    return "\x1f".join(what)


def xact_lock(conn: psycopg.Connection, *what: str) -> None:
    """Wait for the lock on `what`, held until the transaction ends."""
    conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (_name(what),))


@contextlib.contextmanager
def session_lock(db: Database, *what: str, wait: bool = True) -> Iterator[bool]:
    """The lock on `what` held on a connection of its own for the block; with `wait` False,
    whether it was free (the block runs either way, told so)."""
    name = _name(what)
    with db.pool.connection() as conn:
        conn.autocommit = True
        take = "pg_advisory_lock" if wait else "pg_try_advisory_lock"
        row = conn.execute(f"SELECT {take}(hashtextextended(%s, 0))", (name,)).fetchone()
        held = wait or bool(row and row[0])
        try:
            yield held
        finally:
            if not conn.broken:  # a connection lost took its lock with it
                if held:
                    conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (name,))
                conn.autocommit = False
