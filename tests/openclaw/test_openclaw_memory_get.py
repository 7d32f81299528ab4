"""memory_get as the OpenClaw plugin calls it (`trinho --workspace DIR call memory_get --profile
openclaw`, one process per call): it reads the memory files only, by OpenClaw's own rule
(2026.9.6: MEMORY.md, USER.md, DREAMS.md, a .md file under memory/), plus the memory files only
trinho keeps (transcripts, facts), and answers anything else with OpenClaw's own
`MEMORY_PATH_NOT_ALLOWED`. No `..`, link or absolute path leads a read out of them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from trinho.cli.app import cli
from trinho.search.rules import is_memory_file

SECRET = "hunter2-never-shown"
NOTE = "- 14:05 Mẹ hẹn khám răng thứ Sáu"
ENV = {"TRINHO_NOW": "2026-11-29T14:05:00+07:00"}


@pytest.fixture
def claw(tmp_path: Path) -> Path:
    """An OpenClaw workspace with memory files and, beside them, files that are none: an
    agent's instructions, a key, credentials, and links from memory/ to them."""
    root = tmp_path / "claw"
    (root / "memory" / "topics").mkdir(parents=True)
    (root / "private").mkdir()
    files = {
        "AGENTS.md": f"# AGENTS.md\n{SECRET}\n",
        "SOUL.md": f"# SOUL.md\n{SECRET}\n",
        "id_rsa": f"-----BEGIN OPENSSH PRIVATE KEY-----\n{SECRET}\n",
        "private/creds.txt": f"token={SECRET}\n",
        "private/creds.md": f"token={SECRET}\n",
        "memory/notes.txt": f"{SECRET}\n",
        "MEMORY.md": "# MEMORY.md\n\n- The owner lives in Huế\n",
        "USER.md": "# USER.md\n\n- Name: Minh\n",
        "DREAMS.md": "# Dreams\n\n- lanterns\n",
        "memory/2026-11-29.md": f"{NOTE}\n",
        "memory/topics/ark.md": "- the ark\n",
    }
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    (root / "memory" / "link.md").symlink_to("../private/creds.md")
    (root / "memory" / "agents.md").symlink_to("../AGENTS.md")
    (root / "memory" / "private").symlink_to("../private")
    (root / "memory" / "same.md").symlink_to("2026-11-29.md")
    return root


def get(root: Path, path: str, profile: str = "openclaw") -> tuple[dict[str, Any], str]:
    """The plugin's call, in process: the answer's JSON line, and everything it printed."""
    done = CliRunner().invoke(
        cli,
        ["--workspace", str(root), "call", "memory_get", "--profile", profile],
        input=json.dumps({"path": path}),
        env=ENV,
    )
    return json.loads(done.stdout), done.output


REFUSED = [
    "AGENTS.md",
    "SOUL.md",
    "id_rsa",
    "private/creds.txt",
    "private/creds.md",
    "memory/notes.txt",
    "memory/link.md",
    "memory/agents.md",
    "memory/private/creds.md",
    "memory/../private/creds.md",
    "memory/../AGENTS.md",
    "../outside.md",
    "/etc/passwd",
    ".trinho/config.toml",
    "memory/",
    "memory",
    "conversations/notes.md",
    "users/owner/secret.md",
]


@pytest.mark.parametrize("path", REFUSED)
def test_a_file_that_is_no_memory_file_is_refused_with_openclaws_code(
    claw: Path, path: str
) -> None:
    answer, printed = get(claw, path)
    assert answer["is_error"] is False  # a result the model reads, as OpenClaw answers it
    data = answer["data"]
    assert data["status"] == "error" and data["code"] == "MEMORY_PATH_NOT_ALLOWED"
    assert data["text"] == "" and data["error"]
    assert SECRET not in printed


def test_an_absolute_path_is_refused_even_to_a_memory_file(claw: Path) -> None:
    for target in (claw / "memory" / "2026-11-29.md", claw / "private" / "creds.md"):
        answer, printed = get(claw, str(target))
        assert answer["data"]["code"] == "MEMORY_PATH_NOT_ALLOWED"
        assert SECRET not in printed


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("MEMORY.md", "Huế"),
        ("USER.md", "Minh"),
        ("DREAMS.md", "lanterns"),
        ("memory/2026-11-29.md", NOTE),
        ("memory/topics/ark.md", "ark"),
        ("memory/same.md", NOTE),  # a link that stays among the memory files
        ("./memory//2026-11-29.md", NOTE),
    ],
)
def test_the_memory_files_are_read(claw: Path, path: str, text: str) -> None:
    answer, _ = get(claw, path)
    assert answer["data"]["status"] == "ok" and text in answer["data"]["text"]


