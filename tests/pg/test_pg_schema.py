"""The schema: migrations from an empty database, applied again as a no-op; every key led by
the owner; row-level security that shows the application role one owner's rows or none."""

from __future__ import annotations

import psycopg
import pytest
from hypothesis import given
from hypothesis import strategies as st
from psycopg import errors

from support.pgserver import MIGRATION_IDS, Cluster, Urls
from trinho.errors import TrinhoError
from trinho.pg.connect import Database
from trinho.pg.migrate import (
    INDEX_TABLES,
    OWNER_TABLES,
    READ_ONLY_TABLES,
    REGISTRY_TABLES,
    migrate,
)
from trinho.pg.owners import add_owner, list_owners, remove_owner


def test_migrations_build_the_schema_from_an_empty_database_and_rerun_as_a_no_op(
    pg_cluster: Cluster,
) -> None:
    url = pg_cluster.create_database("empty")
    applied = migrate(url)
    assert applied == MIGRATION_IDS
    assert migrate(url) == []
    with psycopg.connect(url) as conn:
        tables = {
            row[0]
            for row in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
                " AND tablename NOT LIKE '%yoyo%'"
            )
        }
    assert {*REGISTRY_TABLES, *OWNER_TABLES, *INDEX_TABLES, *READ_ONLY_TABLES} == tables


def test_every_primary_key_starts_with_the_owner(pg_urls: Urls) -> None:
    query = """
        SELECT c.relname, a.attname
        FROM pg_index i
        JOIN pg_class c ON c.oid = i.indrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
        JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]
        WHERE i.indisprimary AND c.relname NOT LIKE '%yoyo%'
    """
    with psycopg.connect(pg_urls.admin) as conn:
        first: dict[str, str] = dict(conn.execute(query).fetchall())
    assert set(first) == {*REGISTRY_TABLES, *OWNER_TABLES, *INDEX_TABLES, *READ_ONLY_TABLES}
    assert {first[name] for name in (*OWNER_TABLES, *INDEX_TABLES, *READ_ONLY_TABLES)} == {
        "owner_id"
    }
    assert first["owners"] == "owner_id"


def test_every_owner_table_forces_row_level_security(pg_urls: Urls) -> None:
    with psycopg.connect(pg_urls.admin) as conn:
        rows = conn.execute(
            "SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class"
            " WHERE relname = ANY(%s)",
            ([*OWNER_TABLES, *READ_ONLY_TABLES],),
        ).fetchall()
    assert sorted(rows) == sorted((name, True, True) for name in (*OWNER_TABLES, *READ_ONLY_TABLES))


def test_the_index_tables_hold_the_application_role_but_not_the_schemas_owner(
    pg_urls: Urls,
) -> None:
    """`search_terms` is under the owners' policy, not forced: the one function that reads
    it as the schema's owner can use its GIN index (migration 0009)."""
    with psycopg.connect(pg_urls.admin) as conn:
        rows = conn.execute(
            "SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class"
            " WHERE relname = ANY(%s)",
            (list(INDEX_TABLES),),
        ).fetchall()
    assert sorted(rows) == sorted((name, True, False) for name in INDEX_TABLES)


def _rows(
    conn: psycopg.Connection, owner: str | None, tables: tuple[str, ...] = OWNER_TABLES
) -> dict[str, int]:
    if owner is not None:
        conn.execute("SELECT set_config('trinho.owner', %s, true)", (owner,))
    return {
        table: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # type: ignore[index]
        for table in tables
    }


def _fill_each(conn: psycopg.Connection, *owners: str) -> None:
    """A row in every owner table for each owner, each owner in a transaction of its own."""
    for owner in owners:
        _fill(conn, owner)
        conn.commit()


APP_SEES = (*OWNER_TABLES, *INDEX_TABLES)
"""What the application role reads: row-level security holds it on each."""


