"""Every acknowledged note is read by exactly one condensation run, whatever the clock does.

Property test over generated sequences of notes (saved by trinho, and typed by hand), runs,
changes of the owner's time zone and clock jumps (forward; set back then put right; set back
behind the last run's cutoff and left there while notes are saved and runs are made), from
instants around the daylight-saving nights of America/New_York, Europe/London and
Australia/Lord_Howe, and runs whose rewrite is held whole (then approved, rejected, or made
stale by a later run). Real workspace, real condensation; a scripted model answers NONE or a
whole MEMORY.md that drops every line, and records what each run was shown; a note counts as
read by the runs whose changes stand.
"""

from __future__ import annotations

import re
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conftest import FixedClock
from support.condense_weeks import is_rewrite
from trinho.condense import run_condensation
from trinho.condense.rules.report import RunReport
from trinho.condense.store.runs import read_journal, rewrite_waits, week_id
from trinho.models import ChatRequest, ScriptedModel
from trinho.notes.store import save_note
from trinho.proposals import store as proposals
from trinho.review.appliers import APPLIERS
from trinho.workspace import Workspace, init_workspace

NIGHTS = {
    "America/New_York": ("2026-03-08T06:00:00+00:00", "2026-11-01T05:00:00+00:00"),
    "Europe/London": ("2026-03-29T00:30:00+00:00", "2026-10-25T00:30:00+00:00"),
    "Australia/Lord_Howe": ("2026-10-03T15:00:00+00:00", "2026-04-04T14:30:00+00:00"),
}
ZONES = (*NIGHTS, "Asia/Ho_Chi_Minh", "Europe/Berlin")
TOKEN = re.compile(r"tok(\d+)x")

ACTIONS = st.one_of(
    st.tuples(st.just("note"), st.integers(1, 40)),
    st.tuples(st.just("note"), st.integers(41, 3000)),
    st.tuples(st.just("hand"), st.integers(1, 90)),
    st.tuples(st.just("run"), st.integers(1, 600)),
    st.tuples(st.just("run"), st.integers(601, 20_000)),
    st.tuples(st.just("tz"), st.sampled_from(ZONES)),
    st.tuples(st.just("back"), st.integers(1, 20_000)),
    st.tuples(st.just("setback"), st.integers(1, 20_000)),
    st.tuples(st.just("wipe"), st.integers(1, 20_000)),
    st.tuples(st.just("approve"), st.booleans()),
)
MEMORY = "# Memory\n\n" + "".join(f"- 2026-01-0{n}: kept line {n}\n" for n in range(1, 7))


class _Reader:
    """A model that changes nothing, or (`wipe`) answers with a whole MEMORY.md that drops
    every line, held whole as suspicious; and the note tokens each run was shown."""

    def __init__(self) -> None:
        self.wipe = False
        self.count = 0
        self.shown: list[tuple[str | None, set[int]]] = []
        self.model = ScriptedModel(self.reply)

    def reply(self, request: ChatRequest) -> str:
        if not is_rewrite(request):
            return "\n".join(f"{n}: keep" for n in range(1, 200))
        self.shown[-1][1].update(int(n) for m in request.messages for n in TOKEN.findall(m.text))
        if not self.wipe:
            return "NONE"
        self.count += 1
        return f"# Memory\n\n- 2026-01-01: wiped {self.count}\n"

    def run(self, ws: Workspace, *, wipe: bool = False, force: bool = True) -> RunReport:
        """A run: never refused, whatever the clock reads (a clock set back behind the last
        cutoff included: runs are ordered by what was read)."""
        self.wipe = wipe
        self.shown.append((None, set()))
        report = run_condensation(ws, model=self.model, force=force)
        self.shown[-1] = (report.run_id, self.shown[-1][1])
        return report

    def standing_reads(self, ws: Workspace) -> list[int]:
        """The tokens read by runs whose changes stand (a whole rewrite left waiting, rejected
        or made stale does not)."""
        reads: list[int] = []
        for run_id, tokens in self.shown:
            journal = read_journal(ws, run_id) if run_id else None
            if journal is not None and not journal.undone and not rewrite_waits(ws, journal):
                reads.extend(tokens)
        return reads


def _decide(ws: Workspace, *, approve: bool) -> None:
    """The owner approves (or rejects) the oldest waiting whole rewrite, if any."""
    waiting = [
        p
        for p in proposals.list_proposals(ws, include_decided=False).proposals
        if p.change.get("class") == "suspicious"
    ]
    if waiting and approve:
        proposals.approve(ws, waiting[0].id, "owner", appliers=APPLIERS)
    elif waiting:
        proposals.reject(ws, waiting[0].id, "owner")


