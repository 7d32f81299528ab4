"""The server restarted under the services (`pg_ctl restart -m immediate`, as a crash and a
start would): the next request of the MCP server and of the review page succeeds, none
answers 401 or 500; a condensation whose model call spans the restart checks in, once; a
call cut before its commit is asked again once, and no other failure is.
While the server is down, each says so in one line that names the server: the MCP server
and the page answer 503 with Retry-After (the page a notice to try again), the CLI one line.

A server of its own, so the restarts break no other test's connections."""

from __future__ import annotations

import json
import os
import re
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.testclient import TestClient

from conftest import TZ, FixedClock
from pg.test_pg_mcp import _post, _serving
from support.condense_weeks import VI_ADDED, two_roles, vi_good_rewrite, vi_week
from support.pgserver import Cluster, Urls, bindir, migrated_database, running_cluster
from trinho.cli import main
from trinho.config import WebConfig
from trinho.errors import Unavailable
from trinho.models import ChatRequest
from trinho.pg.connect import Database, connection_lost, retry_lost, server_of, unreachable
from trinho.pg.jobs import Deployment, condense_owner
from trinho.pg.logins import issue_login
from trinho.pg.owners import add_owner
from trinho.pg.store import PgRecords
from trinho.pg.tokens import issue_token
from trinho.pg.transfer import import_workspace
from trinho.web.app import owners_app
from trinho.web.auth import Guard
from trinho.web.store import Owners
from trinho.workspace import Workspace, open_workspace

pytestmark = pytest.mark.slow  # each test stops and starts a server of its own

BASE = "http://127.0.0.1:8766"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    binaries = bindir()
    if binaries is None:
        if os.environ.get("CI"):
            pytest.fail("CI: PostgreSQL's initdb is not installed (.ci/run installs postgresql)")
        pytest.skip("PostgreSQL binaries not installed (apt-get install postgresql)")
    with running_cluster(binaries, durable=True) as made:
        yield made


@pytest.fixture(scope="module")
def urls(cluster: Cluster) -> Urls:
    return migrated_database(cluster)


@pytest.fixture
def db(urls: Urls) -> Iterator[Database]:
    with Database(urls.admin) as opened:
        yield opened


def _owner(db: Database) -> str:
    name = f"r-{uuid.uuid4().hex[:12]}"
    add_owner(db, name, TZ)
    return name


def test_the_page_answers_after_a_restart_and_while_the_server_is_down_asks_to_retry(
    cluster: Cluster, db: Database, clock: FixedClock
) -> None:
    owner = _owner(db)
    PgRecords(db, owner, clock=clock, timezone=TZ).save_note("mua hoa sen trắng")
    app = owners_app(Owners(db, clock, "owner", "en"), Guard(clock), "127.0.0.1", 8766, None,
                     WebConfig())  # fmt: skip
    browser = TestClient(app, base_url=BASE)
    code = issue_login(db, owner, clock())
    assert browser.get(f"/login?owner={owner}&code={code}", follow_redirects=False).is_redirect
    assert browser.get("/").status_code == 200
    cluster.restart()
    after = browser.get("/")
    assert after.status_code == 200, after.text
    with cluster.down():
        down = browser.get("/")
    assert down.status_code == 503 and down.headers["retry-after"] == "5"
    assert "Try again in a moment" in down.text
    assert f"the database server at 127.0.0.1:{cluster.port} cannot be reached" in down.text
    assert "unexpected failure" not in down.text
    assert browser.get("/").status_code == 200


