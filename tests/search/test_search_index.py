import json
import os
from datetime import date, datetime
from pathlib import Path

import pytest

from conftest import FixedClock
from trinho.conversations.store import record_turn
from trinho.errors import TrinhoError
from trinho.facts import save_fact
from trinho.notes.store import save_note
from trinho.search import Query, SearchIndex, memory_get, notify_written, search
from trinho.workspace import Workspace


def _note(ws: Workspace, clock: FixedClock, text: str, day: str) -> None:
    clock.set(f"{day}T10:00:00+07:00")
    save_note(ws, text)


def _texts(ws: Workspace, query: str, **kw: object) -> list[str]:
    return [h.text for h in search(ws, query, **kw)]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "query", ["Ha Noi", "ha noi", "Hà Nội", "HÀ NỘI", "Ha\u0300 No\u0323\u0302i"]
)
def test_vietnamese_with_or_without_diacritics_finds_ha_noi(
    workspace: Workspace, clock: FixedClock, query: str
) -> None:
    _note(workspace, clock, "Chuyến đi Hà Nội tháng sau", "2026-11-20")
    _note(workspace, clock, "Mua cà phê ở Sài Gòn", "2026-11-21")
    assert _texts(workspace, query) == ["Chuyến đi Hà Nội tháng sau"]


def test_d_with_stroke_matches_plain_d(workspace: Workspace, clock: FixedClock) -> None:
    _note(workspace, clock, "Bay ra Đà Nẵng", "2026-11-20")
    assert _texts(workspace, "da nang") == ["Bay ra Đà Nẵng"]
    assert _texts(workspace, "ĐÀ NẴNG") == ["Bay ra Đà Nẵng"]


def test_exact_diacritics_rank_higher(workspace: Workspace, clock: FixedClock) -> None:
    # "ma" folds from má (mother), mà (but) and ma (ghost): same folded term, one exact word.
    _note(workspace, clock, "gọi ma về nhà", "2026-11-20")
    _note(workspace, clock, "gọi má về nhà", "2026-11-21")
    assert _texts(workspace, "má")[0] == "gọi má về nhà"
    assert _texts(workspace, "ma")[0] in {"gọi ma về nhà", "gọi má về nhà"}
    hits = search(workspace, "má")
    assert hits[0].score > hits[1].score


def test_exact_diacritics_beat_a_folded_twin_that_repeats(
    workspace: Workspace, clock: FixedClock
) -> None:
    # "da nang" is dạ/đã/đà... and nàng/nắng...: the first line holds "da" twice once folded.
    _note(workspace, clock, "dạ, nàng đã đi", "2026-11-20")
    _note(workspace, clock, "Chuyến đi Đà Nẵng tháng sau", "2026-11-21")
    _note(workspace, clock, "trip to da nang next month", "2026-11-22")
    assert _texts(workspace, "ĐÀ NẴNG")[0] == "Chuyến đi Đà Nẵng tháng sau"
    assert _texts(workspace, "Đà Nẵng")[0] == "Chuyến đi Đà Nẵng tháng sau"
    assert len(_texts(workspace, "da nang")) == 3


def test_inflection_does_not_lose_recall(workspace: Workspace, clock: FixedClock) -> None:
    _note(workspace, clock, "Painted the fence blue", "2026-11-20")
    assert _texts(workspace, "painting fences") == ["Painted the fence blue"]


@pytest.mark.parametrize(
    "query",
    ['"fence', "fence AND", "fence*", "NEAR(fence blue)", "(fence) OR", "body:fence", "- ^fence"],
)
def test_fts_syntax_in_queries_is_plain_text(
    workspace: Workspace, clock: FixedClock, query: str
) -> None:
    _note(workspace, clock, "Painted the fence blue", "2026-11-20")
    assert _texts(workspace, query) == ["Painted the fence blue"]


@pytest.mark.parametrize("query", ["", "   ", "?!*()", '""'])
def test_empty_query_is_a_clear_error(workspace: Workspace, query: str) -> None:
    with pytest.raises(TrinhoError, match="empty query"):
        search(workspace, query)


def test_huge_query_is_truncated_not_refused(workspace: Workspace, clock: FixedClock) -> None:
    _note(workspace, clock, "Painted the fence blue", "2026-11-20")
    query = "fence " + "lorem ipsum dolor " * 6_000
    assert len(query.encode()) > 100_000
    assert _texts(workspace, query) == ["Painted the fence blue"]