def test_a_missing_memory_file_is_not_found_and_a_missing_other_file_is_refused(
    claw: Path,
) -> None:
    missing, _ = get(claw, "memory/1999-01-01.md")
    assert missing["data"] == {"status": "not_found", "path": "memory/1999-01-01.md", "text": ""}
    other, _ = get(claw, "TOOLS.md")
    assert other["data"]["code"] == "MEMORY_PATH_NOT_ALLOWED"


def test_trinhos_own_memory_files_are_read_back_from_a_search_hit(claw: Path) -> None:
    runner = CliRunner()
    for args in (["note", "Cuối tuần đi Đà Lạt"], ["fact", "set", "home_city", "Đà Nẵng"]):
        done = runner.invoke(cli, ["--workspace", str(claw), *args], env=ENV)
        assert done.exit_code == 0, done.output
    (claw / "conversations").mkdir(exist_ok=True)
    (claw / "conversations" / "2026-11-29.jsonl").write_text('{"text": "chào"}\n', "utf-8")
    facts = sorted((claw / "users").glob("*/facts/home_city.md"))
    for path in (facts[0].relative_to(claw).as_posix(), "conversations/2026-11-29.jsonl"):
        answer, _ = get(claw, path)
        assert answer["data"]["status"] == "ok", (path, answer)


def test_the_default_profile_refuses_the_same_files(claw: Path) -> None:
    for path in ("private/creds.txt", "AGENTS.md", "memory/link.md"):
        answer, printed = get(claw, path, "default")
        assert answer["is_error"] is True and "not a memory file" in answer["text"]
        assert SECRET not in printed


def test_a_folders_hint_names_it_with_one_slash(claw: Path) -> None:
    (claw / "memory" / "sub.md").mkdir()
    answer, _ = get(claw, "memory/sub.md/")
    assert "memory/sub.md/..." in answer["data"]["error"] and "//" not in answer["data"]["error"]
    done = CliRunner().invoke(cli, ["--workspace", str(claw), "get", "memory/"], env=ENV)
    said = str(done.exception)  # the owner's own `trinho get`, which reads any workspace file
    assert done.exit_code != 0 and "memory/..." in said and "//" not in said


def test_the_command_the_plugin_runs_refuses_a_secret(claw: Path) -> None:
    """The `trinho` executable itself, as the plugin spawns it."""
    trinho = Path(sys.executable).parent / "trinho"
    done = subprocess.run(
        [str(trinho), "--workspace", str(claw), "call", "memory_get", "--profile", "openclaw"],
        input=json.dumps({"path": "private/creds.txt"}),
        capture_output=True,
        text=True,
        env={**os.environ, **ENV},
        check=True,
    )
    assert json.loads(done.stdout)["data"]["code"] == "MEMORY_PATH_NOT_ALLOWED"
    assert SECRET not in done.stdout + done.stderr


SEGMENT = st.text(st.characters(codec="utf-8", exclude_characters="/\x00"), min_size=1, max_size=12)


@given(st.lists(SEGMENT, min_size=1, max_size=5))
def test_a_memory_file_never_climbs_nor_hides_nor_is_anything_but_markdown_or_a_transcript(
    parts: list[str],
) -> None:
    shown = "/".join(parts)
    if is_memory_file(shown):
        assert ".." not in parts and "." not in parts and not shown.startswith("/")
        assert not any(p.startswith(".") for p in parts)
        assert shown.endswith(".md") or shown.startswith("conversations/")


@given(st.lists(SEGMENT.filter(lambda s: not s.startswith(".")), min_size=0, max_size=4))
def test_every_markdown_file_under_memory_is_a_memory_file(parts: list[str]) -> None:
    assert is_memory_file("/".join(["memory", *parts, "x.md"]))
    assert not is_memory_file("/".join(["memory", *parts, "x.txt"]))
    assert not is_memory_file("/".join(["private", *parts, "x.md"]))


@given(st.sampled_from(["DREAMS.md", "dreams.md", "Dreams.md", "MEMORY.md", "USER.md"]))
def test_openclaws_root_memory_files(name: str) -> None:
    assert is_memory_file(name)
    assert not is_memory_file(name.replace(".", "-")) and not is_memory_file(name.upper())