def test_the_mcp_server_answers_after_a_restart_and_while_the_server_is_down_says_503(
    cluster: Cluster,
    urls: Urls,
    db: Database,
    cli_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TRINHO_DATABASE_URL", raising=False)
    assert main(["init", "--tz", TZ]) == 0
    token = issue_token(db, _owner(db))
    with _serving(urls.admin, Path(cli_env["TRINHO_HOME"])) as port:
        assert _post(port, token)[0] == 200
        cluster.restart()
        assert _post(port, token)[0] == 200  # the pool's cut connection is not the token's fault
        with cluster.down():
            status, body, _ = _post(port, token)
        assert status == 503, body
        said = json.loads(body)
        assert said["error"] == "temporarily_unavailable"
        assert f"127.0.0.1:{cluster.port} cannot be reached" in said["error_description"]
        assert _post(port, token)[0] == 200
        assert _post(port, "nobody-here.secret")[0] == 401  # a bad token is still refused


def test_a_condensation_whose_model_call_spans_a_restart_checks_in_once(
    cluster: Cluster,
    db: Database,
    workspace: Workspace,
    clock: FixedClock,
    tmp_path: Path,
) -> None:
    vi_week(workspace, clock)
    owner = _owner(db)
    copy = tmp_path / owner
    shutil.copytree(workspace.root, copy)
    import_workspace(db, open_workspace(copy, workspace._clock), owner)
    restarts: list[int] = []

    def rewrite(request: ChatRequest) -> str:  # the checkout's connections die meanwhile
        if not restarts:
            cluster.restart()
            restarts.append(1)
        return vi_good_rewrite()

    text = (workspace.internal / "config.toml").read_text(encoding="utf-8")
    deployment = Deployment(db.url, workspace.config, text, clock=clock, model=two_roles(rewrite))
    assert re.fullmatch(r"2026-W48: \w+", condense_owner(db, deployment, owner))
    assert restarts == [1]
    with db.owner_tx(owner) as conn:
        runs = conn.execute(
            "SELECT run FROM memory_versions WHERE owner_id = %s ORDER BY version", (owner,)
        ).fetchall()
    assert [run for (run,) in runs] == ["import", "2026-W48"]
    memory = PgRecords(db, owner, clock=clock, timezone=TZ).memory_text()
    assert all(line in memory for line in VI_ADDED)


def test_a_command_while_the_server_is_down_says_so_in_one_line_in_the_owners_language(
    cluster: Cluster,
    urls: Urls,
    db: Database,
    cli_env: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    owner = _owner(db)
    monkeypatch.setenv("TRINHO_DATABASE_URL", urls.admin)
    with cluster.down():
        assert main(["--owner", owner, "notes"]) == 1
        err = capsys.readouterr().err
        with monkeypatch.context() as files:
            files.delenv("TRINHO_DATABASE_URL")
            assert main(["init", "--tz", TZ, "--locale", "vi"]) == 0
        capsys.readouterr()
        assert main(["--owner", owner, "notes"]) == 1
        said_vi = capsys.readouterr().err
    server = f"127.0.0.1:{cluster.port}"
    assert err.count("\n") == 1 and "Traceback" not in err and "[store] url" not in err
    assert f"the database server at {server} cannot be reached" in err
    assert said_vi.count("\n") == 1
    assert f"không kết nối được máy chủ cơ sở dữ liệu tại {server}" in said_vi
    assert main(["--owner", owner, "notes"]) == 0


@given(
    user=st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True),
    secret=st.from_regex(r"[A-Za-z0-9]{12,20}", fullmatch=True),
    host=st.sampled_from(["127.0.0.1", "db.example.org", "localhost"]),
    port=st.integers(1, 65535),
)
def test_a_server_is_named_by_host_and_port_never_by_its_user_or_password(
    user: str, secret: str, host: str, port: int
) -> None:
    url = f"postgresql://{user}:{secret}@{host}:{port}/trinho"
    assert server_of(url) == f"{host}:{port}"
    said = str(unreachable(url, psycopg.OperationalError("connection refused")))
    assert f"{host}:{port}" in said and secret not in said and "[store] url" not in said


@given(failures=st.integers(0, 3), lost=st.booleans())
def test_a_call_cut_before_its_commit_is_asked_again_once_and_no_other_failure_is(
    failures: int, lost: bool
) -> None:
    url = "postgresql://app@127.0.0.1:5432/trinho"
    calls: list[int] = []

    def call() -> str:
        calls.append(1)
        if len(calls) <= failures:
            raise psycopg.OperationalError("gone") if lost else psycopg.errors.QueryCanceled()
        return "ok"

    if failures == 0:
        assert retry_lost(url, call) == "ok" and len(calls) == 1
    elif not lost:  # a statement refused: said as it is, never asked again
        with pytest.raises(psycopg.errors.QueryCanceled):
            retry_lost(url, call)
        assert len(calls) == 1
    elif failures == 1:
        assert retry_lost(url, call) == "ok" and len(calls) == 2
    else:
        with pytest.raises(Unavailable, match=re.escape("127.0.0.1:5432 cannot be reached")):
            retry_lost(url, call)
        assert len(calls) == 2
    assert connection_lost(psycopg.errors.AdminShutdown()) and not connection_lost(ValueError())
