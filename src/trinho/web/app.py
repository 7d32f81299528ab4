"""`trinho web`: the Starlette app of the review page, and how it is served.

Deciding goes through `trinho.proposals.store.approve`/`reject` with the built-in appliers, undoing
through `trinho.condense.store.apply.undo_run`: the same code as the CLI, `decided_by` saying "web".
No agent tool reaches this module.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

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
    origin_of,
    read_journal,
    run_dir,
    runs_root,
    validate_run_id,
)
from trinho.errors import TrinhoError
from trinho.facts.store import list_facts
from trinho.i18n import N_, t
from trinho.proposals import store as proposals
from trinho.review.appliers import APPLIERS
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
from trinho.web.html import Html
from trinho.workspace import CONFIG_PATH, Workspace, validate_slug

log = logging.getLogger("trinho.web")


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


class _Review:
    """The pages and decisions of one server: each method is an endpoint or a helper."""

    def __init__(self, ws: Workspace, guard: Guard, token: str | None, port: int) -> None:
        self.ws = ws
        self.guard = guard
        self.token = token
        self.cookie = cookie_name(port)
        self.locale = ws.locale
        self.by = f"{ws.config.owner} (web)"

    def page(
        self, title: str, body: Html, session: Session | None = None, status: int = 200
    ) -> Response:
        notices = list(session.notices) if session else []
        if session:
            session.notices.clear()
        return HTMLResponse(pages.layout(self.locale, title, body, notices), status)

    def said(self, exc: BaseException) -> str:
        """A failure as the one line a notice shows: keyed, in the owner's locale, its paths
        relative to the workspace."""
        return public_error(exc, self.ws.root).localized(self.locale)

    def refused(self, status: int) -> Response:
        return self.page(t(self.locale, "web.refused"), Html(""), status=status)

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
                return self.refused(403)  # another site or port: the login link alone may
            if session is None:
                return self.refused(401)
            return await handler(request, session)

        return self.guarded(endpoint)

    def decider(self, handler: Page) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request, session: Session | None) -> Response:
            if not fetch_allowed(request.headers.get("sec-fetch-site")):
                return self.refused(403)
            if session is None:
                return self.refused(401)
            form = await request.form()
            if not csrf_ok(session, form.get("csrf")):
                return self.refused(403)
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
            return self.refused(403)
        if self.token is not None:
            return self.page(t(self.locale, "web.login.go"), pages.token_form(code, self.locale))
        sid = self.guard.login(code)
        return self.logged_in(sid) if sid else self.refused(403)

    async def login_post(self, request: Request) -> Response:
        form = await request.form()
        given = form.get("token")
        if (
            self.token is None
            or not isinstance(given, str)
            or not csrf_ok(Session(self.token, self.guard.now()), given)
        ):
            return self.refused(403)
        sid = self.guard.login(str(form.get("code", "")))
        return self.logged_in(sid) if sid else self.refused(403)

    async def queue(self, request: Request, session: Session) -> Response:
        waiting = proposals.list_proposals(self.ws, include_decided=False).proposals
        groups: dict[str, list[proposals.Proposal]] = {}
        for p in waiting:
            groups.setdefault(p.origin, []).append(p)
        shown = [pages.Group(origin, _run_of(origin), items) for origin, items in groups.items()]
        return self.page(
            t(self.locale, "web.nav.queue"),
            pages.queue_page(shown, self.locale, session.csrf),
            session,
        )

    def approve_one(self, session: Session, pid: str) -> None:
        try:
            decided, applied = proposals.approve(self.ws, pid, self.by, appliers=APPLIERS)
        except TrinhoError as exc:
            session.notices.append(self.said(exc))
            return
        key = N_("proposal.approved") if applied.ok else N_("proposal.stale")
        session.notices.append(t(self.locale, key, id=decided.id, message=applied.message))

    async def approve(self, request: Request, session: Session) -> Response:
        await run_in_threadpool(self.approve_one, session, request.path_params["pid"])
        return RedirectResponse("/", 303)

    async def reject(self, request: Request, session: Session) -> Response:
        reason = (await request.form()).get("reason")
        note = reason if isinstance(reason, str) and reason.strip() else None
        pid = request.path_params["pid"]
        try:
            decided = await run_in_threadpool(proposals.reject, self.ws, pid, self.by, note)
            session.notices.append(t(self.locale, "proposal.rejected", id=decided.id))
        except TrinhoError as exc:
            session.notices.append(self.said(exc))
        return RedirectResponse("/", 303)

    async def approve_all(self, request: Request, session: Session) -> Response:
        try:
            origin = origin_of(validate_run_id(request.path_params["run"]))
        except TrinhoError as exc:
            session.notices.append(self.said(exc))
            return RedirectResponse("/", 303)
        for p in proposals.list_proposals(self.ws, include_decided=False).proposals:
            if p.origin == origin:
                await run_in_threadpool(self.approve_one, session, p.id)
        return RedirectResponse("/", 303)

    async def runs(self, request: Request, session: Session) -> Response:
        return self.page(
            t(self.locale, "web.nav.runs"), pages.runs_page(_run_ids(self.ws), self.locale), session
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
        body = pages.run_page(run_id, _report(self.ws, run_id), self.locale, undoable)
        return self.page(t(self.locale, "web.queue.run", run=run_id), body, session)

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
        return self.page(
            t(self.locale, "web.search"), pages.search_page(query, hits, self.locale), session
        )


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
        Route("/runs", viewer(r.runs), methods=["GET"]),
        Route("/runs/{run}", viewer(r.run), methods=["GET"]),
        Route("/runs/{run}/approve-all", decider(r.approve_all), methods=["POST"]),
        Route("/runs/{run}/undo", viewer(r.undo_ask), methods=["GET"]),
        Route("/runs/{run}/undo", decider(r.undo), methods=["POST"]),
        Route("/file", viewer(r.file), methods=["GET"]),
        Route("/facts", viewer(r.facts), methods=["GET"]),
        Route("/search", viewer(r.find), methods=["GET"]),
    ]
    extra = ws.config.web.allowed_hosts
    return HostCheck(Starlette(routes=routes), allowed_hosts(host, port, extra))


def _run_of(origin: str) -> str | None:
    run = origin.removeprefix("condense:")
    return run if run != origin and RUN_ID_RE.fullmatch(run) else None


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