def test_hits_carry_kind_path_line_date_and_refs(workspace: Workspace, clock: FixedClock) -> None:
    _note(workspace, clock, "first line\nsecond line about kayaks", "2026-11-20")
    workspace.memory_file.write_text("# Me\n- 2026-11-01: Owns a kayak\n", encoding="utf-8")
    record_turn(
        workspace,
        "Caroline",
        "I went kayaking",
        at=datetime.fromisoformat("2026-11-02T09:00+07:00"),
        ref="D1:3",
    )
    hits = {h.kind: h for h in search(workspace, "kayak")}
    assert hits["note"].path == "memory/2026-11-20.md" and hits["note"].line == 1
    assert hits["note"].date == date(2026, 11, 20)
    assert hits["memory"].line == 2 and hits["memory"].date == date(2026, 11, 1)
    assert hits["conversation"].refs == ("D1:3",)
    assert hits["conversation"].path == "conversations/2026-11-02.jsonl"
    data = hits["conversation"].to_json()
    assert set(data) == {"kind", "path", "line", "date", "text", "score", "refs"}


def test_prose_typed_into_memory_md_is_searchable(workspace: Workspace) -> None:
    # A MEMORY.md kept by hand (or by another assistant) is mostly loose lines, not entries.
    workspace.memory_file.write_text(
        "\ufeffBố thích câu cá ở hồ Tây.\n# Gia đình\n\n- Em gái tên Lan, sống ở Huế\n"
        "- 2026-11-01: Owns a kayak\n",
        encoding="utf-8",
    )
    fishing = search(workspace, "cau ca")
    assert [(h.kind, h.line, h.date, h.text) for h in fishing] == [
        ("memory", 1, None, "Bố thích câu cá ở hồ Tây.")
    ]
    assert [h.line for h in search(workspace, "Lan Huế")] == [4]
    assert search(workspace, "gia dinh") == []  # a heading is structure
    assert [h.date for h in search(workspace, "kayak")] == [date(2026, 11, 1)]


def test_prose_in_a_daily_note_is_searchable(workspace: Workspace) -> None:
    # An OpenClaw-style daily note: headings, untimed bullets, paragraphs, a few timed lines.
    path = workspace.note_path(date(2026, 11, 20))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "# 2026-11-20\n\n## Sáng\n- Bàn chuyện chèo kayak ở Ninh Bình\nCon mèo bị ốm.\n"
        "- 09:15 hỏi giá xe đạp\n",
        encoding="utf-8",
    )
    kayak = search(workspace, "kayak ninh binh")
    assert [(h.kind, h.line, h.date, h.text) for h in kayak] == [
        ("note", 4, date(2026, 11, 20), "- Bàn chuyện chèo kayak ở Ninh Bình")
    ]
    assert [h.line for h in search(workspace, "mèo")] == [5]
    assert [h.text for h in search(workspace, "xe dap")] == ["hỏi giá xe đạp"]
    # a heading is indexed too: OpenClaw's notes say `## 14:00 - Topic` above their lines
    assert [(h.line, h.text) for h in search(workspace, "sang")] == [(3, "Sáng")]


def test_speaker_name_is_searchable(workspace: Workspace) -> None:
    at = datetime.fromisoformat("2026-11-02T09:00+07:00")
    record_turn(workspace, "Melanie", "I love pottery", at=at, ref="D1:1")
    record_turn(workspace, "Caroline", "I love painting", at=at, ref="D1:2")
    assert search(workspace, "Melanie love")[0].refs == ("D1:1",)


def test_filters_by_kind_and_dates(workspace: Workspace, clock: FixedClock) -> None:
    for day in ("2026-11-01", "2026-11-10", "2026-11-20"):
        _note(workspace, clock, f"kayak trip on {day}", day)
    workspace.memory_file.write_text("- 2026-11-05: kayak owner\n", encoding="utf-8")
    assert {h.kind for h in search(workspace, "kayak", kinds=["memory"])} == {"memory"}
    got = search(workspace, "kayak", since=date(2026, 11, 5), until=date(2026, 11, 10))
    assert sorted(str(h.date) for h in got) == ["2026-11-05", "2026-11-10"]
    assert len(search(workspace, "kayak", limit=2)) == 2


