"""What the owner reads, the same on every surface: the console announcement, the chat
review (Telegram), the review page and `trinho proposals` put a realistic held week riskiest
first, give removals their reason, cite where each change came from (or say there is none),
show hidden characters made visible, and never say a word from trinho's inside."""

from __future__ import annotations

import html as stdlib_html
import io
import re
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import FixedClock
from support.catalogs import CATALOG, owner_leaks
from support.review_week import FISH, SHRIMP, ReviewWeek, review_week, review_workspace
from trinho.channels import (
    ConsoleChannel,
    Notification,
    NotificationItem,
    Outbox,
    channel_from_config,
)
from trinho.channels.render import console_text, review_indices, review_item_text, review_text
from trinho.i18n.keys import GATE_REASON, OWNER_REASON
from trinho.proposals import store as proposals
from trinho.proposals.format import Proposal, Source
from trinho.review.render import proposals_text, where_from
from trinho.review.risk import review_order, risk_of
from trinho.review.service import QueueDecider
from trinho.web.pages import queue_page
from trinho.workspace import Workspace

OWNER_FACING = (
    "channel.",
    "review.",
    "digest.",
    "decider.",
    "gate.reason.",
    "gate.class.",
    "condense.notify.",
    "condense.approved.",
    "condense.take_back.",
    "condense.loss.",
    "condense.stale.",
    "condense.expired",
    "condense.superseded",
    "condense.withdrawn",
    "proposals.block.",
    "web.",
)
"""The catalog groups an owner reads in notifications, announcements and review screens (a
decision's answer and a stale proposal's note included)."""

NOT_OWNER_FACING = (
    "web.login.",  # the sign-in form names the access token the operator set in the config
    "web.run.",  # a run's own page: the operator's audit, named by the run id `--undo` takes
    *(GATE_REASON[code] for code in OWNER_REASON),  # the run report's; the owner reads review.why
    GATE_REASON["over_budget"],  # the run report's; the owner reads the budget in words
)
"""Left out, each for its reason. Operator text (CLI help, errors, `trinho condense` and
`trinho model` output, the prompt) names files, settings and runs on purpose: it tells an
operator what to type or open."""

CLI_IDS = ("channel.item.proposal", "proposals.block.head")
"""Entries whose blank is a proposal's id, on the CLI surface only: the console announcement's
`trinho approve ID` line and `trinho proposals`' head, since the CLI decides by id."""

BLANK = re.compile(r"\{(?!id\}|run\}|similarity)[^{}]*\}")


def _owner_keys() -> list[str]:
    return sorted(
        k for k in CATALOG if k.startswith(OWNER_FACING) and not k.startswith(NOT_OWNER_FACING)
    )


def test_the_owner_facing_groups_are_found() -> None:
    keys = _owner_keys()
    assert len(keys) > 150
    assert {"channel.item.reason", "gate.reason.removed_entry", "web.title.rewrite"} <= set(keys)


@pytest.mark.parametrize("key", _owner_keys())
def test_no_owner_facing_entry_says_an_inside_word(key: str) -> None:
    for locale, text in CATALOG[key].items():
        shown = BLANK.sub("", text)
        assert owner_leaks(shown, cli=key in CLI_IDS) == {}, (locale, text)


def test_the_word_list_catches_what_testers_found() -> None:
    for text in (
        "The line was added to MEMORY.md.",
        "entry missing from the rewrite",
        "text changed (similarity 0.64)",
        "about 812 tokens",
        "Weekly memory condensation 2026-W48",
        "Proposal c17eb02412",
        "moved to memory/archive.md",
        "the model answered with EDIT [3]",
        "bản viết lại đáng ngờ",
    ):
        assert owner_leaks(text), text
    assert owner_leaks("To decide: trinho approve c17eb02412", cli=True) == {}
    assert owner_leaks("Chạy bộ mỗi sáng chủ nhật; dị ứng tôm, 12/3, 2026-11-29") == {}


# ---- a realistic held week, on every surface ---------------------------------------------------


@pytest.fixture(params=["vi", "en"])
def held(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Workspace, ReviewWeek]:
    clock = FixedClock()
    ws = review_workspace(tmp_path / "ws", clock, str(request.param))
    return ws, review_week(ws, clock)


def _announcement(ws: Workspace) -> Notification:
    [entry] = [e for e in Outbox(ws).entries() if e.notification.items]
    return entry.notification


def _console(ws: Workspace) -> str:
    out = io.StringIO()
    ConsoleChannel(ws.locale, out, QueueDecider(ws)).send(_announcement(ws))
    return out.getvalue()


def _chat(ws: Workspace) -> list[str]:
    described = _announcement(ws)
    described = replace(described, items=QueueDecider(ws).described(described.items))
    screens = [review_item_text(described, i, ws.locale) for i in review_indices(described)]
    return [review_text(described, ws.locale), *screens]


def _page(ws: Workspace, waiting: list[Proposal]) -> str:
    page = str(queue_page(waiting, ws.locale, "csrf-token-value", "owner"))
    return stdlib_html.unescape(re.sub(r"<style>.*?</style>|<[^>]+>", " ", page, flags=re.S))


def _waiting(ws: Workspace) -> list[Proposal]:
    return proposals.list_proposals(ws, include_decided=False).proposals


