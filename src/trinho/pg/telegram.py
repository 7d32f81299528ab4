"""One Telegram bot for the owners of a database: each known Telegram user id is one owner.

The bot polls once for everyone (`TelegramChannel`'s own loop). Each update is looked up by
its sender in the registry (`owners.telegram_user_id`) before anything of any owner is read:
an update from a user no owner has is a stranger's and is refused as the one-owner channel
refuses it (a message ignored and logged, a button press answered "not yours"); an update
from an owner's user goes to that owner's channel, a view of the bot (`for_user`) holding that
owner's outbox, decider, chat and inbox and nothing of anyone else's. So a button, whatever
proposal id and hash it names, is looked for among the pressing user's owner's announcements
and decided on that owner's proposals only, and a reply goes to that user's chat.

Durability is the file channel's, split by owner: a fetched batch is in each owner's inbox
(`PgInbox`, one transaction per owner) before the bot's offset moves past it (`telegram_bots`,
in the registry), so a crash between the two fetches the batch again and the inbox keeps each
update once. Up to `TURNS` owners are answered at once, each owner's messages one at a time,
oldest first, so no owner waits behind another's turn.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import itertools
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar

from trinho.channels.inbox import InboxItem, InboxState, MemoryInbox, next_item
from trinho.channels.settings import TelegramSettings
from trinho.channels.telegram import TelegramChannel
from trinho.config import Config
from trinho.errors import TrinhoError
from trinho.models import ChatModel
from trinho.pg.chat import OwnerChat
from trinho.pg.connect import Database
from trinho.pg.inbox import PgInbox
from trinho.pg.locks import session_lock
from trinho.pg.outbox import PgOutbox
from trinho.pg.owners import owner_zone, telegram_owner, telegram_users
from trinho.pg.store import PgRecords
from trinho.pg.workcopy import run_on_copy
from trinho.review.service import QueueDecider
from trinho.workspace import Workspace

if TYPE_CHECKING:
    from telegram import Update

    from trinho.records.protocol import OnFiles

log = logging.getLogger("trinho.pg.telegram")

Clock = Callable[[], datetime]
T = TypeVar("T")
TURNS = 4
"""Turns answered at once, each for a different owner."""


def bot_id(token: str) -> int:
    """The bot's own id, the number a Bot API token starts with (`123456:ABC...`)."""
    head, colon, _ = token.partition(":")
    if not colon or not head.isdigit():
        raise TrinhoError.keyed("error.telegram.bad_token")
    return int(head)


class BotOffset(MemoryInbox):
    """Where the bot's polling stands, in the registry: the inbox of the bot itself, which
    holds no message (each owner's are in their own inbox), only the next offset."""

    def __init__(self, db: Database, bot: int, clock: Clock) -> None:
        super().__init__(clock)
        self.db = db
        self.bot = bot

    def hold(self) -> contextlib.AbstractContextManager[bool]:
        """Whether this process may poll: one process per bot (Telegram answers a second
        poller 409), a session lock released when its connection ends."""
        return session_lock(self.db, "telegram-bot", str(self.bot), wait=False)

    def state(self) -> InboxState:
        with self.db.tx() as conn:
            row = conn.execute(
                "SELECT next_offset FROM telegram_bots WHERE bot_id = %s", (self.bot,)
            ).fetchone()
        return InboxState((), row[0] if row else None)

    def add(self, updates: Sequence[tuple[int, str | None]]) -> None:
        """Move the offset past the batch (never back), once every owner's part of it is in
        their inbox."""
        if not updates:
            return
        offset = max(uid for uid, _ in updates) + 1
        with self.db.tx() as conn:
            conn.execute(
                "INSERT INTO telegram_bots (bot_id, next_offset) VALUES (%s, %s)"
                " ON CONFLICT (bot_id) DO UPDATE"
                " SET next_offset = greatest(telegram_bots.next_offset, excluded.next_offset)",
                (self.bot, offset),
            )

    def compact(self) -> None:
        """Nothing to compact: the owners' inboxes compact themselves."""


