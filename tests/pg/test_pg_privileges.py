"""Who can reach what in the database, tried from outside: a role granted nothing but a login
and the database's CONNECT, and the application role with no owner named, each try every
table, view, sequence and function the catalog lists (so a new one is tried without a change
here), and read nothing; `search_matches`, which runs as the schema's owner past the owners'
policy, refuses a forged owner, a caller that is not the application's, and an owner other
than the one the transaction names (migration 0010)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date

import psycopg
import pytest
from psycopg import errors, sql

from conftest import TZ, FixedClock
from support.pg_fixtures import new_owner
from support.pgserver import Cluster, Urls
from trinho.notes.format import format_entry
from trinho.pg.connect import Database
from trinho.pg.jobs import SCHEMA as QUEUE_SCHEMA
from trinho.pg.migrate import APP_FUNCTIONS, BOT_TABLES, DIRECTORY_VIEWS, MIGRATIONS
from trinho.pg.search import doc_id, search, tsquery_literal, tsvector_literal
from trinho.pg.store import PgRecords
from trinho.search.documents import note_docs
from trinho.search.tokenize import query_terms

SYSTEM = "n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_%%'"

MATCHES = (
    "SELECT doc_id FROM search_matches(%s, 'pho'::tsquery, '{pho}', 0.3, 10, NULL, NULL, NULL)"
)
UNITS = "SELECT doc_id FROM search_units(%s, 'pho'::tsquery, '{pho}', 0.3, 10, NULL, NULL, NULL)"


@dataclass(frozen=True)
class Function:
    oid: int
    schema: str
    name: str
    kind: str
    args: tuple[str, ...]
    callable_from_sql: bool
    """No argument or result of a pseudo-type (internal, trigger, any...): a call with a NULL
    of each argument's type can be written."""
    extension: bool
    """An extension's (btree_gin's index support): owned by whoever installed it, not ours
    to revoke."""
    definer: bool

    def call(self) -> sql.Composed:
        nulls = sql.SQL(", ").join(sql.SQL("NULL::{}").format(sql.SQL(t)) for t in self.args)
        target = sql.SQL("{}.{}({})").format(
            sql.Identifier(self.schema), sql.Identifier(self.name), nulls
        )
        return sql.SQL("CALL {}" if self.kind == "p" else "SELECT * FROM {}").format(target)


def _relations(admin: str) -> list[tuple[str, str, str]]:
    """Every table, view, materialized view, foreign table and sequence outside the system's
    schemas, as the catalog lists them: (schema, name, kind)."""
    with psycopg.connect(admin) as conn:
        rows = conn.execute(
            "SELECT n.nspname, c.relname, c.relkind::text FROM pg_class c"
            " JOIN pg_namespace n ON n.oid = c.relnamespace"
            f" WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S') AND {SYSTEM}"
            " ORDER BY 1, 2"
        ).fetchall()
    return [(s, n, k) for s, n, k in rows]


def _functions(admin: str) -> list[Function]:
    """Every function and procedure outside the system's schemas (the extensions' too)."""
    with psycopg.connect(admin) as conn:
        rows = conn.execute(
            "SELECT p.oid::int, n.nspname, p.proname, p.prokind::text,"
            " coalesce((SELECT array_agg(format_type(t, NULL) ORDER BY i)"
            "  FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY AS a(t, i)), '{}'),"
            " NOT EXISTS (SELECT 1 FROM pg_type y WHERE y.typtype = 'p'"
            "  AND (y.oid = ANY(p.proargtypes::oid[]) OR y.oid = p.prorettype)),"
            " EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass"
            "  AND d.objid = p.oid AND d.deptype = 'e'),"
            " p.prosecdef"
            " FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
            f" WHERE {SYSTEM} AND p.prokind IN ('f', 'p') ORDER BY 2, 3"
        ).fetchall()
    return [Function(o, s, n, k, tuple(a), c, e, d) for o, s, n, k, a, c, e, d in rows]


def _database(url: str) -> str:
    return url.rsplit("/", 1)[1]


