"""The review as the owner meets it, over HTTP: the riskiest change first, why and where from
on every card, buttons named by their effect, a bulk approval in two steps bound to what it
showed, the page returning to the next card, search named for people, and no internal word
on a Vietnamese page."""

from __future__ import annotations

import html as stdlib_html
import re
from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.testclient import TestClient

from conftest import FixedClock
from support.catalogs import internal_terms_in, run_ids_in
from support.review_week import ARCHIVED, SHRIMP, ReviewWeek, review_week, review_workspace
from trinho.facts.rules import Fact
from trinho.proposals import store as proposals
from trinho.proposals.format import Proposal
from trinho.review.bulk import bulk_covered, touches_owner_line
from trinho.review.render import effect_words
from trinho.review.risk import one_at_a_time, review_order
from trinho.search import Hit
from trinho.textnorm import shown_id
from trinho.web.app import web_app
from trinho.web.auth import Guard
from trinho.web.pages import entry_text, next_card, shown_lines, worth_showing
from trinho.workspace import Workspace

BASE = "http://127.0.0.1:8766"
PAGES = (
    "/",
    "/bulk",
    "/reject-all",
    "/runs",
    "/runs/2026-W48",
    "/runs/2026-W48/undo",
    "/facts",
    "/facts?user=mai",
    "/file?path=MEMORY.md",
    "/search?q=chạy+bộ",
    "/search?q=",
)


