"""Conversations: the transcripts (`store`) and the agent loop that records them (`agent`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trinho.exports import lazy_exports

if TYPE_CHECKING:
    from trinho.conversations.agent import ChatSession as ChatSession
    from trinho.conversations.agent import TurnResult as TurnResult
    from trinho.conversations.store import ImportReport as ImportReport
    from trinho.conversations.store import StoredTurn as StoredTurn
    from trinho.conversations.store import Turn as Turn
    from trinho.conversations.store import import_turns as import_turns
    from trinho.conversations.store import read_day as read_day
    from trinho.conversations.store import read_import_file as read_import_file
    from trinho.conversations.store import read_turns as read_turns
    from trinho.conversations.store import record_turn as record_turn


__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "trinho.conversations.agent": ("ChatSession", "TurnResult"),
        "trinho.conversations.store": (
            "ImportReport",
            "StoredTurn",
            "Turn",
            "import_turns",
            "read_day",
            "read_import_file",
            "read_turns",
            "record_turn",
        ),
    },
)
