"""Hypothesis strategies for MEMORY.md texts and their rewrites, shared by the gate tests."""

from __future__ import annotations

import unicodedata
from datetime import date

from hypothesis import strategies as st

TODAY = date(2026, 11, 29)
SINCE = date(2026, 11, 23)
WINDOW_DATES = [f"2026-11-{d:02d}" for d in range(23, 30)]
DATES = [
    *WINDOW_DATES,
    "2026-11-01",
    "2025-02-14",
    "2026-11-30",
    "2027-01-01",
    "2026-13-01",
    "2026-02-30",
    "2026-11-5",
    "0000-00-00",
]
WORDS = [
    "likes",
    "tea",
    "Tea",
    "cà",
    "phê",
    "sữa",
    "đá",
    "Hà",
    "Nội",
    "Đà",
    "Nẵng",
    unicodedata.normalize("NFD", "Nội"),
    "ĐI",
    "straße",
    "STRASSE",
    "🙂",
    "a",
    "b",
]
text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join)
entry = st.builds(lambda d, x: f"- {d}: {x}", st.sampled_from(DATES), text)
window_entry = st.builds(lambda d, x: f"- {d}: {x}", st.sampled_from(WINDOW_DATES), text)
heading = st.builds(lambda n, x: "#" * n + " " + x, st.integers(1, 3), text)
junk = st.one_of(
    st.sampled_from(
        [
            "Sure! Here is the updated MEMORY.md:",
            "I cannot help with that.",
            "```",
            "* 2026-11-25: starred bullet",
            "- 2026-11-25 missing colon",
            "-2026-11-25: no space",
            "Ghi chú viết tay: nhớ mua quà",
            "   ",
            "",
        ]
    ),
    st.text(
        alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"),
        max_size=12,
    ),
)
line = st.one_of(entry, entry, entry, heading, junk)
lines = st.lists(line, max_size=14)


@st.composite
def rewrite_of(draw: st.DrawFn, old: list[str]) -> list[str]:
    """A rewrite made from `old` by dropping, reordering, re-dating, rewording and adding."""
    new: list[str] = []
    for raw in old:
        choice = draw(st.integers(0, 9))
        if choice == 0:
            continue
        if choice == 1 and raw.startswith("- "):
            new.append(f"- {draw(st.sampled_from(DATES))}:{raw.split(':', 1)[-1]}")
        elif choice == 2 and raw.startswith("- "):
            new.append(raw + " " + draw(st.sampled_from(WORDS)))
        elif choice == 3:
            new.append(raw.upper())
        else:
            new.append(raw)
    if draw(st.booleans()):
        new = draw(st.permutations(new))
    for extra in draw(st.lists(line, max_size=4)):
        new.insert(draw(st.integers(0, len(new))), extra)
    return new


@st.composite
def old_new(draw: st.DrawFn) -> tuple[str, str]:
    old = draw(lines)
    new = draw(st.one_of(lines, rewrite_of(old), rewrite_of(old)))
    ending = draw(st.sampled_from(["", "\n"]))
    return "\n".join(old) + ending, "\n".join(new) + draw(st.sampled_from(["", "\n"]))