@pytest.mark.slow
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    zone=st.sampled_from(tuple(NIGHTS)),
    which=st.sampled_from((0, 1)),
    lead=st.integers(0, 600),
    actions=st.lists(ACTIONS, min_size=3, max_size=30),
)
# A line typed before a change to a zone behind kept its first reading (trinho.clock).
@example(zone="Europe/London", which=0, lead=0,
         actions=[("hand", 1), ("run", 1), ("tz", "America/New_York")])  # fmt: skip
# A change of zone with the clock set back is dated at the read floor (init_workspace).
@example(zone="Europe/London", which=0, lead=31,
         actions=[("note", 1380), ("setback", 1388), ("tz", "America/New_York")])  # fmt: skip
# A line typed by hand before the clock was set back, read again by a run after it (CI).
@example(zone="America/New_York", which=0, lead=351,
         actions=[("note", 36), ("note", 6), ("note", 1), ("note", 1), ("tz", "Europe/London"),
                  ("run", 3784), ("note", 26), ("hand", 52), ("note", 17), ("setback", 7507),
                  ("tz", "Australia/Lord_Howe"), ("note", 6), ("note", 1), ("note", 1),
                  ("run", 529), ("tz", "America/New_York"), ("hand", 79), ("back", 1654),
                  ("note", 25), ("note", 41), ("run", 12547), ("back", 666), ("approve", False),
                  ("note", 523), ("tz", "America/New_York"), ("note", 710), ("hand", 72),
                  ("run", 112), ("approve", True), ("back", 303)])  # fmt: skip
