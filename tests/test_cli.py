"""The `trinho` command itself: every command module is registered the one way."""

from __future__ import annotations

from pathlib import Path

import trinho.cli


def test_every_command_module_is_registered_in_the_one_list() -> None:
    folder = Path(trinho.cli.__file__).parent
    modules = sorted(path.stem for path in folder.glob("*_cmds.py"))
    assert sorted(trinho.cli.COMMAND_MODULES) == modules
