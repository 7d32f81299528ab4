"""The review page over HTTP: login, cookies, CSRF, Host and Origin, decisions, escaping."""

from __future__ import annotations

import io
import re
from dataclasses import replace

import pytest
from starlette.testclient import TestClient

from conftest import FixedClock
from support.condense_weeks import EN_MEMORY, en_week, two_roles
from trinho.channels import ConsoleChannel
from trinho.condense import RunReport, run_condensation
from trinho.config import WebConfig
from trinho.errors import TrinhoError
from trinho.proposals import store as proposals
from trinho.review.appliers import APPLIERS
from trinho.textnorm import short_ids
from trinho.web.app import login_url, required_token, web_app
from trinho.web.auth import Guard
from trinho.workspace import Workspace

ANNA = "- 2026-02-11: Sister Anna lives in Lisbon"
PORTO = "- 2026-11-23: Sister Anna lives in Porto"
PENICILLIN = "- 2026-10-05: Allergic to penicillin"
BASE = "http://127.0.0.1:8766"


@pytest.fixture
def held(workspace: Workspace, clock: FixedClock) -> RunReport:
    en_week(workspace, clock)
    rewrite = EN_MEMORY.replace(ANNA, PORTO).replace(PENICILLIN + "\n", "")
    channel = ConsoleChannel(workspace.locale, io.StringIO())
    return run_condensation(workspace, model=two_roles(rewrite), channel=channel)


@pytest.fixture
def guard(workspace: Workspace) -> Guard:
    return Guard(workspace.now)


def client(ws: Workspace, guard: Guard) -> TestClient:
    return TestClient(web_app(ws, guard, "127.0.0.1", 8766, None), base_url=BASE)


def logged_in(ws: Workspace, guard: Guard) -> tuple[TestClient, str]:
    c = client(ws, guard)
    r = c.get(f"/login?code={guard.code}", follow_redirects=False)
    assert r.status_code == 303
    page = c.get("/").text
    match = re.search(r'name="csrf" value="([^"]+)"', page)
    return c, match.group(1) if match else ""


def pid_of(report: RunReport, cls: str) -> str:
    [pid] = [rc.proposal_id for rc in report.held if rc.change.cls == cls]
    assert pid is not None
    return pid


def test_the_login_link_sets_a_strict_http_only_cookie(workspace: Workspace, guard: Guard) -> None:
    assert login_url("127.0.0.1", 8766, guard) == f"{BASE}/login?code={guard.code}"
    r = client(workspace, guard).get(f"/login?code={guard.code}", follow_redirects=False)
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/" in cookie


def test_no_cookie_is_refused(workspace: Workspace, guard: Guard) -> None:
    c = client(workspace, guard)
    for path in ("/", "/runs", "/facts", "/search?q=x", "/file?path=MEMORY.md"):
        assert c.get(path).status_code == 401


def test_a_reused_or_stale_code_is_refused(
    workspace: Workspace, guard: Guard, clock: FixedClock
) -> None:
    c = client(workspace, guard)
    assert c.get("/login?code=wrong").status_code == 403
    assert c.get(f"/login?code={guard.code}", follow_redirects=False).status_code == 303
    other = client(workspace, guard)
    assert other.get(f"/login?code={guard.code}").status_code == 403
    fresh = Guard(workspace.now)
    clock.advance(minutes=10)
    assert client(workspace, fresh).get(f"/login?code={fresh.code}").status_code == 403


def test_foreign_host_or_origin_is_refused(workspace: Workspace, guard: Guard) -> None:
    c = client(workspace, guard)
    assert c.get("/", headers={"host": "evil.example:8766"}).status_code == 421
    r = c.get(f"/login?code={guard.code}", headers={"origin": "http://evil.example"})
    assert r.status_code == 403
    assert not guard.code_used


def test_post_without_or_with_a_wrong_csrf_token_decides_nothing(
    workspace: Workspace, guard: Guard, held: RunReport
) -> None:
    c, _ = logged_in(workspace, guard)
    pid = pid_of(held, "removed")
    assert c.post(f"/proposals/{pid}/approve").status_code == 403
    assert c.post(f"/proposals/{pid}/approve", data={"csrf": "nope"}).status_code == 403
    assert c.post(f"/proposals/{pid}/reject", data={"csrf": "", "reason": "x"}).status_code == 403
    assert proposals.get_proposal(workspace, pid).status == "pending"


