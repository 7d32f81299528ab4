"""The review page's desk (`trinho.web.store.Desk`) on each backend, for tests that decide as
the owner does and then read what MEMORY.md and `memory/archive.md` hold.

`files` is the workspace as it is. `pg` is the same workspace imported as a new owner of the
test process's database: a line change is approved in the database's own transaction, an
archive or a rewrite held whole on the owner's working copy, as the page does.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from trinho.memory import store as memory_store
from trinho.web.store import Desk, FileDesk
from trinho.workspace import Workspace

if TYPE_CHECKING:
    from conftest import FixedClock
    from trinho.pg.connect import Database

T = TypeVar("T")


@dataclass(frozen=True)
class DeskBackend:
    kind: str
    desk: Desk
    memory: Callable[[], str]
    """MEMORY.md's text now."""
    archive: Callable[[], str]
    """`memory/archive.md`'s text now ("" when there is none)."""


def file_backend(ws: Workspace) -> DeskBackend:
    return DeskBackend(
        "files",
        FileDesk(ws),
        lambda: memory_store.read_text(ws),
        lambda: memory_store.read_archive(ws),
    )


def pg_backend(db: Database, ws: Workspace, clock: FixedClock) -> DeskBackend:
    """`ws` imported as a new owner of `db`, decided on through the page's PostgreSQL desk."""
    from trinho.pg.archive import PgArchive
    from trinho.pg.store import PgRecords
    from trinho.pg.transfer import import_workspace
    from trinho.pg.workcopy import run_on_copy
    from trinho.web.store import PgDesk

    owner = f"o-{uuid.uuid4().hex[:12]}"
    import_workspace(db, ws, owner)
    records = PgRecords(db, owner, clock=clock, timezone=ws.config.timezone)
    config_text = (ws.internal / "config.toml").read_text(encoding="utf-8")

    def on_copy(job: Callable[[Workspace], T]) -> T:
        return run_on_copy(db, owner, ws.config, config_text, job, clock=clock)

    return DeskBackend(
        "pg",
        PgDesk(records, on_copy),
        records.memory_text,
        PgArchive(db, owner).archived_text,
    )
