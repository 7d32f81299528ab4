"""The review page for the owners of a PostgreSQL store, over HTTP (as tests/web drive it):
each owner signs in with a code of their own, stored only as its hash, into a session that
reads and decides that owner's records and never another's, on every route the app has."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from urllib.parse import quote, unquote

import pytest
from starlette.routing import Route
from starlette.testclient import TestClient

from conftest import TZ, FixedClock
from support.pg_fixtures import new_owner
from trinho.condense.rules.gate import Change
from trinho.config import Config, WebConfig
from trinho.facts.format import render_fact
from trinho.pg.archive import PgArchive
from trinho.pg.connect import Database
from trinho.pg.logins import issue_login, login_link, site_url
from trinho.pg.store import PgRecords
from trinho.pg.transcripts import PgTranscripts
from trinho.web.app import owners_app
from trinho.web.auth import Guard
from trinho.web.guard import HostCheck
from trinho.web.store import Owners

BASE = "http://127.0.0.1:8766"
DAY = date(2026, 11, 29)
MEMORY = "# Memory\n\n- 2026-02-11: {word} lives in Lisbon\n- 2026-10-05: {word} likes tea\n"


@dataclass
class Owned:
    """One owner's records, and the words only that owner's pages may ever show."""

    owner: str
    records: PgRecords
    word: str
    city: str

    @property
    def marks(self) -> tuple[str, ...]:
        """What only this owner's pages show: their words where they stand in their records,
        their city, their id and their proposals' ids."""
        w = self.word
        said = (f"bought {w}", f"{w} lives in", f"{w} likes tea", f"where is {w}", f"{w} was")
        return (*said, self.city, self.owner, *(p.id for p in self.records.proposals()))

    def state(self) -> object:
        r = self.records
        return (
            [(p.id, p.status, p.decided_by) for p in r.proposals()],
            r.memory_text(),
            r.note_text(DAY),
            [render_fact(f) for f in r.list_facts().facts],
        )


@dataclass
class Site:
    app: HostCheck
    db: Database
    clock: FixedClock

    def client(self) -> TestClient:
        return TestClient(self.app, base_url=BASE)

    def login(self, owner: str) -> tuple[TestClient, str]:
        """A browser signed in as `owner` with a fresh code, and its session's CSRF token."""
        c = self.client()
        code = issue_login(self.db, owner, self.clock())
        r = c.get(f"/login?owner={owner}&code={code}", follow_redirects=False)
        assert r.status_code == 303
        match = re.search(r'name="csrf" value="([^"]+)"', c.get("/").text)
        assert match is not None
        return c, match.group(1)


def held(old: str | None, new: str, cls: str = "edited") -> dict[str, object]:
    return Change(cls, "held", old, new, "held").to_dict()  # type: ignore[arg-type]


def fill(db: Database, clock: FixedClock, word: str, city: str) -> Owned:
    """An owner with a note, MEMORY.md, a transcript, an archive, a fact, and three proposals
    waiting: a fact replacing what they said, a MEMORY.md edit and an addition."""
    owner = new_owner(db, TZ)
    r = PgRecords(db, owner, clock=clock, timezone=TZ)
    r.save_note(f"bought {word} at the market")
    memory = MEMORY.format(word=word)
    r.write_memory(memory)
    PgTranscripts(db, owner, clock=clock, timezone=TZ).record_turn("user", f"where is {word}?")
    PgArchive(db, owner).archive(f"## Archived\n\n- 2025-01-01: {word} was small\n")
    r.save_fact("city", city)
    assert r.save_fact("city", f"{city}-guess", basis="inferred", actor="job").outcome == (
        "proposed"
    )
    line = f"- 2026-02-11: {word} lives in Lisbon"
    r.submit("memory", held(line, line.replace("Lisbon", "Porto")), reason="r", origin="x")
    r.submit("memory", held(None, f"- 2026-11-29: {word} moved", "added"), reason="r", origin="y")
    return Owned(owner, r, word, city)


@pytest.fixture
def site(pg_admin: Database, clock: FixedClock) -> Site:
    owners = Owners(pg_admin, clock, user="owner", locale="en")
    app = owners_app(owners, Guard(clock), "127.0.0.1", 8766, None, WebConfig())
    assert isinstance(app, HostCheck)
    return Site(app, pg_admin, clock)


