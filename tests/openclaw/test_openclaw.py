"""OpenClaw workspaces (trinho.openclaw.files): the default detection, the prompt's session
files and bootstrap names, and the generated facts digest in memory/facts.md."""

from __future__ import annotations

import os
import shutil
from datetime import date
from pathlib import Path

import pytest

from conftest import FixedClock
from trinho.condense.store.collect import Span, collect
from trinho.context.assembly import Budgets
from trinho.context.run import build_context
from trinho.errors import TrinhoError
from trinho.facts.render import IndexLine, render_facts_digest
from trinho.facts.store import save_fact
from trinho.openclaw.files import (
    BOOTSTRAP_FILES,
    DIGEST_MARK,
    FACTS_DIGEST,
    is_digest,
    looks_like_openclaw,
    openclaw_enabled,
)
from trinho.proposals.store import approve
from trinho.review.appliers import APPLIERS
from trinho.search import search
from trinho.workspace import Workspace, open_workspace

FIXTURE = Path(__file__).parent.parent / "data" / "openclaw"
NOW = "2026-04-21T20:00:00+07:00"


@pytest.fixture
def openclaw(tmp_path: Path, clock: FixedClock) -> Workspace:
    root = tmp_path / "oc"
    shutil.copytree(FIXTURE, root)
    clock.set(NOW)
    return open_workspace(root, clock)


def set_context(ws: Workspace, line: str, clock: FixedClock) -> Workspace:
    config = ws.internal / "config.toml"
    text = config.read_text(encoding="utf-8")
    if "\n[context]\n" in text:
        text = text.replace("\n[context]\n", f"\n[context]\n{line}\n", 1)
    else:
        text += f"\n[context]\n{line}\n"
    config.write_text(text, encoding="utf-8")
    return open_workspace(ws.root, clock)


# ---- detection --------------------------------------------------------------------------------


@pytest.mark.parametrize(("sign", "expected"), [("AGENTS.md", True), (".openclaw", True)])
def test_agents_md_or_dot_openclaw_makes_an_openclaw_folder(
    tmp_path: Path, sign: str, expected: bool
) -> None:
    assert not looks_like_openclaw(tmp_path)
    if sign.startswith("."):
        (tmp_path / sign).mkdir()
    else:
        (tmp_path / sign).write_text("# Agents\n", encoding="utf-8")
    assert looks_like_openclaw(tmp_path) is expected


def test_a_lower_case_agents_md_is_not_a_sign(tmp_path: Path) -> None:
    (tmp_path / "agents.md").write_text("x\n", encoding="utf-8")
    assert not looks_like_openclaw(tmp_path)


def test_the_default_follows_the_folder_with_or_without_a_config(
    openclaw: Workspace, workspace: Workspace, clock: FixedClock
) -> None:
    assert openclaw_enabled(openclaw)  # no trinho config at all
    assert not openclaw_enabled(workspace)  # trinho's own folder
    (workspace.root / "AGENTS.md").write_text("# Agents\n", encoding="utf-8")
    assert openclaw_enabled(open_workspace(workspace.root, clock))  # with a trinho config


def test_the_setting_wins_either_way(workspace: Workspace, clock: FixedClock) -> None:
    assert openclaw_enabled(set_context(workspace, "openclaw = true", clock))
    config = workspace.internal / "config.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("openclaw = true", "openclaw = false"), encoding="utf-8")
    (workspace.root / "AGENTS.md").write_text("# Agents\n", encoding="utf-8")
    ws = open_workspace(workspace.root, clock)
    assert not openclaw_enabled(ws)
    assert "OpenClaw" not in build_context(ws).system


def test_a_setting_that_is_not_a_boolean_is_refused(
    workspace: Workspace, clock: FixedClock
) -> None:
    with pytest.raises(TrinhoError, match=r"\[context\] openclaw must be true or false"):
        set_context(workspace, 'openclaw = "yes"', clock)


# ---- the prompt -------------------------------------------------------------------------------


def test_the_prompt_holds_the_session_files_of_today_and_yesterday(openclaw: Workspace) -> None:
    preamble = build_context(openclaw).preamble
    assert "# Session: 2026-04-20 09:12:44 UTC" in preamble
    assert "Thanh Buoi night bus" in preamble
    # the canonical day file comes first, its session files after it
    assert preamble.index("Xylophone lesson booking") < preamble.index("# Session: 2026-04-20")


def test_an_older_session_file_is_not_in_the_prompt(openclaw: Workspace) -> None:
    (openclaw.notes_dir / "2026-04-19-old-trip.md").write_text(
        "# Session\n\nuser: the pangolin sanctuary\n", encoding="utf-8"
    )
    today = openclaw.notes_dir / "2026-04-21-today-chat.md"
    today.write_text("# Session\n\nuser: the axolotl tank\n", encoding="utf-8")
    preamble = build_context(openclaw).preamble
    assert "axolotl" in preamble and "pangolin" not in preamble


def test_session_files_share_the_notes_budget_newest_kept(openclaw: Workspace) -> None:
    (openclaw.notes_dir / "2026-04-21-today-chat.md").write_text(
        "# Session\n\nuser: the axolotl tank\n", encoding="utf-8"
    )
    small = build_context(openclaw, budgets=Budgets(notes=12), warn=False)
    assert "axolotl" in small.preamble
    assert "Thanh Buoi" not in small.preamble
    assert small.omitted["notes"] > 0
    assert "memory_search finds them" in small.preamble


