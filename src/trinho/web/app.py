"""`trinho web`: the Starlette app of the review page, and how it is served.

Deciding goes through `trinho.proposals.store.approve`/`reject` with the built-in appliers, undoing
through `trinho.condense.store.apply.undo_run`: the same code as the CLI, `decided_by` saying "web".
No agent tool reaches this module.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from trinho.boundary import http_status, public_error
from trinho.condense.rules.undo import render_plan
from trinho.condense.store.apply import preview_undo, undo_run
from trinho.condense.store.runs import (
    REPORT,
    RUN_ID_RE,
    later_runs,
    read_journal,
    run_dir,
    runs_root,
)
from trinho.conversations.store import read_day
from trinho.errors import TrinhoError
from trinho.facts.store import list_facts
from trinho.i18n import N_, t
from trinho.proposals import store as proposals
from trinho.review.appliers import APPLIERS, TAKERS
from trinho.review.render import effect_words
from trinho.review.risk import bulk_eligible, one_at_a_time, review_order
from trinho.search import memory_get, readable_path, search
from trinho.web import pages
from trinho.web.auth import (
    Guard,
    Session,
    allowed_hosts,
    cookie_name,
    csrf_ok,
    fetch_allowed,
    is_loopback,
)
from trinho.web.guard import HostCheck
from trinho.web.html import Html, html
from trinho.workspace import CONFIG_PATH, Workspace, parse_day, validate_slug

log = logging.getLogger("trinho.web")
MAX_RECEIPTS = 50
"""The bulk approvals' receipts a server keeps for their pages (the newest; in memory)."""


def required_token(ws: Workspace, host: str) -> str | None:
    """The token a login needs: none on loopback, the configured one (which must exist) else."""
    if is_loopback(host):
        return None
    token = ws.config.web.token
    if token is None:
        raise TrinhoError.keyed("error.web.needs_token", host=host, config=ws.root / CONFIG_PATH)
    return token


def login_url(host: str, port: int, guard: Guard) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/login?code={guard.code}"


Page = Callable[[Request, Session], Awaitable[Response]]


@dataclass
class Receipt:
    """A bulk approval as its receipt shows it: whose session made it, what it did, and, once
    taken back, what that did."""

    csrf: str
    done: list[pages.Applied]
    taken_back: list[pages.Applied] | None = None


