"""A whole rewrite held as one suspicious change, made stale by a newer run, loses no week.

The rule (docs/rules.md, "A rewrite held whole"): a run whose rewrite waits held whole (not
approved) changed nothing, so its reading does not stand; the next run's span reaches back to
the cutoff of the last run whose changes stand, reads that week's notes again, and makes the
waiting proposal stale, so no note is read by two standing runs. Real workspace, real
condensation and proposals queue; a scripted model either changes nothing (`NONE`) or answers
with a whole MEMORY.md that drops every line (held whole as `suspicious`).
"""

from __future__ import annotations

import io
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FixedClock
from support.condense_weeks import is_rewrite
from trinho.channels import ConsoleChannel
from trinho.condense import run_condensation
from trinho.condense.rules.report import RunReport
from trinho.condense.store.runs import WRITTEN, read_journal, rewrite_waits, runs_root
from trinho.errors import TrinhoError
from trinho.models import ChatRequest, ModelError, ScriptedModel
from trinho.notes.store import save_note
from trinho.proposals import store as proposals
from trinho.proposals.format import Proposal
from trinho.review.appliers import APPLIERS
from trinho.workspace import Workspace, init_workspace

TOKEN = re.compile(r"tok(\d+)x")
MEMORY = "# Memory\n\n" + "".join(f"- 2026-01-0{n}: kept line {n}\n" for n in range(1, 7))


class Reader:
    """The scripted model: `wipe` says whether the next rewrite is held whole; `shown` keeps
    the note tokens each run was shown, by run id."""

    def __init__(self) -> None:
        self.wipe = False
        self.count = 0
        self.seen: set[int] = set()
        self.shown: dict[str, set[int]] = {}
        self.model = ScriptedModel(self.reply)

    def reply(self, request: ChatRequest) -> str:
        if not is_rewrite(request):
            return "\n".join(f"{n}: keep" for n in range(1, 200))
        self.seen.update(int(n) for m in request.messages for n in TOKEN.findall(m.text))
        if not self.wipe:
            return "NONE"
        self.count += 1
        return f"# Memory\n\n- 2026-01-01: wiped {self.count}\n"


def _run(reader: Reader, ws: Workspace, *, wipe: bool) -> RunReport:
    """One run (a second in the same week is forced); what it was shown, under its id."""
    reader.wipe, reader.seen = wipe, set()
    channel = ConsoleChannel(ws.locale, io.StringIO())
    report = run_condensation(ws, model=reader.model, channel=channel, force=True)
    if reader.seen:
        reader.shown[report.run_id] = reader.seen
    return report


def _workspace(root: Path, clock: FixedClock) -> Workspace:
    ws = init_workspace(root, timezone="Asia/Ho_Chi_Minh", clock=clock).workspace
    ws.memory_file.write_text(MEMORY, encoding="utf-8")
    return ws


def _whole(ws: Workspace, run_id: str) -> Proposal:
    [found] = [
        p
        for p in proposals.list_proposals(ws).proposals
        if p.origin == f"condense:{run_id}" and p.change.get("class") == "suspicious"
    ]
    return found


def _standing(ws: Workspace, run_id: str) -> bool:
    journal = read_journal(ws, run_id)
    return (
        journal is not None
        and journal.state in WRITTEN
        and not journal.undone
        and not rewrite_waits(ws, journal)
    )


def test_a_superseded_whole_rewrite_gives_its_week_to_the_next_run(tmp_path: Path) -> None:
    clock = FixedClock()
    ws = _workspace(tmp_path / "ws", clock)
    reader = Reader()
    save_note(ws, "first week tok1x")
    clock.advance(minutes=1)
    first = _run(reader, ws, wipe=True)
    assert [rc.change.cls for rc in first.held] == ["suspicious"]
    assert ws.memory_file.read_text(encoding="utf-8") == MEMORY
    clock.advance(days=7)
    save_note(ws, "second week tok2x")
    clock.advance(minutes=1)
    second = _run(reader, ws, wipe=False)
    assert reader.shown == {first.run_id: {1}, second.run_id: {1, 2}}
    stale = _whole(ws, first.run_id)
    assert stale.status == "stale"
    assert "a later weekly update" in (stale.decision_note or "")
    with pytest.raises(TrinhoError) as refused:
        proposals.approve(ws, stale.id, "owner", appliers=APPLIERS)
    assert refused.value.key == "error.proposal.decided_by"
    assert ws.memory_file.read_text(encoding="utf-8") == MEMORY
    clock.advance(days=7)
    save_note(ws, "third week tok3x")
    clock.advance(minutes=1)
    third = _run(reader, ws, wipe=False)
    assert reader.shown[third.run_id] == {3}
    assert [_standing(ws, r) for r in (first.run_id, second.run_id, third.run_id)] == [
        False,
        True,
        True,
    ]


