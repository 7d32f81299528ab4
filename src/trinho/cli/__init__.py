"""The `trinho` command. Each command group lives in its own module and registers here."""

from __future__ import annotations

import sys
from importlib import import_module

import click

from trinho.cli.app import cli
from trinho.errors import TrinhoError
from trinho.textnorm import one_line

__all__ = ["cli", "main"]

COMMAND_MODULES = (
    "chat_cmds",
    "condense_cmds",
    "context_cmds",
    "demo_cmds",
    "facts_cmds",
    "gate_cmds",
    "jobs_cmds",
    "mcp_cmds",
    "model_cmds",
    "search_cmds",
    "serve_cmds",
    "tools_cmds",
    "workspace_cmds",
)
"""Modules under trinho.cli that register commands on `cli`, one per line."""

for _module in COMMAND_MODULES:
    import_module(f"trinho.cli.{_module}")


def main(argv: list[str] | None = None) -> int:
    """Run the CLI: user errors become one line on stderr and a non-zero exit, no traceback."""
    try:
        cli.main(args=argv, prog_name="trinho", standalone_mode=False)
    except TrinhoError as exc:
        click.echo(f"trinho: error: {exc}", err=True)
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("trinho: aborted", err=True)
        return 130
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.NoArgsIsHelpError as exc:
        exc.show()
        return exc.exit_code
    except click.UsageError as exc:
        where = exc.ctx.command_path if exc.ctx is not None else "trinho"
        message = one_line(exc.format_message())
        click.echo(f"trinho: error: {message} (see `{where} --help`)", err=True)
        return exc.exit_code
    except click.ClickException as exc:
        click.echo(f"trinho: error: {one_line(exc.format_message())}", err=True)
        return exc.exit_code
    except BrokenPipeError:
        return 1
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        click.echo(f"trinho: error:{where}: {exc.strerror or exc}", err=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
