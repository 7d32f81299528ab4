"""`trinho tools --profile` and `trinho mcp --profile`: the flag, the config default, flag wins;
with a workspace, on the file store and with a PostgreSQL owner alike (`cli_backend`)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from support.backends import CliBackend
from trinho.cli import cli, main
from trinho.mcp import server as mcp_server
from trinho.tools import service as tools
from trinho.workspace import CONFIG_PATH


def set_profile(backend: CliBackend, profile: str) -> None:
    config = backend.home / CONFIG_PATH
    config.write_text(config.read_text() + f'\n[tools]\nprofile = "{profile}"\n')


def printed(*args: str) -> list[dict[str, Any]]:
    result = CliRunner().invoke(cli, ["tools", *args])
    assert result.exit_code == 0, result.output
    listed: list[dict[str, Any]] = json.loads(result.output)
    return listed


@pytest.mark.parametrize("fmt", tools.FORMATS)
def test_tools_profile_flag_with_every_format(fmt: str, cli_env: dict[str, str]) -> None:
    assert printed("--format", fmt, "--profile", "openclaw") == tools.export(fmt, "openclaw")
    assert printed("--format", fmt, "--profile", "default") == tools.export(fmt)
    assert printed("--format", fmt) == tools.export(fmt)  # no workspace: the default


def test_the_config_profile_is_the_default_and_the_flag_wins(cli_backend: CliBackend) -> None:
    set_profile(cli_backend, "openclaw")
    assert printed("--format", "mcp") == tools.export("mcp", "openclaw")
    assert printed("--format", "mcp", "--profile", "default") == tools.export("mcp")


def test_an_unknown_profile_is_one_line_on_stderr(
    cli_backend: CliBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tools", "--profile", "hermes"]) != 0
    assert "hermes" in capsys.readouterr().err
    set_profile(cli_backend, "hermes")
    assert main(["tools"]) != 0
    err = capsys.readouterr().err
    assert err.startswith(
        "trinho: error: .trinho/config.toml: [tools] profile must be one of default, openclaw, "
        "not 'hermes'"
    )
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("flag", "expected"), [([], "openclaw"), (["--profile", "default"], "default")]
)
def test_mcp_passes_the_profile_on(
    flag: list[str], expected: str, cli_backend: CliBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_profile(cli_backend, "openclaw")
    seen: list[str] = []
    monkeypatch.setattr(
        mcp_server, "serve_records_stdio", lambda records, actor, profile: seen.append(profile)
    )
    result = CliRunner().invoke(cli, ["mcp", *flag])
    assert result.exit_code == 0, result.output
    assert seen == [expected]  # the flag, else the config's [tools] profile