def test_every_acknowledged_note_is_read_by_exactly_one_run(
    zone: str, which: int, lead: int, actions: list[tuple[str, object]]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        start = datetime.fromisoformat(NIGHTS[zone][which]) - timedelta(minutes=lead)
        clock = FixedClock(start)
        root = Path(tmp) / "ws"
        ws = init_workspace(root, timezone=zone, clock=clock).workspace
        ws.memory_file.write_text(MEMORY, encoding="utf-8")
        reader = _Reader()
        saved: list[int] = []
        typed: list[int] = []
        counter = iter(range(10**6))

        def run(current: Workspace, *, wipe: bool = False) -> None:
            reader.run(current, wipe=wipe)

        save_note(ws, f"seed tok{next(counter)}x")
        saved.append(0)
        clock.advance(minutes=1)
        run(ws)  # the first run reads the seed: every later one reads from a cutoff
        latest = clock.now
        for kind, value in actions:
            latest = max(latest, clock.now)
            if kind == "tz":
                clock.advance(minutes=7)
                ws = init_workspace(root, timezone=str(value), clock=clock).workspace
                continue
            if kind == "back":  # set back, a run made there, put right
                right = clock.now
                clock.now = right - timedelta(minutes=int(str(value)))
                run(ws)
                clock.now = right + timedelta(minutes=1)
                continue
            if kind == "setback":  # left behind: the notes saved now are stamped before the cutoff
                clock.now = clock.now - timedelta(minutes=int(str(value)))
                continue
            if kind == "approve":
                _decide(ws, approve=bool(value))
                continue
            clock.advance(minutes=int(str(value)))
            if kind in ("run", "wipe"):
                run(ws, wipe=kind == "wipe")
                continue
            number = next(counter)
            if kind == "note":
                save_note(ws, f"note tok{number}x")
                saved.append(number)
            else:  # typed by hand at the wall time the owner sees
                local = ws.now()
                path = ws.note_path(local.date())
                path.parent.mkdir(parents=True, exist_ok=True)
                with path.open("a", encoding="utf-8") as handle:
                    handle.write(f"- {local.strftime('%H:%M')} typed tok{number}x\n")
                typed.append(number)
        clock.now = max(latest, clock.now) + timedelta(days=9)
        run(ws)
        reads = reader.standing_reads(ws)
        for number in saved:
            assert reads.count(number) == 1, (number, reader.shown)
        for number in typed:  # never twice; one typed in a repeated hour after a run, or with
            assert reads.count(number) <= 1, (number, reader.shown)  # the clock back, may not be


HISTORY = st.lists(
    st.one_of(
        st.tuples(st.just("week"), st.integers(0, 3)),  # notes over a week, then the weekly run
        st.tuples(st.just("ahead"), st.integers(1, 400)),  # the clock reads N days ahead
        st.tuples(st.just("ahead"), st.integers(1, 3 * 24 * 60).map(lambda m: m / 1440)),
        st.tuples(st.just("behind"), st.integers(1, 30)),  # the clock reads N days behind
        st.tuples(st.just("right"), st.just(0)),  # the clock put right
        st.tuples(st.just("note"), st.integers(1, 3 * 24 * 60)),  # a note N minutes on, no run
        st.tuples(st.just("again"), st.integers(1, 72)),  # `trinho condense` N hours on, by hand
        st.tuples(st.just("tz"), st.sampled_from(ZONES)),
    ),
    min_size=2,
    max_size=14,
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(zone=st.sampled_from(ZONES), minute=st.integers(0, 7 * 24 * 60), history=HISTORY)
# The case: ahead once (a run made there), put right, then weekly runs.
@example(zone="Asia/Ho_Chi_Minh", minute=0,
         history=[("ahead", 180), ("right", 0), ("week", 2), ("week", 1), ("ahead", 30),
                  ("week", 1), ("right", 0), ("week", 0), ("week", 2)])  # fmt: skip
# Ahead into the next week, put right with a note and no run: that week is condensed again.
@example(zone="America/New_York", minute=5562,
         history=[("ahead", 4), ("right", 0), ("week", 0)])  # fmt: skip
# Behind twice to one day, put right between (its journal retired), behind again (CI).
@example(zone="America/New_York", minute=0,
         history=[("behind", 2), ("behind", 2), ("right", 0), ("behind", 2)])  # fmt: skip
def test_a_clock_once_ahead_condenses_every_week_after_and_reads_each_note_once(
    zone: str, minute: int, history: list[tuple[str, object]]
) -> None:
    """Weekly runs through a clock history (ahead by minutes or months, behind, put right,
    ahead again, zones changed, notes and runs by hand between): every saved note is read by
    exactly one standing run, and every week the corrected clock reaches after a correction
    gets its run (none is "already done" by a run made ahead)."""
    with tempfile.TemporaryDirectory() as tmp:
        life = _ClockedLife(Path(tmp) / "ws", zone, minute)
        for kind, value in history:
            life.step(kind, value)
        life.offset = timedelta(0)
        life.tick(timedelta(days=9))
        life.reader.run(life.ws)
        reads = life.reader.standing_reads(life.ws)
        for number in life.saved:
            assert reads.count(number) == 1, (number, life.reader.shown)
        assert life.due <= life.condensed, (life.due - life.condensed, life.reader.shown)


class _ClockedLife:
    """A workspace whose clock reads the true time plus `offset`; notes, runs and corrections."""

    def __init__(self, root: Path, zone: str, minute: int) -> None:
        self.root = root
        self.true = datetime(2026, 11, 2, 8, 0, tzinfo=UTC) + timedelta(minutes=minute)
        self.offset = timedelta(0)
        self.clock = FixedClock(self.true)
        self.ws = init_workspace(root, timezone=zone, clock=self.clock).workspace
        self.ws.memory_file.write_text(MEMORY, encoding="utf-8")
        self.reader = _Reader()
        self.saved: list[int] = []
        self.counter = iter(range(10**6))
        self.corrected = False
        self.due: set[str] = set()  # the weeks of weekly runs made on a corrected clock
        self.condensed: set[str] = set()  # the weeks a run on a corrected clock condensed
        self.note()
        self.tick(timedelta(minutes=1))
        self.reader.run(self.ws, force=False)

    def note(self) -> None:
        number = next(self.counter)
        save_note(self.ws, f"note tok{number}x")
        self.saved.append(number)

    def tick(self, delta: timedelta) -> None:
        self.true += delta
        self.clock.now = self.true + self.offset

    def step(self, kind: str, value: object) -> None:
        if kind == "tz":
            self.tick(timedelta(minutes=7))
            self.ws = init_workspace(self.root, timezone=str(value), clock=self.clock).workspace
        elif kind in ("ahead", "behind"):
            days = float(str(value))
            self.offset = timedelta(days=days if kind == "ahead" else -days)
            self.tick(timedelta(minutes=3))
            self.note()
            self.tick(timedelta(minutes=1))
            self.reader.run(self.ws, force=False)
        elif kind == "right":
            self.corrected = self.corrected or self.offset > timedelta(0)
            self.offset = timedelta(0)
            self.tick(timedelta(minutes=5))
            self.note()
        elif kind == "note":
            self.tick(timedelta(minutes=int(str(value))))
            self.note()
        else:
            self.weekly(int(str(value))) if kind == "week" else self.by_hand(int(str(value)))

    def weekly(self, notes: int) -> None:
        """Notes on `notes` days, then the weekly run a week after the last."""
        for _ in range(notes):
            self.tick(timedelta(days=1))
            self.note()
        self.tick(timedelta(days=7 - notes))
        self.run(weekly=True)

    def by_hand(self, hours: int) -> None:
        """`trinho condense`, `hours` on."""
        self.tick(timedelta(hours=hours))
        self.run(weekly=False)

    def run(self, *, weekly: bool) -> None:
        report = self.reader.run(self.ws, force=False)
        if self.corrected and self.offset == timedelta(0):
            if weekly:
                self.due.add(week_id(self.ws.today()))
            if report.outcome != "already_done":
                self.condensed.add(report.run_id.split(".")[0])