@pytest.fixture
def two(site: Site, clock: FixedClock) -> tuple[Owned, Owned]:
    return fill(site.db, clock, "tamarind", "Hue"), fill(site.db, clock, "rambutan", "Dalat")


def routes(app: HostCheck) -> set[tuple[str, str]]:
    """Every (method, path) the app answers."""
    inner = app.app
    found = set()
    for route in getattr(inner, "routes", []):
        assert isinstance(route, Route)
        found |= {(m, route.path) for m in route.methods or () if m != "HEAD"}
    return found


def test_a_login_code_is_kept_only_as_its_hash(site: Site, owner: str) -> None:
    code = issue_login(site.db, owner, site.clock())
    with site.db.owner_tx(owner) as conn:
        rows = conn.execute("SELECT * FROM web_logins WHERE owner_id = %s", (owner,)).fetchall()
    assert len(rows) == 1
    assert not any(code in str(value) for value in rows[0])
    assert rows[0][1] == hashlib.sha256(code.encode()).hexdigest()
    with site.db.tx() as conn:  # and no owner set: row-level security shows none at all
        assert conn.execute("SELECT count(*) FROM web_logins").fetchone() == (0,)


def test_a_code_signs_in_its_own_owner_once_within_ten_minutes(
    site: Site, two: tuple[Owned, Owned]
) -> None:
    a, b = two
    code = issue_login(site.db, a.owner, site.clock())
    c = site.client()
    wrongs = (
        f"/login?owner={b.owner}&code={code}",
        f"/login?code={code}",
        f"/login?owner=..&code={code}",
        f"/login?owner={a.owner}&code=x{code}",
    )
    for wrong in wrongs:
        r = c.get(wrong, follow_redirects=False)
        assert r.status_code == 403 and "trinho owners login ID" in r.text
    assert c.get("/").status_code == 401
    assert c.get(f"/login?owner={a.owner}&code={code}", follow_redirects=False).status_code == 303
    page = c.get("/").text
    assert a.word in page and b.word not in page
    again = site.client().get(f"/login?owner={a.owner}&code={code}", follow_redirects=False)
    assert again.status_code == 403
    late = issue_login(site.db, a.owner, site.clock())
    site.clock.advance(minutes=10)
    assert site.client().get(f"/login?owner={a.owner}&code={late}").status_code == 403


def test_the_owners_login_link_names_the_owner_and_the_code() -> None:
    assert login_link(site_url("::1", 8766), "an-owner", "c0de") == (
        "http://[::1]:8766/login?owner=an-owner&code=c0de"
    )


def test_a_session_of_one_owner_never_reads_or_decides_anothers_on_any_route(
    site: Site, two: tuple[Owned, Owned]
) -> None:
    a, b = two
    b_client, b_csrf = site.login(b.owner)
    [added] = [p for p in b.records.proposals() if p.change.get("class") == "added"]
    r = b_client.post("/bulk", data={"csrf": b_csrf, "item": f"{added.id}:{added.content_hash}"})
    assert r.status_code == 200 and "moved" in r.text
    b_receipt = str(r.url).rsplit("/", 1)[1]
    before_b, before_a = b.state(), a.state()
    b_pending = [p for p in b.records.proposals() if p.status == "pending"]
    assert len(b_pending) == 2

    c, csrf = site.login(a.owner)
    tried: set[tuple[str, str]] = set()
    pages: list[tuple[str, str]] = []

    def get(route: str, url: str) -> None:
        tried.add(("GET", route))
        r = c.get(url)
        assert r.status_code in (200, 400, 404), url
        pages.append((url, r.text))

    def post(route: str, url: str, **data: str) -> None:
        tried.add(("POST", route))
        r = c.post(url, data={"csrf": csrf, **data})
        assert r.status_code in (200, 404), url
        pages.append((" ".join((url, *data.values())), r.text))

    note, turns = f"memory/{DAY}.md", f"conversations/{DAY}.jsonl"
    for pid in [p.id for p in b_pending]:
        get("/", f"/?at={pid}")
    get("/bulk", "/bulk")
    get("/reject-all", "/reject-all")
    get("/receipts/{rid}", f"/receipts/{b_receipt}")
    for ref in (f"{note}#L1", "MEMORY.md#L3", f"{turns}#L1", "users/owner/facts/city.md"):
        get("/source", f"/source?ref={quote(ref)}")
    get("/turn", f"/turn?path={turns}")
    get("/runs", "/runs")
    get("/runs/{run}", "/runs/2026-W48")
    get("/runs/{run}/undo", "/runs/2026-W48/undo")
    for path in ("MEMORY.md", "memory/archive.md", note, f"../{b.owner}/MEMORY.md"):
        get("/file", f"/file?path={quote(path)}")
    for user in ("owner", b.owner):
        get("/facts", f"/facts?user={user}")
    for q in (b.word, b.city, b.owner):
        get("/search", f"/search?q={quote(q)}")
    for p in b_pending:
        post("/proposals/{pid}/approve", f"/proposals/{p.id}/approve", hash=p.content_hash)
        post("/proposals/{pid}/reject", f"/proposals/{p.id}/reject", hash=p.content_hash)
    post("/bulk", "/bulk", item=f"{b_pending[0].id}:{b_pending[0].content_hash}")
    post("/reject-all", "/reject-all", item=f"{b_pending[0].id}:{b_pending[0].content_hash}")
    post("/receipts/{rid}/take-back", f"/receipts/{b_receipt}/take-back")
    post("/runs/{run}/undo", "/runs/2026-W48/undo")
    tried |= {("GET", "/login"), ("POST", "/login")}  # the sign-in, tried above and below

    assert tried == routes(site.app)
    for url, page in pages:  # a page may say again what was asked, and nothing more of B's
        asked = unquote(url)
        assert not [m for m in b.marks if m in page and m not in asked], url
    assert b.state() == before_b
    assert a.state() == before_a
    wrong = c.post("/login", data={"owner": b.owner, "code": "x", "token": "y"})
    assert wrong.status_code == 403


