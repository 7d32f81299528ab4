"""A conversation whose answer shares no word with the question asked of it: the reply after a
question (`trinho.search.rank`), shared by the file index's and PostgreSQL's tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from trinho.conversations.store import Turn

GARDEN = [
    "roses",
    "tulips",
    "weeds",
    "rain",
    "sun",
    "frost",
    "snails",
    "birds",
    "bees",
    "moss",
    "ferns",
    "lilies",
]
SAID = [
    *(("Minh" if i % 2 else "Lan", f"The garden had {w} today.") for i, w in enumerate(GARDEN)),
    ("Lan", "Work is busy and my family is fine."),
    ("Minh", "Glad to hear it."),
    ("Lan", "My family often eats out after work."),
    ("Minh", "Nice."),
    ("Minh", "Good."),
    ("Minh", "How often do you all work out together as a family?"),
    ("Lan", "Three times a week, it keeps us on track."),
]
QUESTION = "How often does Lan work out with her family?"
REPLY = "Three times a week, it keeps us on track."


def turns(*said: tuple[str, str]) -> list[Turn]:
    at = datetime(2026, 3, 1, 9, tzinfo=UTC)
    return [
        Turn(at + timedelta(minutes=i), role, text, f"D1:{i + 1}")
        for i, (role, text) in enumerate(said)
    ]
