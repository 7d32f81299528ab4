"""The operator's registry of owners: add, list, remove (`trinho owners`).

Removing an owner removes every row of theirs (foreign keys with ON DELETE CASCADE, checked
by the database, which row-level security does not hide rows from).
"""

from __future__ import annotations

from trinho.errors import TrinhoError
from trinho.pg.connect import Database, check_owner


def add_owner(db: Database, owner: str) -> None:
    check_owner(owner)
    with db.tx() as conn:
        added = conn.execute(
            "INSERT INTO owners (owner_id) VALUES (%s) ON CONFLICT DO NOTHING", (owner,)
        ).rowcount
    if not added:
        raise TrinhoError.keyed("error.owner.exists", owner=owner)


def list_owners(db: Database) -> list[str]:
    with db.tx() as conn:
        rows = conn.execute("SELECT owner_id FROM owners ORDER BY owner_id").fetchall()
    return [row[0] for row in rows]


def require_owner(db: Database, owner: str) -> str:
    check_owner(owner)
    with db.tx() as conn:
        found = conn.execute("SELECT 1 FROM owners WHERE owner_id = %s", (owner,)).fetchone()
    if found is None:
        raise TrinhoError.keyed("error.owner.unknown", owner=owner)
    return owner


def remove_owner(db: Database, owner: str) -> None:
    check_owner(owner)
    with db.tx() as conn:
        gone = conn.execute("DELETE FROM owners WHERE owner_id = %s", (owner,)).rowcount
    if not gone:
        raise TrinhoError.keyed("error.owner.unknown", owner=owner)
