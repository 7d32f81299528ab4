"""The archive proposal beside the other changes of its run: decided in any order, every
approved change applies, nothing is lost, and no card names a line the file no longer has
there (DESIGN.md section 4, "Decisions compose"; the gate's row "MEMORY.md over its prompt
budget": never a line with another change pending, its reason the budget's).

One run holds four cards: the archive, an edit of the oldest entry, the removal of the next
oldest (with the model's reason for it) and an addition held for its date. Every one of the
24 orders of approval is played on each desk_backend, from the same run.
"""

from __future__ import annotations

import html
import io
import re
import shutil
from collections.abc import Iterator
from itertools import permutations
from pathlib import Path

import pytest

from conftest import START, TZ, FixedClock
from support.backends import BACKENDS
from support.condense_weeks import two_roles
from support.desks import DeskBackend, file_backend, pg_backend
from trinho.channels import ConsoleChannel, Outbox
from trinho.channels.render import review_item_text, review_text
from trinho.condense import run_condensation
from trinho.notes.store import save_note
from trinho.proposals.format import Proposal
from trinho.review import decide
from trinho.review.render import proposals_text, reason_words
from trinho.web import pages
from trinho.web import store as reads
from trinho.workspace import Workspace, init_workspace, open_workspace

EMPLOYER_OLD = "- 2025-01-01: Làm việc ở công ty Acme"
EMPLOYER_NEW = "- 2025-01-01: Làm việc ở công ty Globex"
ALLERGY = "- 2025-01-02: Dị ứng đậu phộng"
BIRTHDAY = "- 2026-12-25: Sinh nhật mẹ"
WHY_REMOVED = "ate peanut bread, allergy gone"
GENERIC = [
    f"- 2025-{1 + i % 12:02d}-{3 + i % 26:02d}: Kỷ niệm số {i} của chủ nhân" for i in range(58)
]
OLD = [*GENERIC, EMPLOYER_OLD, ALLERGY]
"""The two oldest entries come last: archiving the entries before them moves their lines up,
so a card that kept the number a line had when the run read it would name a wrong one."""
MEMORY = "# Trí nhớ\n" + "".join(line + "\n" for line in OLD)
SCRIPT = "\n".join(
    [
        f"EDIT [60] {EMPLOYER_NEW}",
        f"REMOVE [61] {WHY_REMOVED}",
        f"ADD {BIRTHDAY}",
    ]
)
CLASSES = ("archive", "edited", "removed", "strange_date")


def over_budget(root: Path, clock: FixedClock) -> Workspace:
    """A workspace whose MEMORY.md is about four times its budget, with a week's note."""
    ws = init_workspace(root, timezone=TZ, clock=clock).workspace
    config = ws.internal / "config.toml"
    config.write_text(
        config.read_text() + '\n[context]\nmemory_tokens = 400\n[condense]\narchive = "ask"\n'
    )
    ws = open_workspace(ws.root, clock)
    ws.memory_file.write_text(MEMORY, encoding="utf-8")
    clock.advance(hours=-2)
    save_note(ws, "Chuyển sang công ty Globex; ăn bánh mì đậu phộng không sao")
    clock.advance(hours=2)
    return ws


