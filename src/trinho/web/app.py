"""`trinho web`: the Starlette app of the review page, and how it is served.

One app for both backends: the page's logic is here and its HTML in `trinho.web.pages`; each
session reads and decides through `trinho.records.protocol.Records`, the file workspace's or,
on a PostgreSQL store of many owners, those of the one owner whose login code opened it.
Deciding goes through the same code as `trinho approve`/`reject` (`decided_by` saying "web"),
undoing a run through `trinho.condense.store.apply.undo_run`. No agent tool reaches this module.
"""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from trinho.boundary import http_status, public_error
from trinho.condense.rules.archive import ORIGIN
from trinho.condense.rules.held import TAKEN_BACK_CLASSES
from trinho.condense.rules.undo import UndoPlan, archive_after, render_plan
from trinho.condense.store.apply import UndoResult, preview_undo, undo_run
from trinho.condense.store.runs import (
    REPORT,
    RUN_ID_RE,
    later_runs,
    read_journal,
    run_dir,
    runs_root,
)
from trinho.config import WebConfig
from trinho.errors import TrinhoError, Unavailable
from trinho.i18n import N_, t
from trinho.memory import store as memory_store
from trinho.pg.logins import site_url
from trinho.proposals import store as proposals
from trinho.proposals.format import Proposal
from trinho.records.protocol import FileRecords, OnFiles, Records
from trinho.review import decide
from trinho.review.appliers import APPLIERS
from trinho.review.bulk import affected_lines, bulk_covered
from trinho.review.render import effect_words
from trinho.review.risk import review_order
from trinho.textnorm import shown_id
from trinho.web import pages
from trinho.web import store as reads
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
from trinho.web.store import Owners, source_link
from trinho.workspace import CONFIG_PATH, Workspace

T = TypeVar("T")

log = logging.getLogger("trinho.web")
RETRY_AFTER = "5"
"""Seconds a page a database restart interrupted asks the browser to wait before trying again."""
MAX_RECEIPTS = 50
"""The decisions' receipts a server keeps for their pages (the newest; in memory)."""


def with_run(p: Proposal) -> str | None:
    """The condensation run whose undo takes back an approval of `p`, when nothing else can:
    a removal, an archive or a rewrite held whole (they wrote no one line of their own)."""
    change = p.change
    if p.kind != "memory" or not p.origin.startswith(ORIGIN):
        return None
    alone = change.get("class") in TAKEN_BACK_CLASSES and change.get("new") is not None
    return None if alone else p.origin.removeprefix(ORIGIN)


def required_token(ws: Workspace, host: str) -> str | None:
    """The token a login needs: none on loopback, the configured one (which must exist) else."""
    return needed_token(ws.config.web, host, ws.root / CONFIG_PATH)


def needed_token(web: WebConfig, host: str, config: Path) -> str | None:
    """`required_token` for the `[web]` table of the config at `config`."""
    if is_loopback(host):
        return None
    if web.token is None:
        raise TrinhoError.keyed("error.web.needs_token", host=host, config=config)
    return web.token


def login_url(host: str, port: int, guard: Guard) -> str:
    return f"{site_url(host, port)}/login?code={guard.code}"


Page = Callable[[Request, Session], Awaitable[Response]]


@dataclass
class Receipt:
    """A decision (one change or many, approved or rejected) as its receipt shows it: whose
    session made it, what it did, and, once taken back, what that did."""

    csrf: str
    done: list[pages.Applied]
    taken_back: list[pages.Applied] | None = None
    rejected: bool = False