class _Review:
    """The pages and decisions of one server: each method is an endpoint or a helper."""

    def __init__(self, ws: Workspace, guard: Guard, token: str | None, port: int) -> None:
        self.ws = ws
        self.guard = guard
        self.token = token
        self.cookie = cookie_name(port)
        self.locale = ws.locale
        self.by = f"{ws.config.owner} (web)"
        self.receipts: dict[str, Receipt] = {}

    def page(
        self,
        title: str,
        body: Html,
        session: Session | None = None,
        status: int = 200,
        query: str | None = "",
    ) -> Response:
        notices = list(session.notices) if session else []
        if session:
            session.notices.clear()
        return HTMLResponse(pages.layout(self.locale, title, body, notices, query), status)

    def said(self, exc: BaseException) -> str:
        """A failure as the one line a notice shows: keyed, in the owner's locale, its paths
        relative to the workspace."""
        return public_error(exc, self.ws.root).localized(self.locale)

    def refused(self, status: int, why: str = N_("web.refused.other")) -> Response:
        """A refusal that says why, and what to do about it."""
        body = html("<p>{why}</p>", why=t(self.locale, why))
        return self.page(t(self.locale, "web.refused"), body, status=status)

    def signed_out(self, request: Request) -> Response:
        """No live session: an expired (or forgotten, after a restart) one says so and how to
        sign in again; none at all says where the login link is."""
        had = request.cookies.get(self.cookie) is not None
        return self.refused(401, N_("web.session.expired") if had else N_("web.session.none"))

    def guarded(
        self, handler: Callable[[Request, Session | None], Awaitable[Response]]
    ) -> Callable[[Request], Awaitable[Response]]:
        """The route's error boundary: any failure is a page with one keyed line, its status
        400 for the request's fault and 500 else, and never a workspace's absolute path."""

        async def endpoint(request: Request) -> Response:
            try:
                return await handler(request, self.guard.session(request.cookies.get(self.cookie)))
            except Exception as exc:
                shown = public_error(exc, self.ws.root)
                if not isinstance(exc, TrinhoError):
                    log.warning("web: %s %s failed: %s", request.method, request.url.path, shown)
                title, line = t(self.locale, "web.refused"), shown.localized(self.locale)
                page = pages.layout(self.locale, title, Html(""), [line])
                return HTMLResponse(page, http_status(exc))

        return endpoint

    def viewer(self, handler: Page) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request, session: Session | None) -> Response:
            if not fetch_allowed(request.headers.get("sec-fetch-site")):
                return self.refused(403, N_("web.refused.site"))  # the login link alone may
            if session is None:
                return self.signed_out(request)
            return await handler(request, session)

        return self.guarded(endpoint)

    def decider(self, handler: Page) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request, session: Session | None) -> Response:
            if not fetch_allowed(request.headers.get("sec-fetch-site")):
                return self.refused(403, N_("web.refused.site"))
            if session is None:
                return self.signed_out(request)
            form = await request.form()
            if not csrf_ok(session, form.get("csrf")):
                return self.refused(403, N_("web.refused.form"))
            return await handler(request, session)

        return self.guarded(endpoint)

    def public(
        self, handler: Callable[[Request], Awaitable[Response]]
    ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request, session: Session | None) -> Response:
            return await handler(request)

        return self.guarded(endpoint)

    def logged_in(self, sid: str) -> Response:
        response = RedirectResponse("/", 303)
        response.set_cookie(self.cookie, sid, httponly=True, samesite="strict", path="/")
        return response

    async def login(self, request: Request) -> Response:
        code = request.query_params.get("code", "")
        if not self.guard.code_valid(code):
            return self.refused(403, N_("web.login.used"))
        if self.token is not None:
            return self.page(t(self.locale, "web.login.go"), pages.token_form(code, self.locale))
        sid = self.guard.login(code)
        return self.logged_in(sid) if sid else self.refused(403, N_("web.login.used"))

    async def login_post(self, request: Request) -> Response:
        form = await request.form()
        given = form.get("token")
        if (
            self.token is None
            or not isinstance(given, str)
            or not csrf_ok(Session(self.token, self.guard.now()), given)
        ):
            return self.refused(403, N_("web.login.wrong_token"))
        sid = self.guard.login(str(form.get("code", "")))
        return self.logged_in(sid) if sid else self.refused(403, N_("web.login.used"))

    def waiting(self) -> list[proposals.Proposal]:
        return proposals.list_proposals(self.ws, include_decided=False).proposals

    async def queue(self, request: Request, session: Session) -> Response:
        waiting = await run_in_threadpool(self.waiting)
        at = request.query_params.get("at")
        notices: list[str] = []
        if at is not None and any(p.id == at for p in waiting):
            notices = list(session.notices)  # shown in the card the page returned to
            session.notices.clear()
        owner = self.ws.config.owner
        body = pages.queue_page(waiting, self.locale, session.csrf, owner, at, notices)
        return self.page(t(self.locale, "web.nav.queue"), body, session)

    def decided(self, session: Session, before: list[str], pid: str) -> Response:
        """Back to the review, at the card after the one just decided (no script needed)."""
        pending = {p.id for p in self.waiting()}
        after = pages.next_card(before, pid, pending)
        if after is None:
            return RedirectResponse("/", 303)
        return RedirectResponse(f"/?at={after}#card-{after}", 303)

    def order(self) -> list[str]:
        return [p.id for p in review_order(self.waiting())]

    def approve_one(self, session: Session, pid: str, digest: str | None) -> bool:
        """Approve `pid` as the owner saw it (`digest`), saying what it did in a notice."""
        try:
            shown = proposals.get_proposal(self.ws, pid)
            decided, applied = proposals.approve(
                self.ws, pid, self.by, appliers=APPLIERS, content_hash=digest
            )
        except TrinhoError as exc:
            session.notices.append(self.said(exc))
            return False
        label = effect_words(shown, self.locale)[0]
        what = pages.change_gist(shown, self.locale, self.ws.config.owner)
        key = N_("web.done.approved") if applied.ok else N_("web.done.stale")
        session.notices.append(
            t(self.locale, key, label=label, what=what, message=applied.message, id=decided.id)
        )
        return applied.ok

    async def approve(self, request: Request, session: Session) -> Response:
        pid = request.path_params["pid"]
        digest = (await request.form()).get("hash")
        before = await run_in_threadpool(self.order)
        await run_in_threadpool(
            self.approve_one, session, pid, digest if isinstance(digest, str) else None
        )
        return await run_in_threadpool(self.decided, session, before, pid)

    async def reject(self, request: Request, session: Session) -> Response:
        form = await request.form()
        reason, digest = form.get("reason"), form.get("hash")
        note = reason if isinstance(reason, str) and reason.strip() else None
        pid = request.path_params["pid"]
        before = await run_in_threadpool(self.order)
        try:
            shown = await run_in_threadpool(proposals.get_proposal, self.ws, pid)
            await run_in_threadpool(
                lambda: proposals.reject(
                    self.ws,
                    pid,
                    self.by,
                    note,
                    content_hash=digest if isinstance(digest, str) else None,
                )
            )
            label = effect_words(shown, self.locale)[1]
            what = pages.change_gist(shown, self.locale, self.ws.config.owner)
            session.notices.append(t(self.locale, "web.done.kept", label=label, what=what))
        except TrinhoError as exc:
            session.notices.append(self.said(exc))
        return await run_in_threadpool(self.decided, session, before, pid)

    async def bulk_ask(self, request: Request, session: Session) -> Response:
        eligible = bulk_eligible(await run_in_threadpool(self.waiting))
        body = pages.bulk_page(eligible, self.locale, session.csrf, self.ws.config.owner)
        return self.page(t(self.locale, "web.bulk.title"), body, session)

    def apply_bound(self, session: Session, items: list[str]) -> list[pages.Applied]:
        """Approve exactly the proposals the review step showed (`id:hash` each), never one
        that must be decided on its own, nor one changed since it was shown."""
        done: list[pages.Applied] = []
        for item in items:
            pid, _, digest = item.partition(":")
            try:
                shown = proposals.get_proposal(self.ws, pid)
            except TrinhoError as exc:
                session.notices.append(self.said(exc))
                continue
            if one_at_a_time(shown):
                note = t(self.locale, "web.bulk.refused")
                done.append(pages.Applied(shown, False, note))
                continue
            try:
                _, applied = proposals.approve(
                    self.ws, pid, self.by, appliers=APPLIERS, content_hash=digest
                )
            except TrinhoError as exc:
                done.append(pages.Applied(shown, False, self.said(exc)))
                continue
            done.append(pages.Applied(shown, applied.ok, applied.message))
        return done

    async def bulk(self, request: Request, session: Session) -> Response:
        items = [str(v) for v in (await request.form()).getlist("item")]
        if not items:
            session.notices.append(t(self.locale, "web.bulk.none"))
            return RedirectResponse("/", 303)
        done = await run_in_threadpool(self.apply_bound, session, items)
        rid = secrets.token_urlsafe(12)
        self.receipts[rid] = Receipt(session.csrf, done)
        while len(self.receipts) > MAX_RECEIPTS:
            self.receipts.pop(next(iter(self.receipts)))
        return RedirectResponse(f"/receipts/{rid}", 303)

    def kept(self, request: Request, session: Session) -> tuple[str, Receipt] | None:
        """The receipt the path names, if this session's (another session's is not shown)."""
        rid = request.path_params["rid"]
        kept = self.receipts.get(rid)
        return (rid, kept) if kept is not None and kept.csrf == session.csrf else None

    def can_take_back(self, receipt: Receipt) -> bool:
        """Whether the receipt's short undo is still open: something applied, none of it
        approved longer ago than the take-back window."""
        applied = [a.proposal.id for a in receipt.done if a.ok]
        if not applied or receipt.taken_back is not None:
            return False
        now = self.ws.now()
        for pid in applied:
            decided = proposals.get_proposal(self.ws, pid).decided_at
            if decided is None or now - decided > proposals.TAKE_BACK_WINDOW:
                return False
        return True

    async def receipt(self, request: Request, session: Session) -> Response:
        found = self.kept(request, session)
        if found is None:
            return self.refused(404)
        rid, receipt = found
        offer = await run_in_threadpool(self.can_take_back, receipt)
        minutes = proposals.TAKE_BACK_WINDOW // proposals.MINUTE
        take_back = (
            pages.TakeBack(session.csrf, rid, minutes, receipt.taken_back)
            if offer or receipt.taken_back is not None
            else None
        )
        body = pages.receipt_page(receipt.done, self.locale, self.ws.config.owner, take_back)
        title = N_("web.receipt.undone_title") if receipt.taken_back else N_("web.receipt.title")
        return self.page(t(self.locale, title), body, session)

    def take_back_all(self, receipt: Receipt) -> list[pages.Applied]:
        """Take back each change the receipt's decision applied, saying what each did."""
        out: list[pages.Applied] = []
        for a in receipt.done:
            if not a.ok:
                continue
            try:
                _, result = proposals.take_back(self.ws, a.proposal.id, self.by, takers=TAKERS)
            except TrinhoError as exc:
                out.append(pages.Applied(a.proposal, False, self.said(exc)))
                continue
            out.append(pages.Applied(a.proposal, result.ok, result.message))
        return out

    async def take_back(self, request: Request, session: Session) -> Response:
        found = self.kept(request, session)
        if found is None:
            return self.refused(404)
        rid, receipt = found
        if receipt.taken_back is None:
            receipt.taken_back = await run_in_threadpool(self.take_back_all, receipt)
        return RedirectResponse(f"/receipts/{rid}", 303)

    async def runs(self, request: Request, session: Session) -> Response:
        runs = await run_in_threadpool(
            lambda: [(r, _report(self.ws, r)) for r in _run_ids(self.ws)]
        )
        return self.page(
            t(self.locale, "web.nav.runs"), pages.runs_page(runs, self.locale), session
        )

    async def run(self, request: Request, session: Session) -> Response:
        run_id = _known_run(self.ws, request.path_params["run"])
        if run_id is None:
            return self.refused(404)
        journal = read_journal(self.ws, run_id)
        undoable = (
            journal is not None
            and not journal.undone
            and journal.state in ("applied", "proposed", "done")
            and not later_runs(self.ws, run_id)  # only the latest standing run is undone
        )
        report = _report(self.ws, run_id)
        body = pages.run_page(run_id, report, self.locale, undoable)
        return self.page(pages.run_title(run_id, report, self.locale), body, session)

    async def undo_ask(self, request: Request, session: Session) -> Response:
        run_id = _known_run(self.ws, request.path_params["run"])
        if run_id is None:
            return self.refused(404)
        try:
            plan = render_plan(await run_in_threadpool(preview_undo, self.ws, run_id), self.locale)
        except TrinhoError as exc:
            session.notices.append(self.said(exc))
            return RedirectResponse(f"/runs/{run_id}", 303)
        body = pages.undo_page(run_id, self.locale, session.csrf, plan)
        return self.page(t(self.locale, "web.run.undo"), body, session)

    async def undo(self, request: Request, session: Session) -> Response:
        run_id = _known_run(self.ws, request.path_params["run"])
        if run_id is None:
            return self.refused(404)
        try:
            result = await run_in_threadpool(undo_run, self.ws, run_id)
            session.notices.append(t(self.locale, "condense.undo.done", run=run_id))
            if result.changed_since and result.kept_current is not None:
                session.notices.append(
                    t(self.locale, "condense.undone_changed", kept=result.kept_current)
                )
            if result.plan is not None:
                session.notices.extend(render_plan(result.plan, self.locale, result.kept_current))
        except TrinhoError as exc:
            session.notices.append(self.said(exc))
        return RedirectResponse(f"/runs/{run_id}", 303)

    async def file(self, request: Request, session: Session) -> Response:
        path = request.query_params.get("path", "MEMORY.md")
        try:
            lines = _file_lines(self.ws, path)
        except TrinhoError as exc:
            session.notices.append(self.said(exc))
            return self.page(path, Html(""), session, 404)
        return self.page(path, pages.file_page(path, lines, self.locale), session)

    async def facts(self, request: Request, session: Session) -> Response:
        user = request.query_params.get("user") or self.ws.config.owner
        try:
            listing = list_facts(self.ws, validate_slug(user, "user id"))
        except TrinhoError as exc:
            session.notices.append(self.said(exc))
            return self.page(t(self.locale, "web.nav.facts"), Html(""), session, 400)
        return self.page(
            t(self.locale, "web.nav.facts"), pages.facts_page(listing.facts, self.locale), session
        )

    async def find(self, request: Request, session: Session) -> Response:
        query = request.query_params.get("q", "")
        try:
            hits = await run_in_threadpool(search, self.ws, query, 20) if query.strip() else []
        except TrinhoError as exc:
            session.notices.append(self.said(exc))
            hits = []
        body = pages.search_page(query, hits, self.locale)
        return self.page(t(self.locale, "web.search"), body, session, query=None)

    async def source(self, request: Request, session: Session) -> Response:
        """A change's source opened where it is: a note or MEMORY.md at its line, a
        conversation as rendered turns, a fact in the facts page."""
        ref = request.query_params.get("ref", "")
        try:
            target = await run_in_threadpool(_source_link, self.ws, ref)
        except TrinhoError as exc:
            session.notices.append(self.said(exc))
            return RedirectResponse("/", 303)
        return RedirectResponse(target, 303)

    async def turn(self, request: Request, session: Session) -> Response:
        path = request.query_params.get("path", "")
        try:
            said = await run_in_threadpool(_turns_of, self.ws, path)
        except TrinhoError as exc:
            session.notices.append(self.said(exc))
            return self.page(t(self.locale, "web.place.turn"), Html(""), session, 404)
        title = pages.place_title("turn", path, self.locale)
        return self.page(title, pages.turn_page(said, self.locale), session)


