"""Undoing a condensation run, for any run: its self-applied changes, the owner's approvals,
the changes still waiting, archives of both kinds, and what OpenClaw promoted after it.

Each example builds the run with the real stores (the before copy and journal a run keeps,
the archive's sections, proposals approved through the real appliers), then undoes it:
MEMORY.md is exactly the text before the run plus the later promotions, no line is both in
MEMORY.md and in `memory/archive.md`, an undo run twice writes what one does, and an undo
killed at any durable write point and run again ends as one clean undo.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import get_args

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import START, TZ, FixedClock
from support.backends import CliBackend
from trinho.condense import undo_run
from trinho.condense.rules.archive import archive_section
from trinho.condense.rules.gate import Change
from trinho.condense.rules.undo import Decision, plan_undo, render_plan
from trinho.condense.store.apply import preview_undo, sha
from trinho.condense.store.runs import Journal, origin_of, save_before, write_journal
from trinho.durable import FaultPoint, atomic_write_text, ensure_dir, inject
from trinho.memory import store as memory_store
from trinho.proposals import store as proposals
from trinho.review.appliers import APPLIERS
from trinho.textnorm import short_ids
from trinho.workspace import Workspace, init_workspace, open_workspace

RUN = "2026-W48"
OLDER = archive_section("2026-W40", ("- 2025-01-01: Đã lưu trữ từ lâu",))
POINTS: tuple[FaultPoint, ...] = get_args(FaultPoint)
PROMOTED = "<!-- openclaw-memory-promotion:memory:memory/2026-11-{day:02d}.md:1:1 -->"


class Killed(BaseException):
    """The process dies here: no `except Exception` handler sees it."""


@dataclass(frozen=True)
class Run:
    """One run, as plain values: the file before it, what applied by itself, what it held and
    what became of each (approve, reject, wait), and what OpenClaw promoted after it."""

    before: str
    added: tuple[str, ...]
    auto_archived: tuple[str, ...]
    held: tuple[tuple[Change, str], ...]
    promotions: str


def _entry(n: int) -> str:
    return f"- 2025-{1 + n % 12:02d}-{1 + n % 28:02d}: Kỷ niệm số {n}"


@st.composite
def runs(draw: st.DrawFn) -> Run:
    count = draw(st.integers(2, 12))
    entries = [_entry(n) for n in range(count)]
    promoted_before = draw(st.booleans())
    lines = ["# Trí nhớ", *entries]
    if promoted_before:  # a line OpenClaw promoted before the run, with its marker
        lines += [PROMOTED.format(day=1), "- Khách quen của quán cà phê [score=0.8]"]
    before = "\n".join(lines) + "\n"
    roles = draw(
        st.lists(
            st.sampled_from(["keep", "auto_archive", "remove", "edit", "archive"]),
            min_size=count,
            max_size=count,
        )
    )
    decide = st.sampled_from(["approve", "reject", "wait"])
    held: list[tuple[Change, str]] = []
    for role in ("remove", "edit"):
        for entry, r in zip(entries, roles, strict=True):
            if r == role:
                new = None if role == "remove" else entry + " (đã sửa)"
                held.append(
                    (
                        Change("removed" if new is None else "edited", "held", entry, new, "x"),
                        draw(decide),
                    )
                )
    if promoted_before and draw(st.booleans()):
        line = "- Khách quen của quán cà phê [score=0.8]"
        held.append((Change("removed", "held", line, None, "x"), draw(decide)))
    archived = tuple(e for e, r in zip(entries, roles, strict=True) if r == "archive")
    if archived:
        held.append((Change("archive", "held", "\n".join(archived), None, "x"), draw(decide)))
    for n in range(draw(st.integers(0, 2))):
        new = f"- 2027-01-0{n + 1}: Hẹn xa số {n}"
        held.append((Change("strange_date", "held", None, new, "x"), draw(decide)))
    added = tuple(f"- 2026-11-2{n}: Mới trong tuần {n}" for n in range(draw(st.integers(0, 3))))
    promotions = ""
    promoted = draw(st.integers(0, 3))
    if promoted:
        promotions = "\n## Promoted From Short-Term Memory (2026-11-30)\n\n" + "".join(
            f"{PROMOTED.format(day=20 + k)}\n- Thích trà sen số {k} [score=0.8]\n"
            for k in range(promoted)
        )
    auto_archived = tuple(e for e, r in zip(entries, roles, strict=True) if r == "auto_archive")
    return Run(before, added, auto_archived, tuple(held), promotions)


def build(root: Path, run: Run, locale: str = "vi") -> Workspace:
    """The workspace as the run, the owner and OpenClaw left it."""
    ws = init_workspace(root, timezone=TZ, locale=locale, clock=FixedClock(START)).workspace
    return leave(ws, run)


def leave(ws: Workspace, run: Run) -> Workspace:
    """`ws` as the run, the owner and OpenClaw leave it, the stores its clock at `START`."""
    clock = FixedClock(START)
    ws.memory_file.write_text(run.before, encoding="utf-8")
    memory_store.archive(ws, OLDER)
    applied = run.before.rstrip("\n").split("\n") + list(run.added)
    auto = [Change("added", "auto", None, line, "x") for line in run.added]
    if run.auto_archived:
        memory_store.archive(ws, archive_section(RUN, run.auto_archived))
        applied = [line for line in applied if line not in run.auto_archived]
        auto.append(Change("archive", "auto", "\n".join(run.auto_archived), None, "x"))
    text = "\n".join(applied) + "\n"
    ensure_dir(ws.internal / "runs" / RUN)
    save_before(ws, RUN, run.before)
    now = clock()
    held = tuple(change for change, _ in run.held)
    write_journal(
        ws, Journal(RUN, "done", now, now, held=held, applied_sha=sha(text), auto=tuple(auto))
    )
    atomic_write_text(ws.memory_file, text)
    for change, decision in run.held:
        pid = proposals.submit(
            ws, "memory", change.to_dict(), reason="x", origin=origin_of(RUN)
        ).proposal.id
        if decision == "approve":
            proposals.approve(ws, pid, "owner (cli)", appliers=APPLIERS)
        elif decision == "reject":
            proposals.reject(ws, pid, "owner (cli)")
    if run.promotions:
        with ws.memory_file.open("a", encoding="utf-8") as handle:
            handle.write(run.promotions)
    return ws


def files(ws: Workspace) -> dict[str, str | None]:
    """MEMORY.md, the archive and every proposal, as the owner and OpenClaw read them."""
    out: dict[str, str | None] = {}
    for path in (ws.memory_file, ws.archive_file):
        out[path.name] = path.read_text(encoding="utf-8") if path.exists() else None
    for path in sorted(ws.proposals_root.glob("*.json")):
        out[path.name] = path.read_text(encoding="utf-8")
    return out


def lines_in_both(ws: Workspace) -> set[str]:
    memory = set(memory_store.read_text(ws).split("\n"))
    archive = memory_store.read_archive(ws).split("\n")
    return {line for line in archive if line.startswith("- ") and line in memory}


def present(ws: Workspace) -> set[str]:
    """The entries MEMORY.md or the archive holds."""
    text = memory_store.read_text(ws) + "\n" + memory_store.read_archive(ws)
    return {line for line in text.split("\n") if line.startswith("- ")}


@contextmanager
def kill_at(target: int | None, seen: list[str]) -> Iterator[None]:
    """Count every durable write point reached; die at the `target`-th (None: never)."""

    def at(point: FaultPoint) -> Callable[[Path], None]:
        def action(path: Path) -> None:
            seen.append(f"{point} {path.name}")
            if target is not None and len(seen) == target:
                raise Killed(point)

        return action

    with ExitStack() as stack:
        for point in POINTS:
            stack.enter_context(inject(point, at(point)))
        yield


SETTINGS = settings(
    max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None
)


@pytest.mark.slow
@SETTINGS
@given(run=runs())
def test_undo_restores_the_file_before_the_run_plus_later_promotions(
    tmp_path_factory: pytest.TempPathFactory, run: Run
) -> None:
    ws = build(tmp_path_factory.mktemp("ws") / "ws", run)
    assert lines_in_both(ws) == set()
    said = preview_undo(ws, RUN)
    result = undo_run(ws, RUN)
    assert memory_store.read_text(ws) == run.before + run.promotions
    assert memory_store.read_archive(ws) == OLDER  # the run's sections, and only they, left
    assert lines_in_both(ws) == set()
    assert result.plan == said  # the confirmation said what the undo did
    approved = {p.id for p in proposals.list_proposals(ws).proposals if p.status == "reverted"}
    pending = {p.id for p in proposals.list_proposals(ws).proposals if p.status == "stale"}
    assert {d.id for d in said.approved} == approved
    assert set(said.withdrawn) == pending
    assert len(approved) == sum(d == "approve" for _, d in run.held)
    assert len(pending) == sum(d == "wait" for _, d in run.held)
    assert [p for p in proposals.list_proposals(ws).proposals if p.status == "approved"] == []
    promoted = [line for line in run.promotions.split("\n") if line.strip()]
    assert list(said.kept) == promoted
    assert said.removed == ()
    unarchived = [*run.auto_archived]
    for change, decision in run.held:
        if change.cls == "archive" and decision == "approve":
            unarchived += (change.old or "").split("\n")
    assert sorted(said.unarchived) == sorted(unarchived)

    once = files(ws)
    again = undo_run(ws, RUN)
    assert files(ws) == once  # twice is once
    assert again.plan is not None
    assert [d.id for d in again.plan.approved] == [d.id for d in said.approved]
    assert again.plan.withdrawn == said.withdrawn
    assert again.kept_current is None


@pytest.mark.slow
@SETTINGS
@given(run=runs(), data=st.data())
def test_an_undo_killed_at_any_write_then_run_again_is_one_clean_undo(
    tmp_path_factory: pytest.TempPathFactory, run: Run, data: st.DataObject
) -> None:
    clean = build(tmp_path_factory.mktemp("clean") / "ws", run)
    seen: list[str] = []
    with kill_at(None, seen):
        undo_run(clean, RUN)
    if not seen:
        return
    target = data.draw(st.integers(1, len(seen)), label="killed at write")
    ws = build(tmp_path_factory.mktemp("killed") / "ws", run)
    held = present(ws) & set((run.before + OLDER).split("\n"))  # the lines the undo keeps
    with kill_at(target, []), pytest.raises(Killed):
        undo_run(ws, RUN)
    assert held <= present(ws)  # in both for a moment is allowed; in neither, never
    undo_run(ws, RUN)
    assert files(ws) == files(clean)


def test_the_plan_is_pure_and_a_fixpoint() -> None:
    """Planned again on the text it gives, the plan gives that text again."""
    before = "# Trí nhớ\n- 2025-01-01: một\n- 2025-02-01: hai\n"
    current = (
        "# Trí nhớ\n- 2025-02-01: hai\n- 2026-11-28: mới\nViết tay sau lần chạy\n"
        "\n## Promoted From Short-Term Memory (2026-11-30)\n\n"
        f"{PROMOTED.format(day=29)}\n- Thích trà sen [score=0.8]\n"
    )
    auto = [Change("added", "auto", None, "- 2026-11-28: mới", "x")]
    plan = plan_undo(RUN, before, current, "", auto, [])
    assert plan.memory == before + current[current.index("\n## Promoted") :]
    assert plan.kept == (
        "## Promoted From Short-Term Memory (2026-11-30)",
        PROMOTED.format(day=29),
        "- Thích trà sen [score=0.8]",
    )
    assert plan.removed == ("Viết tay sau lần chạy",)  # said plainly: the undo removes it
    assert plan_undo(RUN, before, plan.memory, "", auto, []).memory == plan.memory
    lines = render_plan(plan, "en", ".trinho/runs/2026-W48/MEMORY.undone.md")
    assert lines == [
        "A change the run applied by itself, taken back (1):",
        "  - added: - 2026-11-28: mới",
        "Lines OpenClaw promoted since the run, kept (3):",
        "  - ## Promoted From Short-Term Memory (2026-11-30)",
        f"  - {PROMOTED.format(day=29)}",
        "  - - Thích trà sen [score=0.8]",
        "A line added to MEMORY.md since the run, removed (1; its text is kept in "
        ".trinho/runs/2026-W48/MEMORY.undone.md):",
        "  - Viết tay sau lần chạy",
    ]


def test_approving_the_removal_of_a_promoted_line_takes_its_marker(tmp_path: Path) -> None:
    line = "- Minh prefers the night bus to Dalat over flying. [score=0.812]"
    marker = PROMOTED.format(day=19)
    before = f"# Memory\n- 2025-01-01: one\n{marker}\n{line}\n- 2025-02-01: two\n"
    run = Run(before, (), (), ((Change("removed", "held", line, None, "x"), "approve"),), "")
    ws = build(tmp_path / "ws", run)
    assert memory_store.read_text(ws) == "# Memory\n- 2025-01-01: one\n- 2025-02-01: two\n"
    undo_run(ws, RUN)
    assert memory_store.read_text(ws) == before  # the marker is back with its line


def _cli_run() -> Run:
    entries = [_entry(n) for n in range(4)]
    before = "# Trí nhớ\n" + "".join(f"{e}\n" for e in entries)
    held = (
        (Change("removed", "held", entries[1], None, "x"), "approve"),
        (Change("archive", "held", entries[0], None, "x"), "approve"),
        (Change("edited", "held", entries[2], entries[2] + " (đã sửa)", "x"), "wait"),
    )
    promotions = (
        f"\n## Promoted From Short-Term Memory (2026-11-30)\n\n{PROMOTED.format(day=29)}\n"
        "- Thích trà sen [score=0.8]\n"
    )
    return Run(before, ("- 2026-11-28: Mới trong tuần",), (), held, promotions)


@pytest.mark.parametrize("locale", ["en", "vi"])
def test_the_cli_says_what_the_undo_reverts_before_and_after(
    cli_backend: CliBackend, capsys: pytest.CaptureFixture[str], locale: str
) -> None:
    """On the file workspace and on a PostgreSQL owner alike (`cli_backend`): the run is left
    on the owner's memory as a workspace, a working copy checked in on PostgreSQL."""
    from trinho.cli import main

    run = _cli_run()
    config = cli_backend.home / ".trinho" / "config.toml"
    config.write_text(config.read_text().replace('locale = "en"', f'locale = "{locale}"'))
    with cli_backend.view() as root:
        ws = leave(open_workspace(root, FixedClock(START)), run)
        by_class = {p.change["class"]: p.id for p in proposals.list_proposals(ws).proposals}
    removal, archive, edit = by_class["removed"], by_class["archive"], by_class["edited"]
    short = short_ids(by_class.values())  # as the undo shows them: at their short length
    e = [_entry(n) for n in range(4)]
    body = {
        "en": [
            "A change the run applied by itself, taken back (1):",
            "  - added: - 2026-11-28: Mới trong tuần",
            'Changes you approved, taken back (2; their proposals now read "reverted"):',
            *sorted(
                [
                    f"  - {short[removal]}: removed: {e[1]}",
                    f"  - {short[archive]}: archive: 1 line moved to memory/archive.md",
                ]
            ),
            f"A waiting change of the run, withdrawn (1): {short[edit]}",
            "A line out of memory/archive.md, back in MEMORY.md (1):",
            f"  - {e[0]}",
            "Lines OpenClaw promoted since the run, kept (3):",
            "  - ## Promoted From Short-Term Memory (2026-11-30)",
            f"  - {PROMOTED.format(day=29)}",
            "  - - Thích trà sen [score=0.8]",
        ],
        "vi": [
            "Thay đổi lần chạy tự áp dụng, được hoàn tác (1):",
            "  - thêm: - 2026-11-28: Mới trong tuần",
            'Thay đổi bạn đã duyệt, được hoàn tác (2; đề xuất giờ ghi "đã hoàn tác"):',
            *sorted(
                [
                    f"  - {short[removal]}: xoá: {e[1]}",
                    f"  - {short[archive]}: lưu trữ: 1 dòng chuyển vào memory/archive.md",
                ]
            ),
            f"Thay đổi đang chờ của lần chạy, bị rút lại (1): {short[edit]}",
            "Dòng lấy ra khỏi memory/archive.md, trở lại MEMORY.md (1):",
            f"  - {e[0]}",
            "Dòng OpenClaw đưa vào sau lần chạy, được giữ lại (3):",
            "  - ## Promoted From Short-Term Memory (2026-11-30)",
            f"  - {PROMOTED.format(day=29)}",
            "  - - Thích trà sen [score=0.8]",
        ],
    }[locale]
    assert main(["condense", "--undo", RUN, "--dry-run"]) == 0
    before = capsys.readouterr().out.splitlines()
    assert before[1:] == body
    assert cli_backend.read("MEMORY.md") != run.before + run.promotions  # nothing written yet
    assert main(["condense", "--undo", RUN]) == 0
    after = capsys.readouterr().out.splitlines()
    assert after[-len(body) :] == body
    assert cli_backend.read("MEMORY.md") == run.before + run.promotions
    assert main(["proposals", "--all", "--json"]) == 0
    statuses = {p["id"]: p["status"] for p in json.loads(capsys.readouterr().out)}
    assert statuses == {removal: "reverted", archive: "reverted", edit: "stale"}
    assert main(["proposals", "--all"]) == 0
    listed = capsys.readouterr().out
    reverted = {
        "en": "reverted (approved, then undone)",
        "vi": "đã hoàn tác (đã duyệt, rồi hoàn tác)",
    }
    assert listed.count(reverted[locale]) == 2