def test_hand_edits_are_noticed_at_the_next_search(workspace: Workspace, clock: FixedClock) -> None:
    _note(workspace, clock, "kayak trip", "2026-11-20")
    with SearchIndex(workspace) as index:
        assert index.search(Query("kayak"))
        path = workspace.note_path(date(2026, 11, 20))
        # In place, same size: only the mtime differs.
        path.write_text(
            path.read_text(encoding="utf-8").replace("kayak", "canoe"), encoding="utf-8"
        )
        os.utime(path, ns=(1, 1))
        index._last_sweep = None  # a new process starts like this
        assert index.search(Query("kayak")) == []
        assert [h.text for h in index.search(Query("canoe"))] == ["canoe trip"]
        # A new file saved by hand, and a removed one, in a long-lived index.
        workspace.note_path(date(2026, 11, 21)).write_text(
            "- 09:00 zither lesson\n", encoding="utf-8"
        )
        assert [h.text for h in index.search(Query("zither"))] == ["zither lesson"]
        workspace.note_path(date(2026, 11, 21)).unlink()
        assert index.search(Query("zither")) == []


def test_appends_to_today_are_seen_by_a_long_lived_index(
    workspace: Workspace, clock: FixedClock
) -> None:
    _note(workspace, clock, "kayak trip", "2026-11-20")
    with SearchIndex(workspace) as index:
        index.search(Query("kayak"))
        with workspace.note_path(date(2026, 11, 20)).open("a", encoding="utf-8") as handle:
            handle.write("- 11:00 oboe concert\n")
        assert [h.text for h in index.search(Query("oboe"))] == ["oboe concert"]


def test_notify_written_updates_an_existing_index(workspace: Workspace, clock: FixedClock) -> None:
    _note(workspace, clock, "kayak trip", "2026-11-20")
    search(workspace, "kayak")
    _note(workspace, clock, "banjo lesson", "2026-11-20")
    notify_written(workspace, ["memory/2026-11-20.md"])
    with SearchIndex(workspace) as index:
        assert [h.text for h in index.search(Query("banjo"), fresh=False)] == ["banjo lesson"]


def test_rebuild_gives_the_same_results(workspace: Workspace, clock: FixedClock) -> None:
    for i, day in enumerate(("2026-11-01", "2026-11-02", "2026-11-03")):
        _note(workspace, clock, f"kayak trip number {i} với bạn ở Hà Nội", day)
    before = [h.to_json() for h in search(workspace, "kayak Hà Nội")]
    with SearchIndex(workspace) as index:
        index.rebuild()
    assert [h.to_json() for h in search(workspace, "kayak Hà Nội")] == before
    (workspace.internal / "index.sqlite").write_bytes(b"not a database at all" * 100)
    assert [h.to_json() for h in search(workspace, "kayak Hà Nội")] == before


def test_broken_lines_in_hand_edited_files_do_not_break_search(workspace: Workspace) -> None:
    path = workspace.conversation_path(date(2026, 11, 2))
    good = {"at": "2026-11-02T09:00:00+07:00", "role": "user", "text": "harp lesson"}
    path.write_bytes(b"{not json\n" + json.dumps(good).encode() + b"\n\xff\xfe\n")
    assert [h.text for h in search(workspace, "harp")] == ["harp lesson"]


def test_memory_get_reads_lines_and_stays_inside(workspace: Workspace, tmp_path: Path) -> None:
    workspace.memory_file.write_text("a\nb\nc\nd\n", encoding="utf-8")
    got = memory_get(workspace, "MEMORY.md", 2, 2)
    assert (got.text, got.start, got.end, got.total) == ("b\nc", 2, 3, 4)
    assert memory_get(workspace, "MEMORY.md", 4, 10).text == "d"
    with pytest.raises(TrinhoError, match=r"MEMORY.md: has 4 lines; line 5 is past its end"):
        memory_get(workspace, "MEMORY.md", 5)
    with pytest.raises(TrinhoError, match=r"memory: is a folder"):
        memory_get(workspace, "memory")
    empty = workspace.root / "memory" / "2026-11-28.md"
    empty.write_text("", encoding="utf-8")
    assert memory_get(workspace, "memory/2026-11-28.md").text == ""
    outside = tmp_path / "secret.txt"
    outside.write_text("secret", encoding="utf-8")
    for bad in ("../secret.txt", str(outside), "memory/../../secret.txt"):
        with pytest.raises(TrinhoError):
            memory_get(workspace, bad)
    (workspace.root / "link.txt").symlink_to(outside)
    with pytest.raises(TrinhoError, match="outside"):
        memory_get(workspace, "link.txt")


def test_writes_through_trinho_update_the_index_at_once(
    workspace: Workspace, clock: FixedClock
) -> None:
    workspace.on_written = notify_written  # what the shell injects
    _note(workspace, clock, "kayak trip", "2026-11-20")
    search(workspace, "kayak")
    _note(workspace, clock, "banjo lesson", "2026-11-20")
    record_turn(
        workspace, "user", "cello recital", at=datetime.fromisoformat("2026-11-20T09:00+07:00")
    )
    with SearchIndex(workspace) as index:
        assert [h.text for h in index.search(Query("banjo"), fresh=False)] == ["banjo lesson"]
        assert [h.text for h in index.search(Query("cello"), fresh=False)] == ["cello recital"]


