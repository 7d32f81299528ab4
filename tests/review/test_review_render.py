"""The review in the owner's words: who proposed, why, and buttons named by their effect."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_review_risk import fact, memory, proposal

from trinho.proposals.format import Proposal
from trinho.review.render import effect_words, proposer_words, reason_words
from trinho.review.risk import Risk, risk_of

JARGON = re.compile(r"agent:|job:|condense:|mcp:|\(user owner\)|\binferred\b|\bbasis\b")


def origin(p: Proposal, value: str) -> Proposal:
    from dataclasses import replace

    return replace(p, origin=value)


@pytest.mark.parametrize(
    ("value", "en", "vi"),
    [
        ("condense:2026-W48", "the weekly condensation", "lần cô đọng hằng tuần"),
        ("agent:main", "your assistant in chat", "trợ lý của bạn khi trò chuyện"),
        ("chat", "your assistant in chat", "trợ lý của bạn khi trò chuyện"),
        ("job:facts", "the facts job", "việc tìm dữ kiện hằng đêm"),
        ("job:nightly", "the scheduled job “nightly”", "tác vụ định kỳ “nightly”"),
        ("mcp:claude", "an MCP client", "một ứng dụng MCP"),
    ],
)
def test_who_proposed_is_said_in_words(value: str, en: str, vi: str) -> None:
    p = origin(proposal("fact", fact(None, None)), value)
    assert proposer_words(p, "en") == en
    assert proposer_words(p, "vi") == vi


@given(st.text(max_size=30))
def test_no_origin_shows_as_a_code(value: str) -> None:
    p = origin(proposal("fact", fact(None, None)), value)
    for locale in ("en", "vi"):
        words = proposer_words(p, locale)
        assert not JARGON.search(words)


def test_the_reason_is_rendered_from_its_code_with_the_models_own_words_beside_it() -> None:
    from dataclasses import replace

    change = {**memory("removed", "- 2026-11-01: Allergic to shrimp", None, "removed_entry")}
    change["reason"] = "entry missing from the rewrite; it stays until you approve its removal"
    p = replace(proposal("memory", change), why="duplicate of the food line")
    vi = reason_words(p, "vi")
    assert "bản cập nhật hằng tuần bỏ mục này" in vi and "“duplicate of the food line”" in vi
    assert "entry missing" not in vi
    assert reason_words(replace(p, why=None), "en").startswith("the weekly update leaves")
    job = proposal("fact", fact("black", "user"))
    assert "coffee" in reason_words(job, "vi") and "tác vụ tự động" in reason_words(job, "vi")


def test_buttons_say_what_they_do() -> None:
    removal = proposal("memory", memory("removed", "- 2026-11-01: Allergic to shrimp", None))
    assert effect_words(removal, "vi") == ("Xoá dòng này", "Giữ lại")
    assert effect_words(removal, "en") == ("Remove this line", "Keep it")
    archive = proposal("memory", memory("archive", "- a\n- b", None))
    assert effect_words(archive, "vi")[0] == "Chuyển vào lưu trữ (vẫn tìm được)"
    owner = proposal("fact", fact("black", "user"))
    assert effect_words(owner, "vi") == (
        "Thay điều bạn đã nói bằng “flat white”?",
        "Giữ điều bạn đã nói",
    )
    assert effect_words(owner, "en")[0] == "Replace what you said with “flat white”?"


@given(
    st.sampled_from(["removed", "archive", "edited", "added", "suspicious", "strange_date"]),
    st.none() | st.text(min_size=1, max_size=300),
    st.none() | st.text(min_size=1, max_size=300),
    st.sampled_from(["en", "vi"]),
)
def test_every_label_is_short_and_never_a_bare_approve(
    cls: str, old: str | None, new: str | None, locale: str
) -> None:
    p = proposal("memory", memory(cls, old, new))
    approve, keep = effect_words(p, locale)
    assert approve != keep
    assert all(0 < len(label) <= 64 for label in (approve, keep))
    assert approve not in ("Approve", "Duyệt")
    if risk_of(p) is Risk.REMOVES and cls == "removed":
        assert approve in ("Remove this line", "Xoá dòng này")


@pytest.mark.parametrize("locale", ["en", "vi"])
@pytest.mark.parametrize(
    ("code", "params"),
    [
        ("edited", {"similarity": 0.72}),
        ("edited_heading", {"similarity": 0.5}),
        ("over_budget", {"tokens": 447, "budget": 420, "count": 5}),
    ],
)
def test_the_owner_reads_a_technical_reason_in_words(
    locale: str, code: str, params: dict[str, object]
) -> None:
    change = {**memory("edited", "- a", "- b", code), "reason_params": params}
    text = reason_words(proposal("memory", change), locale)
    assert not re.search(r"similarity|token|0\.72|447|420", text), text
    assert ("5" in text) is (code == "over_budget")
