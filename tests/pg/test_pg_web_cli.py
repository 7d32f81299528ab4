"""`trinho owners login ID` and `trinho web` on a PostgreSQL store: the operator hands each
owner a link of their own, which signs that owner in once."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest
from starlette.testclient import TestClient

from conftest import TZ, FixedClock
from support.pg_fixtures import new_owner
from support.pgserver import Urls
from trinho.cli import main
from trinho.config import WebConfig
from trinho.pg.connect import Database
from trinho.web import app as web_app
from trinho.web.app import owners_app
from trinho.web.auth import Guard
from trinho.web.store import Owners

Run = Callable[..., tuple[int, str, str]]
LINK = re.compile(r"http://127\.0\.0\.1:8766/login\?owner=([\w-]+)&code=([\w-]+)")


@pytest.fixture
def run(
    cli_env: dict[str, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Run:
    """`trinho` in this process, in an initialised workspace, no database named yet: the exit
    code, stdout and stderr of one command."""
    monkeypatch.delenv("TRINHO_DATABASE_URL", raising=False)
    monkeypatch.delenv("TRINHO_OWNER", raising=False)
    assert main(["init", "--tz", TZ]) == 0
    capsys.readouterr()

    def trinho(*args: str) -> tuple[int, str, str]:
        code = main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    return trinho


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """`trinho web`'s app, kept instead of served."""
    apps: list[object] = []
    monkeypatch.setattr(web_app, "serve", lambda host, port, app: apps.append(app))
    return apps


def test_an_owners_login_link_signs_that_owner_in_once(
    run: Run, pg_urls: Urls, pg_admin: Database, monkeypatch: pytest.MonkeyPatch, clock: FixedClock
) -> None:
    monkeypatch.setenv("TRINHO_DATABASE_URL", pg_urls.admin)
    monkeypatch.setenv("TRINHO_NOW", clock().isoformat())
    owner = new_owner(pg_admin, TZ)
    code, out, err = run("owners", "login", owner)
    assert code == 0, err
    found = LINK.search(out)
    assert found is not None and found.group(1) == owner
    assert out.startswith(f"The review page of {owner} (the link works once, for 10 minutes)")
    app = owners_app(
        Owners(pg_admin, clock, user="owner", locale="en"),
        Guard(clock),
        "127.0.0.1",
        8766,
        None,
        WebConfig(),
    )
    c = TestClient(app, base_url="http://127.0.0.1:8766")
    path = found.group(0).removeprefix("http://127.0.0.1:8766")
    assert c.get(path, follow_redirects=False).status_code == 303
    assert c.get(path, follow_redirects=False).status_code == 403

    shown = json.loads(run("owners", "login", owner, "--url", "https://r.example/", "--json")[1])
    assert set(shown) == {"owner", "url", "expires_at"}
    assert shown["url"].startswith(f"https://r.example/login?owner={owner}&code=")
    assert shown["expires_at"] == "2026-11-29T14:15:00+07:00"


def test_an_unknown_owner_or_no_database_is_one_line(
    run: Run, pg_urls: Urls, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = run("owners", "login", "someone")
    assert code != 0 and out == "" and err.count("\n") == 1
    monkeypatch.setenv("TRINHO_DATABASE_URL", pg_urls.admin)
    code, out, err = run("owners", "login", "nobody-here")
    assert code != 0 and out == "" and "there is no owner 'nobody-here'" in err


def test_trinho_web_on_a_database_prints_the_named_owners_link_or_how_to_get_one(
    run: Run,
    served: list[object],
    pg_urls: Urls,
    pg_admin: Database,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TRINHO_DATABASE_URL", pg_urls.admin)
    owner = new_owner(pg_admin, TZ)
    new_owner(pg_admin, TZ)
    code, out, err = run("web", "--owner", owner)
    assert code == 0, err
    found = LINK.search(out.splitlines()[0])
    assert found is not None and found.group(1) == owner
    code, out, _ = run("web")
    assert code == 0 and out.startswith("Serving each owner of the database their own review")
    assert "trinho owners login ID" in out
    assert len(served) == 2
    assert "there is no owner 'nobody'" in run("web", "--owner", "nobody")[2]


def test_trinho_web_beyond_loopback_needs_the_token_on_a_database_too(
    run: Run, served: list[object], pg_urls: Urls, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRINHO_DATABASE_URL", pg_urls.admin)
    code, out, err = run("web", "--host", "0.0.0.0")
    assert code != 0 and out == "" and "[web] token" in err
    assert served == []


def test_owner_is_refused_for_the_review_of_a_file_workspace(
    run: Run, served: list[object]
) -> None:
    code, out, err = run("web", "--owner", "someone")
    assert code != 0 and out == "" and "--owner someone" in err
    assert served == []