@dataclass(frozen=True)
class OwnerLine:
    """One owner's side of the bot: their user, their channel (a view of the bot) and their
    outbox."""

    owner: str
    user_id: int
    channel: TelegramChannel
    outbox: PgOutbox


class OwnersBot(TelegramChannel):
    """The bot of many owners: `start()` polls and answers, `deliver()` sends what waits in
    each owner's outbox to that owner's chat, `close_within()` stops."""

    def __init__(
        self,
        settings: TelegramSettings,
        db: Database,
        *,
        config: Config,
        config_text: str | None,
        clock: Clock,
        locale: str,
        model: ChatModel | None = None,
        timeout: float = 30.0,
        turns: int = TURNS,
    ) -> None:
        super().__init__(
            settings,
            locale=locale,
            inbox=BotOffset(db, bot_id(settings.token), clock),
            timeout=timeout,
        )
        self.db = db
        self.config = config
        self.config_text = config_text
        self.clock = clock
        self.model = model
        self._lines: dict[tuple[str, int], OwnerLine] = {}
        self._lines_lock = threading.Lock()
        self._open: dict[str, tuple[int, int]] = {}
        """Owners whose inbox may hold a message to answer: their user, and the mark of the
        latest opening (so the dispatcher never forgets an owner opened while it looked)."""
        self._marks = itertools.count()
        self._busy: set[str] = set()
        """Owners whose turn is being answered now."""
        self._open_lock = threading.Lock()
        self.turns = turns

    # -- owners ------------------------------------------------------------------------------

    def _on_copy(self, owner: str) -> OnFiles:
        def run(job: Callable[[Workspace], T]) -> T:
            return run_on_copy(self.db, owner, self.config, self.config_text, job, clock=self.clock)

        return run

    def line(self, owner: str, user_id: int) -> OwnerLine:
        """The owner's side of the bot, made at its first use and kept."""
        with self._lines_lock:
            found = self._lines.get((owner, user_id))
            if found is not None:
                return found
            zone = owner_zone(self.db, owner) or "UTC"
            records = PgRecords(
                self.db,
                owner,
                clock=self.clock,
                timezone=zone,
                user=self.config.owner,
                locale=self.locale,
                files=self._on_copy(owner),  # a decision taken back, on the working copy
            )
            outbox = PgOutbox(self.db, owner, clock=self.clock, timezone=zone, locale=self.locale)
            chat = OwnerChat(
                self.db,
                owner,
                config=self.config,
                config_text=self.config_text,
                clock=self.clock,
                locale=self.locale,
                model=self.model,
            )
            channel = self.for_user(
                user_id,
                lookup=outbox,
                decider=QueueDecider(records),
                on_message=chat,
                inbox=PgInbox(self.db, owner, clock=self.clock),
            )
            found = OwnerLine(owner, user_id, channel, outbox)
            self._lines[(owner, user_id)] = found
            return found

    def _line_of(self, update: Update) -> OwnerLine | None:
        """The sender's owner's side, or None for a stranger (or an update with no sender)."""
        user = update.effective_user
        if user is None:
            return None
        owner = telegram_owner(self.db, user.id)
        return None if owner is None else self.line(owner, user.id)

    def lines(self) -> Iterator[OwnerLine]:
        """Every owner who has a Telegram user, their side of the bot."""
        for owner, user_id in telegram_users(self.db).items():
            yield self.line(owner, user_id)

    # -- incoming ----------------------------------------------------------------------------

    def _accept(self, updates: tuple[Update, ...]) -> None:
        """Record the batch, again and again while the database cannot be reached (never
        past it: the next poll would confirm it to Telegram, which then forgets it)."""
        failures = 0
        while True:
            try:
                self._record(updates)
                return
            except Exception:
                failures += 1
                log.exception("telegram: recording a batch failed; retried")
                if self._halt.wait(min(30.0, 0.25 * 2.0 ** min(failures, 7))):
                    raise

    def _record(self, updates: tuple[Update, ...]) -> None:
        """Each owner's messages into their inbox, then the offset past the batch; then the
        button presses, each to its sender's owner's side (a stranger's to the bot, which
        obeys no one)."""
        texts: dict[str, tuple[OwnerLine, list[tuple[int, str | None]]]] = {}
        presses: list[tuple[TelegramChannel, Update]] = []
        for update in updates:
            line = self._line_of(update)
            if update.callback_query is not None:
                presses.append((self if line is None else line.channel, update))
                continue
            if line is None:
                user = update.effective_user
                log.warning(
                    "telegram: ignored an update from user %s, no owner's", user and user.id
                )
                continue
            text = line.channel._owner_text(update)
            if text is not None:
                texts.setdefault(line.owner, (line, []))[1].append((update.update_id, text))
        for line, items in texts.values():
            line.channel.inbox.add(items)
        self.inbox.add([(update.update_id, None) for update in updates])
        self._opened({owner: line.user_id for owner, (line, _) in texts.items()})
        loop = self._loop
        if loop is None:
            return
        for channel, update in presses:
            asyncio.run_coroutine_threadsafe(channel._on_callback(update), loop)

    def _opened(self, owners: dict[str, int]) -> None:
        """These owners' inboxes may hold a message now: each is marked anew, and the
        dispatcher woken."""
        with self._open_lock:
            self._open.update({owner: (user, next(self._marks)) for owner, user in owners.items()})
        self._wake.set()

    def _work(self) -> None:
        """Answer the owners' inboxes until the bot closes: up to `turns` owners at once, each
        owner's messages one at a time, oldest first, strictly in order."""
        try:
            self._opened({line.owner: line.user_id for line in self.lines()})
        except Exception:
            log.exception("telegram: reading the owners failed")
        with concurrent.futures.ThreadPoolExecutor(self.turns, "trinho-turn") as pool:
            while not self._halt.is_set():
                due = self._dispatch(pool)
                wait = 30.0 if due is None else (due - self.clock()).total_seconds()
                self._wake.wait(min(30.0, max(0.05, wait)))
                self._wake.clear()

    def _dispatch(self, pool: concurrent.futures.Executor) -> datetime | None:
        """Start a turn for each owner with a message due and none in progress (while a
        worker is free); forget an owner with nothing left. When the next message is due."""
        with self._open_lock:
            owners = sorted(self._open.items())
        soonest: datetime | None = None
        for owner, (user_id, mark) in owners:
            with self._open_lock:
                if owner in self._busy or len(self._busy) >= self.turns:
                    continue
            channel = self.line(owner, user_id).channel
            try:
                item, due = next_item(channel.inbox.state().items, self.clock())
            except Exception:
                log.exception("telegram: reading %s's inbox failed", owner)
                continue
            with self._open_lock:
                if item is not None:
                    self._busy.add(owner)
                    pool.submit(self._serve, owner, channel, item)
                elif due is None:
                    if self._open.get(owner) == (user_id, mark):
                        del self._open[owner]
                elif soonest is None or due < soonest:
                    soonest = due
        return soonest

    def _serve(self, owner: str, channel: TelegramChannel, item: InboxItem) -> None:
        """One message of one owner answered; then the dispatcher looks again."""
        try:
            channel._serve_item(item)
        except Exception:
            log.exception("telegram: answering update %s of %s failed", item.update_id, owner)
            self._halt.wait(1.0)
        finally:
            with self._open_lock:
                self._busy.discard(owner)
            self._wake.set()

    # -- outgoing ----------------------------------------------------------------------------

    def deliver(self) -> Delivered:
        """Send what is due in every owner's outbox, each to that owner's chat; an owner whose
        outbox fails is logged and the others are still delivered."""
        sent: list[str] = []
        failed: list[tuple[str, str]] = []
        for line in self.lines():
            try:
                report = line.outbox.deliver(line.channel)
            except Exception as exc:
                log.exception("telegram: delivering %s's outbox failed", line.owner)
                failed.append((line.owner, str(exc)))
                continue
            sent.extend(f"{line.owner}:{nid}" for nid in report.sent)
            failed.extend((f"{line.owner}:{nid}", error) for nid, error in report.failed)
        return Delivered(tuple(sent), tuple(failed))

    def pending(self) -> list[str]:
        """What waits in the outboxes this bot delivers (`OWNER:NOTIFICATION`), read from the
        database: made without a view of the bot, so it may be asked after the bot closed."""
        left: list[str] = []
        for owner in telegram_users(self.db):
            zone = owner_zone(self.db, owner) or "UTC"
            outbox = PgOutbox(self.db, owner, clock=self.clock, timezone=zone, locale=self.locale)
            left.extend(f"{owner}:{entry.notification.id}" for entry in outbox.pending())
        return left