@pytest.fixture(params=["vi", "en"])
def locale(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def ws(tmp_path: object, clock: FixedClock, locale: str) -> Workspace:
    from pathlib import Path

    return review_workspace(Path(str(tmp_path)) / "ws", clock, locale)


@pytest.fixture
def week(ws: Workspace, clock: FixedClock) -> ReviewWeek:
    return review_week(ws, clock)


class Owner:
    """A signed-in browser without a browser: the client, its CSRF token, the guard."""

    def __init__(self, ws: Workspace) -> None:
        self.guard = Guard(ws.now)
        self.c = TestClient(web_app(ws, self.guard, "127.0.0.1", 8766, None), base_url=BASE)
        assert self.c.get(f"/login?code={self.guard.code}", follow_redirects=False).is_redirect
        found = re.search(r'name="csrf" value="([^"]+)"', self.c.get("/").text)
        self.csrf = found.group(1) if found else ""

    def post(self, path: str, **data: object) -> object:
        return self.c.post(path, data={"csrf": self.csrf, **data}, follow_redirects=False)


@pytest.fixture
def owner(ws: Workspace, week: ReviewWeek) -> Owner:
    return Owner(ws)


def shown_text(page: str) -> str:
    """What a reader sees of a page: its title and text, without markup or style."""
    page = re.sub(r"<style>.*?</style>", "", page, flags=re.S)
    page = re.sub(r"</?(?:ins|del|b|small|a)\b[^>]*>", "", page)  # inline: no break
    return stdlib_html.unescape(re.sub(r"<[^>]+>", " ", page))


def cards(page: str) -> list[str]:
    return re.findall(r'<article id="card-([0-9a-f]{10})"', page)


def card(page: str, pid: str) -> str:
    start = page.index(f'<article id="card-{pid}"')
    return page[start : page.index("</article>", start)]


def waiting(ws: Workspace) -> list[Proposal]:
    return proposals.list_proposals(ws, include_decided=False).proposals


def test_the_cards_come_riskiest_first_after_a_summary_of_counts(
    ws: Workspace, week: ReviewWeek, owner: Owner, locale: str
) -> None:
    page = owner.c.get("/").text
    order = cards(page)
    assert order == [p.id for p in review_order(waiting(ws))]
    assert order[:2] == sorted(week.removals, key=order.index)  # the two removals first
    assert set(order[:2]) == set(week.removals) and order[2] == week.archive
    assert order[3] == week.coffee  # then replacing what the owner said
    summary = page[page.index('class="summary"') : page.index("<article")]
    expected = {
        "vi": ["8 thay đổi", "2 dòng sẽ bị xoá", "1 lần chuyển vào lưu trữ", "2 chỗ sửa"],
        "en": ["8 changes", "2 lines to remove", "1 move to the archive", "2 edits"],
    }[locale]
    assert all(words in summary for words in expected)
    for pid in week.removals:
        assert 'class="removes"' in card(page, pid)  # marked as a removal


def test_every_card_says_why_where_from_and_what_each_button_does(
    ws: Workspace, week: ReviewWeek, owner: Owner, locale: str
) -> None:
    page = owner.c.get("/").text
    for p in waiting(ws):
        shown = card(page, p.id)
        approve, keep = effect_words(p, locale)
        assert stdlib_html.escape(approve) in shown and stdlib_html.escape(keep) in shown
        text = shown_text(shown)
        assert p.id not in text  # an owner screen shows no id: the card is bound to it
        if p.why:
            assert p.why in text
        for source in p.sources:
            assert entry_text(source.text) in text
            assert f'href="/source?ref={source.ref}"' in shown
    coffee = shown_text(card(page, week.coffee))
    assert "cà phê sữa đá" in coffee and "flat white" in coffee
    assert "Uống một ly flat white ở sân bay" in coffee  # the airport coffee, as the note said


def test_the_archive_card_says_where_the_lines_go_and_lists_them_once_each(
    week: ReviewWeek, owner: Owner, locale: str
) -> None:
    shown = card(owner.c.get("/").text, week.archive)
    text = shown_text(shown)
    assert {"vi": "vẫn tìm được", "en": "stay searchable"}[locale] in text
    assert "memory/archive.md" not in text  # the archive, named for a person
    for forbidden in ("(nothing)", "(chưa có)", "New:", "Mới:"):
        assert forbidden not in text
    items = re.findall(r"<li>(.*?)</li>", shown.split('class="moved"', 1)[1])
    assert items[:5] == [line.removeprefix("- ") for line in ARCHIVED]  # one bullet: the list's


def test_a_decision_returns_to_the_next_card_and_says_what_it_did(
    ws: Workspace, week: ReviewWeek, owner: Owner, locale: str
) -> None:
    order = [p.id for p in review_order(waiting(ws))]
    first = proposals.get_proposal(ws, order[0])
    r = owner.post(f"/proposals/{first.id}/reject", hash=first.content_hash, reason="còn đúng")
    assert r.status_code == 303  # type: ignore[attr-defined]
    assert r.headers["location"] == f"/?at={order[1]}#card-{order[1]}"  # type: ignore[attr-defined]
    page = owner.c.get(r.headers["location"]).text  # type: ignore[attr-defined]
    said = shown_text(card(page, order[1]))
    assert effect_words(first, locale)[1] in said  # "Giữ lại": in the card the page is at
    notice = said[: said.index(effect_words(first, locale)[1]) + 200]
    assert entry_text(first.change["old"]) in notice  # and the line it kept
    assert proposals.get_proposal(ws, first.id).decision_note == "còn đúng"
    assert SHRIMP in ws.memory_file.read_text(encoding="utf-8")


def test_a_decision_on_a_changed_proposal_is_refused(
    ws: Workspace, week: ReviewWeek, owner: Owner
) -> None:
    pid = week.removals[0]
    owner.post(f"/proposals/{pid}/approve", hash="0" * 64)
    assert proposals.get_proposal(ws, pid).status == "pending"
    assert SHRIMP in ws.memory_file.read_text(encoding="utf-8")


def test_next_card_is_the_one_after_else_the_one_before() -> None:
    order = ["a", "b", "c", "d"]
    assert next_card(order, "b", {"a", "c", "d"}) == "c"
    assert next_card(order, "d", {"a", "b"}) == "b"
    assert next_card(order, "b", {"d"}) == "d"
    assert next_card(order, "a", set()) is None


@given(st.lists(st.sampled_from("abcdef"), unique=True, min_size=1), st.data())
def test_next_card_is_always_one_still_waiting(order: list[str], data: st.DataObject) -> None:
    decided = data.draw(st.sampled_from(order))
    pending = set(data.draw(st.lists(st.sampled_from(order)))) - {decided}
    after = next_card(order, decided, pending)
    assert (after is None) == (not pending)
    assert after is None or after in pending


def test_the_bulk_review_shows_every_line_and_only_what_may_go_together(
    ws: Workspace, week: ReviewWeek, owner: Owner
) -> None:
    eligible = bulk_covered(waiting(ws), shown_lines(waiting(ws)))
    assert {p.id for p in eligible} == set(week.facts)  # an edit of a line you have: alone
    page = owner.c.get("/bulk").text
    text = shown_text(page)
    assert cards(page) == [p.id for p in eligible]
    bound = re.findall(r'name="item" value="([0-9a-f]{10}):([0-9a-f]{64})"', page)
    assert bound == [(p.id, p.content_hash) for p in eligible]
    for p in eligible:
        for side in ("old", "new", "value"):
            line = p.change.get(side)
            if isinstance(line, str):
                for word in re.findall(r"\w+", line):
                    assert word in text  # every word of every line it changes is on screen
    for pid in (*week.removals, *week.edits, week.archive, week.coffee):
        assert pid not in page


def test_a_bulk_approval_applies_exactly_what_it_showed_and_gives_a_receipt(
    ws: Workspace, week: ReviewWeek, owner: Owner, clock: FixedClock
) -> None:
    page = owner.c.get("/bulk").text
    items = re.findall(r'name="item" value="([^"]+)"', page)
    later = proposals.submit(
        ws,
        "fact",
        {"user": "owner", "key": "mon-an", "value": "phở", "basis": "inferred"},
        reason="x",
        origin="job:facts",
    ).proposal  # proposed after the review step was shown: not swept in
    r = owner.post("/bulk", item=items)
    location = r.headers["location"]  # type: ignore[attr-defined]
    assert location.startswith("/receipts/")
    for pid in week.facts:
        assert proposals.get_proposal(ws, pid).status == "approved"
    for pid in (*week.removals, *week.edits, week.archive, week.coffee, later.id):
        assert proposals.get_proposal(ws, pid).status == "pending"
    memory = ws.memory_file.read_text(encoding="utf-8")
    assert SHRIMP in memory and all(line in memory for line in ARCHIVED)
    receipt = shown_text(owner.c.get(location).text)
    assert not any(pid in receipt for pid in (*week.edits, *week.facts))  # no ids
    if ws.locale == "vi":
        assert internal_terms_in(receipt) == []
    assert "Đà Nẵng" in receipt
    assert Owner(ws).c.get(location).status_code in (401, 404)  # another session: not shown


def take_back_form(page: str) -> str | None:
    found = re.search(r'action="(/receipts/[^"]+/take-back)"', page)
    return found.group(1) if found else None


def test_a_bulk_approval_is_taken_back_in_one_step_from_its_receipt(
    ws: Workspace, week: ReviewWeek, owner: Owner, clock: FixedClock
) -> None:
    memory_before = ws.memory_file.read_bytes()
    items = re.findall(r'name="item" value="([^"]+)"', owner.c.get("/bulk").text)
    location = owner.post("/bulk", item=items).headers["location"]  # type: ignore[attr-defined]
    city = fact_of(ws, "thanh-pho").value_on(clock().date())
    assert city is not None and city.value == "Đà Nẵng"
    clock.advance(minutes=5)
    form = take_back_form(owner.c.get(location).text)
    assert form == f"{location}/take-back"
    assert Owner(ws).post(form).status_code in (401, 404)  # type: ignore[attr-defined]
    assert proposals.get_proposal(ws, week.facts[0]).status == "approved"
    r = owner.post(form)
    assert r.headers["location"] == location  # type: ignore[attr-defined]
    assert ws.memory_file.read_bytes() == memory_before  # every line as it was
    for pid in week.facts:
        taken = proposals.get_proposal(ws, pid)
        assert (taken.status, taken.reverted_by) == ("reverted", owner_by(ws))
    for key in ("thanh-pho", "the-thao-cua-mai"):  # no value before: none now, none ever true
        fact = fact_of(ws, key)
        assert fact.value_on(clock().date()) is None and fact.live_head(clock().date()) is None
    page = owner.c.get(location).text
    assert take_back_form(page) is None
    text = shown_text(page)
    assert not any(pid in text for pid in (*week.edits, *week.facts))  # no ids
    if ws.locale == "vi":
        assert internal_terms_in(text) == []
    assert owner.post(form).status_code == 303  # type: ignore[attr-defined]
    assert ws.memory_file.read_bytes() == memory_before


def owner_by(ws: Workspace) -> str:
    return f"{ws.config.owner} (web)"


def fact_of(ws: Workspace, key: str) -> Fact:
    from trinho.facts.store import load_fact

    user = "mai" if key == "the-thao-cua-mai" else None
    found = load_fact(ws, key, user)
    assert found is not None
    return found


def test_a_receipt_offers_no_take_back_once_the_window_has_passed(
    ws: Workspace, week: ReviewWeek, owner: Owner, clock: FixedClock
) -> None:
    location = approve_alone(owner, ws, week.edits[0])
    after = ws.memory_file.read_bytes()
    clock.advance(minutes=16)
    page = owner.c.get(location).text
    assert take_back_form(page) is None
    owner.post(f"{location}/take-back")  # forged after the window: nothing taken back
    assert ws.memory_file.read_bytes() == after
    assert proposals.get_proposal(ws, week.edits[0]).status == "approved"


def approve_alone(owner: Owner, ws: Workspace, pid: str, verb: str = "approve") -> str:
    """Decide one change on its card; the receipt the next card links to (its take-back)."""
    shown = proposals.get_proposal(ws, pid)
    r = owner.post(f"/proposals/{pid}/{verb}", hash=shown.content_hash)
    page = owner.c.get(r.headers["location"]).text  # type: ignore[attr-defined]
    found = re.search(r'href="(/receipts/[^"]+)"', page)
    assert found is not None
    return found.group(1)


def test_a_single_decision_is_taken_back_from_the_link_beside_its_notice(
    ws: Workspace, week: ReviewWeek, owner: Owner
) -> None:
    memory_before = ws.memory_file.read_bytes()
    location = approve_alone(owner, ws, week.edits[0])
    assert ws.memory_file.read_bytes() != memory_before
    page = owner.c.get(location).text
    edit = proposals.get_proposal(ws, week.edits[0])
    assert entry_text(str(edit.change["new"])) in shown_text(page)
    form = take_back_form(page)
    assert form is not None
    owner.post(form)
    assert ws.memory_file.read_bytes() == memory_before
    assert proposals.get_proposal(ws, edit.id).status == "reverted"
    location = approve_alone(owner, ws, week.removals[0], "reject")
    assert proposals.get_proposal(ws, week.removals[0]).status == "rejected"
    form = take_back_form(owner.c.get(location).text)
    assert form is not None
    owner.post(form)
    assert proposals.get_proposal(ws, week.removals[0]).status == "pending"
    assert ws.memory_file.read_bytes() == memory_before


def test_a_removal_approved_alone_is_taken_back_by_its_runs_undo(
    ws: Workspace, week: ReviewWeek, owner: Owner
) -> None:
    memory_before = ws.memory_file.read_bytes()
    location = approve_alone(owner, ws, week.removals[0])
    assert SHRIMP not in ws.memory_file.read_text(encoding="utf-8")
    page = owner.c.get(location).text
    assert take_back_form(page) is None
    assert 'href="/runs/2026-W48/undo"' in page
    owner.post("/runs/2026-W48/undo")
    assert ws.memory_file.read_bytes() == memory_before


def test_rejecting_everything_says_its_effect_asks_once_more_and_is_taken_back(
    ws: Workspace, week: ReviewWeek, owner: Owner
) -> None:
    memory_before = ws.memory_file.read_bytes()
    assert 'href="/reject-all"' in owner.c.get("/").text
    page = owner.c.get("/reject-all").text
    assert all(proposals.get_proposal(ws, pid).status == "pending" for pid in week.all_ids)
    bound = re.findall(r'name="item" value="([0-9a-f]{10}):([0-9a-f]{64})"', page)
    assert {pid for pid, _ in bound} == set(week.all_ids) and cards(page) == [p for p, _ in bound]
    said = {"en": "keeps your memory exactly as it is", "vi": "sẽ giữ nguyên trí nhớ của bạn"}
    assert said[ws.locale] in shown_text(page)  # what it keeps as it is, named
    r = owner.post("/reject-all", item=[f"{pid}:{digest}" for pid, digest in bound])
    location = r.headers["location"]  # type: ignore[attr-defined]
    assert all(proposals.get_proposal(ws, pid).status == "rejected" for pid in week.all_ids)
    assert ws.memory_file.read_bytes() == memory_before
    form = take_back_form(owner.c.get(location).text)
    assert form is not None
    owner.post(form)
    assert all(proposals.get_proposal(ws, pid).status == "pending" for pid in week.all_ids)
    assert ws.memory_file.read_bytes() == memory_before


def test_a_line_changed_since_the_approval_is_not_taken_back(
    ws: Workspace, week: ReviewWeek, owner: Owner
) -> None:
    location = approve_alone(owner, ws, week.edits[0])
    edit = proposals.get_proposal(ws, week.edits[0])
    new = str(edit.change["new"])
    by_hand = new + " (sửa tay)"
    text = ws.memory_file.read_text(encoding="utf-8").replace(new, by_hand)
    ws.memory_file.write_text(text, encoding="utf-8")
    owner.post(f"{location}/take-back")
    after = ws.memory_file.read_text(encoding="utf-8")
    assert by_hand in after  # the owner's own edit is never undone
    assert proposals.get_proposal(ws, edit.id).status == "approved"
    page = shown_text(owner.c.get(location).text)
    assert str(edit.change["new"]) in page and edit.id not in page  # named by its line


def test_a_bulk_approval_never_applies_a_removal_even_when_the_form_is_forged(
    ws: Workspace, week: ReviewWeek, owner: Owner
) -> None:
    risky = [
        proposals.get_proposal(ws, pid)
        for pid in (*week.removals, *week.edits, week.archive, week.coffee)
    ]
    assert all(one_at_a_time(p) or touches_owner_line(p) for p in risky)
    owner.post("/bulk", item=[f"{p.id}:{p.content_hash}" for p in risky])
    assert all(proposals.get_proposal(ws, p.id).status == "pending" for p in risky)
    memory = ws.memory_file.read_text(encoding="utf-8")
    assert SHRIMP in memory and all(line in memory for line in ARCHIVED)


def test_a_bulk_approval_skips_a_proposal_changed_since_it_was_shown(
    ws: Workspace, week: ReviewWeek, owner: Owner
) -> None:
    edit = proposals.get_proposal(ws, week.facts[0])
    r = owner.post("/bulk", item=[f"{edit.id}:{'0' * 64}"])
    assert proposals.get_proposal(ws, edit.id).status == "pending"
    receipt = shown_text(owner.c.get(r.headers["location"]).text)  # type: ignore[attr-defined]
    assert shown_id(edit.id) in receipt


def test_no_vietnamese_page_carries_an_internal_word_nor_a_run_id_as_its_title(
    week: ReviewWeek, owner: Owner, locale: str
) -> None:
    pid = week.removals[0]
    paths = (
        *PAGES,
        "/source?ref=memory/2026-11-25.md%2307:30",
        "/turn?path=conversations/2026-11-27.jsonl",
    )
    for path in paths:
        r = owner.c.get(path)
        assert r.status_code == 200, path
        text = shown_text(r.text)
        if locale == "vi":
            assert internal_terms_in(text) == [], path
        jargon = ["agent:main", "job:facts", "(user owner)", "basis:", "- - "]
        if not path.startswith("/runs/"):  # a run's report keeps the gate's technical reason
            jargon.append("over its budget")
        for term in jargon:
            assert term not in text, path
        titles = re.findall(r"<(?:title|h1|h2)[^>]*>(.*?)</", r.text)
        assert all(run_ids_in(title) == [] for title in titles), path
    assert pid in owner.c.get("/").text


def test_memory_text_is_never_set_in_a_monospace_font(owner: Owner) -> None:
    page = owner.c.get("/").text
    style = page[page.index("<style>") : page.index("</style>")]
    assert "monospace" not in style and '"Noto Sans"' in style


def test_the_search_keeps_the_query_and_names_hits_for_people(
    week: ReviewWeek, owner: Owner, locale: str
) -> None:
    page = owner.c.get("/search", params={"q": "chạy bộ"}).text
    assert page.count('name="q"') == 1 and 'value="chạy bộ"' in page  # one box, holding it
    main = page.split("<main>", 1)[1]
    titles = re.findall(r'<li><a href="([^"]+)">([^<]+)</a>', main)
    assert titles
    for href, title in titles:
        assert not title.endswith((".md", ".jsonl")) and "/" not in title
        if "conversation" in title.lower() or "trò chuyện" in title.lower():
            assert href.startswith("/turn?path=conversations/")
    empty = shown_text(owner.c.get("/search", params={"q": " "}).text)
    assert {"vi": "Hãy gõ điều bạn muốn tìm", "en": "Type what you are looking for"}[
        locale
    ] in empty
    assert "cho ." not in empty and "for ." not in empty


def test_a_conversation_opens_as_rendered_turns_never_raw_jsonl(
    week: ReviewWeek, owner: Owner
) -> None:
    r = owner.c.get(
        "/source", params={"ref": "conversations/2026-11-27.jsonl#1"}, follow_redirects=False
    )
    assert r.headers["location"] == "/turn?path=conversations/2026-11-27.jsonl#T1"
    page = owner.c.get("/turn?path=conversations/2026-11-27.jsonl").text
    assert 'id="T1"' in page and "Từ tuần sau tôi chạy bộ cả sáng thứ Tư nữa" in page
    assert '"role"' not in page and "&quot;role&quot;" not in page
    assert owner.c.get("/turn?path=../.trinho/config.toml").status_code == 404


def test_a_note_source_opens_the_note_at_its_line(week: ReviewWeek, owner: Owner) -> None:
    r = owner.c.get("/source", params={"ref": "memory/2026-11-25.md#07:30"}, follow_redirects=False)
    assert r.headers["location"] == "/file?path=memory/2026-11-25.md#L1"
    r = owner.c.get(
        "/source", params={"ref": "users/mai/facts/the-thao-cua-mai.md"}, follow_redirects=False
    )
    assert r.headers["location"] == "/facts?user=mai#the-thao-cua-mai"
    r = owner.c.get("/source", params={"ref": "MEMORY.md#L14"}, follow_redirects=False)
    assert r.headers["location"] == "/file?path=MEMORY.md#L14"


def hit(score: float, text: str = "x") -> Hit:
    return Hit("note", "memory/2026-11-25.md", 1, date(2026, 11, 25), text, score, ())


def test_weak_padding_hits_are_left_out() -> None:
    hits = [hit(2.0, "a"), hit(1.2, "b"), hit(0.5, "c"), hit(0.1, "d")]
    assert [h.text for h in worth_showing(hits)] == ["a", "b"]
    assert worth_showing([]) == []


@given(st.lists(st.floats(min_value=0, max_value=100), max_size=12))
def test_the_best_hit_is_always_shown(scores: list[float]) -> None:
    hits = [hit(s) for s in scores]
    shown = worth_showing(hits)
    assert all(h in hits for h in shown)
    if hits:
        assert max(h.score for h in shown) == max(scores)


def test_an_expired_session_says_so_and_how_to_sign_in_again(
    ws: Workspace, owner: Owner, clock: FixedClock, locale: str
) -> None:
    clock.advance(hours=13)
    r = owner.c.get("/")
    assert r.status_code == 401
    text = shown_text(r.text)
    assert {"vi": "hết hạn", "en": "expired"}[locale] in text and "trinho web" in text
    fresh = TestClient(web_app(ws, Guard(ws.now), "127.0.0.1", 8766, None), base_url=BASE)
    assert "trinho web" in shown_text(fresh.get("/").text)
    used = shown_text(owner.c.get(f"/login?code={owner.guard.code}").text)
    assert "trinho web" in used