def test_an_approved_whole_rewrite_stands_and_its_week_is_not_read_again(
    tmp_path: Path,
) -> None:
    clock = FixedClock()
    ws = _workspace(tmp_path / "ws", clock)
    reader = Reader()
    save_note(ws, "first week tok1x")
    clock.advance(minutes=1)
    first = _run(reader, ws, wipe=True)
    approved = proposals.approve(ws, _whole(ws, first.run_id).id, "owner", appliers=APPLIERS)
    assert approved[0].status == "approved"
    clock.advance(days=7)
    save_note(ws, "second week tok2x")
    clock.advance(minutes=1)
    second = _run(reader, ws, wipe=False)
    assert reader.shown == {first.run_id: {1}, second.run_id: {2}}


def test_waiting_whole_rewrites_in_a_row_are_all_read_again_by_the_run_that_stands(
    tmp_path: Path,
) -> None:
    clock = FixedClock()
    ws = _workspace(tmp_path / "ws", clock)
    reader = Reader()
    ids = []
    for week in range(1, 4):
        save_note(ws, f"week tok{week}x")
        clock.advance(minutes=1)
        ids.append(_run(reader, ws, wipe=week < 3).run_id)
        clock.advance(days=7)
    assert reader.shown == {ids[0]: {1}, ids[1]: {1, 2}, ids[2]: {1, 2, 3}}
    assert [_whole(ws, r).status for r in ids[:2]] == ["stale", "stale"]


STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("note"), st.integers(1, 3000)),
        st.tuples(st.just("run"), st.booleans()),
        st.tuples(st.just("approve"), st.booleans()),
        st.tuples(st.just("reject"), st.booleans()),
    ),
    min_size=2,
    max_size=14,
)


@pytest.mark.slow
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(steps=STEPS)
def test_every_acknowledged_note_is_read_by_exactly_one_standing_run(
    steps: list[tuple[str, object]],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        clock = FixedClock()
        ws = _workspace(Path(tmp) / "ws", clock)
        reader = Reader()
        save_note(ws, "seed tok0x")
        saved: list[int] = [0]
        clock.advance(minutes=1)
        _run(reader, ws, wipe=False)  # the first run stands: every later one reads from a cutoff
        for kind, value in steps:
            clock.advance(minutes=1)
            if kind == "note":
                clock.advance(minutes=int(str(value)))
                saved.append(len(saved))
                save_note(ws, f"note tok{saved[-1]}x")
            elif kind == "run":
                _run(reader, ws, wipe=bool(value))
            else:  # the owner decides the oldest waiting whole rewrite
                waiting = [
                    p
                    for p in proposals.list_proposals(ws, include_decided=False).proposals
                    if p.change.get("class") == "suspicious"
                ]
                if waiting and kind == "approve":
                    proposals.approve(ws, waiting[0].id, "owner", appliers=APPLIERS)
                elif waiting:
                    proposals.reject(ws, waiting[0].id, "owner")
        clock.advance(days=8)
        _run(reader, ws, wipe=False)
        folders = sorted(c.name for c in runs_root(ws).iterdir() if c.is_dir())
        standing = [r for r in folders if _standing(ws, r)]
        reads = [n for r in standing for n in reader.shown.get(r, set())]
        for number in saved:
            assert reads.count(number) == 1, (number, reader.shown, standing)


def test_a_whole_rewrite_is_not_approved_once_a_later_run_has_started(tmp_path: Path) -> None:
    clock = FixedClock()
    ws = _workspace(tmp_path / "ws", clock)
    reader = Reader()
    save_note(ws, "first week tok1x")
    clock.advance(minutes=1)
    first = _run(reader, ws, wipe=True)
    clock.advance(days=7)
    save_note(ws, "second week tok2x")
    clock.advance(minutes=1)

    def down(request: ChatRequest) -> str:
        raise ModelError("scripted:model", "unreachable", "cannot reach the server")

    failing = ScriptedModel(down)
    with pytest.raises(ModelError):
        run_condensation(ws, model=failing, channel=ConsoleChannel(ws.locale, io.StringIO()))
    waiting = _whole(ws, first.run_id)
    decided, result = proposals.approve(ws, waiting.id, "owner", appliers=APPLIERS)
    assert (decided.status, result.ok) == ("stale", False)
    assert "later condensation run" in (decided.decision_note or "")
    assert ws.memory_file.read_text(encoding="utf-8") == MEMORY
    clock.advance(minutes=1)
    second = _run(reader, ws, wipe=False)
    assert reader.shown == {first.run_id: {1}, second.run_id: {1, 2}}
