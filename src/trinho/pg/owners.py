"""The operator's registry of owners: add, list, remove (`trinho owners`).

The services read it through `owner_directory` (migration 0011), the one part of the registry
the application role is granted; writing it is the operator's.

Removing an owner removes every row of theirs (foreign keys with ON DELETE CASCADE, checked
by the database, which row-level security does not hide rows from).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from trinho.clock import load_zone
from trinho.errors import TrinhoError
from trinho.pg.connect import Database, check_owner

if TYPE_CHECKING:
    import psycopg


def add_owner(db: Database, owner: str, timezone: str = "UTC") -> None:
    """Register an owner, whose times are written in `timezone` (an IANA name)."""
    with db.tx() as conn:
        add_owner_in(conn, owner, timezone)


def add_owner_in(conn: psycopg.Connection, owner: str, timezone: str) -> None:
    """`add_owner` in the caller's transaction: an import registers its new owner in the
    transaction that writes the owner's records, so a refused import leaves no owner behind."""
    check_owner(owner)
    load_zone(timezone, "--tz")
    added = conn.execute(
        "INSERT INTO owners (owner_id, timezone) VALUES (%s, %s) ON CONFLICT DO NOTHING",
        (owner, timezone),
    ).rowcount
    if not added:
        raise TrinhoError.keyed("error.owner.exists", owner=owner)


def list_owners(db: Database) -> list[str]:
    return list(owner_zones(db))


def owner_zones(db: Database) -> dict[str, str]:
    """Every owner and their time zone, in id order."""
    with db.tx() as conn:
        rows = conn.execute(
            "SELECT owner_id, timezone FROM owner_directory ORDER BY owner_id"
        ).fetchall()
    return dict(rows)


def owner_zone(db: Database, owner: str) -> str | None:
    """The owner's time zone, or None when there is no such owner."""
    check_owner(owner)
    with db.tx() as conn:
        row = conn.execute(
            "SELECT timezone FROM owner_directory WHERE owner_id = %s", (owner,)
        ).fetchone()
    return row[0] if row else None


def owner_since(db: Database, owner: str) -> datetime | None:
    """When the owner was added, or None when there is no such owner: their scheduled jobs
    owe the slots since then, however late a worker first sees them."""
    check_owner(owner)
    with db.tx() as conn:
        row = conn.execute(
            "SELECT created_at FROM owner_directory WHERE owner_id = %s", (owner,)
        ).fetchone()
    return row[0] if row else None


def sole_owner(db: Database) -> tuple[tuple[str, str] | None, int]:
    """The store's only owner and their time zone (None unless there is exactly one), and
    how many owners it holds; two rows read at most, however many there are."""
    with db.tx() as conn:
        rows = conn.execute(
            "SELECT owner_id, timezone, count(*) OVER () FROM owner_directory"
            " ORDER BY owner_id LIMIT 2"
        ).fetchall()
    count: int = rows[0][2] if rows else 0
    return ((rows[0][0], rows[0][1]) if count == 1 else None), count


def require_owner(db: Database, owner: str) -> str:
    """The owner's time zone; one keyed line when there is no such owner."""
    zone = owner_zone(db, owner)
    if zone is None:
        raise TrinhoError.keyed("error.owner.unknown", owner=owner)
    return zone


def remove_owner(db: Database, owner: str) -> None:
    check_owner(owner)
    with db.tx() as conn:
        gone = conn.execute("DELETE FROM owners WHERE owner_id = %s", (owner,)).rowcount
    if not gone:
        raise TrinhoError.keyed("error.owner.unknown", owner=owner)


def owner_rows(db: Database) -> list[tuple[str, str, int | None]]:
    """Every owner, their time zone and their Telegram user id (None: none), in id order."""
    with db.tx() as conn:
        rows = conn.execute(
            "SELECT owner_id, timezone, telegram_user_id FROM owner_directory ORDER BY owner_id"
        ).fetchall()
    return [(owner, zone, user) for owner, zone, user in rows]


def set_telegram_user(db: Database, owner: str, user_id: int | None) -> None:
    """Make `user_id` the owner's Telegram user (None: the owner has none); refused in one
    line when another owner has it, so a user is never two owners."""
    import psycopg

    check_owner(owner)
    try:
        with db.tx() as conn:
            found = conn.execute(
                "UPDATE owners SET telegram_user_id = %s WHERE owner_id = %s", (user_id, owner)
            ).rowcount
    except psycopg.errors.UniqueViolation:
        raise TrinhoError.keyed("error.owner.telegram_taken", user=user_id) from None
    if not found:
        raise TrinhoError.keyed("error.owner.unknown", owner=owner)


def telegram_owner(db: Database, user_id: int) -> str | None:
    """The owner whose Telegram user `user_id` is, or None for a stranger: one indexed row of
    the registry, read before any owner's records are."""
    with db.tx() as conn:
        row = conn.execute(
            "SELECT owner_id FROM owner_directory WHERE telegram_user_id = %s", (user_id,)
        ).fetchone()
    return row[0] if row else None


def telegram_users(db: Database) -> dict[str, int]:
    """Every owner who has a Telegram user, and that user's id."""
    with db.tx() as conn:
        rows = conn.execute(
            "SELECT owner_id, telegram_user_id FROM owner_directory"
            " WHERE telegram_user_id IS NOT NULL"
            " ORDER BY owner_id"
        ).fetchall()
    return dict(rows)
