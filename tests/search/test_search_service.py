"""The index a process keeps open (`service.kept_index`): what `memory_search` and the tools use.
Each search still sees every hand edit at once; the connection and the loaded vectors are what
is kept; a replaced or damaged index file is opened afresh; threads search one at a time."""

import concurrent.futures
from pathlib import Path

from conftest import TZ, FixedClock
from trinho.notes.store import save_note
from trinho.search import SearchIndex, search, service
from trinho.workspace import Workspace, init_workspace


def test_the_same_index_serves_every_search_of_the_process(workspace: Workspace) -> None:
    save_note(workspace, "kayak trip to Huế")
    with service.kept_index(workspace) as first:
        pass
    assert [h.text for h in search(workspace, "kayak")] == ["kayak trip to Huế"]
    with service.kept_index(workspace) as again:
        assert again is first
        assert again.conn.execute("SELECT 1").fetchone()[0] == 1  # still open


def test_a_hand_edit_in_place_is_seen_by_the_next_search_at_once(
    workspace: Workspace, clock: FixedClock
) -> None:
    """An old day file appended to in place (its folder unchanged): a kept index looks at every
    file before each search, as a new one did."""
    clock.set("2026-01-05T10:00:00+07:00")
    save_note(workspace, "kayak trip")
    for day in range(1, 4):
        clock.set(f"2026-11-0{day}T10:00:00+07:00")  # newer day files, watched between sweeps
        save_note(workspace, f"ordinary day {day}")
    assert [h.text for h in search(workspace, "kayak")] == ["kayak trip"]
    old = workspace.root / "memory" / "2026-01-05.md"
    with old.open("a", encoding="utf-8") as out:
        out.write("- 11:00 banjo lesson\n")
    assert [h.text for h in search(workspace, "banjo")] == ["banjo lesson"]


def test_an_index_file_replaced_by_a_rebuild_elsewhere_is_opened_afresh(
    workspace: Workspace,
) -> None:
    save_note(workspace, "kayak trip")
    with service.kept_index(workspace) as first:
        pass
    with SearchIndex(workspace) as other:
        other.rebuild()  # a new file put in place of the old one
    save_note(workspace, "banjo lesson")
    assert [h.text for h in search(workspace, "banjo")] == ["banjo lesson"]
    with service.kept_index(workspace) as now:
        assert now is not first
    assert first.conn is not now.conn


def test_searches_from_many_threads_share_the_index_one_at_a_time(workspace: Workspace) -> None:
    for i in range(20):
        save_note(workspace, f"kayak trip number {i}")
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        found = list(pool.map(lambda _: len(search(workspace, "kayak", limit=5)), range(40)))
    assert found == [5] * 40


def test_a_process_keeps_a_few_workspaces_open_and_closes_the_oldest(
    tmp_path: Path, clock: FixedClock
) -> None:
    spaces = [
        init_workspace(tmp_path / f"ws{i}", timezone=TZ, clock=clock).workspace
        for i in range(service.KEPT_INDEXES + 1)
    ]
    opened = []
    for ws in spaces:
        save_note(ws, f"note of {ws.root.name}")
        assert [h.text for h in search(ws, "note")] == [f"note of {ws.root.name}"]
        with service.kept_index(ws) as index:
            opened.append(index)
    assert len(service._kept) == service.KEPT_INDEXES
    try:
        opened[0].conn.execute("SELECT 1")
    except Exception as exc:  # closed: sqlite3.ProgrammingError
        assert "closed" in str(exc)
    else:
        raise AssertionError("the least recently searched index was not closed")
    assert [h.text for h in search(spaces[0], "note")] == ["note of ws0"]  # opened again


def test_an_index_evicted_while_its_own_thread_uses_it_closes_after_without_hanging(
    tmp_path: Path, clock: FixedClock
) -> None:
    """A search holding one index that searches enough other workspaces to evict it: the
    eviction never waits for the index's lock (it would wait for itself), and the index closes
    once the outer search ends."""
    spaces = [
        init_workspace(tmp_path / f"ws{i}", timezone=TZ, clock=clock).workspace
        for i in range(service.KEPT_INDEXES + 1)
    ]
    for ws in spaces:
        save_note(ws, f"note of {ws.root.name}")
    with service.kept_index(spaces[0]) as held:
        for ws in spaces[1:]:
            assert [h.text for h in search(ws, "note")] == [f"note of {ws.root.name}"]
        assert held.conn.execute("SELECT count(*) FROM docs").fetchone()[0] == 1  # still open
    try:
        held.conn.execute("SELECT 1")
    except Exception as exc:
        assert "closed" in str(exc)
    else:
        raise AssertionError("the evicted index was not closed once free")
