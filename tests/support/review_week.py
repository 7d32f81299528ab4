"""A Vietnamese week that leaves the owner something to review: five held MEMORY.md changes
(two removals, two edits, an archive of five lines) and three fact proposals (one would replace
what the owner said with an inference), made by the real condensation and the real facts store.

Shared by the review page's tests and `bench/web_screenshots.py`, which photographs it.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from support.condense_weeks import NOW, fill_week, two_roles
from trinho.channels import ConsoleChannel
from trinho.condense import RunReport, run_condensation
from trinho.facts.store import save_fact
from trinho.proposals.format import Source
from trinho.workspace import Clock, Workspace, init_workspace, open_workspace

MEMORY = """\
# Trí nhớ dài hạn

Dòng viết tay: đừng xoá những dòng này.

## Gia đình
- 2026-01-04: Bố mẹ sống ở Huế, gọi điện mỗi tối thứ Bảy
- 2026-01-18: Anh trai Minh làm bác sĩ ở Sài Gòn
- 2026-02-02: Tết năm nay về quê ở Huế ba ngày
- 2026-02-20: Mẹ thích hoa sen trắng; sinh nhật mẹ là ngày 12/3
- 2026-03-08: Vợ tên Lan, thích đọc tiểu thuyết trinh thám
- 2026-05-10: Con gái tên Mai, học lớp ba
## Sức khoẻ và thói quen
- 2026-06-01: Làm việc tại công ty hậu cần ở Đà Nẵng
- 2026-07-12: Dị ứng tôm
- 2026-08-03: Uống cà phê sữa đá mỗi sáng
- 2026-09-14: Thích ăn bún chả cá
- 2026-10-20: Chạy bộ mỗi sáng chủ nhật
- 2026-11-01: Học tiếng Anh hai buổi một tuần
"""

NOTES = [
    ("2026-11-24T08:10:00+07:00", "Mai được chọn vào đội bơi của trường"),
    ("2026-11-25T07:30:00+07:00", "Uống một ly flat white ở sân bay"),
    ("2026-11-26T19:30:00+07:00", "Lan bắt đầu học vẽ màu nước vào tối thứ Tư"),
    ("2026-11-28T21:00:00+07:00", "Chuyển sang học tiếng Anh ba buổi một tuần"),
]
TURNS = [
    ("2026-11-27T20:00:00+07:00", "user", "Từ tuần sau tôi chạy bộ cả sáng thứ Tư nữa"),
    ("2026-11-27T20:00:05+07:00", "assistant", "Được, tôi sẽ ghi nhớ."),
]

WORK = "- 2026-06-01: Làm việc tại công ty hậu cần ở Đà Nẵng"
SHRIMP = "- 2026-07-12: Dị ứng tôm"
FISH = "- 2026-09-14: Thích ăn bún chả cá"
RUNNING = "- 2026-10-20: Chạy bộ mỗi sáng chủ nhật"
RUNNING_NOW = "- 2026-11-27: Chạy bộ mỗi sáng chủ nhật; và sáng thứ Tư"
ENGLISH = "- 2026-11-01: Học tiếng Anh hai buổi một tuần"
ENGLISH_NOW = "- 2026-11-28: Học tiếng Anh ba buổi một tuần"
ARCHIVED = (
    "- 2026-01-04: Bố mẹ sống ở Huế, gọi điện mỗi tối thứ Bảy",
    "- 2026-01-18: Anh trai Minh làm bác sĩ ở Sài Gòn",
    "- 2026-02-02: Tết năm nay về quê ở Huế ba ngày",
    "- 2026-02-20: Mẹ thích hoa sen trắng; sinh nhật mẹ là ngày 12/3",
    "- 2026-03-08: Vợ tên Lan, thích đọc tiểu thuyết trinh thám",
)
BUDGET = 140
"""`[context] memory_tokens` for the week: the rewrite is over it by five entries' worth."""


def _line(text: str) -> int:
    return MEMORY.split("\n").index(text) + 1


HEADING = "# Trí nhớ dài hạn"
HEADING_NOW = "# Trí nhớ dài hạn của tôi"
HIDDEN = "- 2026-11-26: Lan học vẽ màu nước \u202evào tối thứ Tư"
"""A new line holding a right-to-left override: held, and shown as `⟨U+202E⟩`."""
EARLY = "- 2026-03-01: Mai thích vẽ tranh"
"""A new line dated before the week read: held for its date."""
MORE = (f"EDIT [{_line(HEADING)}] {HEADING_NOW}", f"ADD {HIDDEN}", f"ADD {EARLY}")
"""What `review_week(..., more=MORE)` adds to the model's answer: a heading edited and two
additions the gate holds (one for an invisible character, one for its date)."""