def test_an_owner_decides_their_own_through_the_page(site: Site, two: tuple[Owned, Owned]) -> None:
    a, _ = two
    c, csrf = site.login(a.owner)
    page = c.get("/").text
    [edit] = [p for p in a.records.proposals() if p.change.get("class") == "edited"]
    [fact] = [p for p in a.records.proposals() if p.kind == "fact"]
    assert "Hue-guess" in page and "Porto" in page
    r = c.post(f"/proposals/{edit.id}/approve", data={"csrf": csrf, "hash": edit.content_hash})
    assert r.status_code == 200 and "Done" in r.text
    assert "tamarind lives in Porto" in a.records.memory_text()
    assert a.records.get_proposal(edit.id).decided_by == "owner (web)"
    c.post(f"/proposals/{fact.id}/reject", data={"csrf": csrf, "hash": fact.content_hash})
    assert a.records.get_proposal(fact.id).status == "rejected"
    hits = c.get("/search?q=Porto").text
    assert "tamarind lives in Porto" in hits
    assert "tamarind" in c.get(f"/file?path=memory/{DAY}.md").text
    assert "where is tamarind?" in c.get(f"/turn?path=conversations/{DAY}.jsonl").text
    assert "Hue" in c.get("/facts").text
    runs = c.get("/runs")
    assert runs.status_code == 200 and "not shown here" in runs.text


def test_a_bulk_approval_on_pg_gives_a_receipt_that_says_it_cannot_be_taken_back(
    site: Site, two: tuple[Owned, Owned]
) -> None:
    a, _ = two
    c, csrf = site.login(a.owner)
    [added] = [p for p in a.records.proposals() if p.change.get("class") == "added"]
    assert f"{added.id}:{added.content_hash}" in c.get("/bulk").text
    r = c.post("/bulk", data={"csrf": csrf, "item": f"{added.id}:{added.content_hash}"})
    assert "cannot be taken back yet" in r.text and "take-back" not in r.text
    assert "tamarind moved" in a.records.memory_text()
    back = c.post(f"{r.url.path}/take-back", data={"csrf": csrf})
    assert back.status_code == 200
    assert a.records.get_proposal(added.id).status == "approved"


def test_an_expired_session_on_pg_says_where_a_new_link_comes_from(
    site: Site, two: tuple[Owned, Owned]
) -> None:
    a, _ = two
    c, _ = site.login(a.owner)
    site.clock.advance(hours=12)
    r = c.get("/")
    assert r.status_code == 401 and "trinho owners login ID" in r.text