def _fill(conn: psycopg.Connection, owner: str) -> None:
    conn.execute("SELECT set_config('trinho.owner', %s, true)", (owner,))
    conn.execute("INSERT INTO note_files VALUES (%s, 'memory/2026-11-29.md', 'x')", (owner,))
    conn.execute(
        "INSERT INTO note_acks VALUES (%s, '2026-11-29', 1, '14:05', 'x', now())", (owner,)
    )
    conn.execute("INSERT INTO memory_versions VALUES (%s, 1, 'm', NULL, now())", (owner,))
    conn.execute("INSERT INTO facts VALUES (%s, 'owner', 'city', NULL)", (owner,))
    conn.execute(
        "INSERT INTO fact_versions VALUES (%s, 'owner', 'city', 0, true, 'Hue', 'user',"
        " '2026-11-29', NULL, now(), 'cli', NULL)",
        (owner,),
    )
    conn.execute(
        "INSERT INTO proposals VALUES (%s, 'abcdef0123', 'fact', '{}', 'r', 'o', now(),"
        " 'pending', 'h', NULL, NULL, NULL, NULL)",
        (owner,),
    )
    conn.execute(
        "INSERT INTO search_docs VALUES (%s, 'd', 'note', 'memory/x.md', 1, NULL, 'b', 'Mai', '{}',"
        " 1)",  # its triggers fill search_stats and search_people
        (owner,),
    )
    conn.execute("INSERT INTO search_terms VALUES (%s, 'd', 'b', 1, 'note')", (owner,))
    conn.execute("INSERT INTO transcript_lines VALUES (%s, '2026-11-29', 1, '{}', true)", (owner,))
    conn.execute("INSERT INTO usage_entries VALUES (%s, 1, now(), NULL, '{}', true)", (owner,))
    conn.execute("INSERT INTO run_files VALUES (%s, '2026-W48', 'journal.json', '{}')", (owner,))
    conn.execute("INSERT INTO outbox_entries VALUES (%s, 'k', now(), '{}')", (owner,))
    conn.execute("INSERT INTO inbox_events VALUES (%s, 'telegram', 1, '{}', true)", (owner,))
    conn.execute("INSERT INTO archive_sections VALUES (%s, 1, 'x')", (owner,))
    conn.execute("INSERT INTO owner_files VALUES (%s, 'read-floor', 'x')", (owner,))
    conn.execute("INSERT INTO web_logins VALUES (%s, 'h', now(), NULL)", (owner,))


def test_the_application_role_sees_no_row_without_an_owner_and_one_owners_rows_with_one(
    pg_urls: Urls, owner: str, pg_admin: Database
) -> None:
    other = owner + "-b"
    add_owner(pg_admin, other)
    with psycopg.connect(pg_urls.app) as conn:
        _fill_each(conn, owner, other)
        assert set(_rows(conn, None, APP_SEES).values()) == {0}
        conn.rollback()
        assert set(_rows(conn, owner, APP_SEES).values()) == {1}
        conn.rollback()
        assert set(_rows(conn, other, APP_SEES).values()) == {1}
        conn.rollback()
        conn.execute("SELECT set_config('trinho.owner', %s, true)", (owner,))
        with pytest.raises(errors.InsufficientPrivilege):
            conn.execute("INSERT INTO search_terms VALUES (%s, 'e', 'b', 1, 'note')", (other,))
        conn.rollback()
        conn.execute("SELECT set_config('trinho.owner', %s, true)", (owner,))
        with pytest.raises(errors.InsufficientPrivilege):  # WITH CHECK: no row for another
            conn.execute(
                "INSERT INTO note_files VALUES (%s, 'memory/2026-11-30.md', 'x')", (other,)
            )
        conn.rollback()
        conn.execute("SELECT set_config('trinho.owner', %s, true)", (owner,))
        changed = conn.execute("UPDATE note_files SET body = 'y' WHERE owner_id = %s", (other,))
        assert changed.rowcount == 0
        conn.rollback()
        with pytest.raises(errors.InsufficientPrivilege):  # the registry is the operator's
            conn.execute("SELECT * FROM owners")
        conn.rollback()
        with pytest.raises(errors.InsufficientPrivilege):  # read through the directory only
            conn.execute("INSERT INTO owners (owner_id) VALUES ('intruder')")
        conn.rollback()
        with pytest.raises(errors.InsufficientPrivilege):
            conn.execute("UPDATE owner_directory SET timezone = 'UTC'")
        conn.rollback()
        assert (owner,) in conn.execute("SELECT owner_id FROM owner_directory").fetchall()