def test_the_queue_shows_a_word_diff_and_decides_through_the_same_code(
    workspace: Workspace, guard: Guard, held: RunReport
) -> None:
    c, csrf = logged_in(workspace, guard)
    page = c.get("/").text
    assert "<del>2026-02-11: Sister Anna lives in Lisbon</del>" not in page
    assert "<ins>Porto</ins>" in page and "<del>Lisbon</del>" in page
    edited, removed = pid_of(held, "edited"), pid_of(held, "removed")
    r = c.post(f"/proposals/{edited}/approve", data={"csrf": csrf})
    assert r.status_code == 200 and "Done — Use the new wording" in r.text
    decided = proposals.get_proposal(workspace, edited)
    assert decided.status == "approved" and decided.decided_by == "owner (web)"
    assert PORTO in workspace.memory_file.read_text(encoding="utf-8")
    c.post(f"/proposals/{removed}/reject", data={"csrf": csrf, "reason": "keep it"})
    rejected = proposals.get_proposal(workspace, removed)
    assert rejected.status == "rejected" and rejected.decided_by == "owner (web)"
    assert rejected.decision_note == "keep it"


def test_a_run_has_no_approve_all_of_its_own(
    workspace: Workspace, guard: Guard, held: RunReport
) -> None:
    """One tap once removed a line the owner never saw: a run's changes are decided on their
    cards, and together only through the review step of `/bulk`."""
    c, csrf = logged_in(workspace, guard)
    assert c.post(f"/runs/{held.run_id}/approve-all", data={"csrf": csrf}).status_code == 404
    assert all(
        proposals.get_proposal(workspace, rc.proposal_id).status == "pending"
        for rc in held.held
        if rc.proposal_id
    )


def test_a_run_page_shows_its_report_and_undo_asks_first(
    workspace: Workspace, guard: Guard, held: RunReport
) -> None:
    c, csrf = logged_in(workspace, guard)
    assert held.run_id in c.get("/runs").text
    page = c.get(f"/runs/{held.run_id}").text
    assert "Days read" in page and "tokens read" in page
    confirm = c.get(f"/runs/{held.run_id}/undo").text
    assert f'action="/runs/{held.run_id}/undo"' in confirm
    r = c.post(f"/runs/{held.run_id}/undo", data={"csrf": csrf})
    assert "undone" in r.text
    assert all(
        proposals.get_proposal(workspace, rc.proposal_id).status == "stale"
        for rc in held.held
        if rc.proposal_id
    )


def test_undo_says_before_and_after_that_it_takes_back_the_owners_approvals(
    workspace: Workspace, guard: Guard, held: RunReport
) -> None:
    """The confirmation lists the approval the undo takes back and the change it withdraws;
    afterwards the approved proposal reads "reverted", no longer plain "approved"."""
    c, csrf = logged_in(workspace, guard)
    [removal] = [rc.proposal_id for rc in held.held if rc.change.cls == "removed"]
    [edit] = [rc.proposal_id for rc in held.held if rc.change.cls == "edited"]
    assert removal is not None and edit is not None
    proposals.approve(workspace, removal, "web", appliers=APPLIERS)
    confirm = c.get(f"/runs/{held.run_id}/undo").text
    approved = "Changes you approved, taken back (1;"
    assert approved.replace("Changes", "A change") in confirm.replace("&quot;", '"')
    short = short_ids([removal, edit])  # as the undo shows them
    assert f"{short[removal]}: removed: {PENICILLIN}" in confirm
    assert f"withdrawn (1): {short[edit]}" in confirm
    assert PENICILLIN not in workspace.memory_file.read_text(encoding="utf-8")  # not yet
    page = c.post(f"/runs/{held.run_id}/undo", data={"csrf": csrf}).text
    assert f"{short[removal]}: removed: {PENICILLIN}" in page
    assert f"withdrawn (1): {short[edit]}" in page
    assert PENICILLIN in workspace.memory_file.read_text(encoding="utf-8")
    assert proposals.get_proposal(workspace, removal).status == "reverted"


