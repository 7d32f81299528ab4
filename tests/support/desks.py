"""The owner's records (`trinho.records.protocol.Records`) on each backend, as the review page
has them, for tests that decide as the owner does and then read what MEMORY.md and
`memory/archive.md` hold.

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
from trinho.records.protocol import FileRecords, Records
from trinho.review.appliers import APPLIERS
from trinho.workspace import Workspace

if TYPE_CHECKING:
    from conftest import FixedClock
    from trinho.pg.connect import Database

T = TypeVar("T")


@dataclass(frozen=True)
class DeskBackend:
    kind: str
    records: Records
    memory: Callable[[], str]
    """MEMORY.md's text now."""
    archive: Callable[[], str]
    """`memory/archive.md`'s text now ("" when there is none)."""


def file_backend(ws: Workspace) -> DeskBackend:
    return DeskBackend(
        "files",
        FileRecords(ws, APPLIERS),
        lambda: memory_store.read_text(ws),
        lambda: memory_store.read_archive(ws),
    )


def pg_backend(db: Database, ws: Workspace, clock: FixedClock) -> DeskBackend:
    """`ws` imported as a new owner of `db`, decided on as the page decides on it."""
    from trinho.pg.archive import PgArchive
    from trinho.pg.store import PgRecords
    from trinho.pg.transfer import import_workspace
    from trinho.pg.workcopy import run_on_copy

    owner = f"o-{uuid.uuid4().hex[:12]}"
    import_workspace(db, ws, owner)
    config_text = (ws.internal / "config.toml").read_text(encoding="utf-8")

    def on_copy(job: Callable[[Workspace], T]) -> T:
        return run_on_copy(db, owner, ws.config, config_text, job, clock=clock)

    records = PgRecords(db, owner, clock=clock, timezone=ws.config.timezone, files=on_copy)
    return DeskBackend(
        "pg",
        records,
        records.memory_text,
        PgArchive(db, owner).archived_text,
    )