@dataclass(frozen=True)
class Delivered:
    """What one delivery pass sent (`OWNER:NOTIFICATION`) and what failed, with why."""

    sent: tuple[str, ...]
    failed: tuple[tuple[str, str], ...]


class OwnersService:
    """`trinho serve` on a database: the bot of many owners polling and answering, and each
    owner's outbox delivered to their chat every `outbox_poll` seconds. The jobs are the
    queue's (`trinho worker`), not this process's. On a stop no new work starts, the turn in
    progress finishes within `grace`, and what is left waits in the database."""

    def __init__(self, bot: OwnersBot, *, outbox_poll: float = 30.0, grace: float = 30.0) -> None:
        self.bot = bot
        self.outbox_poll = outbox_poll
        self.grace = grace
        self.stopping = threading.Event()
        self.wake = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        log.info("service starting", extra={"fields": {"event": "serve.start", "owners": True}})
        for name, target in (("bot", self._poll), ("outbox", self._deliver)):
            thread = threading.Thread(target=target, name=f"trinho-{name}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def _poll(self) -> None:
        """Start polling; while Telegram is unreachable, retry with backoff."""
        attempt = 0
        while not self.stopping.is_set():
            try:
                self.bot.start()
            except Exception as exc:
                attempt += 1
                delay = min(300.0, 2.0**attempt)
                log.warning(
                    "channel did not start",
                    extra={"fields": {"event": "channel.unreachable", "error": str(exc)}},
                )
                self.stopping.wait(delay)
                continue
            return

    def _deliver(self) -> None:
        while not self.stopping.is_set():
            try:
                done = self.bot.deliver()
                for nid in done.sent:
                    fields = {"event": "outbox.sent", "id": nid}
                    log.info("announcement sent", extra={"fields": fields})
                for nid, error in done.failed:
                    log.warning(
                        "send failed",
                        extra={"fields": {"event": "outbox.failed", "id": nid, "error": error}},
                    )
            except Exception as exc:
                log.error(
                    "outbox pass failed",
                    extra={"fields": {"event": "outbox.error", "error": str(exc)}},
                )
            self.wake.wait(self.outbox_poll)
            self.wake.clear()

    def stop(self) -> None:
        """Stop polling and delivering; never raises: a stop always ends with `serve.stopped`,
        which names the announcements left for the next start, as the one-owner service's."""
        if self.stopping.is_set():
            return
        log.info("service stopping", extra={"fields": {"event": "serve.stopping"}})
        self.stopping.set()
        self.wake.set()
        try:
            self.bot.close_within(self.grace)
        except Exception as exc:
            log.warning("channel did not close: %s", exc)
        for thread in self._threads:
            thread.join(self.grace)
        try:
            left = self.bot.pending()
        except Exception as exc:
            left = []
            log.error(
                "outbox unreadable at stop",
                extra={"fields": {"event": "outbox.error", "error": str(exc)}},
            )
        fields = {"event": "serve.stopped", "pending_announcements": left}
        log.info("service stopped", extra={"fields": fields})

    @contextlib.contextmanager
    def running(self) -> Iterator[OwnersService]:
        self.start()
        try:
            yield self
        finally:
            self.stop()
