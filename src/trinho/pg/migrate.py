"""Schema migrations, applied by yoyo from `trinho/pg/migrations/*.sql`.

yoyo (SQL files, a lock so two processes never migrate at once, a log of what was applied)
rather than alembic, which brings SQLAlchemy for what are plain SQL files here. Applying is
idempotent: a migration already applied is skipped.
"""

from __future__ import annotations

from pathlib import Path

from trinho.errors import TrinhoError
from trinho.pg.connect import SCHEMES

MIGRATIONS = Path(__file__).parent / "migrations"

QUEUE_ID = "queue"
"""How `migrate` names the job queue's tables among what it applied."""
OWNER_TABLES = (
    "note_files",
    "note_acks",
    "memory_versions",
    "facts",
    "fact_versions",
    "proposals",
    "search_docs",
    "search_stats",
    "search_people",
    "transcript_lines",
    "usage_entries",
    "run_files",
    "outbox_entries",
    "inbox_events",
    "archive_sections",
    "owner_files",
    "web_logins",
)
"""The tables that hold an owner's memory: row-level security on each."""

INDEX_TABLES = ("search_terms",)
"""Owners' tables the application reaches through a function of the schema's: each unit's
terms again, under the owners' policy for the application role but not forced on the role
that owns the schema, so that `search_matches` (SECURITY DEFINER) finds the matches through
the GIN index (migration 0009)."""

READ_ONLY_TABLES = ("owner_tokens",)
"""Owners' tables the operator writes and the application only reads (the MCP tokens'
hashes): row-level security on each, as on `OWNER_TABLES`."""

APP_FUNCTIONS = ("search_matches", "search_units")
"""The functions of the schema's the application role calls (a search); no role but it and
the schema's owner may execute any function of the schema (migration 0010)."""

REGISTRY_TABLES = ("owners", "telegram_bots")
"""The operator's tables: no owner's memory, no owner_id leading the key (the registry of
owners, where the Telegram bot's polling stands)."""

DIRECTORY_VIEWS = ("owner_directory",)
"""What the application role reads of the registry (migration 0011): each owner's id, zone,
when they were added and their Telegram user; the operator alone writes `owners`."""

BOT_TABLES = ("telegram_bots",)
"""Registry tables the application role reads and writes: the bot moves its own offset."""

APP_GRANTS = (
    ("SELECT, INSERT, UPDATE, DELETE", OWNER_TABLES),
    ("SELECT, INSERT, DELETE", INDEX_TABLES),
    ("SELECT", READ_ONLY_TABLES + DIRECTORY_VIEWS),
    ("SELECT, INSERT, UPDATE", BOT_TABLES),
)
"""What the application role may do on which relation of the schema's."""


def _yoyo_url(url: str) -> str:
    for scheme in SCHEMES:
        if url.startswith(scheme):
            return "postgresql+psycopg://" + url[len(scheme) :]
    return url


def migrate(url: str) -> list[str]:
    """Apply every migration not applied yet, then install the job queue's tables when
    absent (`trinho.pg.jobs`); the ids applied now (empty: up to date)."""
    from yoyo import get_backend, read_migrations

    from trinho.pg.jobs import install_queue

    check_migrator(url)
    backend = get_backend(_yoyo_url(url))
    try:
        migrations = read_migrations(str(MIGRATIONS))
        with backend.lock():
            pending = backend.to_apply(migrations)
            backend.apply_migrations(pending)
        applied = [migration.id for migration in pending]
    finally:
        backend.connection.close()
    if install_queue(url):
        applied.append(QUEUE_ID)
    return applied


def migrator_refusal(
    role: str, schema_owner: str | None, owns: bool, can_create: bool
) -> TrinhoError | None:
    """Why `role` may not migrate, or None (pure): the schema's tables belong to the role that
    created them, the operator's (`owns`: `role` is it, a member of it or a superuser); the
    application role, which owns none of them and cannot create any, is refused before yoyo
    touches the database."""
    if schema_owner is not None and not owns:
        return TrinhoError.keyed("error.store.migrate_role", role=role, owner=schema_owner)
    if schema_owner is None and not can_create:
        return TrinhoError.keyed("error.store.migrate_create", role=role)
    return None


OWNERSHIP = """
SELECT current_user, t.tableowner, t.tableowner IS NOT NULL
       AND pg_has_role(current_user, t.tableowner::name, 'USAGE'),
       coalesce(has_schema_privilege(current_schema(), 'CREATE'), false)
  FROM (SELECT 1) AS one
  LEFT JOIN pg_tables AS t ON t.schemaname = current_schema() AND t.tablename = 'owners'
"""


def check_migrator(url: str) -> None:
    """Refuse, in one line, to migrate as a role that does not own the schema."""
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute(OWNERSHIP).fetchone()
    if row is not None and (refusal := migrator_refusal(*row)) is not None:
        raise refusal


def grant_app_role(url: str, role: str) -> None:
    """Let the application role read and write the owners' tables (`INDEX_TABLES` as a
    search unit's writes do), read `READ_ONLY_TABLES` and the registry's `DIRECTORY_VIEWS`,
    move the bot's offset, use the job queue, execute `APP_FUNCTIONS`, and nothing else: it
    owns none of them and is no superuser, so row-level security holds it. Safe to run again
    (after an upgrade, so a new table is granted too)."""
    import psycopg
    from psycopg import sql

    from trinho.pg.jobs import grant_queue

    with psycopg.connect(url) as conn:
        for privileges, relations in APP_GRANTS:
            for relation in relations:
                conn.execute(
                    sql.SQL(f"GRANT {privileges} ON {{}} TO {{}}").format(
                        sql.Identifier(relation), sql.Identifier(role)
                    )
                )
        for function in APP_FUNCTIONS:
            conn.execute(
                sql.SQL("GRANT EXECUTE ON FUNCTION {} TO {}").format(
                    sql.Identifier(function), sql.Identifier(role)
                )
            )
        grant_queue(conn, role)
