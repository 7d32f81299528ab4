"""The Telegram channel (python-telegram-bot v22): announcements with buttons, owner-only.

PTB is asynchronous; this channel runs it on an event loop in a thread of its own, so the
rest of trinho calls `send` like any other channel. `start()` also polls for updates:
button presses (decided through the injected `Decider`) and the owner's text messages
(answered by the injected `MessageHandler`). Only the owner's user id, in the owner's private
chat, is obeyed; everything else is refused and logged, and every button press is answered.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import threading
from collections.abc import Coroutine
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, TypeVar

from trinho.channels import callbacks
from trinho.channels.base import (
    ChannelError,
    Decider,
    DecisionOutcome,
    MessageHandler,
    Notification,
    NotificationLookup,
    SentReceipt,
)
from trinho.channels.callbacks import CallbackAction
from trinho.channels.inbox import InboxItem, MemoryInbox, next_item
from trinho.channels.render import item_text, split_text, summary_text
from trinho.channels.settings import TelegramSettings
from trinho.errors import TrinhoError
from trinho.i18n import N_, t
from trinho.textnorm import printable

if TYPE_CHECKING:
    from telegram import (
        CallbackQuery,
        InlineKeyboardButton,
        InlineKeyboardMarkup,
        Message,
        Update,
    )
    from telegram.ext import Application

log = logging.getLogger("trinho.channels.telegram")

T = TypeVar("T")

CLOSE_TIMEOUT = 5.0
"""Seconds a stop spends saying goodbye to Telegram once the work in progress is done or cut:
the stop grace is for work, and the whole stop must end before the service manager kills it."""


class TelegramChannel:
    """Sends notifications to the owner's private chat and handles their answers."""

    def __init__(
        self,
        settings: TelegramSettings,
        *,
        locale: str = "en",
        lookup: NotificationLookup | None = None,
        decider: Decider | None = None,
        on_message: MessageHandler | None = None,
        inbox: MemoryInbox | None = None,
        timeout: float = 30.0,
    ) -> None:
        try:
            from telegram.ext import ApplicationBuilder
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise TrinhoError.keyed("error.telegram.no_sdk") from exc
        self.settings = settings
        self.locale = locale
        self.lookup = lookup
        self.decider = decider
        self.on_message = on_message
        self.timeout = timeout
        self.inbox = inbox or MemoryInbox(lambda: datetime.now(UTC))
        self.owner_chat = settings.owner_id
        self._secret = callbacks.callback_secret(settings.token)
        self._app: Application[Any, Any, Any, Any, Any, Any] = (
            ApplicationBuilder()
            .token(settings.token)
            .base_url(settings.base_url)
            .connect_timeout(timeout)
            .read_timeout(timeout)
            .write_timeout(timeout)
            .build()
        )
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._initialized = False
        self._polling = False
        self._lock = threading.Lock()
        self._init_lock = threading.Lock()
        self._halt = threading.Event()
        self._wake = threading.Event()
        self._worker: threading.Thread | None = None
        self._poll_future: concurrent.futures.Future[None] | None = None
        self._hold: contextlib.ExitStack | None = None

    @property
    def name(self) -> str:
        return "telegram"

    # -- lifecycle -------------------------------------------------------------------------

    def _run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        loop = self._ensure_loop()
        future = asyncio.run_coroutine_threadsafe(coro, loop)
        try:
            return future.result(self.timeout * 2 if timeout is None else timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise ChannelError.keyed("error.telegram.timeout") from None

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=loop.run_forever, name="trinho-telegram", daemon=True
                )
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def _ensure_initialized(self) -> None:
        from telegram.error import TelegramError

        with self._init_lock:
            if self._initialized:
                return
            try:
                self._run(self._app.initialize())
            except TelegramError as exc:
                raise ChannelError.keyed("error.telegram.refused", error=str(exc)) from exc
            self._initialized = True

    def start(self, *, poll_timeout: float = 10.0) -> None:
        """Connect, then poll for button presses and messages and answer them (`trinho serve`).

        Polling is trinho's own loop, not PTB's updater: PTB confirms a fetched batch while its
        handlers still run, so a crash lost the messages queued behind the first. Here a batch
        is in the inbox, fsync'd, before the next offset confirms it to Telegram.
        """
        self._ensure_initialized()
        if self._polling:
            return
        hold = contextlib.ExitStack()
        if not hold.enter_context(self.inbox.hold()):
            hold.close()
            raise ChannelError.keyed("error.telegram.inbox_busy")
        self._hold = hold
        try:
            self.inbox.compact()
        except OSError as exc:
            log.warning("telegram: the inbox could not be compacted: %s", exc)
        self._halt.clear()
        self._poll_future = asyncio.run_coroutine_threadsafe(
            self._poll(poll_timeout), self._ensure_loop()
        )
        self._worker = threading.Thread(target=self._work, name="trinho-inbox", daemon=True)
        self._worker.start()
        self._polling = True

    async def _poll(self, poll_timeout: float) -> None:
        from telegram.error import Conflict, RetryAfter, TelegramError

        offset = await asyncio.to_thread(lambda: self.inbox.state().next_offset)
        failures = 0
        while not self._halt.is_set():
            try:
                updates = await self._app.bot.get_updates(
                    offset=offset,
                    timeout=int(max(1, poll_timeout)),
                    allowed_updates=["message", "callback_query"],
                )
            except (Conflict, RetryAfter, TelegramError) as exc:
                failures += 1
                log.warning("telegram: polling failed: %s", exc)
                await asyncio.sleep(min(30.0, 0.25 * 2.0 ** min(failures, 7)))
                continue
            failures = 0
            if updates:
                await asyncio.to_thread(self._accept, updates)
                offset = updates[-1].update_id + 1

    def _accept(self, updates: tuple[Update, ...]) -> None:
        """Record a fetched batch (one fsync'd append), then hand presses to the loop."""
        self.inbox.add([(update.update_id, self._owner_text(update)) for update in updates])
        self._wake.set()
        loop = self._loop
        for update in updates:
            if update.callback_query is not None and loop is not None:
                asyncio.run_coroutine_threadsafe(self._on_callback(update), loop)

    def _owner_text(self, update: Update) -> str | None:
        """The owner's text in a new message; None for anything trinho does not answer."""
        message = update.message
        if message is None:
            if update.edited_message is not None:
                log.info("telegram: an edited message is not answered again")
            return None
        user_id = message.from_user.id if message.from_user else None
        if not self._is_owner(user_id, message.chat.id):
            log.warning(
                "telegram: ignored a message from user %s in chat %s", user_id, message.chat.id
            )
            return None
        if message.text is None or self.on_message is None:
            return None
        return message.text

    def close(self) -> None:
        """`close_within` the channel's own timeout."""
        self.close_within(self.timeout * 2)

    def close_within(self, grace: float) -> None:
        """Stop polling, let the turn in progress finish (up to `grace` seconds; what is left
        stays in the inbox for the next start), close connections. Safe to call twice; never
        raises: a channel that cannot say goodbye to Telegram is logged and dropped."""
        loop = self._loop
        if loop is None:
            return
        self._halt.set()
        self._wake.set()
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.join(grace)
            if worker.is_alive():
                log.warning("telegram: a turn was still running at stop; it is replayed")
        if self._poll_future is not None:
            self._poll_future.cancel()
            self._poll_future = None
        closing = min(self.timeout, CLOSE_TIMEOUT)
        try:
            self._run(self._stop(), timeout=closing)
        except Exception as exc:
            log.warning("telegram: closing the connection failed: %s", exc)
        finally:
            loop.call_soon_threadsafe(loop.stop)
            if self._thread is not None:
                self._thread.join(timeout=closing)
            if not loop.is_running():
                loop.close()
            self._loop = None
            self._thread = None
            self._initialized = False
            self._polling = False
            if self._hold is not None:
                self._hold.close()
                self._hold = None

    async def _stop(self) -> None:
        if self._initialized:
            await self._app.shutdown()

    def __enter__(self) -> TelegramChannel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- sending ---------------------------------------------------------------------------

    def send(self, notification: Notification) -> SentReceipt:
        """One message to the owner: the summary, with approve all / reject all / review."""
        from telegram.error import TelegramError

        self._ensure_initialized()
        try:
            message = self._run(self._send_summary(notification))
        except TelegramError as exc:
            raise ChannelError.keyed("error.telegram.not_taken", error=str(exc)) from exc
        return SentReceipt(channel=self.name, ref=f"{message.chat_id}:{message.message_id}")

    async def _send_summary(self, notification: Notification) -> Message:
        markup = self._summary_buttons(notification) if notification.items else None
        message: Message = await self._app.bot.send_message(
            chat_id=self.owner_chat,
            text=summary_text(notification, self.locale),
            reply_markup=markup,
        )
        return message

    def _button(self, label_key: str, action: CallbackAction) -> InlineKeyboardButton:
        from telegram import InlineKeyboardButton

        return InlineKeyboardButton(
            t(self.locale, label_key), callback_data=callbacks.encode(self._secret, action)
        )

    def _summary_buttons(self, notification: Notification) -> InlineKeyboardMarkup:
        from telegram import InlineKeyboardMarkup

        key = notification.key
        return InlineKeyboardMarkup(
            [
                [
                    self._button(N_("channel.button.approve_all"), CallbackAction("A", key, 0, "")),
                    self._button(N_("channel.button.reject_all"), CallbackAction("R", key, 0, "")),
                ],
                [self._button(N_("channel.button.review"), CallbackAction("V", key, 0, ""))],
            ]
        )

    def _item_buttons(self, notification: Notification, index: int) -> InlineKeyboardMarkup:
        from telegram import InlineKeyboardMarkup

        hashed = callbacks.short_hash(notification.items[index].content_hash)
        key = notification.key
        return InlineKeyboardMarkup(
            [
                [
                    self._button(
                        N_("channel.button.approve"), CallbackAction("y", key, index, hashed)
                    ),
                    self._button(
                        N_("channel.button.reject"), CallbackAction("n", key, index, hashed)
                    ),
                ]
            ]
        )

    # -- incoming --------------------------------------------------------------------------

    def _is_owner(self, user_id: int | None, chat_id: int | None) -> bool:
        return user_id == self.settings.owner_id and chat_id == self.owner_chat

    async def _on_callback(self, update: Update) -> None:
        query = update.callback_query
        if query is None:
            return
        answer = t(self.locale, "channel.cb.failed")
        try:
            answer = await self._handle_callback(query)
        except Exception:
            log.exception("telegram: handling a button press failed")
        finally:
            await self._answer(query, answer)

    async def _answer(self, query: CallbackQuery, text: str) -> None:
        from telegram.error import TelegramError

        try:
            await query.answer(text=printable(text)[:200])
        except TelegramError as exc:
            log.warning("telegram: could not answer a button press: %s", exc)

    async def _handle_callback(self, query: CallbackQuery) -> str:
        user_id = query.from_user.id if query.from_user else None
        chat_id = query.message.chat.id if query.message is not None else None
        if not self._is_owner(user_id, chat_id):
            log.warning(
                "telegram: refused a button press from user %s in chat %s", user_id, chat_id
            )
            return t(self.locale, "channel.cb.not_owner")
        action = callbacks.decode(self._secret, query.data)
        if action is None:
            log.warning("telegram: refused a forged or malformed button %r", query.data)
            return t(self.locale, "channel.cb.forged")
        notification = self.lookup.find(action.key) if self.lookup is not None else None
        if notification is None or not self._matches(notification, action):
            log.info("telegram: refused a stale button %r", query.data)
            return t(self.locale, "channel.cb.stale")
        if action.op == "V":
            await self._send_item(notification, action.index)
            return t(self.locale, "channel.cb.review", count=len(notification.items))
        if self.decider is None:
            return t(self.locale, "channel.cb.unavailable")
        by = f"telegram:{user_id}"
        if action.op in ("A", "R"):
            return await self._decide_all(query, notification, action.op == "A", by)
        return await self._decide_one(query, notification, action, by)

    def _matches(self, notification: Notification, action: CallbackAction) -> bool:
        if action.op in ("A", "R"):
            return action.index == 0 and bool(notification.items)
        if not 0 <= action.index < len(notification.items):
            return False
        if action.op == "V":
            return True
        item = notification.items[action.index]
        return callbacks.short_hash(item.content_hash) == action.short_hash

    async def _decide(
        self, proposal_id: str, content_hash: str, approve: bool, by: str
    ) -> DecisionOutcome:
        assert self.decider is not None
        try:
            return await asyncio.to_thread(
                self.decider.decide, proposal_id, content_hash, approve, by
            )
        except Exception as exc:
            log.exception("telegram: deciding %s failed", proposal_id)
            return DecisionOutcome(ok=False, message=f"{type(exc).__name__}: {exc}")

    async def _decide_all(
        self, query: CallbackQuery, notification: Notification, approve: bool, by: str
    ) -> str:
        outcomes: list[tuple[str, DecisionOutcome]] = []
        for item in notification.items:
            outcome = await self._decide(item.proposal_id, item.content_hash, approve, by)
            outcomes.append((item.proposal_id, outcome))
        done = sum(1 for _, outcome in outcomes if outcome.ok)
        key = N_("channel.bulk.approved") if approve else N_("channel.bulk.rejected")
        headline = t(self.locale, key, ok=done, total=len(outcomes))
        lines = [
            t(self.locale, "channel.bulk.not_done", id=pid, message=outcome.message)
            for pid, outcome in outcomes
            if not outcome.ok
        ]
        await self._edit(
            query, "\n".join([summary_text(notification, self.locale), "", headline, *lines])
        )
        return headline

    async def _decide_one(
        self, query: CallbackQuery, notification: Notification, action: CallbackAction, by: str
    ) -> str:
        """Apply one decision and show the next change; the decision stands even when the
        next screen cannot be sent (the owner is told what was decided, not that it failed)."""
        from telegram.error import TelegramError

        item = notification.items[action.index]
        approve = action.op == "y"
        outcome = await self._decide(item.proposal_id, item.content_hash, approve, by)
        if outcome.ok:
            key = N_("channel.cb.approved") if approve else N_("channel.cb.rejected")
            result = t(self.locale, key)
        else:
            result = t(self.locale, "channel.cb.refused", message=outcome.message)
        screen = item_text(notification, action.index, self.locale, limit=3800)
        await self._edit(query, f"{screen}\n\n→ {result}")
        try:
            await self._next_screen(notification, action.index + 1)
        except TelegramError as exc:
            log.warning("telegram: the next review screen was not sent: %s", exc)
        return result

    async def _next_screen(self, notification: Notification, index: int) -> None:
        if index < len(notification.items):
            await self._send_item(notification, index)
        else:
            await self._app.bot.send_message(
                chat_id=self.owner_chat, text=t(self.locale, "channel.review.done")
            )

    async def _send_item(self, notification: Notification, index: int) -> None:
        await self._app.bot.send_message(
            chat_id=self.owner_chat,
            text=item_text(notification, index, self.locale),
            reply_markup=self._item_buttons(notification, index),
        )

    async def _edit(self, query: CallbackQuery, text: str) -> None:
        """Show the outcome in place of the buttons, so a press cannot be repeated by mistake."""
        from telegram.error import TelegramError

        try:
            await query.edit_message_text(text=split_text(text)[0], reply_markup=None)
        except TelegramError as exc:
            log.warning("telegram: could not update the message: %s", exc)

    # -- the inbox worker --------------------------------------------------------------------

    def _work(self) -> None:
        """Answer the inbox, one message at a time, oldest first, until the channel closes."""
        while not self._halt.is_set():
            try:
                item, due = next_item(self.inbox.state().items, self.inbox.now())
            except Exception:
                log.exception("telegram: reading the inbox failed")
                item, due = None, None
            if item is None:
                wait = 30.0 if due is None else (due - self.inbox.now()).total_seconds()
                self._wake.wait(min(30.0, max(0.05, wait)))
                self._wake.clear()
                continue
            try:
                self._serve_item(item)
            except Exception:
                log.exception("telegram: answering update %s failed", item.update_id)
                self._halt.wait(1.0)

    def _serve_item(self, item: InboxItem) -> None:
        reply = item.reply
        if reply is None:
            reply = self._reply_text(item)
            self.inbox.record_reply(item, reply)
        self._send_reply(item, reply)

    def _reply_text(self, item: InboxItem) -> str:
        assert self.on_message is not None
        try:
            reply = self.on_message(item.text, item.ref)
        except Exception:
            log.exception("telegram: the message handler failed")
            reply = t(self.locale, "channel.cb.failed")
        return reply or ""

    def _send_reply(self, item: InboxItem, reply: str) -> None:
        """Send the parts not sent yet; a failure is recorded and retried with backoff."""
        from telegram.error import RetryAfter, TelegramError

        parts = split_text(reply) if reply.strip() else []
        for part in parts[len(item.sent) :]:
            try:
                message = self._run(self._app.bot.send_message(chat_id=self.owner_chat, text=part))
            except (TelegramError, ChannelError) as exc:
                wait = exc.retry_after if isinstance(exc, RetryAfter) else None
                seconds = wait.total_seconds() if isinstance(wait, timedelta) else wait
                self.inbox.record_failed(item, f"{type(exc).__name__}: {exc}", seconds)
                log.warning("telegram: a reply was not sent, retried later: %s", exc)
                return
            self.inbox.record_sent(item, message.message_id)
        self.inbox.record_done(item)