@pytest.fixture
def stranger(pg_cluster: Cluster, pg_urls: Urls) -> Iterator[tuple[str, str]]:
    """A new role with a login and CONNECT on the database, granted nothing else: its name
    and its URL."""
    name = f"stranger_{uuid.uuid4().hex[:10]}"
    pg_cluster.role(name)
    with psycopg.connect(pg_urls.admin, autocommit=True) as conn:
        conn.execute(
            sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(
                sql.Identifier(_database(pg_urls.admin)), sql.Identifier(name)
            )
        )
    yield name, pg_cluster.url(_database(pg_urls.admin), name)


@pytest.fixture
def two_owners(pg_app: Database, pg_admin: Database, clock: FixedClock) -> tuple[str, str]:
    """Two owners whose notes (their files, their index, their counts) say `phở`; only the
    second's say `Đà Lạt`."""
    owners = (new_owner(pg_admin), new_owner(pg_admin))
    for owner, town in zip(owners, ("Huế", "Đà Lạt"), strict=True):
        PgRecords(pg_app, owner, clock=clock, timezone=TZ).save_note(f"ăn phở với Mai ở {town}")
    return owners


def _select(schema: str, relation: str) -> sql.Composed:
    return sql.SQL("SELECT * FROM {}.{}").format(sql.Identifier(schema), sql.Identifier(relation))


def _tried(conn: psycopg.Connection, statement: sql.Composed) -> list[tuple[object, ...]]:
    """The rows a statement gives, or the error it raised, the connection ready again."""
    try:
        return conn.execute(statement).fetchall()
    except psycopg.Error as exc:
        conn.rollback()
        raise exc


def test_a_role_granted_nothing_reads_no_table_view_sequence_or_function(
    pg_urls: Urls, stranger: tuple[str, str], two_owners: tuple[str, str]
) -> None:
    name, url = stranger
    relations = _relations(pg_urls.admin)
    functions = _functions(pg_urls.admin)
    listed = {r[1] for r in relations} | {f.name for f in functions}
    assert {"note_files", "search_terms", "owners", *APP_FUNCTIONS} <= listed
    with psycopg.connect(url) as conn:
        conn.execute("SELECT set_config('trinho.owner', %s, false)", (two_owners[0],))
        conn.commit()
        for schema, relation, _ in relations:
            with pytest.raises(errors.InsufficientPrivilege):
                _tried(conn, _select(schema, relation))
        for function in functions:
            if function.extension:  # it runs as its caller, so reads no more than they may
                assert not function.definer, function
                continue
            reachable = conn.execute(
                "SELECT has_schema_privilege(%s, %s, 'USAGE')"
                " AND has_function_privilege(%s, %s::oid, 'EXECUTE')",
                (name, function.schema, name, function.oid),
            ).fetchone()
            assert reachable == (False,), function
            if function.callable_from_sql:
                with pytest.raises(errors.InsufficientPrivilege):
                    _tried(conn, function.call())


def test_a_role_granted_nothing_cannot_search_any_owner_it_names(
    stranger: tuple[str, str], two_owners: tuple[str, str]
) -> None:
    _, url = stranger
    with psycopg.connect(url) as conn:
        for owner in two_owners:
            conn.execute("SELECT set_config('trinho.owner', %s, true)", (owner,))
            with pytest.raises(errors.InsufficientPrivilege, match="search_matches"):
                conn.execute(MATCHES, (owner,))
            conn.rollback()
            conn.execute("SELECT set_config('trinho.owner', %s, true)", (owner,))
            with pytest.raises(errors.InsufficientPrivilege, match="search_units"):
                conn.execute(UNITS, (owner,))
            conn.rollback()