class _Review:
    """The pages and decisions of one server: each method is an endpoint or a helper. It
    serves the file workspace `ws`, or, with `owners`, each owner of a database their own."""

    def __init__(
        self,
        ws: Workspace | None,
        guard: Guard,
        token: str | None,
        port: int,
        *,
        locale: str,
        owners: Owners | None = None,
    ) -> None:
        self.ws = ws
        self.owners = owners
        self.files = FileRecords(ws, APPLIERS) if ws is not None else None
        self.guard = guard
        self.token = token
        self.cookie = cookie_name(port)
        self.locale = locale
        self.receipts: dict[str, Receipt] = {}
        self.latest: dict[str, str] = {}
        """Each session's (by its CSRF token) latest single decision's receipt."""
        self.used = N_("web.login.used") if owners is None else N_("web.login.used_owner")
        """What a used or stale login link is told: where a new link comes from."""

    def desk(self, session: Session) -> Records:
        """The session's records: the file workspace's, or its owner's and no one else's."""
        if self.files is not None:
            return self.files
        assert self.owners is not None and session.owner is not None
        return self.owners.records(session.owner)

    def by(self, desk: Records) -> str:
        return f"{desk.user} (web)"

    @property
    def root(self) -> Path | None:
        return self.ws.root if self.ws is not None else None

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
        return public_error(exc, self.root).localized(self.locale)

    def refused(self, status: int, why: str = N_("web.refused.other")) -> Response:
        """A refusal that says why, and what to do about it."""
        body = html("<p>{why}</p>", why=t(self.locale, why))
        return self.page(t(self.locale, "web.refused"), body, status=status)

    def signed_out(self, request: Request) -> Response:
        """No live session: an expired (or forgotten, after a restart) one says so and how to
        sign in again; none at all says where the login link is."""
        had = request.cookies.get(self.cookie) is not None
        if self.owners is not None:  # a new link comes from the operator, not from a restart
            return self.refused(
                401, N_("web.session.expired_owner") if had else N_("web.session.none_owner")
            )
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
                shown = public_error(exc, self.root)
                if not isinstance(exc, TrinhoError):
                    log.warning("web: %s %s failed: %s", request.method, request.url.path, shown)
                if isinstance(
                    exc, Unavailable
                ):  # a retry notice: nothing is wrong with the request
                    title = t(self.locale, "web.unavailable")
                    page = pages.layout(
                        self.locale, title, Html(""), [shown.localized(self.locale)]
                    )
                    return HTMLResponse(
                        page, http_status(exc), headers={"Retry-After": RETRY_AFTER}
                    )
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
        owner = request.query_params.get("owner") if self.owners is not None else None
        if not await run_in_threadpool(self.code_valid, owner, code):
            return self.refused(403, self.used)
        if self.token is not None:
            body = pages.token_form(code, self.locale, owner)
            return self.page(t(self.locale, "web.login.go"), body)
        sid = await run_in_threadpool(self.sign_in, owner, code)
        return self.logged_in(sid) if sid else self.refused(403, self.used)

    async def login_post(self, request: Request) -> Response:
        form = await request.form()
        given = form.get("token")
        if (
            self.token is None
            or not isinstance(given, str)
            or not csrf_ok(Session(self.token, self.guard.now()), given)
        ):
            return self.refused(403, N_("web.login.wrong_token"))
        owner = form.get("owner") if self.owners is not None else None
        code = str(form.get("code", ""))
        sid = await run_in_threadpool(self.sign_in, str(owner or ""), code)
        return self.logged_in(sid) if sid else self.refused(403, self.used)

    def code_valid(self, owner: str | None, code: str) -> bool:
        """The login code is good: this server's own on the files, else one the database
        holds for `owner` (a link without an owner signs nobody in)."""
        if self.owners is None:
            return self.guard.code_valid(code)
        return owner is not None and self.owners.code_valid(owner, code)

    def sign_in(self, owner: str | None, code: str) -> str | None:
        """A new session for the code (used up by it), bound to the code's owner, else None."""
        if self.owners is None:
            return self.guard.login(code)
        if not owner or not self.owners.redeem(owner, code):
            return None
        return self.guard.open(owner)

    async def queue(self, request: Request, session: Session) -> Response:
        desk = self.desk(session)
        waiting = await run_in_threadpool(reads.waiting, desk)
        at = request.query_params.get("at")
        notices: list[str] = []
        if at is not None and any(p.id == at for p in waiting):
            notices = list(session.notices)  # shown in the card the page returned to
            session.notices.clear()
        rid = self.latest.pop(session.csrf, None)  # the decision just made, once
        undo = rid if rid is not None and rid in self.receipts else None
        body = pages.queue_page(waiting, self.locale, session.csrf, desk.user, at, notices, undo)
        return self.page(t(self.locale, "web.nav.queue"), body, session)

    def decided(self, desk: Records, before: list[str], pid: str) -> Response:
        """Back to the review, at the card after the one just decided (no script needed)."""
        pending = {p.id for p in reads.waiting(desk)}
        after = pages.next_card(before, pid, pending)
        if after is None:
            return RedirectResponse("/", 303)
        return RedirectResponse(f"/?at={after}#card-{after}", 303)

    def order(self, desk: Records) -> list[str]:
        return [p.id for p in review_order(reads.waiting(desk))]

    def keep(self, session: Session, done: list[pages.Applied], rejected: bool = False) -> str:
        """A receipt for a decision of this session, under a new id (the newest kept)."""
        rid = secrets.token_urlsafe(12)
        self.receipts[rid] = Receipt(session.csrf, done, rejected=rejected)
        while len(self.receipts) > MAX_RECEIPTS:
            self.receipts.pop(next(iter(self.receipts)))
        return rid

    def approve_one(self, desk: Records, session: Session, pid: str, digest: str | None) -> bool:
        """Approve `pid` as the owner saw it (`digest`), saying what it did in a notice; an
        approval that applied gets a receipt, which can take it back."""
        try:
            shown = desk.get_proposal(pid)
            decided, applied = decide.approve(desk, pid, self.by(desk), content_hash=digest)
        except TrinhoError as exc:
            session.notices.append(self.said(exc))
            return False
        if applied.ok:
            self.latest[session.csrf] = self.keep(
                session, [pages.Applied(shown, True, applied.message)]
            )
        label = effect_words(shown, self.locale)[0]
        what = pages.change_gist(shown, self.locale, desk.user)
        key = N_("web.done.approved") if applied.ok else N_("web.done.stale")
        session.notices.append(
            t(
                self.locale,
                key,
                label=label,
                what=what,
                message=applied.message,
                id=shown_id(decided.id),
            )
        )
        return applied.ok

    async def approve(self, request: Request, session: Session) -> Response:
        desk = self.desk(session)
        pid = request.path_params["pid"]
        digest = (await request.form()).get("hash")
        before = await run_in_threadpool(self.order, desk)
        await run_in_threadpool(
            self.approve_one, desk, session, pid, digest if isinstance(digest, str) else None
        )
        return await run_in_threadpool(self.decided, desk, before, pid)

    async def reject(self, request: Request, session: Session) -> Response:
        desk = self.desk(session)
        form = await request.form()
        reason, digest = form.get("reason"), form.get("hash")
        note = reason if isinstance(reason, str) and reason.strip() else None
        pid = request.path_params["pid"]
        before = await run_in_threadpool(self.order, desk)
        try:
            shown = await run_in_threadpool(desk.get_proposal, pid)
            given = digest if isinstance(digest, str) else None
            await run_in_threadpool(
                partial(desk.reject, pid, self.by(desk), note, content_hash=given)
            )
            kept = [pages.Applied(shown, True, t(self.locale, "web.receipt.kept_one"))]
            self.latest[session.csrf] = self.keep(session, kept, rejected=True)
            label = effect_words(shown, self.locale)[1]
            what = pages.change_gist(shown, self.locale, desk.user)
            session.notices.append(t(self.locale, "web.done.kept", label=label, what=what))
        except TrinhoError as exc:
            session.notices.append(self.said(exc))
        return await run_in_threadpool(self.decided, desk, before, pid)

    async def bulk_ask(self, request: Request, session: Session) -> Response:
        desk = self.desk(session)
        waiting = await run_in_threadpool(reads.waiting, desk)
        covered = bulk_covered(waiting, pages.shown_lines(waiting))
        body = pages.bulk_page(covered, self.locale, session.csrf, desk.user)
        return self.page(t(self.locale, "web.bulk.title"), body, session)

    async def reject_all_ask(self, request: Request, session: Session) -> Response:
        """Rejecting everything asks once more, saying what it does and listing every change
        it keeps out, each bound to what is shown."""
        desk = self.desk(session)
        waiting = review_order(await run_in_threadpool(reads.waiting, desk))
        minutes = proposals.TAKE_BACK_WINDOW // proposals.MINUTE
        body = pages.reject_all_page(waiting, self.locale, session.csrf, desk.user, minutes)
        return self.page(t(self.locale, "web.reject_all.title"), body, session)

    def decide_bound(
        self,
        session: Session,
        items: list[str],
        desk: Records,
        decide: Callable[[Proposal, str, str], pages.Applied],
    ) -> list[pages.Applied]:
        """Decide exactly the proposals a confirmation showed (`id:hash` each) with `decide`,
        never one changed since it was shown (the desk refuses a stale hash); a proposal gone
        since is a notice, a refusal is that proposal's line on the receipt."""
        done: list[pages.Applied] = []
        for item in items:
            pid, _, digest = item.partition(":")
            try:
                shown = desk.get_proposal(pid)
            except TrinhoError as exc:
                session.notices.append(self.said(exc))
                continue
            try:
                done.append(decide(shown, pid, digest))
            except TrinhoError as exc:
                done.append(pages.Applied(shown, False, self.said(exc)))
        return done

    def reject_bound(
        self, desk: Records, session: Session, items: list[str]
    ) -> list[pages.Applied]:
        """Reject exactly the proposals the reject-all confirmation showed."""

        def reject(shown: Proposal, pid: str, digest: str) -> pages.Applied:
            desk.reject(pid, self.by(desk), None, content_hash=digest)
            return pages.Applied(shown, True, t(self.locale, "web.receipt.kept_one"))

        return self.decide_bound(session, items, desk, reject)

    async def reject_all(self, request: Request, session: Session) -> Response:
        items = [str(v) for v in (await request.form()).getlist("item")]
        if not items:
            return RedirectResponse("/", 303)
        done = await run_in_threadpool(self.reject_bound, self.desk(session), session, items)
        return RedirectResponse(f"/receipts/{self.keep(session, done, rejected=True)}", 303)

    def apply_bound(self, desk: Records, session: Session, items: list[str]) -> list[pages.Applied]:
        """Approve exactly the proposals the review step showed, never one that must be
        decided on its own."""

        def approve(shown: Proposal, pid: str, digest: str) -> pages.Applied:
            if not bulk_covered([shown], affected_lines(shown)):
                return pages.Applied(shown, False, t(self.locale, "web.bulk.refused"))
            _, applied = decide.approve(desk, pid, self.by(desk), content_hash=digest)
            return pages.Applied(shown, applied.ok, applied.message)

        return self.decide_bound(session, items, desk, approve)

    async def bulk(self, request: Request, session: Session) -> Response:
        items = [str(v) for v in (await request.form()).getlist("item")]
        if not items:
            session.notices.append(t(self.locale, "web.bulk.none"))
            return RedirectResponse("/", 303)
        done = await run_in_threadpool(self.apply_bound, self.desk(session), session, items)
        return RedirectResponse(f"/receipts/{self.keep(session, done)}", 303)

    def kept(self, request: Request, session: Session) -> tuple[str, Receipt] | None:
        """The receipt the path names, if this session's (another session's is not shown)."""
        rid = request.path_params["rid"]
        kept = self.receipts.get(rid)
        return (rid, kept) if kept is not None and kept.csrf == session.csrf else None

    def can_take_back(self, desk: Records, receipt: Receipt) -> bool:
        """Whether the receipt's short undo is still open: something decided that it takes
        back (not what only its run's undo takes back), none of it decided longer ago than the
        take-back window."""
        applied = [
            a.proposal.id
            for a in receipt.done
            if a.ok and (receipt.rejected or not with_run(a.proposal))
        ]
        if not decide.takes_back(desk) or not applied or receipt.taken_back is not None:
            return False
        now = desk.now()
        for pid in applied:
            decided = desk.get_proposal(pid).decided_at
            if decided is None or now - decided > proposals.TAKE_BACK_WINDOW:
                return False
        return True

    async def receipt(self, request: Request, session: Session) -> Response:
        found = self.kept(request, session)
        if found is None:
            return self.refused(404)
        rid, receipt = found
        desk = self.desk(session)
        offer = await run_in_threadpool(self.can_take_back, desk, receipt)
        minutes = proposals.TAKE_BACK_WINDOW // proposals.MINUTE
        take_back = (
            pages.TakeBack(session.csrf, rid, minutes, receipt.taken_back, receipt.rejected)
            if offer or receipt.taken_back is not None
            else None
        )
        if not decide.takes_back(desk) and any(a.ok for a in receipt.done):
            session.notices.append(t(self.locale, "web.receipt.no_take_back"))
        runs = sorted({r for a in receipt.done if a.ok and (r := with_run(a.proposal))})
        runs = [] if receipt.rejected or receipt.taken_back is not None else runs
        body = pages.receipt_page(
            receipt.done, self.locale, desk.user, take_back, receipt.rejected, runs
        )
        title = (
            N_("web.receipt.undone_title")
            if receipt.taken_back
            else N_("web.receipt.rejected_title")
            if receipt.rejected
            else N_("web.receipt.title")
        )
        return self.page(t(self.locale, title), body, session)

    def take_back_all(self, desk: Records, receipt: Receipt) -> list[pages.Applied]:
        """Take back each change the receipt's decision applied (or put back in the review each
        one it rejected), saying what each did."""
        out: list[pages.Applied] = []
        for a in receipt.done:
            if not a.ok or (not receipt.rejected and with_run(a.proposal)):
                continue
            try:
                if receipt.rejected:
                    decide.reopen(desk, a.proposal.id, self.by(desk))
                    reopened = t(self.locale, "web.receipt.reopened")
                    out.append(pages.Applied(a.proposal, True, reopened))
                    continue
                _, result = decide.take_back(desk, a.proposal.id, self.by(desk))
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
        desk = self.desk(session)
        if receipt.taken_back is None and decide.takes_back(desk):
            receipt.taken_back = await run_in_threadpool(self.take_back_all, desk, receipt)
        return RedirectResponse(f"/receipts/{rid}", 303)

    def no_runs(self, session: Session) -> Response:
        """The runs' pages on a database served without the deployment's config (no working
        copy to read them on)."""
        body = html("<p>{why}</p>", why=t(self.locale, "web.runs.not_here"))
        return self.page(t(self.locale, "web.nav.runs"), body, session)

    def on_runs(self, session: Session) -> OnFiles | None:
        """Where the runs' pages read and undo: the file workspace, or the session's owner's
        working copy (checked in when the page's work ends); None when there is neither."""
        return self.desk(session).on_files()

    async def runs(self, request: Request, session: Session) -> Response:
        on = self.on_runs(session)
        if on is None:
            return self.no_runs(session)
        runs = await run_in_threadpool(on, lambda ws: [(r, _report(ws, r)) for r in _run_ids(ws)])
        return self.page(
            t(self.locale, "web.nav.runs"), pages.runs_page(runs, self.locale), session
        )

    async def run(self, request: Request, session: Session) -> Response:
        on = self.on_runs(session)
        if on is None:
            return self.no_runs(session)
        given = request.path_params["run"]

        def look(ws: Workspace) -> tuple[str, dict[str, Any] | None, bool] | None:
            run_id = _known_run(ws, given)
            if run_id is None:
                return None
            journal = read_journal(ws, run_id)
            undoable = (
                journal is not None
                and not journal.undone
                and journal.state in ("applied", "proposed", "done")
                and not later_runs(ws, run_id)  # only the latest standing run is undone
            )
            return run_id, _report(ws, run_id), undoable

        found = await run_in_threadpool(on, look)
        if found is None:
            return self.refused(404)
        run_id, report, undoable = found
        body = pages.run_page(run_id, report, self.locale, undoable)
        return self.page(pages.run_title(run_id, report, self.locale), body, session)

    async def undo_ask(self, request: Request, session: Session) -> Response:
        on = self.on_runs(session)
        if on is None:
            return self.no_runs(session)
        given = request.path_params["run"]

        def plan_of(ws: Workspace) -> tuple[str, UndoPlan, list[str]] | None:
            run_id = _known_run(ws, given)
            if run_id is None:
                return None
            plan = preview_undo(ws, run_id)
            archive = memory_store.archived_text(ws).split("\n")
            after = archive_after(plan, "\n".join(archive)).split("\n")
            headings = [line for line in Counter(archive) - Counter(after) if line.startswith("#")]
            return run_id, plan, headings

        try:
            found = await run_in_threadpool(on, plan_of)
        except TrinhoError as exc:
            session.notices.append(self.said(exc))
            return RedirectResponse(f"/runs/{given}", 303)
        if found is None:
            return self.refused(404)
        run_id, plan, headings = found
        body = pages.undo_page(
            run_id, self.locale, session.csrf, render_plan(plan, self.locale), headings
        )
        return self.page(t(self.locale, "web.run.undo"), body, session)

    async def undo(self, request: Request, session: Session) -> Response:
        on = self.on_runs(session)
        if on is None:
            return self.no_runs(session)
        given = request.path_params["run"]

        def undo(ws: Workspace) -> tuple[str, UndoResult] | None:
            run_id = _known_run(ws, given)
            return None if run_id is None else (run_id, undo_run(ws, run_id))

        try:
            found = await run_in_threadpool(on, undo)
            if found is None:
                return self.refused(404)
            run_id, result = found
            session.notices.append(t(self.locale, "condense.undo.done", run=run_id))
            if result.changed_since and result.kept_current is not None:
                session.notices.append(
                    t(self.locale, "condense.undone_changed", kept=result.kept_current)
                )
            if result.plan is not None:
                session.notices.extend(render_plan(result.plan, self.locale, result.kept_current))
        except TrinhoError as exc:
            session.notices.append(self.said(exc))
        return RedirectResponse(f"/runs/{given}", 303)

    async def file(self, request: Request, session: Session) -> Response:
        path = request.query_params.get("path", "MEMORY.md")
        try:
            lines = await run_in_threadpool(self.desk(session).file_lines, path)
        except TrinhoError as exc:
            session.notices.append(self.said(exc))
            return self.page(path, Html(""), session, 404)
        return self.page(path, pages.file_page(path, lines, self.locale), session)

    async def facts(self, request: Request, session: Session) -> Response:
        desk = self.desk(session)
        user = request.query_params.get("user") or desk.user
        try:
            listing = await run_in_threadpool(reads.facts, desk, user)
        except TrinhoError as exc:
            session.notices.append(self.said(exc))
            return self.page(t(self.locale, "web.nav.facts"), Html(""), session, 400)
        return self.page(
            t(self.locale, "web.nav.facts"), pages.facts_page(listing, self.locale), session
        )

    async def find(self, request: Request, session: Session) -> Response:
        query = request.query_params.get("q", "")
        desk = self.desk(session)
        try:
            hits = await run_in_threadpool(reads.search, desk, query) if query.strip() else []
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
            target = await run_in_threadpool(source_link, self.desk(session), ref)
        except TrinhoError as exc:
            session.notices.append(self.said(exc))
            return RedirectResponse("/", 303)
        return RedirectResponse(target, 303)

    async def turn(self, request: Request, session: Session) -> Response:
        path = request.query_params.get("path", "")
        try:
            said = await run_in_threadpool(reads.turns, self.desk(session), path)
        except TrinhoError as exc:
            session.notices.append(self.said(exc))
            return self.page(t(self.locale, "web.place.turn"), Html(""), session, 404)
        title = pages.place_title("turn", path, self.locale)
        return self.page(title, pages.turn_page(said, self.locale), session)