def test_without_openclaw_the_session_files_stay_out(openclaw: Workspace) -> None:
    ctx = build_context(openclaw, openclaw=False)
    assert "Thanh Buoi" not in ctx.preamble
    assert "## Long-term memory (MEMORY.md)" in ctx.system  # nothing else loads it


def test_bootstrap_files_are_named_not_repeated(openclaw: Workspace) -> None:
    system = build_context(openclaw).system
    present = [n for n in BOOTSTRAP_FILES if (openclaw.root / n).is_file()]
    assert present == ["AGENTS.md", "SOUL.md", "USER.md", "MEMORY.md"]
    assert "not repeated here: AGENTS.md, SOUL.md, USER.md, MEMORY.md." in system
    memory = (openclaw.root / "MEMORY.md").read_text(encoding="utf-8")
    entry = next(line for line in memory.splitlines() if line.startswith("- "))
    assert entry not in system
    assert "## Long-term memory (MEMORY.md)" not in system
    assert build_context(openclaw).omitted["memory"] == 0


# ---- the facts digest -------------------------------------------------------------------------


def digest(ws: Workspace) -> str:
    return (ws.root / FACTS_DIGEST).read_text(encoding="utf-8")


def test_a_fact_change_writes_the_marked_digest(openclaw: Workspace) -> None:
    assert not (openclaw.root / FACTS_DIGEST).exists()
    save_fact(openclaw, "home-city", "Hà Nội")
    text = digest(openclaw)
    assert text.startswith(DIGEST_MARK + "\n")
    assert "do not edit this file" in text
    assert "- home-city: Hà Nội (user, since 2026-04-21)" in text
    save_fact(openclaw, "home-city", "Đà Nẵng")
    assert "Đà Nẵng" in digest(openclaw) and "Hà Nội" not in digest(openclaw)


def test_an_approved_fact_rewrites_the_digest(openclaw: Workspace) -> None:
    save_fact(openclaw, "home-city", "Hà Nội")
    held = save_fact(openclaw, "home-city", "Huế", basis="inferred", actor="job")
    assert held.proposal is not None and "Huế" not in digest(openclaw)
    approve(openclaw, held.proposal.id, "owner", appliers=APPLIERS)
    assert "- home-city: Huế" in digest(openclaw)


def test_the_digest_is_written_atomically(
    openclaw: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    save_fact(openclaw, "home-city", "Hà Nội")
    before = digest(openclaw)
    calls: list[str] = []
    real = os.replace

    def crash(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        calls.append(str(dst))
        if str(dst).endswith("facts.md"):
            raise OSError("disk full")
        real(src, dst)

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        save_fact(openclaw, "pet", "a cat named Mít")
    assert digest(openclaw) == before  # the old digest whole, never a torn one
    assert any(c.endswith("facts.md") for c in calls)


def test_a_hand_written_facts_md_is_left_alone(openclaw: Workspace) -> None:
    (openclaw.notes_dir / "facts.md").write_text("# My facts\n- the quetzal\n", encoding="utf-8")
    save_fact(openclaw, "home-city", "Hà Nội")
    assert digest(openclaw) == "# My facts\n- the quetzal\n"
    assert [h.path for h in search(openclaw, "quetzal")] == [FACTS_DIGEST]


def test_no_digest_outside_an_openclaw_workspace(workspace: Workspace) -> None:
    save_fact(workspace, "home-city", "Hà Nội")
    assert not (workspace.root / FACTS_DIGEST).exists()


def test_a_user_other_than_the_owner_leaves_the_digest_unchanged(openclaw: Workspace) -> None:
    save_fact(openclaw, "home-city", "Hà Nội")
    before = digest(openclaw)
    save_fact(openclaw, "home-city", "Cần Thơ", user="lan")
    assert digest(openclaw) == before


def test_search_finds_a_fact_once_not_in_the_digest(openclaw: Workspace) -> None:
    save_fact(openclaw, "favourite-fruit", "mangosteen")
    hits = search(openclaw, "mangosteen")
    assert len(hits) == 1 and hits[0].kind == "fact"
    assert is_digest(openclaw.root / FACTS_DIGEST)


def test_the_digest_is_never_rewrite_material(openclaw: Workspace) -> None:
    save_fact(openclaw, "favourite-fruit", "mangosteen")
    items = collect(openclaw, Span(None, openclaw.now())).items
    assert "mangosteen" not in " ".join(item.text for item in items)
    assert FACTS_DIGEST not in {getattr(item, "path", "") for item in items}


def test_rendering_is_pure_and_lists_current_facts() -> None:
    entries = [
        IndexLine("city", "Huế", "user", date(2026, 1, 5), None),
        IndexLine("job", "teacher", "inferred", date(2026, 2, 1), date(2026, 6, 30)),
    ]
    text = render_facts_digest(entries, DIGEST_MARK, "vi")
    assert text == render_facts_digest(entries, DIGEST_MARK, "vi")
    lines = text.splitlines()
    assert lines[0] == DIGEST_MARK and lines[1] == "# Dữ kiện (tự sinh)"
    assert sum(line.startswith("- ") for line in lines) == 2
    assert "đừng sửa tệp này" in text