def test_an_older_runs_approval_made_since_is_taken_back_and_its_archive_section_goes() -> None:
    """Approvals of another run's changes made after the run are in no text before it: the undo
    takes them back too and says so; one the old text already held is left alone."""
    kept = "- 2025-03-01: ba"
    before = f"# Trí nhớ\n- 2025-01-01: một\n- 2025-02-01: hai\n{kept}\n"
    current = f"# Trí nhớ\n{kept}\n"  # W47's removal and W47's archive, approved after W48
    removal = Decision(
        "r1", "2026-W47", "approved", {"class": "removed", "old": "- 2025-01-01: một"}
    )
    moved = Decision("a1", "2026-W47", "approved", {"class": "archive", "old": "- 2025-02-01: hai"})
    earlier = Decision("e1", "2026-W47", "approved", {"class": "removed", "old": "- 2025-09-09: x"})
    archive = OLDER + "\n" + archive_section("2026-W47", ("- 2025-02-01: hai",))
    plan = plan_undo(RUN, before, current, archive, [], [removal, moved, earlier])
    assert plan.memory == before
    assert [d.id for d in plan.approved] == ["r1", "a1"]  # "e1" the old text did not hold
    assert plan.archive == OLDER and plan.unarchived == ("- 2025-02-01: hai",)
    assert plan.removed == ()


def test_a_line_the_run_only_moved_is_not_said_removed() -> None:
    before = "# A\n- 2025-01-01: một\n# B\n- 2025-02-01: hai\n"
    current = "# B\n- 2025-02-01: hai\n# A\n- 2025-01-01: một\n"
    plan = plan_undo(RUN, before, current, "", [], [])
    assert plan.memory == before and plan.removed == ()
