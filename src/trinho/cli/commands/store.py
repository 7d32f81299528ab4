"""The operator's commands for a PostgreSQL store of many owners: owners, export, import
workspace, store migrate. The database is `TRINHO_DATABASE_URL`, else the workspace's
`[store] url`; psycopg is imported only when one of these runs."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path

import click

from trinho.cli.app import OWNER_ENV, cli, emit, json_option, owner_given, say, state
from trinho.errors import TrinhoError
from trinho.i18n import N_, t
from trinho.pg.connect import Database
from trinho.workspace import CONFIG_PATH, open_workspace


def _url() -> str:
    url = state().database_url()
    if url is None:
        raise TrinhoError.keyed("error.store.no_url", config=CONFIG_PATH)
    return url


def _database() -> Database:
    return Database(_url(), max_size=2)


@contextmanager
def _operators() -> Iterator[Database]:
    """The store for a command that writes the registry: a role that may not (the services'
    application role) is told whose command it is, in one line."""
    import psycopg

    with _database() as db:
        try:
            yield db
        except psycopg.errors.InsufficientPrivilege:
            raise TrinhoError.keyed("error.owner.registry_write_denied") from None


def _owner_required(ctx: click.Context, param: click.Parameter, value: str | None) -> str:
    owner = owner_given(ctx, param, value)
    if owner is None:
        raise click.MissingParameter(ctx=ctx, param=param)
    return owner


def owner_option(func: click.decorators.FC) -> click.decorators.FC:
    """`--owner ID` (or TRINHO_OWNER), after the command or before it: whose records the
    command works on; required."""
    return click.option(
        "--owner", "owner", callback=_owner_required, envvar=OWNER_ENV, help="The owner's id."
    )(func)


@cli.group()
def owners() -> None:
    """The owners a PostgreSQL store holds (for the operator)."""


@owners.command(name="add")
@click.argument("owner_id", metavar="ID")
@click.option("--tz", "timezone", default="UTC", help="The owner's time zone (IANA name).")
def owners_add(owner_id: str, timezone: str) -> None:
    """Register an owner."""
    from trinho.pg.owners import add_owner

    with _operators() as db:
        add_owner(db, owner_id, timezone)
    say(t(state().locale(), "owners.added", owner=owner_id))


@owners.command(name="list")
@json_option
def owners_list(as_json: bool) -> None:
    """Every owner, their time zone and their Telegram user id when they have one."""
    from trinho.pg.owners import owner_rows

    with _database() as db:
        found = owner_rows(db)
    rows = [{"owner": o, "timezone": zone, "telegram_user_id": user} for o, zone, user in found]
    human = "\n".join(
        f"{o}  {zone}" + ("" if user is None else f"  telegram:{user}") for o, zone, user in found
    )
    emit(as_json, rows, human or t(state().locale(), "owners.none"))


@owners.command(name="remove")
@click.argument("owner_id", metavar="ID")
def owners_remove(owner_id: str) -> None:
    """Remove an owner and every record of theirs."""
    from trinho.pg.owners import remove_owner

    with _operators() as db:
        remove_owner(db, owner_id)
    say(t(state().locale(), "owners.removed", owner=owner_id))


@owners.command(name="telegram")
@click.argument("owner_id", metavar="ID")
@click.argument("user_id", metavar="USER_ID", type=click.IntRange(min=1), required=False)
@click.option("--unset", is_flag=True, help="Take the owner's Telegram user id away instead.")
def owners_telegram(owner_id: str, user_id: int | None, unset: bool) -> None:
    """Make the Telegram user USER_ID this owner's: the bot of `trinho serve` answers that
    user with this owner's memory (one user per owner, one owner per user)."""
    from trinho.pg.owners import set_telegram_user

    locale = state().locale()
    if unset == (user_id is not None):
        raise TrinhoError.keyed("error.owner.telegram_usage")
    with _operators() as db:
        set_telegram_user(db, owner_id, user_id)
    if user_id is None:
        say(t(locale, "owners.telegram_unset", owner=owner_id))
    else:
        say(t(locale, "owners.telegram_set", owner=owner_id, user=user_id))