def edit_script(more: Sequence[str] = ()) -> str:
    """The model's answer, as an edit script on the numbered MEMORY.md: two lines removed
    (with its reasons), two edited, nothing added; then `more`."""
    return "\n".join(
        [
            f"REMOVE [{_line(SHRIMP)}] trùng với dòng về món ăn",
            f"REMOVE [{_line(FISH)}] không còn đúng nữa",
            f"EDIT [{_line(RUNNING)}] {RUNNING_NOW}",
            f"EDIT [{_line(ENGLISH)}] {ENGLISH_NOW}",
            *more,
        ]
    )


@dataclass(frozen=True)
class ReviewWeek:
    """What waits after the week: the run and every proposal's id, by what it is."""

    report: RunReport
    removals: tuple[str, ...]
    edits: tuple[str, ...]
    archive: str
    coffee: str
    facts: tuple[str, ...]
    others: tuple[str, ...] = ()
    """The held changes of `more`: a heading edited, the additions."""

    @property
    def all_ids(self) -> tuple[str, ...]:
        return (*self.removals, *self.edits, self.archive, self.coffee, *self.facts, *self.others)


def review_workspace(root: Path, clock: Clock, locale: str = "vi") -> Workspace:
    """A new workspace at `root` in Asia/Ho_Chi_Minh, in `locale`, with the week's budget."""
    ws = init_workspace(root, timezone="Asia/Ho_Chi_Minh", locale=locale, clock=clock).workspace
    config = ws.internal / "config.toml"
    config.write_text(
        config.read_text(encoding="utf-8") + f"\n[context]\nmemory_tokens = {BUDGET}\n",
        encoding="utf-8",
    )
    return open_workspace(ws.root, clock)


def review_week(ws: Workspace, clock: Any, more: Sequence[str] = ()) -> ReviewWeek:
    """Fill `ws` with the week, run the condensation (its answer ending with `more`), and
    propose three facts."""
    clock.set("2026-11-20T09:00:00+07:00")
    save_fact(ws, "do-uong-buoi-sang", "cà phê sữa đá", actor="owner", basis="user")
    fill_week(ws, clock, MEMORY, NOTES, TURNS)
    clock.set(NOW)
    channel = ConsoleChannel(ws.locale, io.StringIO())
    report = run_condensation(ws, model=two_roles(edit_script(more)), channel=channel)
    coffee = save_fact(
        ws,
        "do-uong-buoi-sang",
        "flat white",
        actor="chat",
        basis="inferred",
        origin="agent:main",
        why="bạn uống flat white ở sân bay",
        sources=[Source.quoted("note", "memory/2026-11-25.md#07:30", NOTES[1][1])],
    )
    city = save_fact(
        ws,
        "thanh-pho",
        "Đà Nẵng",
        actor="job",
        basis="inferred",
        origin="job:facts",
        sources=[Source.quoted("memory", f"MEMORY.md#L{_line(WORK)}", WORK)],
    )
    swim = save_fact(
        ws,
        "the-thao-cua-mai",
        "bơi",
        user="mai",
        actor="job",
        basis="inferred",
        origin="job:facts",
        why="Mai vào đội bơi của trường",
        sources=[Source.quoted("note", "memory/2026-11-24.md#08:10", NOTES[0][1])],
    )
    by_class: dict[str, list[str]] = {}
    others: list[str] = []
    for held in report.held:
        assert held.proposal_id is not None
        if held.change.old is not None and held.change.old.startswith("#"):
            others.append(held.proposal_id)  # the heading, edited
        elif held.change.cls in ("edited", "removed", "archive"):
            by_class.setdefault(held.change.cls, []).append(held.proposal_id)
        else:
            others.append(held.proposal_id)
    facts = [s.proposal.id for s in (coffee, city, swim) if s.proposal is not None]
    week = ReviewWeek(
        report,
        tuple(by_class.get("removed", [])),
        tuple(by_class.get("edited", [])),
        by_class["archive"][0],
        facts[0],
        tuple(facts[1:]),
        tuple(others),
    )
    assert len(week.removals) == 2 and len(week.edits) == 2 and len(facts) == 3
    return week
