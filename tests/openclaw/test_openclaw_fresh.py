"""A workspace as OpenClaw 2026.9.6 makes it: opened as it is, in OpenClaw's time zone, its
files searched as OpenClaw indexes them, trinho's state kept out of the owner's git."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import FixedClock
from support.condense_weeks import two_roles
from trinho.channels import ConsoleChannel
from trinho.condense import run_condensation
from trinho.context.run import build_context
from trinho.errors import TrinhoError
from trinho.memory import store as memory_store
from trinho.openclaw.files import BOOTSTRAP_FILES, bootstrap_present
from trinho.openclaw.markers import strip_annotations
from trinho.search import search
from trinho.tools.service import Actor, call
from trinho.workspace import init_workspace, open_workspace

CHAT = Actor("chat", "main")
SEEDED = {
    "AGENTS.md": "# AGENTS.md\n",
    "SOUL.md": "# SOUL.md\n",
    "IDENTITY.md": "# IDENTITY.md\n",
    "USER.md": "# USER.md\n\n- Name: Minh\n- Pronouns: anh\n- Notes: thích cà phê sữa đá\n",
    "BOOTSTRAP.md": "# BOOTSTRAP.md\n\nHello, world.\n",
}


def fresh(root: Path, *, git: bool = False) -> Path:
    """The files `openclaw setup --baseline` seeds: no memory/ and no MEMORY.md yet."""
    root.mkdir(parents=True)
    for name, text in SEEDED.items():
        (root / name).write_text(text, encoding="utf-8")
    if git:
        (root / ".git").mkdir()
    return root


def files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def test_a_fresh_openclaw_workspace_opens_as_it_is(tmp_path: Path, clock: FixedClock) -> None:
    root = fresh(tmp_path / "claw")
    before = files(root)
    ws = open_workspace(root, clock)
    assert search(ws, "ca phe") and call(ws, "memory_search", {"query": "x"}, CHAT).data
    build_context(ws)
    assert call(ws, "memory_get", {"path": "MEMORY.md"}, CHAT, "openclaw").data == {
        "status": "not_found",
        "path": "MEMORY.md",
        "text": "",
    }
    outside = {f for f in files(root) if not f.startswith(".trinho/")}
    assert outside == before and not (root / "memory").exists()
    saved = call(ws, "memory_save", {"text": "Mẹ hẹn khám răng thứ Sáu"}, CHAT)
    assert not saved.is_error
    assert (root / "memory" / "2026-11-29.md").is_file() and (root / "BOOTSTRAP.md").is_file()
    assert not (root / "MEMORY.md").exists()


def test_a_folder_with_no_sign_of_a_workspace_is_still_refused(tmp_path: Path) -> None:
    (tmp_path / "USER.md").write_text("x", encoding="utf-8")
    with pytest.raises(TrinhoError, match="not a workspace"):
        open_workspace(tmp_path)


def test_the_prompt_files_are_openclaws_2026_9_6_list() -> None:
    assert BOOTSTRAP_FILES == (
        "AGENTS.md",
        "SOUL.md",
        "IDENTITY.md",
        "USER.md",
        "BOOTSTRAP.md",
        "MEMORY.md",
    )


def test_retired_prompt_files_are_not_claimed(tmp_path: Path, clock: FixedClock) -> None:
    root = fresh(tmp_path / "claw")
    for retired in ("TOOLS.md", "HEARTBEAT.md"):
        (root / retired).write_text("# retired\n", encoding="utf-8")
    ws = open_workspace(root, clock)
    assert bootstrap_present(ws) == (
        "AGENTS.md",
        "SOUL.md",
        "IDENTITY.md",
        "USER.md",
        "BOOTSTRAP.md",
    )
    system = build_context(ws).system
    assert "TOOLS.md" not in system and "HEARTBEAT.md" not in system


def test_user_md_and_dreams_markdown_are_searched(tmp_path: Path, clock: FixedClock) -> None:
    root = fresh(tmp_path / "claw")
    dreams = root / "memory" / ".dreams"
    dreams.mkdir(parents=True)
    (dreams / "2026-11-28.md").write_text("- The lanterns of Hoi An at night\n", encoding="utf-8")
    (dreams / "state.json").write_text('{"q": "zebrafish"}', encoding="utf-8")
    ws = open_workspace(root, clock)
    assert [(h.path, h.kind) for h in search(ws, "ca phe sua da")] == [("USER.md", "memory")]
    dream = search(ws, "lanterns hoi an")
    assert [(h.path, h.kind) for h in dream] == [("memory/.dreams/2026-11-28.md", "memory")]
    assert search(ws, "zebrafish") == []


def test_annotations_never_reach_a_hits_text(tmp_path: Path, clock: FixedClock) -> None:
    root = fresh(tmp_path / "claw")
    tail = " <!-- trigger: xylophone lessons --> <!-- importance: 8 -->"
    (root / "MEMORY.md").write_text(
        f"# MEMORY.md\n\n- 2026-11-20: Son learns the xylophone on Saturdays{tail}\n"
        f"Loose prose about the garage code 4471 <!-- project: home/garage -->\n",
        encoding="utf-8",
    )
    (root / "memory").mkdir()
    (root / "memory" / "2026-11-29.md").write_text(f"- 09:00 Bought a kite{tail}\n", "utf-8")
    ws = open_workspace(root, clock)
    texts = {h.text for q in ("xylophone", "garage code", "kite") for h in search(ws, q)}
    assert texts == {
        "Son learns the xylophone on Saturdays",
        "Loose prose about the garage code 4471",
        "Bought a kite",
    }
    assert search(ws, "importance") == [] and search(ws, "trigger") == []
    got = call(ws, "memory_search", {"query": "kite"}, CHAT, "openclaw").data
    assert got is not None and got["results"][0]["snippet"] == "Bought a kite"


OWNER_TEXT = st.text(st.characters(exclude_characters="\r\n\u2028\u2029<"), max_size=30).map(
    str.rstrip
)
VALUE = st.text(st.characters(exclude_characters="\r\n\u2028\u2029-"), max_size=20)


@given(
    OWNER_TEXT,
    st.lists(st.tuples(st.sampled_from(["trigger", "Importance", "project"]), VALUE), max_size=3),
)
def test_stripping_annotations_leaves_the_owners_text(
    text: str, notes: list[tuple[str, str]]
) -> None:
    line = text + "".join(f" <!-- {kind}: {value} -->" for kind, value in notes)
    assert strip_annotations(line) == (text if notes else line)


@given(st.text(st.characters(exclude_characters="<"), max_size=60))
def test_text_without_a_comment_is_unchanged(text: str) -> None:
    assert strip_annotations(text) == text


def test_an_annotation_that_does_not_close_on_its_line_is_text() -> None:
    assert strip_annotations("a <!-- trigger: x\n--> b") == "a <!-- trigger: x\n--> b"
    assert strip_annotations("a <!-- note: keep --> b") == "a <!-- note: keep --> b"


def write_openclaw_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    path = tmp_path / "state" / "openclaw.json"
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    monkeypatch.setenv("OPENCLAW_CONFIG_PATH", str(path))


JSON5 = """// OpenClaw's config, JSON5 as a person edits it
{
  agents: {
    defaults: { workspace: "/tmp/w", userTimezone: "Asia/Tokyo", }, // the owner's zone
  },
}
"""


def test_an_openclaw_workspace_follows_openclaws_time_zone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_openclaw_config(tmp_path, monkeypatch, JSON5)
    root = fresh(tmp_path / "claw")
    # 2026-11-29 20:00 UTC is already the 30th in Tokyo: the day file is named as OpenClaw's.
    clock = FixedClock(datetime(2026, 11, 29, 20, 0, tzinfo=UTC))
    ws = open_workspace(root, clock)
    assert ws.config.timezone == "Asia/Tokyo"
    saved = call(ws, "memory_save", {"text": "x"}, CHAT).data
    assert (
        saved is not None and saved["path"] == "memory/2026-11-30.md" and saved["time"] == "05:00"
    )


def test_trinhos_own_zone_wins_and_a_config_without_one_follows_openclaw(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_openclaw_config(tmp_path, monkeypatch, JSON5)
    root = fresh(tmp_path / "claw")
    init_workspace(root, timezone="Europe/Paris")
    assert open_workspace(root).config.timezone == "Europe/Paris"
    (root / ".trinho" / "config.toml").write_text('[owner]\nlocale = "vi"\n', encoding="utf-8")
    ws = open_workspace(root)
    assert ws.config.timezone == "Asia/Tokyo" and ws.locale == "vi"
    plain = tmp_path / "plain"
    init_workspace(plain, timezone="UTC")
    (plain / ".trinho" / "config.toml").write_text("[owner]\n", encoding="utf-8")
    assert open_workspace(plain).config.timezone == "UTC"  # not OpenClaw's folder


@pytest.mark.parametrize("text", ["", "{not json5", '{"agents": {"defaults": {}}}', "[1]"])
def test_no_usable_openclaw_zone_leaves_the_machines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    write_openclaw_config(tmp_path, monkeypatch, text)
    monkeypatch.setenv("TZ", "America/Chicago")
    assert open_workspace(fresh(tmp_path / "claw")).config.timezone == "America/Chicago"


def test_an_unknown_openclaw_zone_is_one_keyed_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_openclaw_config(
        tmp_path, monkeypatch, '{"agents":{"defaults":{"userTimezone":"Mars/Olympus"}}}'
    )
    with pytest.raises(TrinhoError, match="Mars/Olympus") as caught:
        open_workspace(fresh(tmp_path / "claw"))
    assert "userTimezone" in str(caught.value)


def test_openclaws_config_is_found_where_openclaw_looks(tmp_path: Path) -> None:
    from trinho.workspace import openclaw_config_path

    home = str(tmp_path)
    assert openclaw_config_path({"HOME": home}) == tmp_path / ".openclaw" / "openclaw.json"
    assert openclaw_config_path({"HOME": home, "OPENCLAW_PROFILE": "work"}) == (
        tmp_path / ".openclaw-work" / "openclaw.json"
    )
    assert openclaw_config_path({"HOME": "/x", "OPENCLAW_HOME": home}) == (
        tmp_path / ".openclaw" / "openclaw.json"
    )
    assert openclaw_config_path({"OPENCLAW_STATE_DIR": home}) == tmp_path / "openclaw.json"
    assert openclaw_config_path({"OPENCLAW_CONFIG_PATH": f"{home}/a.json", "HOME": "/x"}) == (
        tmp_path / "a.json"
    )


def test_trinhos_state_is_ignored_in_a_git_workspace(tmp_path: Path, clock: FixedClock) -> None:
    root = fresh(tmp_path / "claw", git=True)
    ws = open_workspace(root, clock)
    call(ws, "memory_save", {"text": "first note"}, CHAT)
    call(ws, "user_memory_save", {"key": "home_city", "value": "Huế", "basis": "user"}, CHAT)
    call(
        ws,
        "user_memory_save",
        {"key": "home_city", "value": "Hà Nội", "basis": "user"},
        Actor("job", "nightly"),
    )
    call(ws, "memory_save", {"text": "second note"}, CHAT)
    for folder in (".trinho", "users", "memory_proposals"):
        assert (root / folder).is_dir()
        assert (root / folder / ".gitignore").read_text(encoding="utf-8").endswith("\n*\n")
    assert not (root / ".gitignore").exists() and not (root / "memory" / ".gitignore").exists()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_sees_only_the_owners_files(tmp_path: Path, clock: FixedClock) -> None:
    root = fresh(tmp_path / "claw")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    ws = open_workspace(root, clock)
    call(ws, "memory_save", {"text": "a note"}, CHAT)
    call(ws, "user_memory_save", {"key": "home_city", "value": "Huế", "basis": "user"}, CHAT)
    call(
        ws,
        "user_memory_save",
        {"key": "home_city", "value": "Hà Nội", "basis": "user"},
        Actor("job", "nightly"),
    )
    call(ws, "memory_save", {"text": "another"}, CHAT)
    status = subprocess.run(
        ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=all"],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout.split("\n")
    untracked = sorted(line[3:] for line in status if line)
    assert untracked == sorted([*SEEDED, "memory/2026-11-29.md", "memory/facts.md"])


def test_no_ignore_file_outside_git(tmp_path: Path, clock: FixedClock) -> None:
    root = fresh(tmp_path / "claw")
    ws = open_workspace(root, clock)
    call(ws, "memory_save", {"text": "a note"}, CHAT)
    assert not (root / ".trinho" / ".gitignore").exists()


def test_a_lone_lower_case_memory_md_is_memory_for_context_and_condensation(
    tmp_path: Path, clock: FixedClock
) -> None:
    root = fresh(tmp_path / "claw")
    (root / "memory.md").write_text("# Memory\n\n- 2026-11-20: Likes green tea\n", "utf-8")
    init_workspace(root, timezone="Asia/Ho_Chi_Minh", clock=clock)
    ws = open_workspace(root, clock)
    assert ws.memory_name == "memory.md"
    assert "Likes green tea" in build_context(ws).system
    call(ws, "memory_save", {"text": "Gọi cho anh Đức vào thứ Hai"}, CHAT)
    clock.advance(hours=2)
    report = run_condensation(
        ws,
        model=two_roles("ADD - 2026-11-29: Gọi cho anh Đức vào thứ Hai\n"),
        channel=ConsoleChannel("en", io.StringIO()),
    )
    assert report.held == ()
    assert not (root / "MEMORY.md").exists()
    text = (root / "memory.md").read_text(encoding="utf-8")
    assert "- 2026-11-20: Likes green tea" in text
    assert "- 2026-11-29: Gọi cho anh Đức vào thứ Hai" in text


def test_with_both_files_memory_md_upper_case_is_the_memory(
    tmp_path: Path, clock: FixedClock
) -> None:
    root = fresh(tmp_path / "claw")
    (root / "memory.md").write_text("- 2026-11-20: The garage code is 4471\n", "utf-8")
    (root / "MEMORY.md").write_text("- 2026-11-21: Likes green tea\n", "utf-8")
    ws = open_workspace(root, clock)
    if not os.path.samefile(root / "memory.md", root / "MEMORY.md"):
        assert ws.memory_name == "MEMORY.md"
        assert memory_store.read(ws).entries[0].text == "Likes green tea"
        assert [h.path for h in search(ws, "garage code")] == ["memory.md"]  # still searched
        assert "MEMORY.md" in bootstrap_present(ws)


def test_the_facts_digest_names_the_command_that_changes_a_fact(
    tmp_path: Path, clock: FixedClock
) -> None:
    ws = open_workspace(fresh(tmp_path / "claw"), clock)
    call(ws, "user_memory_save", {"key": "home_city", "value": "Huế", "basis": "user"}, CHAT)
    digest = (ws.root / "memory" / "facts.md").read_text(encoding="utf-8")
    assert "`trinho fact set`" in digest and "`trinho facts`" not in digest


def test_the_call_command_answers_one_json_line(tmp_path: Path, clock: FixedClock) -> None:
    from click.testing import CliRunner

    from trinho.cli.app import cli

    root = fresh(tmp_path / "claw")
    runner = CliRunner()
    env = {"TRINHO_NOW": "2026-11-29T14:05:00+07:00"}
    saved = runner.invoke(
        cli, ["--workspace", str(root), "call", "memory_save"], input='{"text": "Đi chợ"}', env=env
    )
    assert saved.exit_code == 0, saved.output
    answer = json.loads(saved.stdout)
    assert answer["is_error"] is False and answer["data"]["saved"].endswith("Đi chợ")
    got = runner.invoke(
        cli,
        ["--workspace", str(root), "call", "memory_get", "--profile", "openclaw"],
        input=json.dumps({"path": answer["data"]["path"]}),
        env=env,
    )
    assert json.loads(got.stdout)["data"]["status"] == "ok"
    bad = runner.invoke(
        cli, ["--workspace", str(root), "call", "memory_save", "--args", "{}"], env=env
    )
    assert bad.exit_code == 1
    refused = json.loads(bad.stdout)
    assert refused["is_error"] is True and "text: required" in refused["text"]
    approve = runner.invoke(
        cli, ["--workspace", str(root), "call", "approve", "--args", "{}"], env=env
    )
    assert approve.exit_code == 1 and "unknown tool" in json.loads(approve.stdout)["text"]
