"""`trinho serve`: the channel, the chat agent, the scheduler, the outbox and MCP, together.

Each part runs in a thread of its own and only talks to the others through files (the outbox,
the proposals queue, the transcript), so stopping is simple: on SIGTERM no new work starts,
a job run in progress finishes, chat turns being answered finish (their transcript lines are
fsync'd appends), the channel closes, and the outbox, durable on disk, waits for the next start.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from trinho.boundary import require_extra
from trinho.channels import Channel, MessageHandler, Outbox, channel_from_config
from trinho.config import DEFAULT_STOP_GRACE
from trinho.conversations.agent import ChatSession
from trinho.errors import TrinhoError, in_locale
from trinho.i18n import t
from trinho.logs import configure_logging as configure_logging
from trinho.models import ChatModel, load_model
from trinho.review.service import QueueDecider
from trinho.schedule.jobs import CondenseRun, ScheduledCondensation, WorkspaceJobRunner
from trinho.schedule.plan import DueRun, JobSpec, next_slot
from trinho.schedule.run import JobRunner, run_due
from trinho.serve.signals import StopRequest
from trinho.workspace import Workspace

log = logging.getLogger("trinho.service")


def event(name: str, message: str, level: int = logging.INFO, **fields: Any) -> None:
    log.log(level, message, extra={"fields": {"event": name, **fields}})


class InFlight:
    """Counts chat turns being answered, so a stop can wait for them to finish."""

    def __init__(self, handler: MessageHandler) -> None:
        self.handler = handler
        self.count = 0
        self._cond = threading.Condition()

    def __call__(self, text: str, ref: str | None = None) -> str | None:
        with self._cond:
            self.count += 1
        try:
            return self.handler(text, ref)
        finally:
            with self._cond:
                self.count -= 1
                self._cond.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: self.count == 0, timeout)


class LazyChat:
    """The owner's chat: the model is loaded at the first message, so a service without a
    model still delivers announcements and takes decisions; the owner is told what is wrong."""

    def __init__(self, ws: Workspace, model: ChatModel | None = None) -> None:
        self.ws = ws
        self._model = model
        self._session: ChatSession | None = None
        self._lock = threading.Lock()

    def __call__(self, text: str, ref: str | None = None) -> str | None:
        with self._lock:
            if self._session is None:
                try:
                    model = load_model(self.ws, "chat", model=self._model)
                except Exception as exc:
                    event("chat.no_model", "no chat model", logging.ERROR, error=str(exc))
                    return t(self.ws.locale, "serve.no_model", error=in_locale(exc, self.ws.locale))
                self._session = ChatSession(self.ws, model)
            session = self._session
        event("chat.turn", "chat message", chars=len(text), ref=ref)
        try:
            reply = session(text, ref)
        except Exception as exc:
            event("chat.failed", "chat turn failed", logging.ERROR, error=str(exc))
            return t(self.ws.locale, "serve.chat_failed", error=in_locale(exc, self.ws.locale))
        return reply or t(self.ws.locale, "channel.empty_reply")


@runtime_checkable
class Graceful(Protocol):
    """A channel whose close waits for work in progress at most `grace` seconds."""

    def close_within(self, grace: float) -> None: ...


class Background(Protocol):
    """A part with its own server loop (the MCP HTTP server)."""

    def run(self) -> None: ...

    def stop(self) -> None: ...


@dataclass(frozen=True)
class Timing:
    """How long loops sleep at most: the clock may jump (a suspend), so they look again; and
    `grace`, how long a stop waits for the chat turn and the job run in progress."""

    scheduler_poll: float = 60.0
    outbox_poll: float = 30.0
    grace: float = DEFAULT_STOP_GRACE
    channel_retry_cap: float = 300.0


def timing_from_config(ws: Workspace) -> Timing:
    """The default timing with `[service] stop_grace` from the workspace config."""
    return Timing(grace=ws.config.service.stop_grace)


class Service:
    """The running parts. `start()`, then `stop()` (from a signal handler's thread or a test)."""

    def __init__(
        self,
        ws: Workspace,
        *,
        channel: Channel,
        jobs: tuple[JobSpec, ...],
        runner: JobRunner,
        chat: InFlight | None = None,
        background: tuple[Background, ...] = (),
        timing: Timing = Timing(),
    ) -> None:
        self.ws = ws
        self.channel = channel
        self.jobs = jobs
        self.runner = runner
        self.chat = chat
        self.background = background
        self.timing = timing
        self.outbox = Outbox(ws)
        self.stopping = threading.Event()
        self._wake_outbox = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        event(
            "serve.start",
            "service starting",
            workspace=str(self.ws.root),
            channel=self.channel.name,
            jobs=[f"{j.name} ({j.schedule.describe()})" for j in self.jobs],
        )
        self._spawn("trinho-scheduler", self._scheduler_loop)
        self._spawn("trinho-outbox", self._outbox_loop)
        for part in self.background:
            self._spawn(f"trinho-{type(part).__name__}", part.run)
        start = getattr(self.channel, "start", None)
        if callable(start):
            self._spawn("trinho-channel", lambda: self._start_channel(start))

    def _start_channel(self, start: Callable[[], None]) -> None:
        """Start polling; while Telegram is unreachable (a boot without network), retry with
        backoff instead of failing: announcements wait in the outbox meanwhile."""
        attempt = 0
        while not self.stopping.is_set():
            try:
                start()
            except Exception as exc:
                attempt += 1
                delay = min(self.timing.channel_retry_cap, 2.0**attempt)
                event(
                    "channel.unreachable",
                    "channel did not start",
                    logging.WARNING,
                    channel=self.channel.name,
                    error=str(exc),
                    retry_in=delay,
                )
                self.stopping.wait(delay)
                continue
            event("channel.polling", "channel polling", channel=self.channel.name)
            return

    def _spawn(self, name: str, target: Callable[[], None]) -> None:
        thread = threading.Thread(target=self._guarded(name, target), name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _guarded(self, name: str, target: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                target()
            except Exception:
                log.exception(
                    "part crashed", extra={"fields": {"event": "part.crashed", "part": name}}
                )

        return run

    def _scheduler_loop(self) -> None:
        while not self.stopping.is_set():
            try:
                result = run_due(self.ws, self.jobs, self.runner, should_stop=self.stopping.is_set)
                if result.records:
                    self._wake_outbox.set()
            except Exception as exc:
                event("scheduler.failed", "scheduler pass failed", logging.ERROR, error=str(exc))
            self.stopping.wait(self._until(next_slot(self.jobs, self.ws.now()), "scheduler"))

    def _outbox_loop(self) -> None:
        while not self.stopping.is_set():
            wait = self.timing.outbox_poll
            try:
                report = self.outbox.deliver(self.channel)
                for nid in report.sent:
                    event("outbox.sent", "announcement sent", id=nid)
                for nid, error in report.failed:
                    event("outbox.failed", "send failed", logging.WARNING, id=nid, error=error)
                wait = self._until(self.outbox.next_due(), "outbox")
            except Exception as exc:
                event("outbox.error", "outbox pass failed", logging.ERROR, error=str(exc))
            self._wake_outbox.wait(wait)
            self._wake_outbox.clear()

    def _until(self, moment: datetime | None, loop: str) -> float:
        cap = self.timing.scheduler_poll if loop == "scheduler" else self.timing.outbox_poll
        if moment is None:
            return cap
        return min(cap, max(0.05, (moment - self.ws.now()).total_seconds()))

    def stop(self) -> None:
        """Stop taking work; let a run and the chat turn in progress finish within the grace;
        close the channel. Whatever is left (queued messages, unsent announcements) is on disk
        for the next start. Never raises: a stop always ends with `serve.stopped`."""
        if self.stopping.is_set():
            return
        event("serve.stopping", "service stopping")
        self.stopping.set()
        self._wake_outbox.set()
        deadline = time.monotonic() + self.timing.grace
        for part in self.background:
            part.stop()
        try:
            if isinstance(self.channel, Graceful):
                self.channel.close_within(self.timing.grace)
            else:
                self.channel.close()
        except Exception as exc:
            event("serve.close_failed", "channel did not close", logging.WARNING, error=str(exc))
        if self.chat is not None and not self.chat.wait_idle(deadline - time.monotonic()):
            event("serve.chat_cut", "chat turns still running at stop", logging.WARNING)
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        try:
            left = [entry.notification.id for entry in self.outbox.pending()]
        except Exception as exc:
            left = []
            event("outbox.error", "outbox unreadable at stop", logging.ERROR, error=str(exc))
        event("serve.stopped", "service stopped", pending_announcements=left)

    @contextmanager
    def running(self) -> Iterator[Service]:
        self.start()
        try:
            yield self
        finally:
            self.stop()


class Runs(Protocol):
    """A service `serve_forever` runs: this one, or the bot of many owners (`trinho.pg`)."""

    def start(self) -> None: ...

    def stop(self) -> None: ...


def serve_forever(service: Runs, stop: StopRequest | None = None) -> None:
    """Run until SIGTERM or SIGINT, then stop cleanly. `stop`, installed earlier by the caller,
    may already be set: a stop asked for during start-up stops before starting anything."""
    stop = stop or StopRequest().install()
    try:
        if not stop.event.is_set():
            service.start()
        while not stop.event.wait(3600):
            pass
        event("serve.signal", "signal received", signal=stop.signal)
    finally:
        service.stop()
        stop.restore()


class McpHttp:
    """The MCP HTTP server (`[mcp] http = true`), stoppable from another thread."""

    def __init__(self, ws: Workspace, host: str, port: int) -> None:
        require_extra("mcp", "[mcp] http = true")
        import uvicorn

        from trinho.mcp import server as mcp_server
        from trinho.tools.service import Actor

        token = ws.config.mcp.token
        if token is None:
            raise TrinhoError.keyed("error.mcp.serve_no_token")
        app = mcp_server.http_app(ws, Actor("chat"), token, host, port)
        self.server = uvicorn.Server(
            uvicorn.Config(app, host=host, port=port, log_level="warning", log_config=None)
        )
        self.url = f"http://{host}:{port}{mcp_server.HTTP_PATH}"

    def run(self) -> None:
        event("mcp.start", "MCP HTTP server", url=self.url)
        self.server.run()

    def stop(self) -> None:
        self.server.should_exit = True


def web_parts(ws: Workspace) -> tuple[Background, ...]:
    """The review page when `[web] enabled = true`; its packages (the `web` extra) are
    imported only then, so a service without it runs on an install without them."""
    if not ws.config.web.enabled:
        return ()
    require_extra("web", "[web] enabled = true")
    from trinho.web.app import web_parts as review_parts

    return review_parts(ws)


def mcp_parts(ws: Workspace) -> tuple[Background, ...]:
    """The MCP HTTP server when `[mcp] http = true`, and the review page (`[web]`)."""
    mcp = ws.config.mcp
    if not mcp.http:
        return web_parts(ws)
    return (McpHttp(ws, mcp.host, mcp.port), *web_parts(ws))


def build_service(
    ws: Workspace,
    *,
    env: Mapping[str, str] | None = None,
    model: ChatModel | None = None,
    condense: CondenseRun | None = None,
    timing: Timing | None = None,
) -> Service:
    """The service as the config describes it. `model` and `timing` replace the configured
    ones (tests)."""
    jobs = ws.config.jobs
    timing = timing_from_config(ws) if timing is None else timing
    chat = InFlight(LazyChat(ws, model))
    channel = channel_from_config(
        ws, decider=QueueDecider(ws), on_message=chat, env=env, stream=sys.stdout
    )

    def model_for(run: DueRun) -> ChatModel:
        return load_model(ws, "job", run=run.run_id, model=model)

    runner = WorkspaceJobRunner(ws, model_for, condense or ScheduledCondensation(model, channel))
    return Service(
        ws,
        channel=channel,
        jobs=jobs,
        runner=runner,
        chat=chat,
        background=mcp_parts(ws),
        timing=timing,
    )
