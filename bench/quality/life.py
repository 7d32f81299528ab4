"""A generated year for one owner, with the gold set's kinds of events, as gold weeks.

`Life(seed).week(n, memory)` gives week n (Monday to Sunday, condensed on the Sunday at 21:00)
as a `gold.Week` whose starting MEMORY.md is the one the replay has reached, so the same
scorer judges it. Each week draws, seeded: new durable facts about people (Vietnamese or
English, names such as Mai and Lan among them), a change to something learned before (a move,
a new job, a sport moved to another day, an allergy cleared by a doctor), an appointment said
relatively ("thứ Năm tuần sau", "next Thursday"), one-off chores, chatter and the assistant's
guesses; a few weeks are empty. A change names the line of MEMORY.md that carries the old
value, when there is one; when the model never learned it, the new value is a plain addition.

`truth()` is what holds now (the latest value of every slot and every fact learned), `stale()`
what was superseded: the replay measures how much of each MEMORY.md carries.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from quality.gold import Item, Said, Week
from quality.match import Token, carries

FIRST_MONDAY = date(2026, 1, 5)
TZ = ZoneInfo("Asia/Ho_Chi_Minh")
START = """\
# Trí nhớ dài hạn

Viết tay: những dòng không có ngày như dòng này luôn được giữ nguyên.

## Về chủ nhân
- 2025-12-01: Sống ở Hà Nội, quận Ba Đình
- 2025-12-02: Làm kế toán ở công ty Sao Mai
- 2025-12-03: Chơi cầu lông vào tối thứ Ba
- 2025-12-04: Dị ứng tôm
"""
PEOPLE: list[tuple[str, str, Token]] = [
    ("Mai", "Mai", "Mai"),
    ("chị Lan", "Lan", "Lan"),
    ("anh Đức", "Đức", "Đức"),
    ("Tom", "Tom", "Tom"),
    ("Anna", "Anna", "Anna"),
    ("bà ngoại", "Grandma", ["bà ngoại", "Grandma"]),
    ("anh Quân", "Quân", "Quân"),
    ("cô Ngân", "Ngân", "Ngân"),
]
TRAITS: list[tuple[str, str, list[Token]]] = [
    ("thích hoa sen trắng", "likes white lotus flowers", [["sen", "lotus"]]),
    ("đang học tiếng Nhật", "is learning Japanese", [["tiếng Nhật", "Japanese"]]),
    ("thích nghe nhạc Trịnh Công Sơn", "loves Trịnh Công Sơn songs", ["Trịnh"]),
    ("sợ chó to", "is afraid of big dogs", [["chó", "dogs", "dog"]]),
    ("đang tập yoga buổi sáng", "does yoga in the mornings", ["yoga"]),
    ("không ăn được cay", "cannot eat spicy food", [["cay", "spicy"]]),
    ("thích chơi cờ tướng", "plays Chinese chess", [["cờ tướng", "chess"]]),
    ("sưu tầm đĩa than", "collects vinyl records", [["đĩa than", "vinyl"]]),
    ("đang tập chạy marathon", "is training for a marathon", ["marathon"]),
    ("ăn chay", "is vegetarian", [["ăn chay", "vegetarian"]]),
    ("làm y tá ở bệnh viện C", "is a nurse at Hospital C", [["y tá", "nurse"]]),
    ("nuôi hai con mèo", "has two cats", [["mèo", "cats", "cat"]]),
    ("thích trà ô long", "likes oolong tea", [["ô long", "oolong"]]),
    ("đang học đàn piano", "is learning the piano", ["piano"]),
]
CITIES = ["Đà Nẵng", "Huế", "Hội An", "Nha Trang", "Cần Thơ", "Hà Nội"]
JOBS = [
    ("trưởng phòng sản phẩm", "Lotus Tech"),
    ("kỹ sư dữ liệu", "Tiki"),
    ("quản lý dự án", "VNG"),
]
DAYS = ["thứ Hai", "thứ Tư", "thứ Năm", "thứ Sáu", "thứ Bảy"]
CHORES: list[tuple[str, Token]] = [
    ("Nhắc mình mua sữa", "sữa"),
    ("Đổ rác trước 9 giờ tối", "đổ rác"),
    ("Nạp tiền điện thoại", "nạp tiền"),
    ("Pick up the laundry", "laundry"),
    ("Buy printer paper", "printer paper"),
    ("Call the plumber back", "plumber"),
    ("Nhắc mình trả sách thư viện", "thư viện"),
]
CHATTER: list[tuple[str, Token]] = [
    ("Hôm nay trời mưa cả ngày", "mưa"),
    ("Kẹt xe trên đường Láng", "kẹt xe"),
    ("Lunch was phở again", "phở"),
    ("Tired today, slept badly", "slept"),
    ("Xem phim tối nay khá hay", "xem phim"),
]
CHANGES = ["city", "job", "sport", "allergy"] + ["city", "job", "sport"] * 3
"""The slot that changes in weeks 4, 8, ..., 52: the allergy is cleared once."""
CLEARED: list[Token] = [["không còn dị ứng", "hết dị ứng", "không dị ứng", "not allergic"]]
GUESSES = [
    ("Chắc anh thích cà phê đen hơn nhỉ?", ["cà phê đen"]),
    ("Maybe you'd enjoy a trip to Sa Pa?", ["Sa Pa"]),
    ("Có vẻ anh sắp đổi xe máy?", ["xe máy"]),
    ("I guess you'll start a podcast one day?", ["podcast"]),
]


@dataclass
class Slot:
    """A fact that changes: its current value's line and tokens."""

    line_text: str
    need: list[Token]
    avoid: list[Token] = field(default_factory=list)
    history: list[Item] = field(default_factory=list)
    """The values it held before, as what a line carrying one holds."""