def test_hostile_stored_text_is_escaped(workspace: Workspace, guard: Guard) -> None:
    hostile = "<script>alert(1)</script>\x1b[31m"
    proposals.submit(
        workspace,
        "fact",
        {"user": "owner", "key": "city", "value": hostile, "basis": "user", "current_value": None},
        reason=hostile,
        origin="agent:main",
    )
    workspace.memory_file.write_text(f"- 2026-01-01: {hostile}\n", encoding="utf-8")
    c, _ = logged_in(workspace, guard)
    for path in ("/", "/file?path=MEMORY.md"):
        page = c.get(path).text
        assert "<script>" not in page and "\x1b" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;⟨U+001B⟩[31m" in page


def test_search_hits_open_the_file_at_the_line(workspace: Workspace, guard: Guard) -> None:
    workspace.memory_file.write_text("# Memory\n- 2026-01-01: Moved to Ha Noi\n", encoding="utf-8")
    c, _ = logged_in(workspace, guard)
    page = c.get("/search?q=ha+noi").text
    assert 'href="/file?path=MEMORY.md#L2"' in page
    assert 'id="L2"' in c.get("/file?path=MEMORY.md").text


def test_beyond_loopback_needs_a_token_in_the_config(workspace: Workspace) -> None:
    with pytest.raises(TrinhoError, match=r"\[web\] token"):
        required_token(workspace, "0.0.0.0")
    assert required_token(workspace, "127.0.0.1") is None


def test_with_a_token_the_login_asks_for_it(workspace: Workspace, guard: Guard) -> None:
    c = TestClient(
        web_app(workspace, guard, "10.0.0.5", 8766, "t" * 20), base_url="http://10.0.0.5:8766"
    )
    assert 'name="token"' in c.get(f"/login?code={guard.code}").text
    assert c.post("/login", data={"code": guard.code, "token": "wrong"}).status_code == 403
    r = c.post("/login", data={"code": guard.code, "token": "t" * 20}, follow_redirects=False)
    assert r.status_code == 303 and "trinho_web_8766=" in r.headers["set-cookie"]


def test_the_service_serves_the_page_only_when_enabled(workspace: Workspace) -> None:
    from trinho.web.app import WebHttp, web_parts

    assert web_parts(workspace) == ()
    workspace.config = replace(workspace.config, web=WebConfig(enabled=True, port=18766))
    [part] = web_parts(workspace)
    assert isinstance(part, WebHttp) and part.url.startswith("http://127.0.0.1:18766/login?code=")


@pytest.mark.parametrize(
    "path", [".trinho/config.toml", "memory/../.trinho/config.toml", "memory/link.md"]
)
def test_the_page_never_shows_internal_state(workspace: Workspace, guard: Guard, path: str) -> None:
    """The same rule as memory_get's: the tokens in `.trinho/` never reach a browser."""
    config = workspace.root / ".trinho" / "config.toml"
    config.write_text(config.read_text() + '\n[mcp]\ntoken = "secret-token-123456789"\n')
    (workspace.root / "memory" / "link.md").symlink_to("../.trinho/config.toml")
    c, _ = logged_in(workspace, guard)
    page = c.get("/file", params={"path": path})
    assert page.status_code == 404 and "secret-token" not in page.text


def test_undo_warns_about_later_hand_edits_as_the_cli_does(
    workspace: Workspace, guard: Guard, held: RunReport
) -> None:
    c, csrf = logged_in(workspace, guard)
    with workspace.memory_file.open("a", encoding="utf-8") as out:
        out.write("- 2026-11-29: typed by hand after the run\n")
    page = c.post(f"/runs/{held.run_id}/undo", data={"csrf": csrf}).text
    assert "MEMORY.md had changed since the run (approvals or hand edits)" in page
    assert ".trinho/runs/" in page and str(workspace.root) not in page


@pytest.mark.parametrize("name", ["a&path=MEMORY.md#.md", "with space.md", "what?.md"])
def test_search_hit_links_are_url_encoded(workspace: Workspace, guard: Guard, name: str) -> None:
    """A hit's name is a query value: `&`, `#`, `?` and spaces cannot change what it opens."""
    (workspace.root / "memory" / name).write_text("- 2026-01-01: xylophone lesson\n")
    c, _ = logged_in(workspace, guard)
    page = c.get("/search?q=xylophone").text
    [href] = re.findall(r'href="(/file\?path=[^"]+)"', page.split("<main>", 1)[1])
    assert href.startswith("/file?path=memory/") and href.endswith("#L1")
    for raw in "&? #":
        assert raw not in href.removesuffix("#L1").split("?", 1)[1].removeprefix("path=")
    opened = c.get(href.replace("&amp;", "&")).text
    assert "xylophone lesson" in opened
