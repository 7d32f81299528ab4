"""A Vietnamese week that leaves the owner something to review: five held MEMORY.md changes
(two removals, two edits, an archive of five lines) and three fact proposals (one would replace
what the owner said with an inference), made by the real condensation and the real facts store.

Shared by the review page's tests and `bench/web_screenshots.py`, which photographs it.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from condense_weeks import NOW, fill_week, two_roles
from trinho.channels import ConsoleChannel
from trinho.condense import RunReport, run_condensation
from trinho.facts.store import save_fact
from trinho.proposals import store as proposals
from trinho.proposals.store import Source
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


def rewrite() -> str:
    """The model's MEMORY.md: two lines dropped, two edited, nothing added."""
    return (
        MEMORY.replace(SHRIMP + "\n", "")
        .replace(FISH + "\n", "")
        .replace(RUNNING, RUNNING_NOW)
        .replace(ENGLISH, ENGLISH_NOW)
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

    @property
    def all_ids(self) -> tuple[str, ...]:
        return (*self.removals, *self.edits, self.archive, self.coffee, *self.facts)


def review_workspace(root: Path, clock: Clock, locale: str = "vi") -> Workspace:
    """A new workspace at `root` in Asia/Ho_Chi_Minh, in `locale`, with the week's budget."""
    ws = init_workspace(root, timezone="Asia/Ho_Chi_Minh", locale=locale, clock=clock).workspace
    config = ws.internal / "config.toml"
    config.write_text(
        config.read_text(encoding="utf-8") + f"\n[context]\nmemory_tokens = {BUDGET}\n",
        encoding="utf-8",
    )
    return open_workspace(ws.root, clock)


def review_week(ws: Workspace, clock: Any) -> ReviewWeek:
    """Fill `ws` with the week, run the condensation, and propose three facts."""
    clock.set("2026-11-20T09:00:00+07:00")
    save_fact(ws, "do-uong-buoi-sang", "cà phê sữa đá", actor="owner", basis="user")
    fill_week(ws, clock, MEMORY, NOTES, TURNS)
    clock.set(NOW)
    channel = ConsoleChannel(ws.locale, io.StringIO())
    report = run_condensation(ws, model=two_roles(rewrite()), channel=channel)
    coffee = save_fact(
        ws, "do-uong-buoi-sang", "flat white", actor="chat", basis="inferred", origin="agent:main"
    )
    city = save_fact(ws, "thanh-pho", "Đà Nẵng", actor="job", basis="inferred", origin="job:facts")
    swim = save_fact(
        ws, "the-thao-cua-mai", "bơi", user="mai", actor="job", basis="inferred", origin="job:facts"
    )
    by_class: dict[str, list[str]] = {}
    for held in report.held:
        assert held.proposal_id is not None
        by_class.setdefault(held.change.cls, []).append(held.proposal_id)
    facts = [s.proposal.id for s in (coffee, city, swim) if s.proposal is not None]
    week = ReviewWeek(
        report,
        tuple(by_class.get("removed", [])),
        tuple(by_class.get("edited", [])),
        by_class["archive"][0],
        facts[0],
        tuple(facts[1:]),
    )
    assert len(week.removals) == 2 and len(week.edits) == 2 and len(facts) == 3
    for pid in week.all_ids:
        annotate(ws, pid, *WHY.get(_what(ws, pid), (None, ())))
    return week


WHY: dict[str, tuple[str | None, tuple[Source, ...]]] = {
    SHRIMP: ("trùng với dòng về món ăn", ()),
    FISH: ("không còn đúng", ()),
    RUNNING: (
        "thêm buổi chạy sáng thứ Tư",
        (Source("turn", "conversations/2026-11-27.jsonl#1", TURNS[0][2]),),
    ),
    ENGLISH: (
        "lịch học mới",
        (Source("note", "memory/2026-11-28.md#21:00", NOTES[3][1]),),
    ),
    "flat white": (
        "bạn uống flat white ở sân bay",
        (Source("note", "memory/2026-11-25.md#07:30", NOTES[1][1]),),
    ),
    "bơi": (None, (Source("note", "memory/2026-11-24.md#08:10", NOTES[0][1]),)),
}
"""The proposer's own reason and sources, by the line or value each change is about."""


def _what(ws: Workspace, pid: str) -> str:
    change = proposals.get_proposal(ws, pid).change
    return str(change.get("old") if change.get("old") is not None else change.get("value"))


def annotate(ws: Workspace, pid: str, why: str | None, sources: tuple[Source, ...]) -> None:
    """Give a stored proposal the reason and sources its proposer gave (neither is part of its
    content hash), as the file format keeps them."""
    if why is None and not sources:
        return
    path = proposals.proposal_path(ws, pid)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["why"] = why
    data["sources"] = [source.to_json() for source in sources]
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