def monday(week: int) -> date:
    return FIRST_MONDAY + timedelta(weeks=week - 1)


def run_at(week: int) -> datetime:
    return datetime.combine(monday(week) + timedelta(days=6), time(21, 0), TZ)


class Life:
    """The seeded year; `week` must be called in order."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(f"life:{seed}")
        self.slots = {
            "city": Slot("Sống ở Hà Nội, quận Ba Đình", ["Hà Nội"]),
            "job": Slot("Làm kế toán ở công ty Sao Mai", ["Sao Mai"]),
            "sport": Slot("Chơi cầu lông vào tối thứ Ba", ["cầu lông", "thứ Ba"]),
            "allergy": Slot("Dị ứng tôm", ["tôm"], CLEARED),
        }
        self.facts: list[Item] = []
        self.traits = [(p, t) for p in PEOPLE for t in TRAITS]
        self.rng.shuffle(self.traits)

    def truth(self) -> list[Item]:
        """What holds now: every fact learned, and each slot's current value."""
        slots = [Item(s.line_text, tuple(s.need), tuple(s.avoid)) for s in self.slots.values()]
        return [*self.facts, *slots]

    def stale(self) -> list[Item]:
        """Values superseded during the year (the first values included)."""
        return [item for s in self.slots.values() for item in s.history]

    def week(self, number: int, memory: str) -> Week:
        rng = self.rng
        said: list[Said] = []
        learn: list[Item] = []
        resolve: list[Item] = []
        junk: list[Item] = []
        if number > 1 and rng.random() < 0.06:
            return Week(
                f"year-{number:02d}", "an empty week", "vi", memory, (), run_at=self._run(number)
            )
        for _ in range(rng.choice([1, 1, 2, 2, 3])):
            learn.append(self._person_fact(number, said))
        if number % 4 == 0 and number // 4 <= len(CHANGES):
            item = self._change(number, memory, said)
            (resolve if item.old else learn).append(item)
        if rng.random() < 0.3:
            learn.append(self._appointment(number, said))
        for _ in range(rng.choice([1, 2, 3])):
            junk.append(self._junk(number, said))
        self.facts += [i for i in learn if i.what != "slot"]
        return Week(
            f"year-{number:02d}",
            "a generated week",
            "vi",
            memory,
            tuple(sorted(said, key=lambda s: s.at)),
            tuple(learn),
            tuple(resolve),
            tuple(junk),
            run_at=self._run(number),
        )

    def _run(self, number: int) -> str:
        return run_at(number).isoformat()

    def _at(self, number: int, day: int | None = None) -> datetime:
        day = self.rng.randint(0, 5) if day is None else day
        moment = time(self.rng.randint(7, 20), self.rng.randint(0, 59))
        return datetime.combine(monday(number) + timedelta(days=day), moment, TZ)

    def _person_fact(self, number: int, said: list[Said]) -> Item:
        if not self.traits:  # a long replay: the same people and traits again
            self.traits = [(p, t) for p in PEOPLE for t in TRAITS]
            self.rng.shuffle(self.traits)
        (vi_name, en_name, name), (vi_trait, en_trait, need) = self.traits.pop()
        at = self._at(number)
        english = self.rng.random() < 0.3
        text = (
            f"{en_name} {en_trait}" if english else f"{vi_name[0].upper()}{vi_name[1:]} {vi_trait}"
        )
        said.append(Said(at, "note" if self.rng.random() < 0.7 else "user", text))
        return Item(f"- {at.date()}: {text}", (name, *need))

    def _change(self, number: int, memory: str, said: list[Said]) -> Item:
        key = CHANGES[number // 4 - 1]
        slot = self.slots[key]
        at = self._at(number)
        avoid: list[Token] = []
        need: list[Token]
        if key == "city":
            city = self.rng.choice([c for c in CITIES if [c] != slot.need])
            text, line, need = f"Đã chuyển nhà tới {city}", f"Sống ở {city}", [city]
        elif key == "job":
            role, company = self.rng.choice([j for j in JOBS if [j[1]] != slot.need])
            text = f"Bắt đầu công việc mới: {role} ở {company}"
            line, need = f"Làm {role} ở {company}", [company]
        elif key == "sport":
            day = self.rng.choice([d for d in DAYS if d not in slot.need])
            text = f"Từ tuần này chuyển lịch cầu lông sang tối {day}"
            line, need, avoid = f"Chơi cầu lông vào tối {day}", ["cầu lông", day], [slot.need[-1]]
        else:
            text = "Bác sĩ nói mình không còn dị ứng tôm nữa, ăn được bình thường"
            line, need = "Không còn dị ứng tôm", ["tôm", *CLEARED]
        said.append(Said(at, "note", text))
        old = next((raw for raw in memory.split("\n") if carries(raw, slot.need, slot.avoid)), "")
        slot.history.append(Item(slot.line_text, tuple(slot.need), tuple(slot.avoid)))
        slot.line_text, slot.need, slot.avoid = line, need, avoid
        return Item(f"- {at.date()}: {line}", tuple(need), tuple(avoid), old=old, what="slot")

    def _appointment(self, number: int, said: list[Said]) -> Item:
        at = self._at(number, self.rng.randint(0, 4))
        target = monday(number + 1) + timedelta(days=3)
        need: list[Token] = [["răng", "dentist"], f"@{target:%m-%d}"]
        if self.rng.random() < 0.5:
            text, line = (
                "Khám răng vào thứ Năm tuần sau lúc 9 giờ sáng",
                f"Khám răng ngày {target} lúc 9:00",
            )
        else:
            text, line = (
                "Dentist appointment next Thursday at 9",
                f"Dentist appointment on {target} at 9:00",
            )
        said.append(Said(at, "note", text))
        return Item(f"- {at.date()}: {line}", tuple(need))

    def _junk(self, number: int, said: list[Said]) -> Item:
        at = self._at(number)
        roll = self.rng.random()
        if roll < 0.8:
            text, token = self.rng.choice(CHORES if roll < 0.45 else CHATTER)
            said.append(Said(at, "user" if text.startswith("Nhắc") else "note", text))
            return Item(f"- {at.date()}: {text}", (token,), what="junk")
        text, need = self.rng.choice(GUESSES)
        said.append(Said(at, "user", "Tìm giúp mình một quán ăn ngon"))
        said.append(Said(at + timedelta(seconds=30), "assistant", text))
        return Item(f"- {at.date()}: {text}", tuple(need), what="guess")
