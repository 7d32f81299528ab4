"""A year of memory: an owner's weeks replayed through the real condensation, one run a week.

Usage: python bench/year.py [--weeks 52] [--seed 1] [--budget 2500] [--out bench/out] [--model]

A fresh temporary workspace (Asia/Ho_Chi_Minh, Vietnamese) lives a generated year: notes
several a day (some days none), conversation turns, facts that change (a move from Hà Nội to
Đà Nẵng, a new job, a new habit, each saved by the owner), one-off chores, durable things, a
few lines the owner types into MEMORY.md by hand, a note written on Sunday after the 21:00
run, and one week the service is down (the next run must read both weeks). Every Sunday at
21:00 `run_condensation` runs with an adversarial scripted model (seeded faults: dropped,
reworded, translated and repeated lines, dates moved earlier or into the future, chatter, a
refusal, an answer cut at the output limit, invented facts, a whole-file answer) unless
`--model` asks for the configured one (`TRINHO_MODEL`). After each run the owner approves
half of the waiting changes, rejects a fifth and leaves the rest.

The owner's time zone changes twice, by `trinho init --tz` (`init_workspace`): Asia/Ho_Chi_Minh
to America/New_York in week 6, to Europe/London in week 30, so the year crosses New York's
spring-forward night and London's fall-back night; on each such night notes are saved in the
skipped or the repeated hour. Every seventh week (from week 3) the condensation is killed at
one of its durable write points (`trinho.durable.inject`, the point drawn from the seed) and
run again by a new process, as after a kill -9. The size of `.trinho/runs` is printed, per
year.

Each week is one CSV row (`year.csv` in `--out`), the invariants included: owner lines lost
(neither in MEMORY.md, memory/archive.md nor a waiting change), duplicates written by a run,
notes and turns no run read, MEMORY.md over budget with no archive proposal waiting. The
summary is printed, and `year.png` draws four panels (docs/benchmarks.md says which colour is
which). Deterministic for a given `--seed`.
"""

from __future__ import annotations

import argparse
import csv
import io
import itertools
import random
import re
import statistics
import struct
import sys
import tempfile
import zlib
from collections import Counter
from collections.abc import Iterable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any, get_args
from zoneinfo import ZoneInfo

from trinho.channels import ConsoleChannel
from trinho.clock import resolve
from trinho.condense import run_condensation
from trinho.condense.rules.report import DayUsed, RunReport
from trinho.condense.rules.rewrite import MEMORY_BEGIN, MEMORY_END
from trinho.condense.run import run_span
from trinho.condense.store.archive import archive_answered
from trinho.condense.store.collect import collect
from trinho.condense.store.runs import pick_slot
from trinho.context.budget import estimate_tokens
from trinho.conversations.store import record_turn
from trinho.durable import FaultPoint, inject
from trinho.facts.store import save_fact
from trinho.memory import store as memory_store
from trinho.memory.format import Entry, Loose, parse, parse_line
from trinho.models import ChatModel, ChatRequest, ChatResponse, ScriptedModel, Usage
from trinho.notes.store import save_note
from trinho.proposals import store as proposals
from trinho.proposals.format import Proposal
from trinho.review.appliers import APPLIERS
from trinho.search import search
from trinho.textnorm import match_key
from trinho.workspace import Workspace, init_workspace, open_workspace

TZ = ZoneInfo("Asia/Ho_Chi_Minh")
FIRST_MONDAY = date(2026, 1, 5)
RUN_AT = time(21, 0)
AFTER_RUN = time(22, 30)
ARCHIVE = "memory/archive.md"

INITIAL_MEMORY = """\
# Trí nhớ dài hạn

Viết tay: những dòng không có ngày như dòng này luôn được giữ nguyên.

## Về chủ nhân
- 2025-11-02: Sống ở Hà Nội, quận Ba Đình
- 2025-11-15: Làm kế toán ở công ty Sao Mai
- 2025-12-01: Thích uống cà phê sữa đá buổi sáng
- 2025-12-10: Prefers meetings after 10am, never on Fridays

## Gia đình
- 2025-10-20: Con gái tên Mai, học lớp ba
- 2025-12-14: Sinh nhật mẹ là ngày 12/3
"""

PEOPLE = [
    ("Mẹ", "Mum"),
    ("Bố", "Dad"),
    ("Mai", "Mai"),
    ("Anh Đức", "Đức"),
    ("Chị Lan", "Lan"),
    ("Bà ngoại", "Grandma"),
]
TRAITS = [
    ("thích hoa sen trắng", "likes white lotus flowers"),
    ("thích ăn bún chả", "likes bún chả"),
    ("dị ứng tôm", "is allergic to shrimp"),
    ("đang học tiếng Nhật", "is learning Japanese"),
    ("thích nghe nhạc Trịnh", "likes Trịnh Công Sơn songs"),
    ("sợ chó to", "is afraid of big dogs"),
    ("hay đi chùa ngày rằm", "goes to the pagoda at full moon"),
    ("thích trà ô long", "likes oolong tea"),
    ("đang tập yoga", "is doing yoga"),
    ("muốn đi Nhật vào mùa thu", "wants to visit Japan in autumn"),
    ("không ăn cay được", "cannot eat spicy food"),
    ("thích chơi cờ tướng", "likes Chinese chess"),
]
EN_PEOPLE = ["Tom", "Anna", "My manager Hoa", "The landlord Mr Bảo", "Coach Minh"]
EN_TRAITS = [
    "prefers calls after 10am",
    "has a birthday in March",
    "is vegetarian",
    "is moving to Lisbon next year",
    "runs a bookshop in District 1",
    "plays tennis on Wednesdays",
    "collects vinyl records",
    "speaks some Vietnamese",
    "has two cats",
    "is training for a marathon",
    "owes me a dinner",
    "works night shifts",
]
CHORES = [
    "mua sữa",
    "mua rau cho bữa tối",
    "đổ rác",
    "nạp tiền điện thoại",
    "pick up the laundry",
    "buy printer paper",
    "call the plumber back",
    "return the library book",
]
SMALL_TALK = [
    "Hôm nay trời mưa cả ngày",
    "Kẹt xe trên đường Láng",
    "Lunch was phở again",
    "Tired today, slept badly",
    "Xem phim tối nay khá hay",
]
REPLIES = ["Đã ghi nhớ.", "Noted.", "Vâng, tôi hiểu rồi.", "OK!"]
HAND_LINES = [
    "Số điện thoại bác sĩ Hùng: 0905 123 456",
    "Passport renewal due in 2027",
    "Mật khẩu wifi nhà bà ngoại ở trong sổ xanh",
    "Car insurance with Bảo Việt, renew in October",
    "Mai học piano thứ Bảy lúc 9 giờ",
    "Blood type O+",
]
INVENTED = [
    "Chủ nhân có một con mèo tên Miu",
    "Owner plays the violin in a band",
    "Chủ nhân sắp chuyển ra Hà Giang",
    "Owner's brother lives in Paris",
]
PARAPHRASE = [("", " (đã xác nhận)"), ("Hình như ", ""), ("", ", as far as I know")]
CHATTER = [
    "Sure! Here are the changes for this week:",
    "Dưới đây là các thay đổi:",
    "Let me know if you need anything else.",
]
REFUSAL = "I'm sorry, but I can't help with rewriting personal memory files."


