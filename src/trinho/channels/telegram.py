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
from collections.abc import Coroutine, Mapping
from dataclasses import replace
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
    ReviewQueue,
    SentReceipt,
    TakesBack,
)
from trinho.channels.callbacks import CallbackAction
from trinho.channels.inbox import InboxItem, MemoryInbox, next_item
from trinho.channels.render import (
    TELEGRAM_LIMIT,
    bulk_indices,
    button_label,
    change_line,
    item_state,
    keep_indices,
    keep_text,
    pending_indices,
    review_indices,
    review_item_text,
    review_text,
    split_text,
)
from trinho.channels.settings import TelegramSettings
from trinho.errors import TrinhoError, Unavailable
from trinho.i18n import N_, t
from trinho.textnorm import printable, shown_id

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
        review_url: str | None = None,
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
        self.review_url = review_url
        """The review page as the owner's phone reaches it (`[web] public_url`), or None."""
        self._decided: dict[str, str] = {}
        self._undo: dict[str, list[tuple[str, bool]]] = {}
        """Each announcement's last decision, single or bulk: its proposals and whether each was
        approved (else kept as it was), while it may be taken back."""
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

    def for_user(
        self,
        user_id: int,
        *,
        lookup: NotificationLookup,
        decider: Decider,
        on_message: MessageHandler,
        inbox: MemoryInbox,
    ) -> TelegramChannel:
        """This bot as the channel of one of its users (an owner of many): the same connection
        and event loop, that user's private chat, and their own announcements, decisions,
        messages and inbox. It lives as long as the bot and is closed with it, never alone; it
        is a plain channel whatever the bot's class (it polls nothing of its own)."""
        self._ensure_loop()
        view = TelegramChannel.__new__(TelegramChannel)
        view.__dict__.update(self.__dict__)
        view.settings = replace(self.settings, owner_id=user_id)
        view.owner_chat = user_id
        view.lookup, view.decider, view.on_message, view.inbox = lookup, decider, on_message, inbox
        view._decided, view._undo = {}, {}
        return view

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
        """One message to the owner: every change in one line, riskiest first, with review one
        by one, approve the small changes, reject what waits, and the review page's link."""
        from telegram.error import TelegramError

        self._ensure_initialized()
        try:
            message = self._run(self._send_summary(notification))
        except TelegramError as exc:
            raise ChannelError.keyed("error.telegram.not_taken", error=str(exc)) from exc
        return SentReceipt(channel=self.name, ref=f"{message.chat_id}:{message.message_id}")

    async def _send_summary(self, notification: Notification) -> Message:
        notification = await self._described(notification)
        states = await self._states(notification)
        text = review_text(notification, self.locale, states)
        message: Message = await self._app.bot.send_message(
            chat_id=self.owner_chat,
            text=text,
            reply_markup=self._summary_buttons(notification, states, text),
        )
        return message

    def _button(self, label: str, action: CallbackAction) -> InlineKeyboardButton:
        from telegram import InlineKeyboardButton

        return InlineKeyboardButton(
            button_label(label, self.locale), callback_data=callbacks.encode(self._secret, action)
        )

    def _summary_buttons(
        self, notification: Notification, states: Mapping[str, str], text: str
    ) -> InlineKeyboardMarkup | None:
        """Review first; the bulk approval over the small changes `text` (the message) shows
        whole, saying how many and bound to them; keeping as they are what it shows whole
        (asked once more); taking back the decision just made; the review page when it is
        reachable."""
        from telegram import InlineKeyboardButton, InlineKeyboardMarkup

        key = notification.key
        waiting = pending_indices(notification, states)
        bulk = bulk_indices(notification, states, text)
        keep = keep_indices(notification, states, text)
        rows: list[list[InlineKeyboardButton]] = []
        if waiting:
            review = t(self.locale, "channel.button.review")
            rows.append([self._button(review, CallbackAction("V", key, waiting[0], ""))])
        if bulk:
            label = t(self.locale, "channel.button.approve_small", count=len(bulk))
            bound = callbacks.set_hash(notification.items[i].proposal_id for i in bulk)
            rows.append([self._button(label, CallbackAction("A", key, 0, bound))])
        if keep:
            label = t(self.locale, "channel.button.reject_waiting", count=len(keep))
            rows.append([self._button(label, CallbackAction("R", key, 0, ""))])
        undo = self._undo_row(notification)
        if undo is not None:
            rows.append([undo])
        if self.review_url:
            page = button_label(t(self.locale, "channel.button.page"), self.locale)
            rows.append([InlineKeyboardButton(page, url=self.review_url)])
        return InlineKeyboardMarkup(rows) if rows else None

    def _undo_row(self, notification: Notification) -> InlineKeyboardButton | None:
        """The button that takes back the decision just made, while the decider can."""
        made = self._undo.get(notification.key)
        if not made or not isinstance(self.decider, TakesBack):
            return None
        single = len(made) == 1 or not all(approved for _, approved in made)
        key = N_("channel.button.undo_decision") if single else N_("channel.button.take_back")
        return self._button(t(self.locale, key), CallbackAction("U", notification.key, 0, ""))

    def _item_buttons(self, notification: Notification, index: int) -> InlineKeyboardMarkup:
        """The change's own buttons, named by their effect, the way back to the list, and
        taking back the decision just made."""
        from telegram import InlineKeyboardMarkup

        item = notification.items[index]
        hashed = callbacks.short_hash(item.content_hash)
        key = notification.key
        approve = item.approve or t(self.locale, "channel.button.approve")
        keep = item.keep or t(self.locale, "channel.button.reject")
        back = t(self.locale, "channel.button.list")
        undo = self._undo_row(notification)
        return InlineKeyboardMarkup(
            [
                [self._button(approve, CallbackAction("y", key, index, hashed))],
                [self._button(keep, CallbackAction("n", key, index, hashed))],
                [self._button(back, CallbackAction("S", key, 0, ""))],
                *([[undo]] if undo is not None else []),
            ]
        )

    async def _described(self, notification: Notification) -> Notification:
        """The notification with each change as the queue describes it now (same ids, hashes
        and order: a button's index still names the same change)."""
        if not isinstance(self.decider, ReviewQueue) or not notification.items:
            return notification
        try:
            items = await asyncio.to_thread(self.decider.described, notification.items)
        except Exception:
            log.exception("telegram: describing the changes failed")
            return notification
        same = [(i.proposal_id, i.content_hash) for i in items] == [
            (i.proposal_id, i.content_hash) for i in notification.items
        ]
        return replace(notification, items=tuple(items)) if same else notification

    async def _states(self, notification: Notification) -> dict[str, str]:
        """Where each change stands: the queue's word when the decider can say, else what was
        decided through this channel since it started."""
        ids = [item.proposal_id for item in notification.items]
        known = {pid: self._decided[pid] for pid in ids if pid in self._decided}
        if isinstance(self.decider, ReviewQueue):
            try:
                found = await asyncio.to_thread(self.decider.states, ids)
            except Exception:
                log.exception("telegram: reading where the changes stand failed")
            else:
                known.update(found)
        return known

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
        notification = await self._described(notification)
        if action.op == "S":
            await self._show_summary(query, notification)
            return t(self.locale, "channel.cb.list")
        if action.op == "V":
            states = await self._states(notification)
            waiting = pending_indices(notification, states)
            await self._show_next(query, notification, states, action.index, "")
            return t(self.locale, "channel.cb.review", count=len(waiting))
        if self.decider is None:
            return t(self.locale, "channel.cb.unavailable")
        by = f"telegram:{user_id}"
        if action.op == "R":
            return await self._ask_keep(query, notification)
        if action.op in ("A", "K"):
            return await self._decide_all(query, notification, action, by)
        if action.op == "U":
            return await self._take_back(query, notification, by)
        return await self._decide_one(query, notification, action, by)

    def _matches(self, notification: Notification, action: CallbackAction) -> bool:
        if action.op in ("A", "R", "K", "S", "U"):
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
            outcome = await asyncio.to_thread(
                self.decider.decide, proposal_id, content_hash, approve, by
            )
        except Exception as exc:
            log.exception("telegram: deciding %s failed", proposal_id)
            return DecisionOutcome(ok=False, message=f"{type(exc).__name__}: {exc}")
        if outcome.ok:
            self._decided[proposal_id] = "approved" if approve else "rejected"
        return outcome

    async def _bulk_set(self, notification: Notification, approve: bool) -> tuple[list[int], str]:
        """What a bulk button covers now: the small changes the list shows whole (approve), or
        those the keep confirmation lists whole; the indices and that screen's text."""
        states = await self._states(notification)
        text = review_text(notification, self.locale, states)
        if approve:
            return bulk_indices(notification, states, text), text
        asked = keep_indices(notification, states, text)
        screen = keep_text(notification, asked, self.locale)
        listed = set(keep_indices(notification, states, screen))
        return [i for i in asked if i in listed], screen

    async def _ask_keep(self, query: CallbackQuery, notification: Notification) -> str:
        """Keeping many changes as they are is asked once more: the changes it covers, each
        with every line it touches, then Confirm or back to the list."""
        from telegram import InlineKeyboardMarkup

        chosen, screen = await self._bulk_set(notification, approve=False)
        if not chosen:
            await self._show_summary(query, notification)
            return t(self.locale, "channel.cb.stale")
        bound = callbacks.set_hash(notification.items[i].proposal_id for i in chosen)
        confirm = t(self.locale, "channel.button.keep_confirm", count=len(chosen))
        back = t(self.locale, "channel.button.list")
        markup = InlineKeyboardMarkup(
            [
                [self._button(confirm, CallbackAction("K", notification.key, 0, bound))],
                [self._button(back, CallbackAction("S", notification.key, 0, ""))],
            ]
        )
        await self._edit(query, screen, markup)
        return t(self.locale, "channel.cb.keep_ask", count=len(chosen))

    async def _decide_all(
        self, query: CallbackQuery, notification: Notification, action: CallbackAction, by: str
    ) -> str:
        """Approve the small changes the list showed, or keep as they are those the
        confirmation listed: exactly the set the button was made for (its `set_hash`), else
        nothing, and the list again as it is now. Then the list, with a way to take it back."""
        approve = action.op == "A"
        chosen, _ = await self._bulk_set(notification, approve)
        ids = [notification.items[i].proposal_id for i in chosen]
        if not chosen or callbacks.set_hash(ids) != action.short_hash:
            changed = t(self.locale, "channel.cb.changed")
            await self._show_summary(query, notification, changed)
            return changed
        outcomes: list[tuple[str, DecisionOutcome]] = []
        for index in chosen:
            item = notification.items[index]
            outcome = await self._decide(item.proposal_id, item.content_hash, approve, by)
            outcomes.append((item.proposal_id, outcome))
        done = sum(1 for _, outcome in outcomes if outcome.ok)
        key = N_("channel.bulk.approved") if approve else N_("channel.bulk.rejected")
        headline = t(self.locale, key, ok=done, total=len(outcomes))
        lines = [
            t(self.locale, "channel.bulk.not_done", id=shown_id(pid), message=outcome.message)
            for pid, outcome in outcomes
            if not outcome.ok
        ]
        lines += self._remember(notification, [pid for pid, o in outcomes if o.ok], approve)
        await self._show_summary(query, notification, "\n".join([headline, *lines]))
        return headline

    def _remember(self, notification: Notification, done: list[str], approve: bool) -> list[str]:
        """Keep the decision just made to be taken back; the line that says for how long."""
        self._undo.pop(notification.key, None)
        if not done or not isinstance(self.decider, TakesBack):
            return []
        self._undo[notification.key] = [(pid, approve) for pid in done]
        minutes = self.decider.take_back_minutes
        return [t(self.locale, "channel.bulk.take_back_note", minutes=minutes)]

    async def _take_back(self, query: CallbackQuery, notification: Notification, by: str) -> str:
        """Take back the announcement's last decision, each change that can be (an approval
        undone, a change kept as it was waiting again), then the list again, saying what was
        and what was not."""
        made = self._undo.pop(notification.key, [])
        if not made or not isinstance(self.decider, TakesBack):
            return t(self.locale, "channel.cb.stale")
        outcomes: list[tuple[str, DecisionOutcome]] = []
        for pid, approved in made:
            try:
                outcome = await asyncio.to_thread(self.decider.take_back, pid, by)
            except Exception as exc:
                log.exception("telegram: taking back %s failed", pid)
                outcome = DecisionOutcome(ok=False, message=f"{type(exc).__name__}: {exc}")
            if outcome.ok and approved:
                self._decided[pid] = "reverted"
            elif outcome.ok:
                self._decided.pop(pid, None)
            outcomes.append((pid, outcome))
        done = sum(1 for _, outcome in outcomes if outcome.ok)
        headline = t(self.locale, "channel.bulk.taken_back", ok=done, total=len(outcomes))
        lines = [
            t(self.locale, "channel.bulk.not_done", id=shown_id(pid), message=outcome.message)
            for pid, outcome in outcomes
            if not outcome.ok
        ]
        await self._show_summary(query, notification, "\n".join([headline, *lines]))
        return headline

    async def _decide_one(
        self, query: CallbackQuery, notification: Notification, action: CallbackAction, by: str
    ) -> str:
        """Apply one decision and show, in the same message, the next change that waits, or
        the list with its tally when none does."""
        item = notification.items[action.index]
        approve = action.op == "y"
        outcome = await self._decide(item.proposal_id, item.content_hash, approve, by)
        if outcome.ok:
            key = N_("channel.cb.approved") if approve else N_("channel.cb.rejected")
            result = t(self.locale, key)
        else:
            result = t(self.locale, "channel.cb.refused", message=outcome.message)
        note = self._remember(notification, [item.proposal_id] if outcome.ok else [], approve)
        states = await self._states(notification)
        if not outcome.ok and item_state(item, states) == "pending":
            states[item.proposal_id] = "stale"  # refused (changed since): not shown again now
        done = "\n".join(
            [f"{change_line(item, self.locale, item_state(item, states))}\n→ {result}", *note]
        )
        await self._show_next(query, notification, states, action.index, done)
        return result

    async def _show_next(
        self,
        query: CallbackQuery,
        notification: Notification,
        states: Mapping[str, str],
        start: int,
        done: str,
    ) -> None:
        """The change at `start` if it still waits, else the next one that does in review
        order; the list with its tally when nothing waits."""
        waiting = pending_indices(notification, states)
        if not waiting:
            text = review_text(notification, self.locale, states, done, limit=TELEGRAM_LIMIT)
            await self._edit(query, text, self._summary_buttons(notification, states, text))
            return
        order = review_indices(notification)
        after = order[order.index(start) :] + order[: order.index(start)]
        index = next(i for i in after if i in waiting)
        screen = review_item_text(
            notification, index, self.locale, limit=TELEGRAM_LIMIT - len(done) - 8
        )
        text = f"{done}\n\n{screen}" if done else screen
        await self._edit(query, text, self._item_buttons(notification, index))

    async def _show_summary(
        self, query: CallbackQuery, notification: Notification, headline: str = ""
    ) -> None:
        states = await self._states(notification)
        text = review_text(notification, self.locale, states, headline)
        await self._edit(query, text, self._summary_buttons(notification, states, text))

    async def _edit(
        self, query: CallbackQuery, text: str, markup: InlineKeyboardMarkup | None = None
    ) -> None:
        """Show the next screen in place of the one pressed, so the chat holds one message per
        announcement and a press cannot be repeated by mistake."""
        from telegram.error import BadRequest, TelegramError

        try:
            await query.edit_message_text(text=split_text(text)[0], reply_markup=markup)
        except BadRequest as exc:
            if "not modified" in str(exc).lower():
                log.info("telegram: the message already shows this")
            else:
                log.warning("telegram: could not update the message: %s", exc)
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
            except Unavailable as exc:
                log.warning("telegram: answering update %s waits: %s", item.update_id, exc)
                self._halt.wait(1.0)
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
        except Unavailable:
            raise  # a server restarting: no reply is recorded, the message is answered later
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
