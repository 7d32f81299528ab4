"""Realistic weeks for condensation tests, and a scripted model that plays the two roles.

The workspace fixture's clock stands at 2026-11-29 14:05 in Asia/Ho_Chi_Minh, a Sunday: the
run is ISO week 2026-W48 and its window is 2026-11-23..2026-11-29.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

from trinho.condense.rules.rewrite import MEMORY_BEGIN, MEMORY_END
from trinho.conversations.store import record_turn
from trinho.models import ChatRequest, ChatResponse, ScriptedModel
from trinho.notes.store import save_note
from trinho.workspace import Workspace

VI_MEMORY = """\
# Trí nhớ dài hạn

Dòng viết tay: đừng xoá những dòng này.

## Gia đình
- 2026-03-02: Mẹ thích hoa sen trắng; sinh nhật mẹ là ngày 12/3
- 2026-05-10: Con gái tên Mai, học lớp ba
## Công việc và thói quen
- 2026-06-01: Làm việc tại công ty hậu cần ở Đà Nẵng
- 2026-09-14: Dị ứng tôm
- 2026-10-20: Chạy bộ mỗi sáng chủ nhật
- 2026-11-01: Thích uống cà phê sữa đá buổi sáng
"""

VI_NOTES = [
    ("2026-11-24T08:10:00+07:00", "Mai được chọn vào đội bơi của trường"),
    ("2026-11-26T19:30:00+07:00", "Chuyển sang uống trà xanh, bỏ cà phê sữa đá"),
    ("2026-11-28T21:00:00+07:00", "Hẹn ngân hàng thứ Ba 1/12 bàn khoản vay mua nhà"),
    ("2026-11-29T07:00:00+07:00", "Sáng nay vẫn chạy bộ 5 km"),
]
VI_TURNS = [
    ("2026-11-27T20:00:00+07:00", "user", "Nhắc tôi gọi cho anh Đức về hợp đồng"),
    ("2026-11-27T20:00:05+07:00", "assistant", "Được, tôi sẽ nhắc bạn."),
]

EN_MEMORY = """\
# Long-term memory

Written by hand: keep these lines.

## People
- 2026-02-11: Sister Anna lives in Lisbon
- 2026-04-03: Best friend is Tom, a nurse
## Habits
- 2026-07-19: Prefers meetings after 10am, never on Fridays
- 2026-08-30: Plays tennis on Wednesday evenings
- 2026-10-05: Allergic to penicillin
- 2026-11-02: Reads history books before bed
"""

EN_NOTES = [
    ("2026-11-23T09:00:00+07:00", "Anna is moving from Lisbon to Porto in January"),
    ("2026-11-25T18:40:00+07:00", "Started learning Vietnamese, two lessons a week"),
    ("2026-11-27T12:15:00+07:00", "Lunch was pho again"),
]
EN_TURNS = [
    ("2026-11-28T10:00:00+07:00", "user", "Book the dentist for next Thursday at 9"),
    ("2026-11-28T10:00:03+07:00", "assistant", "Done: dentist on Thursday at 9:00."),
]

RUN = "2026-W48"
NOW = "2026-11-29T14:05:00+07:00"


def fill_week(
    ws: Workspace,
    clock: object,
    memory: str,
    notes: list[tuple[str, str]],
    turns: list[tuple[str, str, str]],
) -> None:
    """Write MEMORY.md, save each note at its time, record each turn; the clock ends at NOW."""
    ws.memory_file.write_text(memory, encoding="utf-8")
    for at, text in notes:
        clock.set(at)  # type: ignore[attr-defined]
        save_note(ws, text)
    for at, role, text in turns:
        record_turn(ws, role, text, at=datetime.fromisoformat(at))
    clock.set(NOW)  # type: ignore[attr-defined]


def busy_week(ws: Workspace, clock: object, run_at: str) -> None:
    """VI_MEMORY and twelve notes a day for the whole week; the clock ends at `run_at`."""
    ws.memory_file.write_text(VI_MEMORY, encoding="utf-8")
    for day in range(23, 30):
        for hour in range(8, 20):
            clock.set(f"2026-11-{day}T{hour:02d}:00:00+07:00")  # type: ignore[attr-defined]
            save_note(ws, f"Ghi chú ngày {day} lúc {hour} giờ: đi chợ mua rau và trái cây tươi")
    clock.set(run_at)  # type: ignore[attr-defined]


VI_ADDED = [
    "- 2026-11-24: Mai được chọn vào đội bơi của trường",
    "- 2026-11-28: Hẹn ngân hàng thứ Ba 2026-12-01 bàn khoản vay mua nhà",
]


def vi_good_rewrite() -> str:
    text = VI_MEMORY.replace(
        "- 2026-10-20: Chạy bộ mỗi sáng chủ nhật", "- 2026-11-29: Chạy bộ mỗi sáng chủ nhật"
    )
    return (
        text.replace(
            "- 2026-05-10: Con gái tên Mai, học lớp ba\n",
            "- 2026-05-10: Con gái tên Mai, học lớp ba\n" + VI_ADDED[0] + "\n",
        )
        + VI_ADDED[1]
        + "\n"
    )


def vi_week(ws: Workspace, clock: object) -> None:
    fill_week(ws, clock, VI_MEMORY, VI_NOTES, VI_TURNS)


def en_week(ws: Workspace, clock: object) -> None:
    fill_week(ws, clock, EN_MEMORY, EN_NOTES, EN_TURNS)


def is_rewrite(request: ChatRequest) -> bool:
    return request.messages[0].text.startswith(("You maintain MEMORY.md", "You update MEMORY.md"))


def memory_in(request: ChatRequest) -> str:
    """The MEMORY.md a rewrite request carries: as it is (protocol `file`, in the user
    message) or numbered (protocol `ops`, in the system message)."""
    body = request.messages[-1].text
    if MEMORY_BEGIN + "\n" not in body:
        body = request.messages[0].text
    start = body.index(MEMORY_BEGIN + "\n") + len(MEMORY_BEGIN) + 1
    end = body.index("\n" + MEMORY_END)
    shown = body[start:end]
    if body is request.messages[0].text:
        shown = "\n".join(re.sub(r"^\[[0-9]+\] ?", "", line) for line in shown.split("\n"))
    return shown + "\n"


def numbered(request: ChatRequest) -> list[str]:
    """The candidate lines of a screening request, in order."""
    return re.findall(r"^\d+\. (.*)$", request.messages[-1].text, re.MULTILINE)


def accept_all(request: ChatRequest) -> str:
    return "\n".join(f"{n}. ACCEPT" for n in range(1, len(numbered(request)) + 1))


Answer = str | ChatResponse | Callable[[ChatRequest], str | ChatResponse]


def two_roles(rewrite: Answer, screen: Answer = accept_all) -> ScriptedModel:
    """A scripted model answering rewrite requests with `rewrite`, screening with `screen`."""

    def reply(request: ChatRequest) -> str | ChatResponse:
        answer = rewrite if is_rewrite(request) else screen
        return answer(request) if callable(answer) else answer

    return ScriptedModel(reply)


def calls(model: ScriptedModel) -> tuple[int, int]:
    """(rewrite calls, screening calls) the model received."""
    rewrites = sum(is_rewrite(r) for r in model.requests)
    return rewrites, len(model.requests) - rewrites