# --- the year --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Label:
    """What the generator meant an item to be, for the scripted model to read it by.

    `kind`: durable, chore, small, repeat (restates `target`), update (replaces `target`).
    """

    kind: str
    english: str = ""
    target: str = ""


@dataclass(frozen=True)
class Event:
    at: datetime
    what: str
    """note, turn (user), reply (assistant), fact, hand"""
    text: str
    key: str = ""


@dataclass(frozen=True)
class Change:
    """A fact that changes during the year: saved by the owner, and said in a note."""

    week_share: float
    key: str
    value: str
    note: str
    target: str


FACT_CHANGES = (
    Change(
        0.25,
        "home-city",
        "Đà Nẵng",
        "Đã chuyển nhà vào Đà Nẵng, sống ở quận Sơn Trà",
        "Sống ở Hà Nội, quận Ba Đình",
    ),
    Change(
        0.5,
        "job",
        "product manager at Lotus Tech",
        "Started a new job as product manager at Lotus Tech",
        "Làm kế toán ở công ty Sao Mai",
    ),
    Change(0.7, "habit", "bơi 1 km mỗi sáng", "Bắt đầu bơi 1 km mỗi sáng", ""),
)
FIRST_FACTS = (("home-city", "Hà Nội"), ("job", "kế toán ở công ty Sao Mai"))


@dataclass(frozen=True)
class Plan:
    """Which week has which set piece: scaled to the span, so a short replay has them all."""

    weeks: int
    down: int
    refusal: int
    cut: int
    whole: int

    @classmethod
    def of(cls, weeks: int) -> Plan:
        down = min(max(2, round(weeks * 0.6)), max(1, weeks - 1))
        return cls(
            weeks,
            down=down if weeks >= 3 else 0,
            refusal=max(1, round(weeks * 0.9)),
            cut=max(1, round(weeks * 0.25)),
            whole=max(1, round(weeks * 0.75)),
        )

    def fact_week(self, change: Change) -> int:
        return max(1, round(self.weeks * change.week_share))


def monday(week: int) -> date:
    return FIRST_MONDAY + timedelta(weeks=week - 1)


ZONES = ((1, "Asia/Ho_Chi_Minh"), (6, "America/New_York"), (30, "Europe/London"))
"""From which week the owner lives in which zone (`trinho init --tz` at the week's start)."""
DST_NIGHTS = {
    "America/New_York": ((date(2026, 3, 8), time(2, 30)), (date(2026, 11, 1), time(1, 30))),
    "Europe/London": ((date(2026, 3, 29), time(1, 30)), (date(2026, 10, 25), time(1, 30))),
}
"""Per zone: its spring-forward night (a note in the skipped hour) and its fall-back night
(a note in each pass of the repeated hour)."""
CRASH_EVERY, CRASH_FIRST = 7, 3


def zone_of(week: int) -> str:
    return [name for first, name in ZONES if first <= week][-1]


def local(moment: datetime, week: int) -> datetime:
    """`moment`'s wall time in the zone of `week` (the generated life keeps its habits when
    the owner moves), as an instant by trinho's rule (`trinho.clock.resolve`)."""
    zone = ZoneInfo(zone_of(week))
    instant = resolve(moment.date(), moment.time().replace(tzinfo=None), zone)
    return instant.astimezone(zone) + timedelta(microseconds=moment.microsecond)


def run_time(week: int) -> datetime:
    return local(datetime.combine(monday(week) + timedelta(days=6), RUN_AT, TZ), week)


def dst_events(week: int) -> list[Event]:
    """Notes saved in the skipped hour and in both passes of the repeated hour, when this
    week holds one of the nights of the zone it is lived in."""
    zone = ZoneInfo(zone_of(week))
    found = []
    for day, at in DST_NIGHTS.get(zone_of(week), ()):
        if monday(week) <= day <= monday(week) + timedelta(days=6):
            first = resolve(day, at, zone).astimezone(zone)
            found.append(Event(first, "note", f"Đêm đổi giờ {day} lúc {at:%H:%M}, lần một"))
            second = datetime.combine(day, at, tzinfo=zone).replace(fold=1)
            if second.astimezone(UTC) != first.astimezone(UTC):
                found.append(Event(second, "note", f"Đêm đổi giờ {day} lúc {at:%H:%M}, lần hai"))
    return found


