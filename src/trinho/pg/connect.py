"""Connections: a psycopg pool, and transactions that name their owner.

`trinho.owner` is set with `set_config(..., true)`, local to the transaction, so a pooled
connection never carries one owner's setting into the next owner's work.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from trinho.config import STORE_SCHEMES
from trinho.errors import TrinhoError
from trinho.textnorm import validate_slug

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

URL_ENV = "TRINHO_DATABASE_URL"
SCHEMES = STORE_SCHEMES
CONNECT_TIMEOUT = 5
"""Seconds a first connection may take before the database is said to be unreachable."""


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
            psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT).close()
        except psycopg.Error as exc:
            raise TrinhoError.keyed("error.store.unreachable", error=type(exc).__name__) from None
        self.pool: ConnectionPool = ConnectionPool(
            url, min_size=1, max_size=max_size, open=False, kwargs={"autocommit": False}
        )
        self.pool.open(wait=True, timeout=CONNECT_TIMEOUT * 2)

    def close(self) -> None:
        self.pool.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def owner_tx(self, owner: str) -> Iterator[psycopg.Connection]:
        """One transaction on behalf of `owner`: committed when the block ends, rolled back
        when it raises; row-level security shows this owner's rows and no other's."""
        check_owner(owner)
        with self.pool.connection() as conn, conn.transaction():
            conn.execute("SELECT set_config('trinho.owner', %s, true)", (owner,))
            yield conn

    @contextlib.contextmanager
    def statement(self, owner: str) -> Iterator[psycopg.Connection]:
        """A connection for one statement that is its own transaction (autocommit), for a
        function of the schema's that names `owner` itself for that statement
        (`search_units`): one message and one answer, where a transaction naming its owner
        takes four statements."""
        check_owner(owner)
        with self.pool.connection() as conn:
            conn.autocommit = True
            try:
                yield conn
            finally:
                if not conn.closed:
                    conn.autocommit = False

    @contextlib.contextmanager
    def tx(self) -> Iterator[psycopg.Connection]:
        """One transaction naming no owner: the operator's registry, and nothing else."""
        with self.pool.connection() as conn, conn.transaction():
            yield conn