def test_search_matches_refuses_a_caller_that_is_not_the_applications_even_when_granted(
    pg_urls: Urls, stranger: tuple[str, str], two_owners: tuple[str, str]
) -> None:
    """A grant given by mistake (EXECUTE to a role, or to PUBLIC again) still reads nothing:
    the function checks who calls it, and only a role that writes the index passes."""
    name, url = stranger
    with psycopg.connect(pg_urls.admin, autocommit=True) as admin:
        admin.execute(
            sql.SQL("GRANT EXECUTE ON FUNCTION search_matches TO {}").format(sql.Identifier(name))
        )
    with psycopg.connect(url) as conn:
        conn.execute("SELECT set_config('trinho.owner', %s, true)", (two_owners[0],))
        with pytest.raises(errors.InsufficientPrivilege, match="not for role"):
            conn.execute(MATCHES, (two_owners[0],))


DIRECTORY_COLUMNS = ["owner_id", "timezone", "created_at", "telegram_user_id"]


def test_the_application_role_with_no_owner_named_reads_nothing(
    pg_urls: Urls, two_owners: tuple[str, str]
) -> None:
    """Every table of the owners' either refuses it or shows it no row; what it reads without
    an owner is the registry's directory (ids, zones, Telegram users: no owner's memory), the
    bot's offsets and the job queue, which every service needs before it picks an owner. Of
    the schema's functions it may execute only the search's, which refuse without an owner
    named, or with a NULL one."""
    relations = _relations(pg_urls.admin)
    functions = _functions(pg_urls.admin)
    registry = {("public", name) for name in (*DIRECTORY_VIEWS, *BOT_TABLES)}
    with psycopg.connect(pg_urls.app) as conn:
        for schema, relation, _ in relations:
            try:
                cursor = conn.execute(_select(schema, relation))
            except errors.InsufficientPrivilege:
                conn.rollback()
                continue
            rows = cursor.fetchall()
            if (schema, relation) in registry or schema == QUEUE_SCHEMA:
                continue
            assert rows == [], relation
        described = conn.execute(_select("public", "owner_directory")).description or []
        assert [column.name for column in described] == DIRECTORY_COLUMNS
        reachable = set()
        for function in functions:
            if function.schema == QUEUE_SCHEMA:
                continue  # the queue's own, run by the workers
            allowed = conn.execute(
                "SELECT has_schema_privilege(current_user, %s, 'USAGE')"
                " AND has_function_privilege(current_user, %s::oid, 'EXECUTE')",
                (function.schema, function.oid),
            ).fetchone()
            if allowed == (True,) and not function.extension:
                reachable.add(function.name)
            if function.callable_from_sql and not function.extension:
                with pytest.raises((errors.InsufficientPrivilege, errors.RaiseException)):
                    _tried(conn, function.call())
        assert reachable == set(APP_FUNCTIONS)
        for owner in two_owners:
            with pytest.raises(errors.InsufficientPrivilege, match="does not name this owner"):
                conn.execute(MATCHES, (owner,))
            conn.rollback()
        with pytest.raises(errors.RaiseException, match="no owner named"):
            conn.execute(UNITS, (None,))


def test_search_matches_serves_only_the_owner_the_transaction_names(
    pg_urls: Urls, two_owners: tuple[str, str]
) -> None:
    """In a transaction that names A, asking for B is refused and asking for A finds none of
    B's units, even for words only B's notes have; a transaction that renamed itself to B
    cannot be served as A either."""
    a, b = two_owners
    only_b = "SELECT doc_id FROM search_matches(%s, %s::tsquery, %s, 0.3, 10, NULL, NULL, NULL)"
    terms = query_terms("Đà Lạt")
    town = tsquery_literal(terms)
    with psycopg.connect(pg_urls.app) as conn:
        conn.execute("SELECT set_config('trinho.owner', %s, true)", (a,))
        assert len(conn.execute(MATCHES, (a,)).fetchall()) == 1
        with pytest.raises(errors.InsufficientPrivilege, match="does not name this owner"):
            conn.execute(MATCHES, (b,))
        conn.rollback()
        conn.execute("SELECT set_config('trinho.owner', %s, true)", (a,))
        assert conn.execute(only_b, (a, town, terms)).fetchall() == []
        conn.execute("SELECT set_config('trinho.owner', %s, true)", (b,))
        assert len(conn.execute(only_b, (b, town, terms)).fetchall()) == 1
        with pytest.raises(errors.InsufficientPrivilege, match="does not name this owner"):
            conn.execute(MATCHES, (a,))
        conn.rollback()
        conn.execute("SELECT set_config('trinho.owner', %s, true)", (a,))
        with pytest.raises(errors.RaiseException, match="another owner"):
            conn.execute(UNITS, (b,))