def test_with_the_deployments_config_a_bulk_approval_on_pg_is_taken_back_on_a_working_copy(
    pg_admin: Database, clock: FixedClock
) -> None:
    owners = Owners(pg_admin, clock, user="owner", locale="en", config=Config(timezone=TZ))
    app = owners_app(owners, Guard(clock), "127.0.0.1", 8766, None, WebConfig())
    assert isinstance(app, HostCheck)
    site = Site(app, pg_admin, clock)
    a = fill(pg_admin, clock, "tamarind", "Hue")
    before = a.records.memory_text()
    c, csrf = site.login(a.owner)
    [added] = [p for p in a.records.proposals() if p.change.get("class") == "added"]
    r = c.post("/bulk", data={"csrf": csrf, "item": f"{added.id}:{added.content_hash}"})
    assert "cannot be taken back yet" not in r.text and "take-back" in r.text
    assert "tamarind moved" in a.records.memory_text()
    back = c.post(f"{r.url.path}/take-back", data={"csrf": csrf})
    assert back.status_code == 200
    assert a.records.memory_text() == before
    assert a.records.get_proposal(added.id).status == "reverted"
    again = c.post(f"{r.url.path}/take-back", data={"csrf": csrf})  # a second press: nothing
    assert again.status_code == 200 and a.records.memory_text() == before


def test_rejecting_everything_on_pg_is_asked_once_more_and_taken_back_on_a_working_copy(
    pg_admin: Database, clock: FixedClock
) -> None:
    owners = Owners(pg_admin, clock, user="owner", locale="en", config=Config(timezone=TZ))
    app = owners_app(owners, Guard(clock), "127.0.0.1", 8766, None, WebConfig())
    assert isinstance(app, HostCheck)
    site = Site(app, pg_admin, clock)
    a = fill(pg_admin, clock, "tamarind", "Hue")
    before = a.records.memory_text()
    c, csrf = site.login(a.owner)
    waiting = [p for p in a.records.proposals() if p.status == "pending"]
    page = c.get("/reject-all").text
    items = [f"{p.id}:{p.content_hash}" for p in waiting]
    assert all(item in page for item in items) and "keeps your memory exactly as it is" in page
    r = c.post("/reject-all", data={"csrf": csrf, "item": items})
    assert all(a.records.get_proposal(p.id).status == "rejected" for p in waiting)
    assert a.records.memory_text() == before
    c.post(f"{r.url.path}/take-back", data={"csrf": csrf})
    assert all(a.records.get_proposal(p.id).status == "pending" for p in waiting)
    assert a.records.memory_text() == before


def test_the_runs_of_a_pg_owner_are_shown_and_undone_on_their_working_copy(
    pg_admin: Database, clock: FixedClock, tmp_path: Path
) -> None:
    import io

    from support.condense_weeks import VI_ADDED, VI_MEMORY, two_roles, vi_good_rewrite, vi_week
    from trinho.channels import ConsoleChannel
    from trinho.condense import run_condensation
    from trinho.pg.transfer import import_workspace
    from trinho.pg.workcopy import run_on_copy
    from trinho.workspace import init_workspace

    ws = init_workspace(tmp_path / "ws", timezone=TZ, clock=clock).workspace
    vi_week(ws, clock)
    owner = new_owner(pg_admin, TZ)
    import_workspace(pg_admin, ws, owner)
    config = Config(timezone=TZ)
    run_on_copy(
        pg_admin,
        owner,
        config,
        None,
        lambda copy: run_condensation(
            copy, model=two_roles(vi_good_rewrite()), channel=ConsoleChannel("en", io.StringIO())
        ),
        clock=clock,
    )
    records = PgRecords(pg_admin, owner, clock=clock, timezone=TZ)
    assert all(line in records.memory_text() for line in VI_ADDED)
    owners = Owners(pg_admin, clock, user="owner", locale="en", config=config)
    app = owners_app(owners, Guard(clock), "127.0.0.1", 8766, None, WebConfig())
    assert isinstance(app, HostCheck)
    c = Site(app, pg_admin, clock).client()  # nothing waits: the queue has no form to read
    code = issue_login(pg_admin, owner, clock())
    assert c.get(f"/login?owner={owner}&code={code}", follow_redirects=False).status_code == 303
    assert "2026-W48" in c.get("/runs").text
    assert c.get("/runs/2026-W48").status_code == 200
    assert c.get("/runs/2026-W99").status_code == 404
    asked = c.get("/runs/2026-W48/undo")
    assert asked.status_code == 200
    match = re.search(r'name="csrf" value="([^"]+)"', asked.text)
    assert match is not None
    undone = c.post("/runs/2026-W48/undo", data={"csrf": match.group(1)})
    assert undone.status_code == 200
    assert records.memory_text() == VI_MEMORY
