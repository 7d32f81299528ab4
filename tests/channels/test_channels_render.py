"""Announcement text: counts per class, old -> new screens, the owner's locale, Telegram's limit."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from trinho.channels import Notification, NotificationItem
from trinho.channels.render import (
    TELEGRAM_LIMIT,
    clip,
    console_text,
    item_text,
    kind_counts,
    split_text,
    summary_text,
    text_length,
)


def item(
    kind: str, old: str | None = "- 2026-11-01: old", new: str | None = None
) -> NotificationItem:
    return NotificationItem(f"p-{kind}-{old!s:.3}", "h", kind, old, new, "the week says so")


def test_summary_counts_each_class_in_a_fixed_order() -> None:
    note = Notification(
        "condense:2026-W48",
        "Weekly condensation 2026-W48",
        "",
        (item("edited"), item("removed"), item("removed"), item("zzz"), item("strange_date")),
    )
    text = summary_text(note, "en")
    assert text.splitlines() == [
        "Weekly condensation 2026-W48",
        "",
        "5 changes wait for your approval:",
        "- lines removed: 2",
        "- lines edited: 1",
        "- strange dates: 1",
        "- other (zzz): 1",
    ]
    assert kind_counts(note.items)[0] == ("removed", 2)


def test_summary_in_vietnamese() -> None:
    note = Notification("digest:2026-11-29", "Tóm tắt ngày", "", (item("fact"),))
    text = summary_text(note, "vi")
    assert "1 thay đổi đang chờ bạn duyệt:" in text
    assert "- thay đổi dữ kiện: 1" in text
    empty = Notification("digest:2026-11-30", "Tóm tắt ngày", "")
    assert "Không có gì đang chờ bạn duyệt." in summary_text(empty, "vi")


def test_item_screen_shows_old_new_and_reason() -> None:
    edit = NotificationItem(
        "p-7", "h", "edited", "- 2026-11-01: ở Hà Nội", "- 2026-11-28: ở Đà Nẵng", "chuyển nhà"
    )
    note = Notification("condense:2026-W48", "t", "", (item("removed"), edit))
    assert item_text(note, 1, "en").splitlines() == [
        "Change 2 of 2: lines edited",
        "Old: - 2026-11-01: ở Hà Nội",
        "New: - 2026-11-28: ở Đà Nẵng",
        "Reason: chuyển nhà",
        "To decide: trinho approve p-7 (or trinho reject p-7)",
    ]
    assert "Mới: (không có)" in item_text(note, 0, "vi")


def test_console_text_lists_every_change_riskiest_first_and_how_to_decide_each() -> None:
    edit = NotificationItem("p-e", "h", "edited", "- a", "- b", "r", risk=3, who="the weekly run")
    removal = NotificationItem("p-r", "h", "removed", "- c", None, "r. Its own: “gone”", risk=0)
    note = Notification("condense:2026-W48", "Weekly", "", (edit, removal))
    text = console_text(note, "en")
    first, second = text.index("Change 1 of 2: lines removed"), text.index("Change 2 of 2")
    assert first < text.index("trinho approve p-r") < second < text.index("trinho approve p-e")
    assert "Reason: r. Its own: “gone”" in text and "Proposed by: the weekly run" in text


long_text = st.text(
    alphabet=st.sampled_from(["a", "đ", "Ư", "ế", "😀", " ", "\n", "x"]), max_size=9000
)


@settings(max_examples=40, deadline=None)
@given(title=long_text, summary=long_text, old=long_text, new=long_text, reason=long_text)
def test_every_telegram_text_fits_the_limit(
    title: str, summary: str, old: str, new: str, reason: str
) -> None:
    note = Notification(
        "condense:2026-W48",
        title,
        summary,
        (NotificationItem("p-1", "h", "edited", old, new, reason),),
    )
    summary_msg = summary_text(note, "vi")
    assert text_length(summary_msg) <= TELEGRAM_LIMIT
    assert "1 thay đổi đang chờ bạn duyệt:" in summary_msg  # the counts are never cut
    screen = item_text(note, 0, "en")
    assert text_length(screen) <= TELEGRAM_LIMIT
    assert screen.startswith("Change 1 of 1: lines edited\nOld: ")


@given(text=long_text, limit=st.integers(min_value=1, max_value=5000))
def test_clip_fits_and_keeps_a_prefix(text: str, limit: int) -> None:
    out = clip(text, limit, "en")
    assert text_length(out) <= limit
    if text_length(text) <= limit:
        assert out == text
    else:
        kept = out.removesuffix(" … (cut)")
        assert text.startswith(kept)


@given(text=long_text, limit=st.integers(min_value=2, max_value=500))
def test_split_text_fits_and_loses_nothing(text: str, limit: int) -> None:
    chunks = split_text(text, limit)
    assert all(text_length(chunk) <= limit for chunk in chunks)
    assert "".join(chunks).replace("\n", "") == text.replace("\n", "")


# --- the review: one line per change, what still waits, the tally ---------------------------

from trinho.channels.render import (  # noqa: E402
    ONE_AT_A_TIME_RISKS,
    bulk_indices,
    item_risk,
    keep_indices,
    pending_indices,
    review_indices,
    review_text,
    shown_item,
)
from trinho.channels.screen import change_lines  # noqa: E402

_STATES = st.sampled_from(["pending", "approved", "rejected", "stale"])
_ITEMS = st.lists(
    st.builds(
        NotificationItem,
        st.uuids().map(lambda u: u.hex[:10]),
        st.just("h"),
        st.sampled_from(["removed", "edited", "archive", "fact", "malformed", "suspicious"]),
        st.none() | st.text(min_size=1, max_size=40),
        st.none() | st.text(min_size=1, max_size=40),
        st.just("why"),
        st.none() | st.integers(0, 4),
    ),
    max_size=12,
    unique_by=lambda i: i.proposal_id,
)


@settings(max_examples=60)
@given(_ITEMS, st.lists(_STATES, min_size=12, max_size=12), st.sampled_from(["en", "vi"]))
def test_the_list_counts_only_what_still_waits_and_bulk_never_holds_a_risky_change(
    items: list[NotificationItem], picked: list[str], locale: str
) -> None:
    note = Notification("digest:2026-11-29", "Title", "7 changes wait.", tuple(items))
    states = {i.proposal_id: s for i, s in zip(items, picked, strict=False)}
    waiting = pending_indices(note, states)
    text = review_text(note, locale, states)
    bulk = bulk_indices(note, states, text)
    assert set(bulk) <= set(keep_indices(note, states, text)) <= set(waiting)
    assert all(item_risk(items[i]) not in ONE_AT_A_TIME_RISKS for i in bulk)
    assert all(items[i].old is None or items[i].kind == "fact" for i in bulk)
    assert all(change_lines(shown_item(items[i])) for i in bulk)  # every line of it on screen
    risks = [item_risk(items[i]) for i in review_indices(note)]
    assert risks == sorted(risks)
    assert text_length(text) <= TELEGRAM_LIMIT
    decided = len(waiting) < len(items)
    if decided:  # the announcement's own count is of what waited then: not shown any more
        assert "7 changes wait." not in text
    if items and not waiting:
        assert "Review finished" in text or "Đã xem xong" in text


def test_the_review_ends_with_a_tally_in_the_owners_language() -> None:
    note = Notification(
        "digest:2026-11-29",
        "Changes",
        "",
        (item("removed"), item("edited", new="- 2026-11-02: new"), item("fact", None, "x")),
    )
    states = {note.items[0].proposal_id: "rejected", note.items[1].proposal_id: "approved",
              note.items[2].proposal_id: "stale"}  # fmt: skip
    vi = review_text(note, "vi", states)
    assert "Đã xem xong: 1 đã duyệt, 1 giữ nguyên, 1 còn lại." in vi
    assert "↩️ Xoá: - 2026-11-01: old (đã giữ nguyên)" in vi
    en = review_text(note, "en", {note.items[1].proposal_id: "approved"})
    assert "2 of 3 changes still wait for you:" in en