class Life:
    """The generated year: events by week, and the label of every text the model may see."""

    def __init__(self, seed: int, plan: Plan) -> None:
        self.rng = random.Random(seed)
        self.plan = plan
        self.labels: dict[str, Label] = {}
        self.learned: list[str] = []
        durable = [(f"{p} {t}", f"{pe} {te}") for p, pe in PEOPLE for t, te in TRAITS]
        durable += [(f"{p} {t}", "") for p in EN_PEOPLE for t in EN_TRAITS]
        self.rng.shuffle(durable)
        self.durable = durable
        for text in CHORES:
            self.label(text, Label("chore"))
            self.label(f"Nhắc tôi {text}", Label("chore"))
        for text in SMALL_TALK + REPLIES:
            self.label(text, Label("small"))
        for line in INITIAL_MEMORY.splitlines():
            item = parse_line(line, 1)
            if isinstance(item, Entry):
                self.learned.append(item.text)

    def label(self, text: str, label: Label) -> None:
        self.labels[match_key(text)] = label

    def week(self, week: int) -> list[Event]:
        events: list[Event] = []
        for offset in range(7):
            events.extend(self._day(monday(week) + timedelta(days=offset)))
        for change in FACT_CHANGES:
            if self.plan.fact_week(change) == week:
                at = datetime.combine(monday(week) + timedelta(days=2), time(19, 45), TZ)
                kind = "update" if change.target else "durable"
                self.label(change.note, Label(kind, target=change.target))
                events.append(Event(at, "note", change.note))
                events.append(Event(at + timedelta(minutes=1), "fact", change.value, change.key))
        if week % 9 == 2:
            at = datetime.combine(monday(week) + timedelta(days=2), time(12, 0), TZ)
            events.append(Event(at, "hand", HAND_LINES[(week // 9) % len(HAND_LINES)]))
        if week == 1 or self.rng.random() < 0.3:
            sunday = monday(week) + timedelta(days=6)
            events.append(Event(datetime.combine(sunday, AFTER_RUN, TZ), "note", self._durable()))
        return sorted(events, key=lambda e: e.at)

    def _day(self, day: date) -> list[Event]:
        rng = self.rng
        last = 20 if day.weekday() == 6 else 22
        events = []
        for _ in range(rng.choice([0, 0, 1, 2, 2, 3, 4])):
            at = datetime.combine(day, time(rng.randint(7, last), rng.randint(0, 59)), TZ)
            events.append(Event(at, "note", self._note_text()))
        for _ in range(rng.choice([0, 0, 0, 1, 1, 2])):
            at = datetime.combine(day, time(rng.randint(7, last), rng.randint(0, 58)), TZ)
            said = self._turn_text()
            events.append(Event(at, "turn", said))
            events.append(Event(at + timedelta(seconds=20), "reply", rng.choice(REPLIES)))
        return events

    def _note_text(self) -> str:
        roll = self.rng.random()
        if roll < 0.22:
            return self._durable()
        if roll < 0.5:
            return self.rng.choice(CHORES)
        if roll < 0.8:
            return self.rng.choice(SMALL_TALK)
        return self._repeat()

    def _turn_text(self) -> str:
        roll = self.rng.random()
        if roll < 0.2:
            return self._durable()
        if roll < 0.5:
            return f"Nhắc tôi {self.rng.choice(CHORES)}"
        return self.rng.choice(SMALL_TALK)

    def _durable(self) -> str:
        text, english = (
            self.durable.pop() if self.durable else (f"Ghi nhớ số {self.rng.random()}", "")
        )
        self.label(text, Label("durable", english))
        self.learned.append(text)
        return text

    def _repeat(self) -> str:
        target = self.rng.choice(self.learned)
        said = f"{target} (nhắc lại)"
        self.label(said, Label("repeat", target=target))
        return said


# --- the adversarial model -------------------------------------------------------------------


@dataclass(frozen=True)
class Faults:
    """Per-call rates of the model's faults (seeded)."""

    drop: float = 0.12
    reword: float = 0.12
    translate: float = 0.15
    repeat: float = 0.15
    twice: float = 0.08
    earlier: float = 0.08
    future: float = 0.06
    chatter: float = 0.3
    invent: float = 0.1
    chore: float = 0.3
    cut: float = 0.03
    whole: float = 0.02


_NUMBERED_RE = re.compile(r"^\[(\d+)\] ?(.*)$")
_ITEM_RE = re.compile(r"^- (?:\d\d:\d\d )?\[(\w+)\](?: \(part [^)]*\))? (.*)$")
_SCREEN_RE = re.compile(r"^(\d+)\. (.*)$")


def numbered_memory(request: ChatRequest) -> list[str]:
    """The MEMORY.md lines an edit-script request shows, by number (index 0 is line 1)."""
    body = request.messages[0].text
    start = body.index(MEMORY_BEGIN + "\n") + len(MEMORY_BEGIN) + 1
    shown = body[start : body.index("\n" + MEMORY_END, start)]
    lines = []
    for line in shown.split("\n"):
        m = _NUMBERED_RE.match(line)
        lines.append(m.group(2) if m else "")
    return lines


def week_items(request: ChatRequest) -> list[tuple[str, str, str]]:
    """(day, who, text) of every item the request's week holds."""
    day = ""
    found = []
    for line in request.messages[-1].text.split("\n"):
        if line.startswith("### "):
            day = line[4:].strip()
        elif m := _ITEM_RE.match(line):
            found.append((day, m.group(1), m.group(2)))
    return found


@dataclass
class Adversary:
    """Answers rewrite requests with an edit script built from the week, faults included."""

    life: Life
    plan: Plan
    seed: int
    faults: Faults = field(default_factory=Faults)
    week: int = 0
    invented: set[str] = field(default_factory=set)
    injected: Counter[str] = field(default_factory=Counter)
    """How often each fault was injected."""
    answers: dict[int, list[str]] = field(default_factory=dict)
    """The rewrite answers by week, to explain an invariant that failed."""

    def model(self) -> ScriptedModel:
        return ScriptedModel(self.reply, name="scripted:adversary")

    def reply(self, request: ChatRequest) -> str | ChatResponse:
        if request.messages[0].text.startswith("You maintain MEMORY.md"):
            return self.rewrite(request)
        return self.screen(request)

    def screen(self, request: ChatRequest) -> str:
        verdicts = []
        for line in request.messages[-1].text.split("\n"):
            m = _SCREEN_RE.match(line)
            if m is None:
                continue
            text = m.group(2).split(": ", 1)[-1]
            chore = self.life.labels.get(match_key(text), Label("")).kind == "chore"
            verdicts.append(f"{m.group(1)}. " + ("REJECT: one-off chore" if chore else "ACCEPT"))
        return "\n".join(verdicts)

    def rewrite(self, request: ChatRequest) -> str | ChatResponse:
        answer = self._rewrite(request)
        text = answer if isinstance(answer, str) else answer.text
        self.answers.setdefault(self.week, []).append(text)
        return answer

    def _rewrite(self, request: ChatRequest) -> str | ChatResponse:
        rng = random.Random(f"{self.seed}:{self.week}:{len(request.messages[-1].text)}")
        if self.week == self.plan.refusal:
            self.injected["refusal"] += 1
            return REFUSAL
        lines = numbered_memory(request)
        today = _last_day(request.messages[-1].text.split("\n", 1)[0], request)
        ops = self._week_ops(rng, lines, request)
        ops += self._faults(rng, lines, today)
        if rng.random() < self.faults.chatter:
            ops.insert(0, rng.choice(CHATTER))
            self.injected["chatter"] += 1
        if self.week == self.plan.whole or rng.random() < self.faults.whole:
            self.injected["whole file"] += 1
            return _whole_file(lines, ops)
        answer = "\n".join(ops) if ops else "NONE"
        if self.week == self.plan.cut or rng.random() < self.faults.cut:
            self.injected["cut"] += 1
            return _cut(answer, rng, request)
        return answer

    def _week_ops(self, rng: random.Random, lines: list[str], request: ChatRequest) -> list[str]:
        ops: list[str] = []
        for day, who, text in week_items(request):
            if who in ("note", "user"):
                ops.extend(self.ops_for(rng, lines, day, text))
        return ops

    def ops_for(self, rng: random.Random, lines: list[str], day: str, text: str) -> list[str]:
        label = self.life.labels.get(match_key(text))
        if label is None or label.kind == "small":
            return []
        if label.kind == "chore":
            if rng.random() >= self.faults.chore:
                return []
            self.injected["chore added"] += 1
            return [f"ADD - {day}: {text}"]
        if label.kind in ("repeat", "update"):
            found = _line_of(lines, label.target)
            if found is not None and label.kind == "update":
                return [f"EDIT [{found}] - {day}: {text}"]
            if found is not None and rng.random() >= self.faults.repeat:
                return [f"DATE [{found}] {day}"]
            if label.kind == "repeat":
                text = label.target
                self.injected["repeat added" if found else "restated, not in the file: added"] += 1
        return self._add(rng, day, text, label)

    def _add(self, rng: random.Random, day: str, text: str, label: Label) -> list[str]:
        if label.english and rng.random() < self.faults.translate:
            text = label.english
            self.injected["translated"] += 1
        when = date.fromisoformat(day)
        roll = rng.random()
        if roll < self.faults.future:
            when += timedelta(days=rng.randint(3, 60))
            self.injected["future date"] += 1
        elif roll < self.faults.future + self.faults.earlier:
            when -= timedelta(days=rng.randint(10, 90))
            self.injected["earlier date"] += 1
        op = f"ADD - {when.isoformat()}: {text}"
        if rng.random() < self.faults.twice:
            self.injected["same add twice"] += 1
            return [op, op]
        return [op]

    def _faults(self, rng: random.Random, lines: list[str], today: date) -> list[str]:
        entries = [n for n, line in enumerate(lines, 1) if isinstance(parse_line(line, n), Entry)]
        ops = []
        if entries and rng.random() < self.faults.drop:
            ops.append(f"REMOVE [{rng.choice(entries)}] no longer relevant")
            self.injected["dropped"] += 1
        if entries and rng.random() < self.faults.reword:
            n = rng.choice(entries)
            entry = parse_line(lines[n - 1], n)
            assert isinstance(entry, Entry)
            before, after = rng.choice(PARAPHRASE)
            ops.append(f"EDIT [{n}] - {entry.date_text}: {before}{entry.text}{after}")
            self.injected["reworded"] += 1
        if entries and rng.random() < self.faults.earlier:
            n = rng.choice(entries)
            ops.append(f"DATE [{n}] {(today - timedelta(days=400)).isoformat()}")
            self.injected["date moved earlier"] += 1
        if rng.random() < self.faults.invent:
            invented = rng.choice(INVENTED)
            self.invented.add(match_key(invented))
            self.injected["invented"] += 1
            ops.append(f"ADD - {today.isoformat()}: {invented}")
        return ops


def _last_day(first_line: str, request: ChatRequest) -> date:
    days = re.findall(r"\d{4}-\d{2}-\d{2}", first_line)
    if days:
        return max(date.fromisoformat(d) for d in days)
    return max(date.fromisoformat(d) for d, _, _ in week_items(request))


def _line_of(lines: Sequence[str], text: str) -> int | None:
    key = match_key(text)
    for n, line in enumerate(lines, 1):
        item = parse_line(line, n)
        if isinstance(item, Entry) and item.key == key:
            return n
    return None


def _whole_file(lines: list[str], ops: list[str]) -> str:
    """The rare model that ignores the format: the file, unnumbered, its additions at the end."""
    added = [op.removeprefix("ADD ") for op in ops if op.startswith("ADD - ")]
    return "\n".join([*lines, *added]) + "\n"


def _cut(answer: str, rng: random.Random, request: ChatRequest) -> ChatResponse:
    """An answer stopped at the output limit: cut in the middle of a line."""
    keep = max(1, int(len(answer) * rng.uniform(0.4, 0.9)))
    text = answer[:keep]
    prompt = request.estimated_tokens() - request.max_tokens
    return ChatResponse(
        text, usage=Usage(prompt, estimate_tokens(text)), model="scripted", stop_reason="length"
    )


# --- the workspace, the owner and the measures ----------------------------------------------


class Clock:
    """The workspace's clock, moved by the replay."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def make_workspace(root: Path, clock: Clock, budget: int) -> Workspace:
    init_workspace(root, timezone="Asia/Ho_Chi_Minh", locale="vi", clock=clock)
    config = root / ".trinho" / "config.toml"
    extra = f'\n[context]\nmemory_tokens = {budget}\n\n[condense]\narchive = "ask"\n'
    config.write_text(config.read_text(encoding="utf-8") + extra, encoding="utf-8")
    ws = open_workspace(root, clock)
    ws.memory_file.write_text(INITIAL_MEMORY, encoding="utf-8")
    for key, value in FIRST_FACTS:
        save_fact(ws, key, value)
    return ws


def line_keys(text: str) -> Counter[str]:
    """What an owner line is known by: an entry by its match key (its date may move later by
    itself), a hand-written line by its text."""
    keys: Counter[str] = Counter()
    for item in parse(text).items:
        if isinstance(item, Entry):
            keys["e:" + item.key] += 1
        elif isinstance(item, Loose) and not item.blank:
            keys["l:" + item.raw.strip()] += 1
    return keys


def duplicates(text: str) -> int:
    counts = Counter(item.key for item in parse(text).items if isinstance(item, Entry))
    return sum(n - 1 for n in counts.values() if n > 1)


def kept_text(ws: Workspace) -> str:
    """MEMORY.md and its archive: where a line may rightly be."""
    archive = ws.path(ARCHIVE)
    extra = archive.read_text(encoding="utf-8") if archive.exists() else ""
    return memory_store.read_text(ws) + "\n" + extra


def strings(value: object) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings(item)


def pending(ws: Workspace) -> list[Proposal]:
    return list(proposals.list_proposals(ws, include_decided=False).proposals)


@dataclass
class Tracker:
    """What the invariants are checked against."""

    owner: Counter[str]
    written: list[tuple[date, str, datetime]] = field(default_factory=list)
    read: Counter[tuple[date, str]] = field(default_factory=Counter)
    last_run: datetime | None = None

    def lost(self, ws: Workspace) -> list[str]:
        """Owner lines in none of MEMORY.md, the archive and the waiting changes."""
        found = set(line_keys(kept_text(ws)))
        for p in pending(ws):
            for text in strings(p.change):
                found |= set(line_keys(text))
        return sorted(k for k in self.owner if k not in found)

    def took(self, days: Sequence[DayUsed]) -> None:
        """Count what the run read, day by day: runs read disjoint spans, so a day split
        between two runs (a Sunday note after the run) adds up across them."""
        for day in days:
            if day.used:
                self.read[(day.day, "note")] += day.notes
                self.read[(day.day, "turn")] += day.turns

    def unread(self) -> int:
        """Items written before the last run that no run has read."""
        return sum(n for _, n in self.unread_days())

    def reread(self) -> int:
        """Items read by more than one run (each should be read by exactly one)."""
        written = Counter((d, s) for d, s, _ in self.written)
        return sum(max(0, n - written[k]) for k, n in self.read.items())

    def unread_days(self) -> list[tuple[tuple[date, str], int]]:
        if self.last_run is None:
            return []
        due = Counter((d, s) for d, s, at in self.written if at < self.last_run)
        return [(k, n - self.read[k]) for k, n in sorted(due.items()) if n > self.read[k]]


def play(ws: Workspace, clock: Clock, event: Event, tracker: Tracker) -> None:
    clock.now = event.at
    day = ws.local_date(event.at)
    if event.what == "note":
        save_note(ws, event.text)
        tracker.written.append((day, "note", event.at))
    elif event.what in ("turn", "reply"):
        role = "user" if event.what == "turn" else "assistant"
        record_turn(ws, role, event.text, at=event.at)
        tracker.written.append((day, "turn", event.at))
    elif event.what == "fact":
        save_fact(ws, event.key, event.text)
    else:  # typed into MEMORY.md by hand
        line = f"- {day.isoformat()}: {event.text}"
        text = memory_store.read_text(ws).rstrip("\n") + "\n" + line + "\n"
        ws.memory_file.write_text(text, encoding="utf-8")
        tracker.owner["e:" + match_key(event.text)] += 1


def owner_decides(ws: Workspace, rng: random.Random, tracker: Tracker) -> tuple[int, int]:
    """Approve half of what waits, reject a fifth, leave the rest; follow what approval did."""
    approved = rejected = 0
    for p in pending(ws):
        roll = rng.random()
        if roll < 0.5:
            before = line_keys(kept_text(ws))
            proposals.approve(ws, p.id, "owner", appliers=APPLIERS)
            after = line_keys(kept_text(ws))
            tracker.owner -= before - after
            tracker.owner += after - before
            approved += 1
        elif roll < 0.7:
            proposals.reject(ws, p.id, "owner")
            rejected += 1
    return approved, rejected


COLUMNS = [
    "week",
    "zone",
    "crashed",
    "run_day",
    "memory_tokens",
    "budget",
    "entries",
    "held",
    "pending",
    "oldest_pending_weeks",
    "folded",
    "output_tokens",
    "items_read",
    "model_calls",
    "approved",
    "rejected",
    "invented_in_memory",
    "lost",
    "duplicated",
    "unread",
    "reread",
    "over_budget",
    "runs_bytes",
]
INVARIANTS = ("lost", "duplicated", "unread", "reread", "over_budget")


def folded(report: RunReport) -> int:
    """Changes the run reports as duplicates folded together (0 before that existed)."""
    return sum(
        any(word in f"{rc.change.cls} {rc.change.reason_code}" for word in ("dup", "fold"))
        for rc in report.changes
    )


@dataclass
class Week:
    """One week's outcome before the owner decides."""

    report: RunReport | None
    duplicated: int
    doubled: tuple[str, ...] = ()
    """The texts of entries the run duplicated."""
    days: tuple[DayUsed, ...] = ()
    """What the run read, day by day (for a killed run, what its first attempt read)."""


class Killed(BaseException):
    """The process dies at a durable write point: no `except Exception` sees it."""


def kill_at(target: int) -> ExitStack:
    """Die at the `target`-th durable write point reached (atomic replaces and appends)."""
    reached = [0]

    def action(path: Path) -> None:
        reached[0] += 1
        if reached[0] == target:
            raise Killed(path.name)

    stack = ExitStack()
    for point in get_args(FaultPoint):
        stack.enter_context(inject(point, action))
    return stack


def condense(
    ws: Workspace, clock: Clock, model: ChatModel | None, crash_at: int | None = None
) -> Week:
    """One weekly run; with `crash_at`, killed at that write point and run again (a new
    process: the workspace opened again) as after a kill -9."""
    before = memory_store.read_text(ws)
    channel = ConsoleChannel("vi", io.StringIO())
    run_id = pick_slot(ws, ws.today(), False).run_id
    planned = collect(ws, run_span(ws, run_id))  # what the killed attempt read, if it wrote
    if crash_at is not None:
        try:
            with kill_at(crash_at):
                run_condensation(ws, model=model, channel=channel)
        except Killed:
            ws = open_workspace(ws.root, clock)
    report: RunReport | None = run_condensation(ws, model=model, channel=channel)
    days: tuple[DayUsed, ...] = report.days if report is not None else ()
    if report is not None and report.outcome in ("resumed", "already_done"):
        # the killed attempt wrote MEMORY.md: it read its span, which the rerun finishes
        days = tuple(
            DayUsed(
                day,
                sum(1 for i in planned.items if i.day == day and i.source == "note"),
                sum(1 for i in planned.items if i.day == day and i.source == "conversation"),
                (1,),
                True,
            )
            for day in sorted({i.day for i in planned.items})
        )
    after = memory_store.read_text(ws)
    old, new = (
        Counter(item.key for item in parse(text).items if isinstance(item, Entry))
        for text in (before, after)
    )
    doubled = tuple(key for key, n in new.items() if n > max(1, old[key]))
    return Week(report, max(0, duplicates(after) - duplicates(before)), doubled, days)


def runs_size(ws: Workspace) -> int:
    """Bytes under `.trinho/runs` (the run journals, their before copies and reports)."""
    root = ws.internal / "runs"
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) if root.is_dir() else 0


def measure(
    ws: Workspace,
    week: int,
    done: Week,
    tracker: Tracker,
    decided: tuple[int, int],
    extra: dict[str, Any],
) -> dict[str, Any]:
    text = memory_store.read_text(ws)
    tokens = estimate_tokens(text)
    waiting = pending(ws)
    oldest = min((p.created_at for p in waiting), default=None)
    report = done.report
    rewrite = [c for c in report.calls if c.purpose == "rewrite"] if report else []
    budget = extra["budget"]
    return {
        "week": week,
        "run_day": report.today.isoformat() if report else "",
        "memory_tokens": tokens,
        "budget": budget,
        "entries": len(parse(text).entries),
        "held": sum(rc.proposal_id is not None for rc in report.held) if report else 0,
        "pending": len(waiting),
        "oldest_pending_weeks": (ws.now() - oldest).days // 7 if oldest else 0,
        "folded": folded(report) if report else 0,
        "output_tokens": sum(c.output_tokens for c in rewrite),
        "items_read": sum(d.notes + d.turns for d in report.days) if report else 0,
        "model_calls": report.model_calls if report else 0,
        "approved": decided[0],
        "rejected": decided[1],
        "invented_in_memory": sum("e:" + key in line_keys(text) for key in extra["invented"]),
        "lost": len(tracker.lost(ws)),
        "duplicated": done.duplicated,
        "unread": tracker.unread(),
        "reread": tracker.reread(),
        "over_budget": int(tokens > budget and not archive_answered(ws, text, budget)),
        "runs_bytes": runs_size(ws),
        "zone": ws.config.timezone,
        "crashed": extra.get("crashed", 0),
    }


# --- the replay ------------------------------------------------------------------------------


@dataclass
class Year:
    rows: list[dict[str, Any]]
    knowledge: list[tuple[str, str, bool]]
    """(fact, current value, found in the top 3 of memory_search)"""
    lost: list[str]
    incidents: list[str]
    """Each invariant that failed: when, what, and the model's answer behind it."""
    injected: Counter[str]


def replay(weeks: int, seed: int, budget: int, real_model: bool) -> Year:
    plan = Plan.of(weeks)
    life = Life(seed, plan)
    adversary = Adversary(life, plan, seed)
    owner_rng = random.Random(f"owner:{seed}")
    with tempfile.TemporaryDirectory() as tmp:
        clock = Clock(datetime.combine(FIRST_MONDAY - timedelta(days=1), time(20, 0), TZ))
        ws = make_workspace(Path(tmp) / "ws", clock, budget)
        tracker = Tracker(line_keys(INITIAL_MEMORY))
        rows: list[dict[str, Any]] = []
        incidents: list[str] = []
        crash_rng = random.Random(f"crash:{seed}")
        for week in range(1, weeks + 1):
            if zone_of(week) != ws.config.timezone:  # the owner moved: `trinho init --tz`
                clock.now = local(datetime.combine(monday(week), time(0, 5), TZ), week)
                init_workspace(ws.root, timezone=zone_of(week), clock=clock)
                ws = open_workspace(ws.root, clock)
            events = sorted(
                [Event(local(e.at, week), e.what, e.text, e.key) for e in life.week(week)]
                + dst_events(week),
                key=lambda e: e.at,
            )
            at = run_time(week)
            for event in (e for e in events if e.at < at):
                play(ws, clock, event, tracker)
            clock.now = at
            done = Week(None, 0)
            crashed = 0
            if week != plan.down:
                adversary.week = week
                crash = week >= CRASH_FIRST and (week - CRASH_FIRST) % CRASH_EVERY == 0
                crash_at = crash_rng.randint(1, 40) if crash else None
                crashed = int(crash)
                done = condense(ws, clock, None if real_model else adversary.model(), crash_at)
                ws = open_workspace(ws.root, clock)
                tracker.took(done.days)
                tracker.last_run = at
                incidents += doubled_incidents(week, done, adversary.answers.get(week, []))
            clock.now = at + timedelta(minutes=5)
            decided = owner_decides(ws, owner_rng, tracker)
            extra = {"budget": budget, "invented": adversary.invented, "crashed": crashed}
            rows.append(measure(ws, week, done, tracker, decided, extra))
            for event in (e for e in events if e.at >= at):
                play(ws, clock, event, tracker)
        knowledge = [
            (c.key, c.value, found_in_top3(ws, c.key, c.value))
            for c in FACT_CHANGES
            if plan.fact_week(c) <= weeks
        ]
        incidents += [
            f"{day} {source}: {n} item(s) written before a run, read by no run"
            for (day, source), n in tracker.unread_days()
        ]
        incidents += [
            f"week {r['week']}: MEMORY.md {r['memory_tokens']} tokens over the budget "
            f"{r['budget']}, no archive proposal waiting"
            for r in rows
            if r["over_budget"]
        ]
        return Year(rows, knowledge, tracker.lost(ws), incidents, adversary.injected)


def doubled_incidents(week: int, done: Week, answers: list[str]) -> list[str]:
    found = []
    for key in done.doubled:
        said = [
            line.strip()
            for answer in answers
            for line in answer.split("\n")
            if key in match_key(line)
        ]
        found.append(f"week {week}: the run wrote a second entry {key!r}; the answer said {said}")
    return found


def found_in_top3(ws: Workspace, key: str, value: str) -> bool:
    hits = search(ws, key.replace("-", " "), 3)
    return any(match_key(value) in match_key(hit.text) for hit in hits)


def percentile(values: Sequence[float], share: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def quarters(ran: list[dict[str, Any]]) -> str:
    """A run's cost early and late, by the median, so a rare whole-file answer does not
    stand for a whole quarter."""
    size = max(1, len(ran) // 4)
    first = statistics.median(r["output_tokens"] for r in ran[:size])
    last = statistics.median(r["output_tokens"] for r in ran[-size:])
    return f"{first:g} and {last:g} (ratio {last / max(first, 1):.2f})"


def per_item(row: dict[str, Any]) -> float:
    """A run's output against what it read: a busy week says more, not a bigger memory."""
    return float(row["output_tokens"]) / max(int(row["items_read"]), 1)


def summary(year: Year) -> list[str]:
    rows = year.rows
    last = rows[-1]
    ran = [r for r in rows if r["run_day"]]
    held = [r["held"] for r in ran]
    early = rows[min(3, len(rows) - 1)]["output_tokens"] or 1
    lines = [
        f"weeks: {len(rows)}, runs: {len(ran)}, budget: {last['budget']} tokens",
        f"owner lines lost (now): {last['lost']} {year.lost[:3] if year.lost else ''}".rstrip(),
        f"duplicates written by runs: {sum(r['duplicated'] for r in rows)}",
        f"notes and turns read by no run: {last['unread']}",
        f"notes and turns read by more than one run: {last['reread']}",
        f"weeks over budget with no archive proposal: {sum(r['over_budget'] for r in rows)}",
        f"held changes per run: median {statistics.median(held) if held else 0}, "
        f"p90 {percentile(held, 0.9)}",
        f"waiting at the end: {last['pending']} (oldest {last['oldest_pending_weeks']} weeks)",
        f"MEMORY.md at the end: {last['memory_tokens']} tokens, {last['entries']} entries",
        f"output tokens: week {last['week']} {last['output_tokens']}, week "
        f"{rows[min(3, len(rows) - 1)]['week']} {early}, ratio {last['output_tokens'] / early:.2f}",
        f"median output tokens per run, first and last quarter: {quarters(ran)}",
        f"output tokens per note or turn read: week {last['week']} {per_item(last):.2f}, week "
        f"{rows[min(3, len(rows) - 1)]['week']} {per_item(rows[min(3, len(rows) - 1)]):.2f}, "
        f"ratio {per_item(last) / max(per_item(rows[min(3, len(rows) - 1)]), 1e-9):.2f}",
        f"invented lines in MEMORY.md at the end: {last['invented_in_memory']}",
        f"zones lived in: {', '.join(dict.fromkeys(r['zone'] for r in rows))}; "
        f"runs killed at a write point and run again: {sum(r['crashed'] for r in rows)}",
        f".trinho/runs: {last['runs_bytes'] / 1024:.0f} KB after {len(rows)} weeks, "
        f"{last['runs_bytes'] * 52 / len(rows) / 1024:.0f} KB per year",
    ]
    for key, value, ok in year.knowledge:
        lines.append(f"memory_search {key!r}: current value {value!r} in top 3: {ok}")
    faults = ", ".join(f"{name} {n}" for name, n in sorted(year.injected.items()))
    lines.append(f"faults injected: {faults or 'none (a real model)'}")
    return lines


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


# --- the chart: a tiny PNG writer ------------------------------------------------------------

Colour = tuple[int, int, int]
BLUE: Colour = (31, 119, 180)
RED: Colour = (214, 39, 40)
ORANGE: Colour = (255, 127, 14)
GREEN: Colour = (44, 160, 44)
PURPLE: Colour = (148, 103, 189)
GREY: Colour = (225, 225, 225)
INK: Colour = (40, 40, 40)
DIGITS = {  # 3x5 glyphs, one row of three bits per digit row
    "0": (7, 5, 5, 5, 7),
    "1": (2, 6, 2, 2, 7),
    "2": (7, 1, 7, 4, 7),
    "3": (7, 1, 7, 1, 7),
    "4": (5, 5, 7, 1, 1),
    "5": (7, 4, 7, 1, 7),
    "6": (7, 4, 7, 5, 7),
    "7": (7, 1, 1, 1, 1),
    "8": (7, 5, 7, 5, 7),
    "9": (7, 5, 7, 1, 7),
}


class Canvas:
    """RGB pixels, lines and digits; `png` encodes them (zlib + struct, no dependency)."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.pixels = bytearray(b"\xff" * (width * height * 3))

    def dot(self, x: int, y: int, colour: Colour) -> None:
        if 0 <= x < self.width and 0 <= y < self.height:
            i = (y * self.width + x) * 3
            self.pixels[i : i + 3] = bytes(colour)

    def line(self, a: tuple[int, int], b: tuple[int, int], colour: Colour, dash: int = 0) -> None:
        (x0, y0), (x1, y1) = a, b
        steps = max(abs(x1 - x0), abs(y1 - y0), 1)
        for s in range(steps + 1):
            if dash and (s // dash) % 2:
                continue
            x = round(x0 + (x1 - x0) * s / steps)
            y = round(y0 + (y1 - y0) * s / steps)
            self.dot(x, y, colour)
            self.dot(x, y + 1, colour)

    def number(self, x: int, y: int, value: int, scale: int = 2) -> None:
        """`value` in digits, its right edge at x, its top at y."""
        text = str(value)
        x -= len(text) * 4 * scale
        for char in text:
            for row, bits in enumerate(DIGITS[char]):
                for col in range(3):
                    if bits >> (2 - col) & 1:
                        for dy in range(scale):
                            for dx in range(scale):
                                self.dot(x + col * scale + dx, y + row * scale + dy, INK)
            x += 4 * scale

    def png(self) -> bytes:
        rows = b"".join(
            b"\x00" + bytes(self.pixels[y * self.width * 3 : (y + 1) * self.width * 3])
            for y in range(self.height)
        )

        def chunk(tag: bytes, data: bytes) -> bytes:
            crc = zlib.crc32(tag + data) & 0xFFFFFFFF
            return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", crc)

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return (
            b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(rows, 9))
            + chunk(b"IEND", b"")
        )


PANEL_W, PANEL_H, LEFT, RIGHT, TOP, BOTTOM = 760, 150, 56, 16, 12, 22
Series = tuple[list[float], Colour, int]
"""Values by week, colour, dash length (0: solid)."""


def nice(value: float) -> float:
    """The scale's top: the first of 2, 4, 6, 10, 20, 40, 60, 100, ... at or above `value`."""
    step = 1.0
    while True:
        for top in (2, 4, 6, 10):
            if top * step >= value:
                return top * step
        step *= 10


def panel(canvas: Canvas, top: int, weeks: int, series: Sequence[Series]) -> None:
    """One plot: axes, a grid at half and full scale, the scale's top and the weeks numbered."""
    x0, x1 = LEFT, PANEL_W - RIGHT
    y0, y1 = top + PANEL_H - BOTTOM, top + TOP
    peak = nice(max([1.0, *(v for values, _, _ in series for v in values)]))
    for share in (0.5, 1.0):
        y = round(y0 - (y0 - y1) * share)
        canvas.line((x0, y), (x1, y), GREY, dash=4)
        canvas.number(x0 - 6, y - 5, round(peak * share))
    canvas.number(x0 - 6, y0 - 5, 0)
    canvas.line((x0, y0), (x1, y0), INK)
    canvas.line((x0, y0), (x0, y1), INK)

    def at(week: int, value: float) -> tuple[int, int]:
        x = x0 + round((x1 - x0) * (week - 1) / max(1, weeks - 1))
        return x, round(y0 - (y0 - y1) * value / peak)

    for week in range(1, weeks + 1):
        x, _ = at(week, 0)
        tall = week == 1 or week % 4 == 0
        canvas.line((x, y0), (x, y0 + (5 if tall else 2)), INK)
        if week == 1 or week % 13 == 0 or week == weeks:
            canvas.number(x + 4 * len(str(week)), y0 + 8, week)
    for values, colour, dash in series:
        points = [at(w, v) for w, v in enumerate(values, 1)]
        for a, b in itertools.pairwise(points):
            canvas.line(a, b, colour, dash)
        if len(points) == 1:
            canvas.dot(*points[0], colour)


def chart(rows: list[dict[str, Any]]) -> bytes:
    """Four panels stacked: MEMORY.md tokens (blue) against the budget (red, dashed); held
    changes per run (orange); waiting proposals (green) and the oldest one's age in weeks
    (purple); output tokens of the run's rewrite calls (blue)."""
    weeks = len(rows)

    def column(name: str) -> list[float]:
        return [float(r[name]) for r in rows]

    panels: list[list[Series]] = [
        [(column("memory_tokens"), BLUE, 0), (column("budget"), RED, 6)],
        [(column("held"), ORANGE, 0)],
        [(column("pending"), GREEN, 0), (column("oldest_pending_weeks"), PURPLE, 3)],
        [(column("output_tokens"), BLUE, 0)],
    ]
    canvas = Canvas(PANEL_W, PANEL_H * len(panels))
    for n, series in enumerate(panels):
        panel(canvas, n * PANEL_H, weeks, series)
    return canvas.png()


# --- the command -----------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> Year:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--weeks", type=int, default=52)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget", type=int, default=2500, help="[context] memory_tokens")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out")
    parser.add_argument(
        "--model",
        action="store_true",
        help="use the configured model (TRINHO_MODEL) instead of the adversarial script",
    )
    args = parser.parse_args(argv)
    year = replay(args.weeks, args.seed, args.budget, args.model)
    args.out.mkdir(parents=True, exist_ok=True)
    write_csv(args.out / "year.csv", year.rows)
    (args.out / "year.png").write_bytes(chart(year.rows))
    for line in summary(year):
        print(line)
    (args.out / "year_incidents.txt").write_text(
        "".join(line + "\n" for line in year.incidents), encoding="utf-8"
    )
    for line in year.incidents[:12]:
        print("  " + line)
    if len(year.incidents) > 12:
        print(f"  ... {len(year.incidents) - 12} more in {args.out / 'year_incidents.txt'}")
    print(f"wrote {args.out / 'year.csv'} and {args.out / 'year.png'}", file=sys.stderr)
    return year


if __name__ == "__main__":
    main()