def web_app(ws: Workspace, guard: Guard, host: str, port: int, token: str | None) -> ASGIApp:
    """The review page for `ws`, its logins checked by `guard`, answering as `host`:`port`."""
    r = _Review(ws, guard, token, port, locale=ws.locale)
    return _app(r, host, port, ws.config.web.allowed_hosts)


def owners_app(
    owners: Owners, guard: Guard, host: str, port: int, token: str | None, web: WebConfig
) -> ASGIApp:
    """The review page for every owner of a database, each signing in with a code of their
    own into a session of theirs (`guard` keeps the sessions), answering as `host`:`port`."""
    r = _Review(None, guard, token, port, locale=owners.locale, owners=owners)
    return _app(r, host, port, web.allowed_hosts)


def _app(r: _Review, host: str, port: int, extra: tuple[str, ...]) -> ASGIApp:
    viewer, decider = r.viewer, r.decider
    routes = [
        Route("/login", r.public(r.login), methods=["GET"]),
        Route("/login", r.public(r.login_post), methods=["POST"]),
        Route("/", viewer(r.queue), methods=["GET"]),
        Route("/proposals/{pid}/approve", decider(r.approve), methods=["POST"]),
        Route("/proposals/{pid}/reject", decider(r.reject), methods=["POST"]),
        Route("/bulk", viewer(r.bulk_ask), methods=["GET"]),
        Route("/bulk", decider(r.bulk), methods=["POST"]),
        Route("/reject-all", viewer(r.reject_all_ask), methods=["GET"]),
        Route("/reject-all", decider(r.reject_all), methods=["POST"]),
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