def test_no_surface_shows_an_inside_word_for_a_held_week(
    held: tuple[Workspace, ReviewWeek],
) -> None:
    ws, _ = held
    waiting = _waiting(ws)
    assert owner_leaks(_console(ws), cli=True) == {}
    for screen in _chat(ws):
        assert owner_leaks(screen) == {}, screen
    assert owner_leaks(_page(ws, waiting)) == {}
    assert owner_leaks(proposals_text(ws.locale, waiting), cli=True) == {}


def test_the_default_channel_reads_each_change_as_the_queue_describes_it(
    held: tuple[Workspace, ReviewWeek],
) -> None:
    ws, _ = held
    out = io.StringIO()
    channel = channel_from_config(ws, decider=QueueDecider(ws), stream=out, env={})
    assert isinstance(channel, ConsoleChannel)
    channel.send(_announcement(ws))
    who = {"vi": "Người đề xuất: lần cô đọng hằng tuần", "en": "Proposed by: the weekly"}
    assert out.getvalue().count(who[ws.locale]) == len(_announcement(ws).items)
    assert out.getvalue() == _console(ws)


def _marker(p: Proposal) -> str:
    """Words of the change every surface shows, even cut: the start both its sides share."""
    sides = [str(p.change.get(k) or "").split("\n")[0][14:] for k in ("old", "new")]
    sides = [side for side in sides if side]
    shared = sides[0]
    for side in sides[1:]:
        n = next((i for i, (a, b) in enumerate(zip(shared, side, strict=False)) if a != b), 99)
        shared = shared[: min(n, len(side))]
    return shared[:12]


def _in_order(text: str, markers: list[str]) -> bool:
    """Whether `markers` appear in `text` one after the other."""
    at = 0
    for marker in markers:
        at = text.find(marker, at)
        if at < 0:
            return False
        at += len(marker)
    return True


def test_every_surface_orders_the_week_riskiest_first_the_same_way(
    held: tuple[Workspace, ReviewWeek],
) -> None:
    ws, _ = held
    waiting = _waiting(ws)
    announced = {i.proposal_id for i in _announcement(ws).items}
    order = [p for p in review_order(waiting) if p.id in announced]
    risks = [risk_of(p) for p in order]
    assert risks == sorted(risks) and risks[0] == 0
    markers = [_marker(p) for p in order]
    for text in (_console(ws), _page(ws, waiting), proposals_text(ws.locale, waiting)):
        assert _in_order(text, markers), (markers, text)
    lines = [m for p, m in zip(order, markers, strict=True) if p.change.get("class") != "archive"]
    chat = _chat(ws)
    assert _in_order(chat[0], lines) and not _in_order(chat[0], lines[::-1])
    assert _in_order("\n".join(chat[1:]), markers)


def test_every_surface_gives_a_removal_its_reason_and_cites_no_removed_line(
    held: tuple[Workspace, ReviewWeek],
) -> None:
    ws, week = held
    waiting = _waiting(ws)
    reasons = ("trùng với dòng về món ăn", "không còn đúng nữa")
    chat = "\n".join(_chat(ws))
    for text in (_console(ws), chat, _page(ws, waiting), proposals_text(ws.locale, waiting)):
        for reason in reasons:
            assert reason in text
    for p in (p for p in waiting if p.kind == "memory"):
        for source in where_from(p):
            assert source.kind != "memory"
            assert source.text not in (SHRIMP, FISH, SHRIMP[14:], FISH[14:])
    archive = proposals.get_proposal(ws, week.archive)
    assert archive.why is None  # an archive's reason is its size's, never a removal's


@pytest.mark.parametrize("locale", ["vi", "en"])
def test_a_hidden_character_shows_made_visible_on_every_surface(locale: str) -> None:
    now = datetime(2026, 11, 29, 7, 5, tzinfo=UTC)
    line = "- 2026-11-28: Lan\u202e thích trà\u200b"
    p = Proposal(
        id="5e1f00aa11",
        kind="memory",
        change={"class": "edited", "old": "- 2026-11-01: Lan thích trà", "new": line},
        reason="held",
        origin="condense:2026-W48",
        created_at=now,
        status="pending",
        content_hash="h",
    )
    item = NotificationItem(p.id, "h", "edited", p.change["old"], line, "r", risk=3)
    note = Notification("n", "t", "", (item,))
    surfaces = [
        console_text(note, locale),
        review_item_text(note, 0, locale),
        review_text(note, locale),
        _page_of(p, locale),
        proposals_text(locale, [p]),
    ]
    for text in surfaces:
        assert "⟨U+202E⟩" in text and "⟨U+200B⟩" in text, text
        assert "\u202e" not in text and "\u200b" not in text


def _page_of(p: Proposal, locale: str) -> str:
    return stdlib_html.unescape(str(queue_page([p], locale, "csrf", "owner")))


# ---- where a change came from -----------------------------------------------------------------


@given(st.text(max_size=30), st.text(max_size=30))
def test_a_stored_source_is_cited_only_when_it_shares_words_with_the_change(
    new: str, source: str
) -> None:
    from trinho.condense.rules.explain import related

    p = Proposal(
        id="p1",
        kind="memory",
        change={"class": "added", "old": None, "new": new or "x"},
        reason="r",
        origin="condense:2026-W48",
        created_at=datetime(2026, 11, 29, tzinfo=UTC),
        status="pending",
        content_hash="h",
        sources=(
            Source("memory", "MEMORY.md#L3", new or "x"),
            Source("note", "memory/2026-11-28.md#09:00", source),
        ),
    )
    cited = where_from(p)
    assert all(s.kind != "memory" for s in cited)
    assert (len(cited) == 1) == related(source, new or "x")
