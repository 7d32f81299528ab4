"""Hostile input refused as a class: every command and option, every tool argument, every
path; one clear line, no traceback, nothing written. What the CLI and the tools do with the
owner's memory is tried on the file workspace and on a PostgreSQL owner alike
(`cli_backend`); links, FIFOs, devices, byte-order marks, file sizes and the SQLite index are
the file workspace's own."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import snapshot
from support.backends import CliBackend
from trinho import Memory
from trinho.cli import main
from trinho.errors import TrinhoError
from trinho.search import Query, SearchIndex
from trinho.tools.service import TOOLS
from trinho.workspace import Workspace

NOT_UTF8 = b"caf\xe9".decode("utf-8", "surrogateescape")
"""What Python makes of a command-line byte that is not UTF-8: a lone surrogate."""

COMMANDS = [
    ["note", NOT_UTF8],
    ["fact", "set", "k", NOT_UTF8],
    ["fact", "set", "k", "v", "--source", NOT_UTF8],
    ["fact", "set", "k", "v", "--as", "job", "--origin", NOT_UTF8],
    ["reject", "0123456789", "--reason", NOT_UTF8],
    ["approve", NOT_UTF8],
    ["search", NOT_UTF8],
    ["get", NOT_UTF8],
    ["--workspace", NOT_UTF8, "notes"],
]


@pytest.fixture
def home(cli_env: dict[str, str], capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(["init", "--tz", "Asia/Ho_Chi_Minh"]) == 0
    assert main(["note", "một ghi chú"]) == 0
    capsys.readouterr()
    return Path(cli_env["TRINHO_HOME"])


@pytest.fixture
def owner_home(cli_backend: CliBackend, capsys: pytest.CaptureFixture[str]) -> CliBackend:
    """The `home` fixture's owner on each backend in turn: one note saved today."""
    assert main(["note", "một ghi chú"]) == 0
    capsys.readouterr()
    return cli_backend


def memory_snapshot(backend: CliBackend) -> dict[str, bytes | None]:
    """The workspace folder and the owner's memory (on PostgreSQL a checkout of it): to
    prove nothing changed on either backend."""
    with backend.view() as root:
        held = snapshot(root)
    return {**snapshot(backend.home), **{f"memory:{rel}": data for rel, data in held.items()}}


def _id(argv: list[str]) -> str:
    return " ".join(argv[:3]).encode("ascii", "replace").decode()