@owners.command(name="login")
@click.argument("owner_id", metavar="ID")
@click.option(
    "--url",
    "base",
    help="The review page's address as the owner opens it (default: [web] public_url, else "
    "http://HOST:PORT of [web]).",
)
@json_option
def owners_login(owner_id: str, base: str | None, as_json: bool) -> None:
    """Print a one-time link to the review page for one owner (one use, 10 minutes)."""
    from trinho.config import WebConfig
    from trinho.pg.logins import LOGIN_LIFETIME, issue_login, login_link, site_url
    from trinho.pg.owners import require_owner
    from trinho.workspace import clock_from_env

    ws = state().settings()
    web = ws.config.web if ws is not None else WebConfig()
    now = clock_from_env()()
    with _operators() as db:
        require_owner(db, owner_id)
        code = issue_login(db, owner_id, now)
    link = login_link(base or web.public_url or site_url(web.host, web.port), owner_id, code)
    row = {"owner": owner_id, "url": link, "expires_at": (now + LOGIN_LIFETIME).isoformat()}
    emit(as_json, row, t(state().locale(), "web.login_link_of", owner=owner_id, url=link))


@owners.command(name="token")
@click.argument("owner_id", metavar="ID")
@click.option("--revoke", is_flag=True, help="Remove the owner's token instead.")
@json_option
def owners_token(owner_id: str, revoke: bool, as_json: bool) -> None:
    """Issue the owner's bearer token for `trinho mcp --http` (printed once), or revoke it."""
    from trinho.pg.tokens import issue_token, revoke_token

    locale = state().locale()
    with _operators() as db:
        if revoke:
            had = revoke_token(db, owner_id)
            key = N_("owners.token_revoked") if had else N_("owners.token_none")
            emit(as_json, {"owner": owner_id, "revoked": had}, t(locale, key, owner=owner_id))
            return
        token = issue_token(db, owner_id)
    emit(
        as_json,
        {"owner": owner_id, "token": token},
        t(locale, "owners.token_issued", owner=owner_id, token=token),
    )


@cli.command(name="export")
@owner_option
@click.argument("folder", metavar="DIR", type=click.Path(path_type=Path))
@json_option
def export(owner: str, folder: Path, as_json: bool) -> None:
    """Write an owner's records from the database as workspace files into DIR."""
    from trinho.pg.transfer import export_owner

    with _database() as db:
        done = export_owner(db, owner, folder)
    emit(as_json, asdict(done), t(state().locale(), "store.exported", owner=owner, folder=folder))


@click.command(name="workspace")
@click.argument("folder", metavar="DIR", type=click.Path(path_type=Path, file_okay=False))
@owner_option
@json_option
def import_workspace(folder: Path, owner: str, as_json: bool) -> None:
    """Copy the workspace DIR's records into the database as one owner."""
    from trinho.pg.transfer import import_workspace as copy_in

    source = open_workspace(folder)
    with _operators() as db:
        done = copy_in(db, source, owner)
    text = t(state().locale(), "store.imported", owner=owner, folder=folder)
    emit(as_json, asdict(done), text)


@cli.group(name="store")
def store_group() -> None:
    """The PostgreSQL store's schema."""


@store_group.command(name="migrate")
@click.option("--grant", "role", help="Also grant this application role the owners' tables.")
@json_option
def store_migrate(role: str | None, as_json: bool) -> None:
    """Apply the schema migrations not applied yet (safe to run again)."""
    from trinho.pg.migrate import grant_app_role, migrate

    url = _url()
    applied = migrate(url)
    if role:
        grant_app_role(url, role)
    locale = state().locale()
    text = (
        t(locale, "store.migrated", applied=", ".join(applied))
        if applied
        else t(locale, "store.up_to_date")
    )
    emit(as_json, {"applied": applied, "granted": role}, text)
