"""Connections: a psycopg pool, and transactions that name their owner.

`trinho.owner` is set with `set_config(..., true)`, local to the transaction, so a pooled
connection never carries one owner's setting into the next owner's work.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, TypeVar

from trinho.config import STORE_SCHEMES
from trinho.errors import TrinhoError, Unavailable
from trinho.textnorm import validate_slug

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

URL_ENV = "TRINHO_DATABASE_URL"
SCHEMES = STORE_SCHEMES
CONNECT_TIMEOUT = 5
"""Seconds a first connection may take before the database is said to be unreachable."""
BORROW_TIMEOUT = 10.0
"""Seconds a request waits for a pooled connection (the pool reconnecting to a server that
restarts) before it is told the server cannot be reached."""
LOST_STATES = ("08", "57P01", "57P02", "57P03")
"""SQLSTATE classes of a connection lost or refused: connection exceptions, a server shut
down (fast or crashed), or not yet accepting connections."""

T = TypeVar("T")


def check_idle(conn: psycopg.Connection) -> None:
    """The pool's check of a connection it lends (raises when the connection is gone): a
    round trip only when its idle socket has something to read, as a server that closed it
    (a restart, a crash) has left, so a healthy connection costs one local poll, not a
    message to the server."""
    import select

    from psycopg_pool import ConnectionPool

    if conn.closed or conn.broken:
        raise ConnectionError("connection closed")
    ready, _, _ = select.select([conn.fileno()], [], [], 0)
    if ready:
        ConnectionPool.check_connection(conn)


def server_of(url: str) -> str:
    """The server a URL names, `host:port`, for a message (never its user or password)."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        params = conninfo_to_dict(url)
    except Exception:
        return "?"
    host = str(params.get("host") or "localhost").split(",")[0]
    return f"{host}:{str(params.get('port') or 5432).split(',')[0]}"


def connection_lost(exc: BaseException) -> bool:
    """Whether `exc` says the server was not reached or went away (a restart, a crash, no
    pooled connection in time), not that a statement was refused."""
    import psycopg

    if isinstance(exc, Unavailable):
        return True
    if not isinstance(exc, psycopg.OperationalError):
        return False
    state = exc.sqlstate
    return state is None or state.startswith(LOST_STATES)


def unreachable(url: str, exc: BaseException) -> Unavailable:
    """The one line for a server that cannot be reached now: it names the server."""
    return Unavailable.keyed(
        "error.store.unreachable", server=server_of(url), error=type(exc).__name__
    )


def retry_lost(url: str, call: Callable[[], T]) -> T:
    """`call` again, once, when the connection was lost before it committed: a transaction
    that never reached its commit wrote nothing, and the pool lends a new connection. A
    second loss is one line naming the server."""
    try:
        return call()
    except Exception as exc:
        if not connection_lost(exc):
            raise
    try:
        return call()
    except Exception as exc:
        if isinstance(exc, Unavailable) or not connection_lost(exc):
            raise
        raise unreachable(url, exc) from exc


def check_url(url: str, where: str) -> str:
    """A PostgreSQL connection URL, or one keyed line naming where it came from."""
    if not url.startswith(SCHEMES):
        raise TrinhoError.keyed("error.store.bad_url", where=where)
    return url


def database_url(env: Mapping[str, str], configured: str | None) -> str | None:
    """The database to use: `TRINHO_DATABASE_URL`, else `[store] url`; None for the files."""
    from_env = env.get(URL_ENV)
    if from_env:
        return check_url(from_env, URL_ENV)
    return configured


def check_owner(owner: str) -> str:
    """An owner id: a slug, as a user id is (it names a folder when exported)."""
    return validate_slug(owner, "owner id")


def _driver() -> None:
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError:
        raise TrinhoError.keyed("error.store.no_driver") from None


class Database:
    """A pool of connections to one database."""

    def __init__(self, url: str, *, max_size: int = 4) -> None:
        _driver()
        import psycopg
        from psycopg_pool import ConnectionPool

        self.url = url
        try:  # one connection first: a database that cannot be reached is one line, at once
            with psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT) as conn:
                row = conn.execute("SELECT to_regclass('owners') IS NOT NULL").fetchone()
        except psycopg.Error as exc:
            raise unreachable(url, exc) from None
        if not (row and row[0]):  # before any command fails on a table that is not there
            raise TrinhoError.keyed("error.store.unmigrated", server=server_of(url))
        self.pool: ConnectionPool = ConnectionPool(
            url,
            min_size=1,
            max_size=max_size,
            open=False,
            # No server-side prepared statements: a transaction pool (PgBouncer) cannot keep
            # them from one transaction to the next (docs/operating.md).
            kwargs={
                "autocommit": False,
                "connect_timeout": CONNECT_TIMEOUT,
                "prepare_threshold": None,
            },
            check=check_idle,  # a connection a restart cut is replaced before it is lent
            timeout=BORROW_TIMEOUT,
        )
        self.pool.open(wait=True, timeout=CONNECT_TIMEOUT * 2)

    def close(self) -> None:
        self.pool.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def told(self) -> Iterator[None]:
        """A connection lost in the block (the server restarting, no pooled connection in
        time) as one line naming the server; any other failure as it is."""
        try:
            yield
        except Exception as exc:
            if isinstance(exc, Unavailable) or not connection_lost(exc):
                raise
            raise unreachable(self.url, exc) from exc

    @contextlib.contextmanager
    def owner_tx(self, owner: str) -> Iterator[psycopg.Connection]:
        """One transaction on behalf of `owner`: committed when the block ends, rolled back
        when it raises; row-level security shows this owner's rows and no other's."""
        check_owner(owner)
        with self.told(), self.pool.connection() as conn, conn.transaction():
            conn.execute("SELECT set_config('trinho.owner', %s, true)", (owner,))
            yield conn

    @contextlib.contextmanager
    def statement(self, owner: str) -> Iterator[psycopg.Connection]:
        """A connection for one statement that is its own transaction (autocommit), for a
        function of the schema's that names `owner` itself for that statement
        (`search_units`): one message and one answer, where a transaction naming its owner
        takes four statements."""
        check_owner(owner)
        with self.told(), self.pool.connection() as conn:
            conn.autocommit = True
            try:
                yield conn
            finally:
                if not conn.closed:
                    conn.autocommit = False

    @contextlib.contextmanager
    def tx(self) -> Iterator[psycopg.Connection]:
        """One transaction naming no owner: the operator's registry, and nothing else."""
        with self.told(), self.pool.connection() as conn, conn.transaction():
            yield conn