def web_app(ws: Workspace, guard: Guard, host: str, port: int, token: str | None) -> ASGIApp:
    """The review page for `ws`, its logins checked by `guard`, answering as `host`:`port`."""
    r = _Review(ws, guard, token, port)
    viewer, decider = r.viewer, r.decider
    routes = [
        Route("/login", r.public(r.login), methods=["GET"]),
        Route("/login", r.public(r.login_post), methods=["POST"]),
        Route("/", viewer(r.queue), methods=["GET"]),
        Route("/proposals/{pid}/approve", decider(r.approve), methods=["POST"]),
        Route("/proposals/{pid}/reject", decider(r.reject), methods=["POST"]),
        Route("/bulk", viewer(r.bulk_ask), methods=["GET"]),
        Route("/bulk", decider(r.bulk), methods=["POST"]),
        Route("/receipts/{rid}", viewer(r.receipt), methods=["GET"]),
        Route("/receipts/{rid}/take-back", decider(r.take_back), methods=["POST"]),
        Route("/source", viewer(r.source), methods=["GET"]),
        Route("/turn", viewer(r.turn), methods=["GET"]),
        Route("/runs", viewer(r.runs), methods=["GET"]),
        Route("/runs/{run}", viewer(r.run), methods=["GET"]),
        Route("/runs/{run}/undo", viewer(r.undo_ask), methods=["GET"]),
        Route("/runs/{run}/undo", decider(r.undo), methods=["POST"]),
        Route("/file", viewer(r.file), methods=["GET"]),
        Route("/facts", viewer(r.facts), methods=["GET"]),
        Route("/search", viewer(r.find), methods=["GET"]),
    ]
    extra = ws.config.web.allowed_hosts
    return HostCheck(Starlette(routes=routes), allowed_hosts(host, port, extra))


