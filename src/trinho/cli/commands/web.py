"""`trinho web`: the review page in the browser, for the owner only (on a database of many
owners, for each owner their own)."""

from __future__ import annotations

import click

from trinho.boundary import require_extra
from trinho.cli.app import OWNER_ENV, choose_owner, cli, owner_option, say, state
from trinho.config import Config, WebConfig
from trinho.errors import TrinhoError
from trinho.i18n import t
from trinho.workspace import CONFIG_PATH, clock_from_env


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", default=8766, show_default=True, type=click.IntRange(1, 65535))
@owner_option
def web(host: str, port: int, owner: str | None) -> None:
    """Serve the review page: what waits for you with its diffs, the runs with undo, MEMORY.md,
    facts and search. The first line printed is a one-time login link (10 minutes).

    On a PostgreSQL store it serves every owner their own review: each signs in with a link
    of their own (`trinho owners login ID`); with `--owner`, or when the store holds one
    owner, the first line is that owner's link.

    Beyond loopback (`--host` other than 127.0.0.1) it is served only with `[web] token` set
    in the config, which the login then asks for.
    """
    st = state()
    url = st.database_url()
    if url is not None:
        _serve_owners(url, host, port, owner)
        return
    if owner is not None:
        raise TrinhoError.keyed("error.owner.files", owner=owner, env=OWNER_ENV)
    ws = st.workspace()
    require_extra("web", "trinho web")
    from trinho.web import app as web_app
    from trinho.web.auth import Guard

    token = web_app.required_token(ws, host)
    guard = Guard(ws.now)
    app = web_app.web_app(ws, guard, host, port, token)
    say(t(ws.locale, "web.login_link", url=web_app.login_url(host, port, guard)))
    web_app.serve(host, port, app)


def _serve_owners(url: str, host: str, port: int, owner: str | None) -> None:
    """The review page for the owners of the database at `url`."""
    require_extra("web", "trinho web")
    from trinho.pg.connect import Database
    from trinho.pg.logins import issue_login, login_link, site_url
    from trinho.pg.owners import sole_owner
    from trinho.web import app as web_app
    from trinho.web.auth import Guard
    from trinho.web.store import Owners

    st = state()
    ws = st.settings()
    config = ws.config.web if ws is not None else WebConfig()
    token = web_app.needed_token(config, host, st.workspace_dir / CONFIG_PATH)
    locale = st.locale()
    clock = clock_from_env()
    with Database(url, max_size=4) as db:
        user = ws.config.owner if ws is not None else "owner"
        path = ws.root / CONFIG_PATH if ws is not None else None
        text = path.read_text(encoding="utf-8") if path is not None and path.is_file() else None
        deployment = ws.config if ws is not None else Config()
        owners = Owners(db, clock, user=user, locale=locale, config=deployment, config_text=text)
        guard = Guard(clock)
        app = web_app.owners_app(owners, guard, host, port, token, config)
        if owner is not None:
            chosen: str | None = choose_owner(db, owner)[0]
        else:
            only, _ = sole_owner(db)
            chosen = only[0] if only is not None else None
        if chosen is None:
            say(t(locale, "web.owners_serving", url=site_url(host, port)))
        else:
            link = login_link(site_url(host, port), chosen, issue_login(db, chosen, clock()))
            say(t(locale, "web.login_link_of", owner=chosen, url=link))
        web_app.serve(host, port, app)
