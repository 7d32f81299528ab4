"""The listing of a suspicious rewrite: what it would remove and add, agreeing with the gate."""

from __future__ import annotations

from datetime import date

from hypothesis import given
from hypothesis import strategies as st

from trinho.channels import Notification, NotificationItem
from trinho.channels.render import TELEGRAM_LIMIT, item_text, text_length
from trinho.condense.rules.gate import gate
from trinho.condense.rules.loss import SHOWN_LINES, rewrite_loss, suspicious_sides

TODAY, SINCE = date(2026, 11, 29), date(2026, 11, 23)

OLD = """\
# Memory
Hand-written: keep these lines.
- 2026-03-02: Likes white lotus
- 2026-05-10: Daughter Mai, third grade
- 2026-06-01: Works in Đà Nẵng
"""


def test_lists_removed_and_edited_lines_in_file_order_and_the_added_ones() -> None:
    new = "# Memory\n- 2026-06-01: Works in Đà Nẵng, at the port\n- 2026-11-28: Started swimming\n"
    loss = rewrite_loss(OLD, new)
    assert loss.removed == (
        "Hand-written: keep these lines.",
        "- 2026-03-02: Likes white lotus",
        "- 2026-05-10: Daughter Mai, third grade",
        "- 2026-06-01: Works in Đà Nẵng",
    )
    assert loss.added == (
        "- 2026-06-01: Works in Đà Nẵng, at the port",
        "- 2026-11-28: Started swimming",
    )
    assert loss.total == 4


def test_a_few_lines_shown_and_the_rest_counted_in_english_and_vietnamese() -> None:
    old = "".join(f"- 2026-0{1 + i % 9}-1{i % 10}: thing number {i}\n" for i in range(12))
    [change] = gate(old, "I cannot do that.", TODAY, SINCE).changes
    removed, added = suspicious_sides(change.to_dict(), "en")
    assert removed.splitlines()[0] == "would remove 12 of 12 lines:"
    assert len(removed.splitlines()) == 1 + SHOWN_LINES + 1
    assert removed.splitlines()[-1] == "  … and 7 more"
    assert added == "would add 1 line:\n  I cannot do that."
    removed_vi, added_vi = suspicious_sides(change.to_dict(), "vi")
    assert removed_vi.splitlines()[-1] == "  … và 7 dòng nữa"
    assert added_vi.startswith("sẽ thêm 1 dòng:")


def test_a_huge_memory_md_still_fits_one_telegram_message() -> None:
    line = "- 2026-01-01: " + "đ" * 3000 + " 🎉"
    old = "\n".join(f"{line} {i}" for i in range(400))
    [change] = gate(old, "\n".join(f"{line} new {i}" for i in range(400)), TODAY, SINCE).changes
    assert change.cls == "suspicious"
    removed, added = suspicious_sides(change.to_dict(), "vi")
    item = NotificationItem("p1", "h", "suspicious", removed, added, change.reason_in("vi"))
    screen = item_text(Notification("condense:2026-W48", "t", "s", (item,)), 0, "vi")
    assert text_length(screen) <= TELEGRAM_LIMIT
    assert "… và 395 dòng nữa" in screen and "sẽ thêm" in screen


entries = st.lists(
    st.sampled_from(["likes tea", "has two cats", "sống ở Hà Nội", "dị ứng tôm", "Đi bơi"]),
    max_size=8,
)


@given(entries, entries, st.booleans())
def test_the_listing_counts_what_the_gate_counts(
    old: list[str], new: list[str], hand: bool
) -> None:
    old_text = "\n".join(
        [*(["Hand note"] if hand else []), *(f"- 2026-11-2{i % 9}: {x}" for i, x in enumerate(old))]
    )
    new_text = "\n".join(f"- 2026-11-2{i % 9}: {x}" for i, x in enumerate(new))
    loss = rewrite_loss(old_text, new_text)
    [*_, last] = gate(old_text, new_text, TODAY, SINCE).changes or [None]
    if last is not None and last.cls == "suspicious":
        assert dict(last.reason_params) == {"lost": len(loss.removed), "total": loss.total}
    assert set(loss.removed) <= set(old_text.splitlines())
    assert set(loss.added) <= set(new_text.splitlines())