def test_even_the_tables_owner_sees_nothing_without_an_owner_set(pg_urls: Urls, owner: str) -> None:
    with psycopg.connect(pg_urls.admin) as conn:
        _fill(conn, owner)
        conn.commit()
        assert set(_rows(conn, None).values()) == {0}


def test_the_matches_function_finds_the_named_owners_units_only(
    pg_urls: Urls, owner: str, pg_admin: Database
) -> None:
    """`search_matches` runs as the schema's owner, past the policy, and returns the units of
    the owner the transaction names alone: refused without one, never another owner's."""
    other = owner + "-m"
    add_owner(pg_admin, other)
    with psycopg.connect(pg_urls.app) as conn:
        _fill_each(conn, owner, other)
        matches = "SELECT doc_id FROM search_matches(%s, 'b', '{b}', 0.3, 10, NULL, NULL, NULL)"
        with pytest.raises(errors.InsufficientPrivilege):
            conn.execute(matches, (owner,))
        conn.rollback()
        for who in (owner, other):
            conn.execute("SELECT set_config('trinho.owner', %s, true)", (who,))
            assert conn.execute(matches, (who,)).fetchall() == [("d",)]
            assert conn.execute(
                "SELECT count(*) FROM search_terms WHERE owner_id <> %s", (who,)
            ).fetchone() == (0,)
            conn.rollback()


def test_removing_an_owner_removes_every_row_of_theirs_and_no_one_elses(
    pg_urls: Urls, pg_admin: Database, owner: str
) -> None:
    other = owner + "-keep"
    add_owner(pg_admin, other)
    with psycopg.connect(pg_urls.app) as conn:
        _fill(conn, owner)
        _fill(conn, other)
        conn.commit()
    remove_owner(pg_admin, owner)
    assert owner not in list_owners(pg_admin) and other in list_owners(pg_admin)
    with psycopg.connect(pg_urls.admin) as conn:
        assert set(_rows(conn, owner).values()) == {0}
        conn.rollback()
        assert set(_rows(conn, other).values()) == {1}
        conn.rollback()
        for table in INDEX_TABLES:  # the schema's owner sees every owner's rows there
            count = f"SELECT count(*) FROM {table} WHERE owner_id = %s"
            assert conn.execute(count, (owner,)).fetchone() == (0,)
            assert conn.execute(count, (other,)).fetchone() == (1,)


def test_owner_ids_are_slugs_and_each_is_added_once(pg_admin: Database, owner: str) -> None:
    with pytest.raises(TrinhoError, match="owner id"):
        add_owner(pg_admin, "Bad Id")
    with pytest.raises(TrinhoError) as caught:
        add_owner(pg_admin, owner)
    assert caught.value.key == "error.owner.exists"
    with pytest.raises(TrinhoError) as gone:
        remove_owner(pg_admin, "nobody-here")
    assert gone.value.key == "error.owner.unknown"


@given(
    role=st.sampled_from(["trinho_admin", "trinho_app", "postgres"]),
    owner=st.sampled_from([None, "trinho_admin"]),
    owns=st.booleans(),
    can_create=st.booleans(),
)
def test_a_role_migrates_only_a_schema_it_owns_or_may_create(
    role: str, owner: str | None, owns: bool, can_create: bool
) -> None:
    from trinho.pg.migrate import migrator_refusal

    refusal = migrator_refusal(role, owner, owns, can_create)
    allowed = owns if owner is not None else can_create
    assert (refusal is None) == allowed
    if refusal is not None:
        assert role in str(refusal) and "TRINHO_DATABASE_URL" in str(refusal)