def test_a_function_the_operator_creates_later_is_not_everyones(
    pg_urls: Urls, stranger: tuple[str, str]
) -> None:
    """The default privileges of the role that migrates: a future migration's function is
    executable by no one it was not granted to."""
    name, _ = stranger
    with psycopg.connect(pg_urls.admin) as conn:
        conn.execute("CREATE FUNCTION later_one() RETURNS int LANGUAGE sql AS 'SELECT 1'")
        found = conn.execute(
            "SELECT has_function_privilege(%s, 'later_one()', 'EXECUTE')", (name,)
        ).fetchone()
        conn.rollback()
    assert found == (False,)


def test_a_deployment_granted_before_the_migration_keeps_searching_after_it(
    pg_cluster: Cluster, clock: FixedClock
) -> None:
    """An application role granted the tables by an earlier `--grant` (before 0010) is
    granted the search's functions by 0010 and 0012 themselves: its search finds what it
    found before (the unit indexed as the code before 0012 wrote it, its length, kind and
    day filled in by 0012); and the registry's directory by 0011, so it finds its owner's
    zone."""
    from yoyo import get_backend, read_migrations

    from support.pgserver import APP_ROLE
    from trinho.pg.migrate import INDEX_TABLES, OWNER_TABLES, _yoyo_url, migrate
    from trinho.pg.owners import owner_zone

    admin = pg_cluster.create_database("upgrade")
    backend = get_backend(_yoyo_url(admin))
    try:
        every = read_migrations(str(MIGRATIONS))
        earlier = every.__class__([m for m in every if m.id < "0010"], every.post_apply)
        with backend.lock():
            backend.apply_migrations(backend.to_apply(earlier))
    finally:
        backend.connection.close()
    pg_cluster.role(APP_ROLE)
    with psycopg.connect(admin, autocommit=True) as conn:
        for table, rights in [
            *((t, "SELECT, INSERT, UPDATE, DELETE") for t in OWNER_TABLES),
            *((t, "SELECT, INSERT, DELETE") for t in INDEX_TABLES),
        ]:
            conn.execute(f"GRANT {rights} ON {table} TO {APP_ROLE}")
    app = pg_cluster.url(_database(admin), APP_ROLE)
    with Database(admin) as db:
        owner = new_owner(db)
    with Database(app) as db:
        records = PgRecords(db, owner, clock=clock, timezone=TZ)
        _index_as_before_0012(db, owner, "ăn phở với Mai")
        assert len(search(records, "pho")) == 1
        assert "0010.function_privileges" in migrate(admin)
        assert [h.text for h in search(records, "pho")] == ["ăn phở với Mai"]
        assert [h.text for h in search(records, "pho", kinds=["fact"])] == []
        assert owner_zone(db, owner) == "UTC"  # the directory, granted by 0011


def _index_as_before_0012(db: Database, owner: str, text: str) -> None:
    """A note's unit in the index as the code before migration 0012 wrote it: its terms
    without the unit's length, kind and day."""
    day = date(2026, 11, 30)
    unit = note_docs(f"memory/{day.isoformat()}.md", day, format_entry("09:00", text) + "\n")[0]
    with db.owner_tx(owner) as conn:
        conn.execute(
            "INSERT INTO search_docs (owner_id, doc_id, kind, path, line, day, shown, speaker,"
            " refs, tokens) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (owner, doc_id(unit), unit.kind, unit.path, unit.line, unit.day, unit.text,
             unit.speaker, list(unit.refs), len(unit.body.split()) + len(unit.context.split())),
        )  # fmt: skip
        conn.execute(
            "INSERT INTO search_terms (owner_id, doc_id, tsv) VALUES (%s, %s, %s::tsvector)",
            (owner, doc_id(unit), tsvector_literal(unit.body, unit.context, unit.dates)),
        )