@pytest.fixture(scope="module")
def condensed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The workspace after the run that holds the four cards (made once, copied per test)."""
    root = tmp_path_factory.mktemp("condensed") / "ws"
    clock = FixedClock(START)
    ws = over_budget(root, clock)
    run_condensation(ws, model=two_roles(SCRIPT), channel=ConsoleChannel("en", io.StringIO()))
    return root


@pytest.fixture(params=BACKENDS)
def desk_backend(
    request: pytest.FixtureRequest, condensed: Path, tmp_path: Path, clock: FixedClock
) -> Iterator[DeskBackend]:
    root = tmp_path / "ws"
    shutil.copytree(condensed, root)
    ws = open_workspace(root, clock)
    if request.param == "files":
        yield file_backend(ws)
        return
    yield pg_backend(request.getfixturevalue("pg_admin"), ws, clock)


def cards(desk_backend: DeskBackend) -> dict[str, Proposal]:
    waiting = reads.waiting(desk_backend.records)
    found = {str(p.change.get("class")): p for p in waiting}
    assert len(found) == len(waiting)
    return found


def lines_of(text: str | None) -> list[str]:
    return [] if text is None else text.split("\n")


_SOURCE = re.compile(r'<a href="/source\?ref=([^"]+)">([^<]*)</a>: “([^”]*)”')


def assert_lines_shown_are_in_the_file(desk_backend: DeskBackend) -> None:
    """Every card as the page draws it now: a MEMORY.md source names the line that holds its
    text in the file as it is, or no line at all; the CLI listing names no line number."""
    memory = desk_backend.memory().split("\n")
    waiting = reads.waiting(desk_backend.records)
    page = pages.queue_page(waiting, "en", "csrf", "owner")
    for ref, place, quoted in _SOURCE.findall(str(page)):
        ref, place, quoted = html.unescape(ref), html.unescape(place), html.unescape(quoted)
        number = re.fullmatch(r"MEMORY\.md#L(\d+)", ref)
        shown = re.search(r"line (\d+)", place)
        if number is None:
            assert shown is None, place
            continue
        assert shown is not None and shown.group(1) == number.group(1), (ref, place)
        n = int(number.group(1))
        assert 1 <= n <= len(memory) and memory[n - 1].removeprefix("- ") == quoted, (n, quoted)
    assert not re.search(r"\bline \d+", proposals_text("en", waiting))


def assert_nothing_lost(desk_backend: DeskBackend, approved: list[Proposal]) -> None:
    """Every line of the old MEMORY.md, byte for byte, is in MEMORY.md, in the archive, in a
    change still waiting, or was the old side of an edit or removal the owner approved."""
    places = set(desk_backend.memory().split("\n")) | set(desk_backend.archive().split("\n"))
    for p in reads.waiting(desk_backend.records):
        places |= set(lines_of(p.change.get("old")))
    for p in approved:
        if p.change.get("class") in ("edited", "removed"):
            places |= set(lines_of(p.change.get("old")))
    assert [line for line in OLD if line not in places] == []


def test_the_archive_takes_no_line_of_another_card_and_gives_the_budget_as_its_reason(
    desk_backend: DeskBackend,
) -> None:
    found = cards(desk_backend)
    assert sorted(found) == sorted(CLASSES)
    archive = found["archive"]
    moved = lines_of(archive.change["old"])
    assert EMPLOYER_OLD not in moved and ALLERGY not in moved  # both have a change waiting
    by_date = sorted(range(len(GENERIC)), key=lambda i: (GENERIC[i][2:12], i))
    oldest = sorted(by_date[: len(moved)])
    assert moved == [GENERIC[i] for i in oldest]  # the next least recently dated, in file order
    assert archive.why is None and found["removed"].why == WHY_REMOVED
    for locale in ("en", "vi"):
        said = reason_words(archive, locale)
        assert WHY_REMOVED not in said and "token" not in said and "MEMORY.md" not in said
        assert str(len(moved)) in said
    assert "times as long as what fits in the assistant's prompt" in reason_words(archive, "en")
    assert_lines_shown_are_in_the_file(desk_backend)


@pytest.mark.parametrize("order", list(permutations(CLASSES)), ids="-".join)
def test_approving_in_any_order_applies_every_card(
    desk_backend: DeskBackend, order: tuple[str, ...]
) -> None:
    found = cards(desk_backend)
    archived = lines_of(found["archive"].change["old"])
    approved: list[Proposal] = []
    for cls in order:
        p = found[cls]
        decided, result = decide.approve(
            desk_backend.records, p.id, "owner (web)", content_hash=p.content_hash
        )
        assert result.ok and decided.status == "approved", (cls, result.message)
        approved.append(p)
        assert_nothing_lost(desk_backend, approved)
        assert_lines_shown_are_in_the_file(desk_backend)
    memory, archive = desk_backend.memory().split("\n"), desk_backend.archive().split("\n")
    assert EMPLOYER_NEW in memory and EMPLOYER_OLD not in memory  # the new employer is there
    assert ALLERGY not in memory and ALLERGY not in archive
    assert BIRTHDAY in memory
    assert all(line in archive and line not in memory for line in archived)
    kept = [line for line in GENERIC if line not in archived]
    assert all(memory.count(line) == 1 for line in kept)
    assert reads.waiting(desk_backend.records) == []


# --- across runs: a change waiting from an earlier run, an archive waiting from one ---------


def week(ws: Workspace, clock: FixedClock, script: str) -> str:
    """A week later, a note and a run answering `script`: what the console announced."""
    clock.advance(days=7)
    clock.advance(hours=-2)
    save_note(ws, "Một tuần nữa")
    clock.advance(hours=2)
    out = io.StringIO()
    run_condensation(ws, model=two_roles(script), channel=ConsoleChannel(ws.locale, out))
    return out.getvalue()


def set_archive(ws: Workspace, clock: FixedClock, mode: str) -> Workspace:
    config = ws.internal / "config.toml"
    text = re.sub(r'archive = "\w+"', f'archive = "{mode}"', config.read_text())
    config.write_text(text)
    return open_workspace(ws.root, clock)


def test_an_edit_waiting_from_an_earlier_run_keeps_its_line_out_of_the_archive(
    tmp_path: Path, clock: FixedClock
) -> None:
    ws = set_archive(over_budget(tmp_path / "ws", clock), clock, "off")
    run_condensation(ws, model=two_roles(f"EDIT [60] {EMPLOYER_NEW}"))
    ws = set_archive(ws, clock, "ask")
    said = week(ws, clock, "NONE")
    desk_backend = file_backend(ws)
    found = cards(desk_backend)
    assert sorted(found) == ["archive", "edited"]
    moved = lines_of(found["archive"].change["old"])
    assert EMPLOYER_OLD not in moved and ALLERGY in moved
    assert "New: (nothing)" not in said
    gist = f"Move {len(moved)} oldest entries to the archive: «{moved[0].removeprefix('- ')}»"
    assert gist in said
    notification = Outbox(ws).get("condense:2026-W49")
    assert notification is not None  # as Telegram shows it: the list, then the archive's screen
    items = notification.notification.items
    [at] = [i for i, item in enumerate(items) if item.proposal_id == found["archive"].id]
    assert f"📦 Archives: Move {len(moved)} oldest entries" in review_text(
        notification.notification, "en"
    )
    screen = review_item_text(notification.notification, at, "en")
    assert gist in screen and "New: (moved to the archive: still searchable)" in screen
    assert "(nothing)" not in screen and "token" not in screen
    for cls in ("archive", "edited"):
        _, result = decide.approve(
            desk_backend.records, found[cls].id, "owner", content_hash=found[cls].content_hash
        )
        assert result.ok, result.message
    assert EMPLOYER_NEW in desk_backend.memory().split("\n")


def test_a_waiting_archive_that_holds_a_line_a_later_run_changes_is_replaced(
    tmp_path: Path, clock: FixedClock
) -> None:
    ws = over_budget(tmp_path / "ws", clock)
    run_condensation(ws, model=two_roles("NONE"))
    desk_backend = file_backend(ws)
    first = cards(desk_backend)["archive"]
    assert ALLERGY in lines_of(first.change["old"])
    said = week(ws, clock, f"REMOVE [61] {WHY_REMOVED}")
    found = cards(desk_backend)
    assert sorted(found) == ["archive", "removed"]
    replaced = desk_backend.records.get_proposal(first.id)
    assert replaced.status == "stale" and "2026-W49" in str(replaced.decision_note)
    second = found["archive"]
    assert ALLERGY not in lines_of(second.change["old"]) and second.why is None
    assert second.id[:6] in said and first.id[:6] not in said
    for cls in ("removed", "archive"):
        _, result = decide.approve(
            desk_backend.records, found[cls].id, "owner", content_hash=found[cls].content_hash
        )
        assert result.ok, result.message
    assert ALLERGY not in desk_backend.memory() and ALLERGY not in desk_backend.archive()


def test_an_archive_that_applies_by_itself_leaves_the_held_lines_in_place(
    tmp_path: Path, clock: FixedClock
) -> None:
    ws = set_archive(over_budget(tmp_path / "ws", clock), clock, "auto")
    run_condensation(ws, model=two_roles(SCRIPT))
    desk_backend = file_backend(ws)
    memory, archive = desk_backend.memory().split("\n"), desk_backend.archive().split("\n")
    assert EMPLOYER_OLD in memory and ALLERGY in memory
    assert EMPLOYER_OLD not in archive and ALLERGY not in archive
    found = cards(desk_backend)
    assert sorted(found) == ["edited", "removed", "strange_date"]
    for p in found.values():
        _, result = decide.approve(desk_backend.records, p.id, "owner", content_hash=p.content_hash)
        assert result.ok, result.message
    memory = desk_backend.memory().split("\n")
    assert EMPLOYER_NEW in memory and ALLERGY not in memory and BIRTHDAY in memory
