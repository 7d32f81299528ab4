"""`--help` and errors in one language, the owner's: every command's help (its text, its
options', click's own words, trinho's headings) in Vietnamese for a Vietnamese owner with no
English sentence left, and in English for an English owner with no Vietnamese letter.

How a leak is told: in Vietnamese, no help text of the code (the English msgids) appears as it
is, and no English word of a sentence does ("the", "and", "with", ... outside the placeholders
and the names of commands, options, files and tools, which stay as typed); in English, no letter
only Vietnamese writes (ă, ơ, đ, ạ, ...).
"""

from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest

from trinho.cli import main
from trinho.cli.app import COMMANDS, cli
from trinho.i18n import catalog
from trinho.workspace import CONFIG_PATH, init_workspace

VIETNAMESE_LETTERS = re.compile(r"[ăâđêôơưĂÂĐÊÔƠƯ\u1ea0-\u1ef9]")
ENGLISH_WORDS = re.compile(
    r"\b(the|and|with|when|which|this|from|into|every|what|each|that|else|only|is|are|of)\b",
    re.IGNORECASE,
)
CODE = re.compile(r"`[^`]*`|\[[a-z_]+\][ a-z_]*|\$[A-Z_]+|--[a-z-]+|\b[A-Z_]{2,}\b|\S+\.\S+")
"""What stays as typed in every language: code, config keys, variables, options, placeholders,
file and tool names (anything with a dot)."""


def command_paths() -> list[tuple[str, ...]]:
    """Every command, nested ones included, as its words after `trinho`."""
    for module in sorted(set(COMMANDS.values())):
        __import__(f"trinho.cli.{module}")
    paths: list[tuple[str, ...]] = [()]

    def walk(command: click.Command, path: tuple[str, ...]) -> None:
        if isinstance(command, click.Group):
            for name in sorted(command.commands):
                paths.append((*path, name))
                walk(command.commands[name], (*path, name))

    walk(cli, ())
    return paths


def english_helps(path: tuple[str, ...]) -> list[str]:
    """The English help texts of the command at `path` and of its options, as click shows them."""
    command: click.Command = cli
    for name in path:
        assert isinstance(command, click.Group)
        command = command.commands[name]
    english = getattr(command, "_trinho_english_help", (command.help, None))[0]
    texts = [english] + [
        getattr(p, "_trinho_english_help", (getattr(p, "help", None),))[0] for p in command.params
    ]
    return [inspect.cleandoc(t).partition("\f")[0] for t in texts if t]


SCRIPT = """
import contextlib, io, json, sys
from trinho.cli import main
out = {}
for path in json.loads(sys.argv[1]):
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = main([*path, "--help"])
    out[" ".join(path)] = (code, buffer.getvalue())
print(json.dumps(out))
"""


def helps(home: Path, paths: list[tuple[str, ...]]) -> dict[str, tuple[int, str]]:
    """Every command's --help as one fresh process prints them, by command path."""
    env = {**os.environ, "TRINHO_HOME": str(home), "COLUMNS": "100"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(paths)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        check=True,
    )
    return {k: (v[0], v[1]) for k, v in json.loads(done.stdout).items()}


def owner(tmp_path: Path, locale: str) -> Path:
    root = tmp_path / locale
    init_workspace(root, timezone="Asia/Ho_Chi_Minh")
    config = root / CONFIG_PATH
    text = config.read_text(encoding="utf-8").replace('locale = "en"', f'locale = "{locale}"')
    config.write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def shown(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, tuple[int, str]]]:
    tmp = tmp_path_factory.mktemp("help")
    paths = command_paths()
    return {locale: helps(owner(tmp, locale), paths) for locale in ("en", "vi")}


def test_every_command_has_its_help_checked(shown: dict[str, dict[str, tuple[int, str]]]) -> None:
    paths = command_paths()
    assert len(paths) > len(COMMANDS)  # the nested commands too
    assert all(shown[loc][" ".join(p)][0] == 0 for loc in shown for p in paths)


@pytest.mark.parametrize("path", command_paths(), ids=lambda p: " ".join(p) or "trinho")
def test_the_help_in_vietnamese_leaves_no_english(
    path: tuple[str, ...], shown: dict[str, dict[str, tuple[int, str]]]
) -> None:
    out = shown["vi"][" ".join(path)][1]
    flat = " ".join(out.split())
    for english in english_helps(path):
        assert " ".join(english.split())[:40] not in flat, english
        assert catalog("vi").gettext(english) != english, english
    words = ENGLISH_WORDS.findall(CODE.sub(" ", flat))
    assert words == [], (words, out)
    assert VIETNAMESE_LETTERS.search(out)


@pytest.mark.parametrize("path", command_paths(), ids=lambda p: " ".join(p) or "trinho")
def test_the_help_in_english_has_no_vietnamese(
    path: tuple[str, ...], shown: dict[str, dict[str, tuple[int, str]]]
) -> None:
    out = shown["en"][" ".join(path)][1]
    assert not VIETNAMESE_LETTERS.search(out), out
    assert out.startswith("Usage: trinho")


@pytest.mark.parametrize(
    ("argv", "vietnamese", "english"),
    [
        (["fact", "get", ""], "khoá dữ kiện '' không hợp lệ", "invalid fact key ''"),
        (
            ["fact", "get", "k", "--user", "Ông"],
            "mã người dùng 'Ông' không hợp lệ",
            "invalid user id",
        ),
        (["approve", "xyz"], "mã đề xuất 'xyz' không hợp lệ", "invalid proposal id 'xyz'"),
    ],
)
def test_an_error_is_in_one_language(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    vietnamese: str,
    english: str,
) -> None:
    for locale, expected in (("vi", vietnamese), ("en", english)):
        monkeypatch.setenv("TRINHO_HOME", str(owner(tmp_path, locale)))
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert expected in err, err
        if locale == "vi":
            assert ENGLISH_WORDS.findall(CODE.sub(" ", err)) == [], err
            assert "fact key" not in err and "user id" not in err
        else:
            assert not VIETNAMESE_LETTERS.search(err.replace("Ô", "")), err