def test_facts_are_searchable_current_and_past_with_validity(
    workspace: Workspace, clock: FixedClock
) -> None:
    workspace.on_written = notify_written  # the hook the shell injects
    clock.set("2026-01-10T10:00:00+07:00")
    save_fact(workspace, "home-city", "Hà Nội")
    search(workspace, "anything at all")  # the index exists: later saves update it at once
    clock.set("2026-06-01T10:00:00+07:00")
    save_fact(workspace, "home-city", "Đà Nẵng")
    with SearchIndex(workspace) as index:
        old = index.search(Query("ha noi", kinds=("fact",)), fresh=False)
        new = index.search(Query("home city da nang"), fresh=False)
    # Found by its past value, the fact shows what holds now first, the history right behind.
    assert [h.text for h in old] == [
        "home-city: Đà Nẵng (2026-06-01 → …)",
        "home-city: Hà Nội (2026-01-10 → 2026-06-01)",
    ]
    assert old[1].path == "users/owner/facts/home-city.md" and old[1].date == date(2026, 1, 10)
    assert new[0].kind == "fact" and new[0].text == "home-city: Đà Nẵng (2026-06-01 → …)"
    assert memory_get(workspace, new[0].path, new[0].line, 1).text.strip().startswith("value:")
    # A fact file edited by hand (broken) drops out of search without failing it.
    path = workspace.root / new[0].path
    path.write_text("garbage\n", encoding="utf-8")
    assert search(workspace, "da nang") == []


def test_files_named_like_impossible_days_are_undated(workspace: Workspace) -> None:
    # Every memory/*.md is searched (OpenClaw indexes them all), but only a real day is a date.
    (workspace.root / "memory" / "2026-02-30.md").write_text("- 09:00 harp\n", encoding="utf-8")
    (workspace.root / "memory" / "notes.md").write_text("- 09:00 harp\n", encoding="utf-8")
    workspace.memory_file.write_text("- 2026-02-30: harp lessons\n", encoding="utf-8")
    hits = search(workspace, "harp")
    assert sorted((h.kind, h.path, h.date) for h in hits) == [
        ("memory", "MEMORY.md", None),
        ("memory", "memory/2026-02-30.md", None),
        ("memory", "memory/notes.md", None),
    ]


@pytest.mark.parametrize("conversations_to", ["outside", "internal", "inside"])
def test_a_sweep_indexes_what_every_link_allows_and_nothing_else(
    workspace: Workspace, tmp_path: Path, conversations_to: str
) -> None:
    """The sweep resolves each folder once, not each file: a file that is no link is inside
    exactly when its folder is. Links to files, and folders linked out of the workspace or
    into `.trinho/`, are judged as `Workspace.confine` judges them."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "2026-01-01.md").write_text("- 09:00 outside note\n", encoding="utf-8")
    kept = workspace.root / "kept"
    kept.mkdir()
    (kept / "2026-01-02.md").write_text("- 09:00 kept note\n", encoding="utf-8")
    notes = workspace.root / "memory"
    notes.mkdir(exist_ok=True)
    (notes / "2026-01-03.md").write_text("- 09:00 plain note\n", encoding="utf-8")
    (notes / "2026-01-04.md").symlink_to(outside / "2026-01-01.md")
    (notes / "2026-01-05.md").symlink_to(kept / "2026-01-02.md")
    (notes / "2026-01-06.md").symlink_to(workspace.internal / "config.toml")
    target = {
        "outside": outside / "talk",
        "internal": workspace.internal / "talk",
        "inside": kept / "talk",
    }[conversations_to]
    target.mkdir()
    turn = json.dumps({"role": "user", "text": "linked talk"})
    (target / "2026-01-07.jsonl").write_text(turn + "\n", encoding="utf-8")
    (workspace.root / "conversations").rmdir()
    (workspace.root / "conversations").symlink_to(target, target_is_directory=True)
    with SearchIndex(workspace) as index:
        indexed = {row["path"] for row in index.conn.execute("SELECT path FROM files")}
    linked = {"conversations/2026-01-07.jsonl"} if conversations_to == "inside" else set()
    assert {p for p in indexed if p.startswith(("memory/", "conversations/"))} == {
        "memory/2026-01-03.md",
        "memory/2026-01-05.md",
        *linked,
    }
