"""The `trinho` command itself: every command is listed once, with the module defining it."""

from __future__ import annotations

import subprocess
import sys
from importlib import import_module
from pathlib import Path

import click

import trinho.cli
from trinho.cli.app import COMMANDS, cli


def test_every_command_is_listed_with_the_module_that_defines_it() -> None:
    folder = Path(trinho.cli.__file__).parent
    modules = sorted(
        f"commands.{path.stem}"
        for path in (folder / "commands").glob("*.py")
        if path.stem != "__init__"
    )
    for module in modules:
        import_module(f"trinho.cli.{module}")
    assert sorted(set(COMMANDS.values())) == modules
    defined = {name: command for name, command in cli.commands.items()}
    assert sorted(defined) == sorted(COMMANDS)
    for name, command in defined.items():
        assert isinstance(command, click.Command)
        assert command.callback is not None
        assert command.callback.__module__ == f"trinho.cli.{COMMANDS[name]}"


def test_importing_the_cli_loads_no_command_module() -> None:
    code = "import sys, trinho.cli; print([m for m in sys.modules if m.endswith('_cmds')])"
    out = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "[]"