def _run_ids(ws: Workspace) -> list[str]:
    """The runs kept under .trinho/runs, newest first."""
    root = runs_root(ws)
    found = (
        [p.name for p in root.iterdir() if p.is_dir() and RUN_ID_RE.fullmatch(p.name)]
        if (root.is_dir())
        else []
    )
    return sorted(found, reverse=True)


def _known_run(ws: Workspace, run_id: str) -> str | None:
    return run_id if RUN_ID_RE.fullmatch(run_id) and run_dir(ws, run_id).is_dir() else None


def _report(ws: Workspace, run_id: str) -> dict[str, Any] | None:
    path = run_dir(ws, run_id) / REPORT
    with contextlib.suppress(OSError, ValueError):
        data = json.loads(path.read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else None
    return None


def _file_lines(ws: Workspace, path: str) -> list[str]:
    """A file for the page, as a tool call may read it: `.trinho/` (the tokens) is never shown
    in a browser, even to the owner."""
    shown = readable_path(ws, path)
    if not ws.path(path).is_file():
        return []
    return memory_get(ws, shown).text.split("\n")


_CONVERSATION = re.compile(r"conversations/(\d{4}-\d{2}-\d{2})\.jsonl")
_NOTE_TIME = re.compile(r"\d{1,2}:\d{2}")


def _turns_of(ws: Workspace, path: str) -> list[pages.SaidTurn]:
    """A day's conversation as the page shows it; only `conversations/YYYY-MM-DD.jsonl`."""
    found = _CONVERSATION.fullmatch(path)
    if found is None:
        raise TrinhoError.keyed("error.web.not_a_conversation", path=path)
    stored = read_day(ws, parse_day(found.group(1), "conversation day"))
    return [
        pages.SaidTurn(
            s.line, s.turn.role, s.turn.at.astimezone(ws.tz).strftime("%H:%M"), s.turn.text
        )
        for s in stored
    ]


def _source_link(ws: Workspace, ref: str) -> str:
    """Where a source's `path#anchor` opens: a conversation turn rendered (`#T<line>`), a fact
    in the facts page, any other file at the line its anchor names (a line number, or a
    note's `HH:MM`)."""
    path, _, anchor = ref.partition("#")
    if _CONVERSATION.fullmatch(path):
        line = anchor.removeprefix("L") if anchor.removeprefix("L").isdigit() else "1"
        return f"/turn?path={quote(path, safe='/')}#T{line}"
    fact = pages.fact_link(path)
    if fact is not None:
        return fact
    lines = _file_lines(ws, path)
    digits = anchor.removeprefix("L")
    number = int(digits) if digits.isdigit() else None
    if number is None and _NOTE_TIME.fullmatch(anchor):
        number = next(
            (n for n, line in enumerate(lines, 1) if line.lstrip("- ").startswith(anchor)), None
        )
    target = f"/file?path={quote(path, safe='/')}"
    return f"{target}#L{number}" if number else target


def serve(host: str, port: int, app: ASGIApp) -> None:
    """Serve `app` until interrupted."""
    import uvicorn

    uvicorn.run(app, host=host, port=port, log_level="warning")


class WebHttp:
    """The review page inside `trinho serve` (`[web] enabled = true`), stoppable from another
    thread; its login link goes to the log, since the service's stdout is the console channel."""

    def __init__(self, ws: Workspace, host: str, port: int) -> None:
        import uvicorn

        guard = Guard(ws.now)
        app = web_app(ws, guard, host, port, required_token(ws, host))
        self.url = login_url(host, port, guard)
        self.server = uvicorn.Server(
            uvicorn.Config(app, host=host, port=port, log_level="warning", log_config=None)
        )

    def run(self) -> None:
        log.info("%s", self.url)
        self.server.run()

    def stop(self) -> None:
        self.server.should_exit = True


def web_parts(ws: Workspace) -> tuple[WebHttp, ...]:
    """The review page as a part of the service, when `[web] enabled = true`."""
    web = ws.config.web
    if not web.enabled:
        return ()
    return (WebHttp(ws, web.host, web.port),)