@pytest.mark.parametrize("argv", COMMANDS, ids=_id)
def test_every_argument_that_is_not_utf8_is_refused_in_one_line(
    owner_home: CliBackend, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    before = memory_snapshot(owner_home)
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "is not valid Unicode text" in err and "(caf\\xe9)" in err
    assert memory_snapshot(owner_home) == before


@pytest.mark.parametrize("limit", ["0", "1001", "99999999999999999999999"])
def test_a_search_limit_out_of_range_is_refused_not_overflowed(
    owner_home: CliBackend, limit: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["search", "ghi", "--limit", limit])
    err = capsys.readouterr().err
    assert code != 0 and "Traceback" not in err and err.count("\n") == 1


def test_a_batch_search_limit_out_of_range_is_refused(
    owner_home: CliBackend, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    batch = tmp_path / "batch.jsonl"
    batch.write_text('{"query": "ghi", "limit": 99999999999999999999}\n', encoding="utf-8")
    assert main(["search", "--batch", str(batch)]) == 1
    assert "limit must be from 1 to 1000" in capsys.readouterr().err


def test_the_index_refuses_a_limit_it_cannot_hand_to_sqlite(workspace: Workspace) -> None:
    with SearchIndex(workspace) as index, pytest.raises(TrinhoError, match="from 1 to 1000"):
        index.search(Query("x", 10**30))


def string_arguments() -> list[tuple[str, str]]:
    """Every (tool, argument) whose schema takes text."""
    found = []
    for tool in TOOLS:
        for name, schema in tool.parameters.get("properties", {}).items():
            kinds = schema.get("type")
            if kinds == "string" or (isinstance(kinds, list) and "string" in kinds):
                found.append((tool.name, name))
    return found


VALID: dict[str, dict[str, Any]] = {
    "memory_save": {"text": "ok"},
    "memory_search": {"query": "ok"},
    "memory_get": {"path": "MEMORY.md"},
    "user_memory_save": {"key": "k", "value": "v", "basis": "user"},
    "memory_proposals": {},
}


def call_tool(capsys: pytest.CaptureFixture[str], name: str, args: dict[str, Any]) -> Any:
    """One tool call through `trinho call`, on whichever backend the CLI is on: its result
    (a tool error exits 1 after its line)."""
    try:
        code: object = main(["call", name, "--args", json.dumps(args)])
    except SystemExit as exited:
        code = exited.code
    out = capsys.readouterr().out
    result = json.loads(out)
    assert code == (1 if result["is_error"] else 0), out
    return result


@pytest.mark.parametrize(("tool", "argument"), string_arguments())
@pytest.mark.parametrize("bad", ["a\udcffb", "a\x00b"])
def test_every_text_argument_of_every_tool_refuses_a_surrogate_or_a_nul(
    cli_backend: CliBackend,
    tool: str,
    argument: str,
    bad: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = {**VALID.get(tool, {}), argument: bad}
    before = memory_snapshot(cli_backend)
    result = call_tool(capsys, tool, args)
    assert result["is_error"] and "unexpectedly" not in result["text"]
    assert memory_snapshot(cli_backend) == before


def test_a_path_with_a_nul_is_refused_by_every_reader(workspace: Workspace) -> None:
    with pytest.raises(TrinhoError, match="NUL or a byte that is not UTF-8"):
        workspace.path("memory/\x002026-11-29.md")


def test_a_path_with_a_nul_is_refused_by_get_on_either_backend(
    owner_home: CliBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    before = memory_snapshot(owner_home)
    assert main(["get", "memory/\x002026-11-29.md"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "NUL or a byte that is not UTF-8" in err
    assert memory_snapshot(owner_home) == before


def test_a_byte_order_mark_hides_no_entry_of_a_daily_note(workspace: Workspace) -> None:
    from datetime import date

    from trinho.context.run import build_context
    from trinho.notes.store import read_notes, save_note
    from trinho.search import search

    path = workspace.note_path(workspace.today())
    path.write_bytes("\ufeff- 09:00 xylophone lesson booked\n".encode())
    save_note(workspace, "second note")
    assert [e.text for e in read_notes(workspace, workspace.today()).entries] == [
        "xylophone lesson booked",
        "second note",
    ]
    assert search(workspace, "xylophone")
    assert "xylophone lesson booked" in build_context(workspace, "owner").preamble
    assert path.read_bytes().startswith("\ufeff".encode())  # the file itself is left as it was
    assert workspace.today() == date(2026, 11, 29)


def test_a_fact_file_with_a_byte_order_mark_reads_and_saves(workspace: Workspace) -> None:
    from trinho.facts.store import fact_path, get_fact, save_fact

    save_fact(workspace, "home-city", "Huế")
    path = fact_path(workspace, "home-city")
    path.write_bytes("\ufeff".encode() + path.read_bytes())
    head = get_fact(workspace, "home-city").head
    assert head is not None and head.value == "Huế"
    assert save_fact(workspace, "home-city", "Đà Nẵng").outcome == "superseded"


def test_get_with_an_empty_path_says_what_to_give(
    owner_home: CliBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["get", ""]) == 1
    assert "no path given: name a workspace file" in capsys.readouterr().err


def test_a_config_created_by_init_token_is_the_whole_default_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from trinho.config.files import read_config
    from trinho.mcp.server import init_token
    from trinho.workspace import open_workspace

    root = tmp_path / "claw"
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text("- 2026-11-01: likes tea\n", encoding="utf-8")
    monkeypatch.setenv("TZ", "Asia/Ho_Chi_Minh")
    ws = open_workspace(root)
    token, created = init_token(ws)
    config = read_config(root)
    assert created and config is not None
    assert config.timezone == "Asia/Ho_Chi_Minh" and config.mcp.token == token


def test_parallel_first_searches_all_succeed(workspace: Workspace) -> None:
    """A model calling tools in parallel right after install (no index yet): no call fails."""
    from concurrent.futures import ThreadPoolExecutor

    from trinho.notes.store import save_note

    save_note(workspace, "xylophone lesson on Friday")
    memory = Memory(workspace.root)
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(
            pool.map(lambda _: memory.call("memory_search", {"query": "xylophone"}), range(12))
        )
    assert [r.is_error for r in results] == [False] * 12
    assert all("xylophone" in r.text for r in results)
    leftovers = list((workspace.internal).glob(".index.sqlite.*.tmp"))
    assert leftovers == []


def test_a_same_size_edit_that_keeps_the_modification_time_is_reindexed(
    workspace: Workspace,
) -> None:
    import os

    from trinho.notes.store import save_note
    from trinho.search import search

    save_note(workspace, "kayak trip on Sunday")
    path = workspace.note_path(workspace.today())
    assert search(workspace, "kayak")
    kept = os.stat(path)
    path.write_bytes(path.read_bytes().replace(b"kayak", b"hiker"))  # same size
    os.utime(path, ns=(kept.st_atime_ns, kept.st_mtime_ns))  # as `cp -p` or `rsync -t` leave it
    assert os.stat(path).st_size == kept.st_size
    assert search(workspace, "hiker") and not search(workspace, "kayak")


FIFO_COMMANDS = [["notes"], ["search", "real"], ["index", "--rebuild"], ["context"], ["note", "x"]]


@pytest.mark.parametrize("argv", FIFO_COMMANDS, ids=_id)
def test_a_fifo_named_like_a_daily_note_never_blocks_a_command(home: Path, argv: list[str]) -> None:
    import os
    import subprocess
    import sys

    today = home / "memory" / "2026-11-29.md"  # today's note, in the fixture's clock
    today.unlink()
    os.mkfifo(today)
    (home / "memory" / "2026-11-28.md").write_text("- 09:00 real note\n", encoding="utf-8")
    trinho = Path(sys.executable).with_name("trinho")
    done = subprocess.run(
        [str(trinho), *argv], capture_output=True, text=True, timeout=60, env=os.environ.copy()
    )
    assert "Traceback" not in done.stderr
    assert done.returncode == 0 or "is not a regular file" in done.stderr


def test_importing_a_device_is_refused_not_read_forever(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["import", "conversations", "/dev/zero"]) == 1
    assert "is not a regular file" in capsys.readouterr().err


def test_a_fifo_in_place_of_the_config_is_refused_not_waited_on(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    config = home / ".trinho" / "config.toml"
    config.unlink()
    os.mkfifo(config)
    assert main(["notes"]) == 1
    assert "is not a regular file" in capsys.readouterr().err


# ---- symbolic links: every file kind, every command and tool -------------------------------

SECRET = "zebrasecret"
"""What a planted file holds: if trinho followed the link, some command would print it."""


def _plant_note(home: Path) -> None:
    assert main(["note", f"{SECRET} ghi chú"]) == 0


def _plant_conversation(home: Path) -> None:
    turns = home.parent / "turns.jsonl"
    turns.write_text(
        json.dumps({"at": "2026-11-29T10:00:00+07:00", "role": "user", "text": SECRET}) + "\n",
        encoding="utf-8",
    )
    assert main(["import", "conversations", str(turns)]) == 0


def _plant_memory(home: Path) -> None:
    (home / "MEMORY.md").write_text(f"# Memory\n\n- {SECRET} (2026-11-01)\n", encoding="utf-8")


def _plant_archive(home: Path) -> None:
    (home / "memory" / "archive.md").write_text(f"## Archived\n\n- {SECRET}\n", encoding="utf-8")


def _plant_fact(home: Path) -> None:
    assert main(["fact", "set", "k", SECRET]) == 0


def _plant_proposal(home: Path) -> None:
    from trinho import workspace
    from trinho.proposals import store as proposals

    ws = workspace.open_workspace(home)
    proposals.submit(ws, "fact", {"key": "k", "value": "v"}, reason=SECRET, origin="chat")


def _proposal_file(home: Path) -> str:
    (found,) = (home / "memory_proposals").glob("*.json")
    return f"memory_proposals/{found.name}"


# kind: (how trinho writes the file, the linked path, the file under it memory_get is asked)
LINKED: dict[str, tuple[Any, str, str]] = {
    "daily note": (_plant_note, "memory/2026-11-29.md", "memory/2026-11-29.md"),
    "notes folder": (_plant_note, "memory", "memory/2026-11-29.md"),
    "conversation": (
        _plant_conversation,
        "conversations/2026-11-29.jsonl",
        "conversations/2026-11-29.jsonl",
    ),
    "conversations folder": (
        _plant_conversation,
        "conversations",
        "conversations/2026-11-29.jsonl",
    ),
    "MEMORY.md": (_plant_memory, "MEMORY.md", "MEMORY.md"),
    "archive": (_plant_archive, "memory/archive.md", "memory/archive.md"),
    "fact": (_plant_fact, "users/owner/facts/k.md", "users/owner/facts/k.md"),
    "user folder": (_plant_fact, "users/owner", "users/owner/facts/k.md"),
    "proposal": (_plant_proposal, "", ""),
    "proposals folder": (_plant_proposal, "memory_proposals", ""),
}

LINK_COMMANDS = [
    ["notes"],
    ["notes", "--json"],
    ["search", SECRET],
    ["search", SECRET, "--json"],
    ["index", "--rebuild"],
    ["search", SECRET],
    ["context"],
    ["facts"],
    ["fact", "get", "k"],
    ["fact", "history", "k"],
    ["proposals", "--all"],
    ["proposals", "--all", "--json"],
    ["note", "x"],
    ["fact", "set", "k", "another"],
]

LINK_TOOLS: list[tuple[str, dict[str, Any]]] = [
    ("memory_search", {"query": SECRET}),
    ("memory_proposals", {"include_decided": True}),
    ("memory_save", {"text": "x"}),
    ("user_memory_save", {"key": "k", "value": "another", "basis": "user"}),
]


def _move_and_link(home: Path, rel: str, into: Path) -> Path:
    """Move `rel` to `into` and leave a relative symbolic link in its place, as `ln -s` would."""
    import os

    target = into / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    (home / rel).rename(target)
    (home / rel).symlink_to(os.path.relpath(target, (home / rel).parent))
    return target


@pytest.mark.parametrize("into", ["outside", ".trinho"])
@pytest.mark.parametrize("kind", list(LINKED))
def test_a_link_out_of_the_workspace_or_into_trinho_is_never_followed(
    home: Path, kind: str, into: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each file kind and folder, linked out or into `.trinho/`: no command, tool or resource
    prints what is behind the link, writes through it, or fails with a traceback."""
    from trinho.mcp.server import RESOURCES
    from trinho.tools.service import Actor
    from trinho.workspace import open_workspace

    plant, rel, get_path = LINKED[kind]
    plant(home)
    capsys.readouterr()
    if kind.startswith("proposal"):
        get_path = _proposal_file(home)
        rel = rel or get_path
    root = home.parent / "outside" if into == "outside" else home / ".trinho" / "planted"
    _move_and_link(home, rel, root)
    behind = snapshot(root)
    assert any(SECRET.encode() in data for data in behind.values() if data)
    for argv in [*LINK_COMMANDS, ["get", get_path]]:
        code = main(argv)
        out, err = capsys.readouterr()
        assert code in (0, 1) and "Traceback" not in err, (argv, err)
        assert SECRET not in out + err, (argv, out, err)
    memory = Memory(home)
    for name, args in [*LINK_TOOLS, ("memory_get", {"path": get_path})]:
        result = memory.call(name, args)
        assert SECRET not in result.text, (name, result.text)
        assert "Traceback" not in result.text and "unexpectedly" not in result.text
    ws = open_workspace(home)
    for spec in RESOURCES:
        try:
            text = spec.read(ws, Actor("chat", "main"))
        except TrinhoError as exc:
            text = str(exc)
        assert SECRET not in text
    assert snapshot(root) == behind
    assert (home / rel).is_symlink()


def test_a_link_is_refused_in_one_line_that_names_it_relative(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _plant_note(home)
    _move_and_link(home, "memory/2026-11-29.md", home.parent / "outside")
    capsys.readouterr()
    assert main(["note", "x"]) == 1
    err = capsys.readouterr().err
    assert err == (
        "trinho: error: memory/2026-11-29.md leads outside the workspace through a symbolic "
        "link; trinho reads and writes only inside it (replace the link by the file, or link "
        "to a file inside)\n"
    )
    assert str(home) not in err


def test_a_link_inside_the_workspace_is_read_and_written_through_and_stays_a_link(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A note linked to another file of the workspace works; the write lands in its target."""
    note = home / "memory" / "2026-11-29.md"
    kept = home / "kept" / "today.md"
    kept.parent.mkdir()
    note.rename(kept)
    note.symlink_to("../kept/today.md")
    assert main(["note", "hai"]) == 0
    assert note.is_symlink() and kept.read_text(encoding="utf-8").count("\n") == 2
    capsys.readouterr()
    assert main(["search", "hai"]) == 0
    assert "memory/2026-11-29.md" in capsys.readouterr().out


def test_a_condensation_writes_a_linked_memory_file_through_its_link(
    workspace: Workspace, clock: Any
) -> None:
    """MEMORY.md linked to a file inside the workspace: the run rewrites that file, the undo
    puts it back, and MEMORY.md stays a link throughout."""
    from support.condense_weeks import two_roles, vi_good_rewrite, vi_week
    from trinho.channels import ConsoleChannel
    from trinho.condense import run_condensation, undo_run

    vi_week(workspace, clock)
    real = workspace.root / "notes" / "MEMORY.real.md"
    real.parent.mkdir()
    before = workspace.memory_file.read_bytes()
    (workspace.root / "MEMORY.md").rename(real)
    (workspace.root / "MEMORY.md").symlink_to("notes/MEMORY.real.md")
    channel = ConsoleChannel(workspace.locale, io.StringIO())
    report = run_condensation(workspace, model=two_roles(vi_good_rewrite()), channel=channel)
    assert report.outcome == "done"
    assert (workspace.root / "MEMORY.md").is_symlink()
    assert real.read_text(encoding="utf-8") == vi_good_rewrite()
    undo_run(workspace, report.run_id)
    assert (workspace.root / "MEMORY.md").is_symlink() and real.read_bytes() == before


def test_a_hit_from_a_users_folder_elsewhere_opens_with_memory_get(tmp_path: Path) -> None:
    """[paths] users outside the workspace: a fact's hit carries its absolute path, and
    memory_get takes it back; no other absolute path is read."""
    from trinho.workspace import init_workspace

    ws = init_workspace(tmp_path / "ws", timezone="UTC").workspace
    shared = tmp_path / "shared-users"
    config = ws.root / ".trinho" / "config.toml"
    text = config.read_text(encoding="utf-8").replace('users = "users"', f'users = "{shared}"')
    config.write_text(text, encoding="utf-8")
    memory = Memory(ws.root)
    assert not memory.call(
        "user_memory_save", {"key": "home-city", "value": "Hà Nội", "basis": "user"}
    ).is_error
    found = memory.call("memory_search", {"query": "Hà Nội"}).data
    assert found is not None
    (hit,) = found["hits"]
    assert Path(hit["path"]).is_absolute() and hit["path"].startswith(str(shared))
    got = memory.call("memory_get", {"path": hit["path"]})
    assert not got.is_error and "Hà Nội" in got.text
    for elsewhere in [str(ws.root / "MEMORY.md"), f"{shared}/../ws/.trinho/config.toml", "/etc"]:
        refused = memory.call("memory_get", {"path": elsewhere})
        assert refused.is_error and "must be relative to the workspace" in refused.text


BAD_TOOL_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("memory_get", {"path": "../outside.md"}),
    ("memory_get", {"path": "/etc/passwd"}),
    ("memory_get", {"path": "missing.md"}),
    ("memory_get", {"path": "memory"}),
    ("memory_get", {"path": "memory/linked.md"}),
    ("memory_get", {"path": ".trinho/config.toml"}),
    ("memory_get", {"path": "MEMORY.md", "from_line": 99}),
    ("memory_search", {"query": "***"}),
    ("memory_save", {"text": ""}),
    ("user_memory_save", {"key": "Bad Key", "value": "v"}),
]


@pytest.mark.parametrize(("tool", "args"), BAD_TOOL_CALLS, ids=lambda v: str(v)[:30])
def test_no_tool_error_names_where_the_workspace_is(
    cli_backend: CliBackend,
    tool: str,
    args: dict[str, Any],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A model learns what was wrong with its call, never the owner's folders (on
    PostgreSQL neither the deployment's folder nor a working copy's; a link is the file
    workspace's, and there the linked name is a file that is not there)."""
    from trinho.pg.workcopy import COPY_PREFIX

    if cli_backend.kind == "files":
        (cli_backend.home / "memory" / "linked.md").symlink_to("/etc/hostname")
    cli_backend.write("MEMORY.md", "# Memory\n")
    result = call_tool(capsys, tool, args)
    assert result["is_error"]
    for shown in (str(cli_backend.home), str(cli_backend.home.parent), COPY_PREFIX):
        assert shown not in result["text"], (shown, result["text"])


# ---- control characters: stored as written, printed neutralised everywhere -----------------

EVIL = "x\x1b]0;pwned\x07\x1b[8m hidden\x9b2J\u202eabc\b\r\x00\x7f y"
"""An OSC title change, a conceal, a C1 escape, a bidi override, backspace, CR, NUL, DEL."""


def acts_on_terminal(text: str) -> list[str]:
    """The characters of `text` a terminal or chat client would act on (this test's own list,
    not the product's)."""
    bidi = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}
    return [
        c
        for c in text
        if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F or c in bidi
    ]


def stored_evil(backend: CliBackend) -> str:
    """EVIL as the owner's files can hold it: whole in a file, without its NUL in PostgreSQL,
    whose text holds none (a NUL checked in is refused: the test below)."""
    return EVIL if backend.kind == "files" else EVIL.replace("\x00", "")


def _plant_evil(backend: CliBackend) -> str:
    """Control characters in every kind of stored text trinho prints, as the owner would
    leave them by hand and as the CLI and a tool store them; returns a proposal id."""
    from trinho.proposals import store as proposals
    from trinho.workspace import open_workspace

    evil = stored_evil(backend)
    with backend.view() as root:
        with (root / "memory" / "2026-11-29.md").open("a", encoding="utf-8") as note:
            note.write(f"- 10:00 kayak {evil}\n")
        (root / "MEMORY.md").write_text(f"# Memory\n\n- 2026-11-01: kayak {evil}\n", "utf-8")
        (root / "memory" / "archive.md").write_text(f"## Old\n\n- kayak {evil}\n", "utf-8")
        ws = open_workspace(root)
        change = {"key": "k", "value": "v"}
        done = proposals.submit(ws, "fact", change, reason=f"kayak {evil}", origin=f"chat {evil}")
    turns = backend.home.parent / "turns.jsonl"
    line = {"at": "2026-11-29T10:00:00+07:00", "role": "user", "text": f"kayak {EVIL}"}
    turns.write_text(json.dumps(line) + "\n", encoding="utf-8")
    assert main(["import", "conversations", str(turns)]) == 0
    assert main(["note", f"kayak {EVIL.replace(chr(0), '')}"]) == 0
    return done.proposal.id


@pytest.mark.parametrize("cli_backend", ["pg"], indirect=True)
@pytest.mark.parametrize("rel", ["MEMORY.md", "memory/2026-11-29.md", "memory/archive.md"])
def test_a_nul_the_database_cannot_store_is_refused_at_check_in_and_nothing_written(
    owner_home: CliBackend, rel: str
) -> None:
    """A file job's working copy (or the owner by hand) leaving a NUL in a file: on
    PostgreSQL the check-in refuses it in one line naming the file, and writes nothing."""
    owner_home.write("memory/archive.md", "## Old\n\n- kayak\n")
    before = memory_snapshot(owner_home)
    with pytest.raises(TrinhoError) as refused, owner_home.view() as root:
        (root / "MEMORY.md").write_text("# Memory\n\n- 2026-11-01: new\n", encoding="utf-8")
        with (root / rel).open("a", encoding="utf-8") as held:
            held.write(f"- 10:00 kayak {EVIL}\n")
    assert str(refused.value) == (
        f"{rel} holds a NUL character, which the database cannot store; nothing was written: "
        "remove it and run again"
    )
    assert memory_snapshot(owner_home) == before


def test_a_carriage_return_in_stored_text_is_kept_as_written(
    owner_home: CliBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file edited elsewhere (CRLF line ends, a lone CR inside a line) is text: the owner's
    memory holds it byte for byte, a search finds the line whole, and `get` shows it as the
    file workspace does."""
    written = b"# Memory\r\n\r\n- 2026-11-01: kayak\rtrip\r\n"
    with owner_home.view() as root:
        (root / "MEMORY.md").write_bytes(written)
    with owner_home.view() as root:
        assert (root / "MEMORY.md").read_bytes() == written
    assert main(["search", "kayak", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert [h["text"] for h in hits if h["path"] == "MEMORY.md"] == ["kayak\rtrip"]
    assert main(["get", "MEMORY.md", "--json"]) == 0
    assert "kayak\rtrip" in json.loads(capsys.readouterr().out)["text"]


def test_control_characters_in_stored_text_never_reach_a_terminal(
    owner_home: CliBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every command, human and --json, over every kind of stored text: what is printed holds
    no character a terminal acts on, and the JSON still parses to the stored text."""
    pid = _plant_evil(owner_home)
    capsys.readouterr()
    old = owner_home.home.parent / "old.md"
    old.write_text(owner_home.read("MEMORY.md"), encoding="utf-8")
    new = owner_home.home.parent / "new.md"
    new.write_text(f"# Memory\n\n- 2026-11-29: kayak {EVIL} again\n", encoding="utf-8")
    commands = [
        ["notes"],
        ["search", "kayak"],
        ["get", "memory/2026-11-29.md"],
        ["get", "MEMORY.md"],
        ["get", "memory/archive.md"],
        ["get", "conversations/2026-11-29.jsonl"],
        ["context"],
        ["proposals", "--all"],
        ["gate", str(old), str(new)],
        ["approve", pid + "ff"],
        ["get", f"memory/{EVIL}.md"],
        ["note", EVIL * 300],
    ]
    seen_json = False
    for argv in commands:
        for extra in ([], ["--json"]):
            code = main([*argv, *extra])
            out, err = capsys.readouterr()
            assert acts_on_terminal(out + err) == [], (argv, extra, out, err)
            if extra and code == 0:
                json.loads(out)
                seen_json = seen_json or "kayak" in out
            assert code in (0, 1, 2), (argv, extra, err)
    assert seen_json
    assert main(["search", "kayak", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    evil = stored_evil(owner_home)
    assert any(evil in hit["text"] for hit in hits)  # stored as written, escaped in JSON only


def test_control_characters_never_reach_a_tool_result_or_a_log(
    owner_home: CliBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    """Tool results go to a model and to clients that print them; logs go to terminals. (The
    MCP server's own texts: tests/mcp/test_mcp_server.py.)"""
    import logging

    from trinho.logs import JsonFormatter

    _plant_evil(owner_home)
    capsys.readouterr()
    calls: list[tuple[str, dict[str, Any]]] = [
        ("memory_search", {"query": "kayak"}),
        ("memory_get", {"path": "memory/2026-11-29.md"}),
        ("memory_get", {"path": "MEMORY.md"}),
        ("memory_proposals", {"include_decided": True}),
        ("memory_get", {"path": f"memory/{EVIL}.md"}),
        ("user_memory_save", {"key": "k", "value": EVIL, "basis": "user"}),
    ]
    for name, args in calls:
        result = call_tool(capsys, name, args)
        assert acts_on_terminal(result["text"]) == [], (name, result["text"])
    record = logging.LogRecord("trinho.x", logging.WARNING, __file__, 1, EVIL, (), None)
    assert acts_on_terminal(JsonFormatter().format(record)) == []


def test_control_characters_never_reach_an_announcement(owner_home: CliBackend) -> None:
    """An announcement rendered, and one held in the owner's outbox and delivered from it."""
    from conftest import START, TZ
    from trinho.channels import ConsoleChannel
    from trinho.channels.base import Notification, NotificationItem
    from trinho.channels.outbox import Outbox
    from trinho.channels.render import item_text, split_text, summary_text
    from trinho.workspace import open_workspace

    item = NotificationItem("0123456789", "0" * 64, "edited", f"old {EVIL}", f"new {EVIL}", EVIL)
    notice = Notification("condense:2026-W48", f"Title {EVIL}", f"Summary {EVIL}", (item,))
    stream = io.StringIO()
    ConsoleChannel("vi", stream).send(notice)
    texts = [stream.getvalue(), summary_text(notice, "en"), item_text(notice, 0, "vi")]
    texts += split_text(f"reply {EVIL}" * 500)
    delivered = io.StringIO()
    if owner_home.url is None:
        outbox = Outbox(open_workspace(owner_home.home))
        outbox.enqueue(notice)
        outbox.deliver(ConsoleChannel("vi", delivered))
    else:
        from trinho.pg.connect import Database
        from trinho.pg.outbox import PgOutbox

        assert owner_home.owner is not None
        with Database(owner_home.url) as db:
            held = PgOutbox(db, owner_home.owner, clock=lambda: START, timezone=TZ)
            held.enqueue(notice)
            held.deliver(ConsoleChannel("vi", delivered))
    assert delivered.getvalue() == stream.getvalue()
    for text in texts:
        assert acts_on_terminal(text) == [] and "x\\x1b]0;pwned" in text


@pytest.mark.parametrize("argv", [["notes"], ["note", "x"], ["get", "memory/2026-11-29.md"]])
def test_a_daily_note_too_large_to_be_memory_is_refused_in_one_line(
    home: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    from trinho.durable import MAX_READ_BYTES

    with (home / "memory" / "2026-11-29.md").open("r+b") as note:
        note.truncate(MAX_READ_BYTES + 1)  # sparse: no disk used
    before = snapshot(home)
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "trinho reads files up to 64 MB" in err
    assert snapshot(home) == before


def test_the_read_bound_is_exact(tmp_path: Path) -> None:
    from trinho.durable import read_regular

    path = tmp_path / "f"
    path.write_bytes(b"x" * 3000)
    assert read_regular(path, limit=3000) == b"x" * 3000
    with pytest.raises(TrinhoError, match="is over 0 MB"):
        read_regular(path, limit=2999)


@pytest.mark.parametrize("rel", ["MEMORY.md", "memory/2026-11-29.md", "memory", "conversations"])
def test_a_condensation_refuses_a_link_out_and_writes_nothing_through_it(
    workspace: Workspace, clock: Any, rel: str
) -> None:
    from support.condense_weeks import two_roles, vi_good_rewrite, vi_week
    from trinho.channels import ConsoleChannel
    from trinho.condense import run_condensation

    vi_week(workspace, clock)
    outside = workspace.root.parent / "outside"
    _move_and_link(workspace.root, rel, outside)
    behind = snapshot(outside)
    channel = ConsoleChannel(workspace.locale, io.StringIO())
    with pytest.raises(TrinhoError, match="leads outside the workspace"):
        run_condensation(workspace, model=two_roles(vi_good_rewrite()), channel=channel)
    assert snapshot(outside) == behind and (workspace.root / rel).is_symlink()
