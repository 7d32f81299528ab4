"""One owner's chat on PostgreSQL: each turn the file chat agent, run on a working copy of the
owner's records (`trinho.pg.workcopy`) and checked in with what it wrote (the transcript, a
note the agent saved), all or nothing.

The conversation's recent history is kept here between turns, as `ChatSession` keeps it for a
workspace; a message replayed after a crash carries its inbox reference, so a turn already in
the transcript is not asked again.
"""

from __future__ import annotations

import logging
import threading

from trinho.config import Config
from trinho.conversations.agent import ChatSession
from trinho.errors import Unavailable, in_locale
from trinho.i18n import t
from trinho.models import ChatModel, load_model
from trinho.models.base import Message
from trinho.pg.connect import Database
from trinho.pg.store import Clock
from trinho.pg.workcopy import run_on_copy
from trinho.workspace import Workspace

log = logging.getLogger("trinho.pg.chat")


class OwnerChat:
    """The `MessageHandler` of one owner: their turns, one at a time, on their records only."""

    def __init__(
        self,
        db: Database,
        owner: str,
        *,
        config: Config,
        config_text: str | None,
        clock: Clock,
        locale: str,
        model: ChatModel | None = None,
    ) -> None:
        self.db = db
        self.owner = owner
        self.config = config
        self.config_text = config_text
        self.clock = clock
        self.locale = locale
        self.model = model
        self.history: list[Message] = []
        self._lock = threading.Lock()

    def _turn(self, ws: Workspace, text: str, ref: str | None) -> tuple[str, list[Message]]:
        """The reply and the history after it, from the history before this turn (a turn run
        again on a new checkout starts from the same)."""
        try:
            model = load_model(ws, "chat", model=self.model)
        except Exception as exc:
            log.error("no chat model for %s: %s", self.owner, exc)
            return t(self.locale, "serve.no_model", error=in_locale(exc, self.locale)), self.history
        session = ChatSession(ws, model)
        session.history = list(self.history)
        reply = session(text, ref) or t(self.locale, "channel.empty_reply")
        return reply, session.history

    def __call__(self, text: str, ref: str | None = None) -> str | None:
        with self._lock:
            try:
                reply, self.history = run_on_copy(
                    self.db,
                    self.owner,
                    self.config,
                    self.config_text,
                    lambda ws: self._turn(ws, text, ref),
                    clock=self.clock,
                )
            except Unavailable:
                raise  # nothing was checked in: the channel asks again, the owner sees no error
            except Exception as exc:
                log.exception("chat turn failed for %s", self.owner)
                return t(self.locale, "serve.chat_failed", error=in_locale(exc, self.locale))
            return reply
