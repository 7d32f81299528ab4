"""The `trinho` command. Each command lives in a module of its own, imported when it runs
(`trinho.cli.app.COMMANDS`)."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import click

from trinho.boundary import public_error
from trinho.cli.app import State, cli, say
from trinho.errors import TrinhoError
from trinho.i18n import click_in, t
from trinho.logs import POOL_LOGGER
from trinho.textnorm import one_line

__all__ = ["cli", "main"]


def main(argv: list[str] | None = None) -> int:
    """Run the CLI: user errors become one line on stderr and a non-zero exit, no traceback.

    The line is in the owner's locale when the workspace config can be read, else English.
    """
    session = State()
    logging.getLogger(POOL_LOGGER).setLevel(logging.ERROR)  # its reconnects: not the owner's line
    try:
        _require_unicode(sys.argv[1:] if argv is None else argv)
    except TrinhoError as exc:  # before parsing: the workspace's locale comes from the env
        say(f"trinho: error: {exc.localized(_usage_locale(session, None))}", err=True)
        return exc.exit_code
    with click_in(lambda: _usage_locale(session, click.get_current_context(silent=True))):
        return _run(session, argv)


def _run(session: State, argv: list[str] | None) -> int:
    """The command, its errors said in the owner's locale (click's through the catalog)."""
    try:
        cli.main(args=argv, prog_name="trinho", standalone_mode=False, obj=session)
    except TrinhoError as exc:
        say(f"trinho: error: {session.shown(exc.localized(session.locale()))}", err=True)
        return exc.exit_code
    except click.exceptions.Abort:
        say(t(session.locale(), "error.aborted"), err=True)
        return 130
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.NoArgsIsHelpError as exc:
        exc.show()
        return exc.exit_code
    except click.UsageError as exc:
        where = exc.ctx.command_path if exc.ctx is not None else "trinho"
        locale = _usage_locale(session, exc.ctx)
        message = one_line(exc.format_message())
        say(f"trinho: error: {t(locale, 'error.see_help', message=message, where=where)}", err=True)
        return exc.exit_code
    except click.ClickException as exc:
        say(f"trinho: error: {one_line(exc.format_message())}", err=True)
        return exc.exit_code
    except BrokenPipeError:
        return 1
    except Exception as exc:  # the boundary: an OS, database or any other failure, one line
        shown = public_error(exc, session.workspace_dir)
        say(
            f"trinho: error: {session.shown(one_line(shown.localized(session.locale())))}", err=True
        )
        return 1
    return 0


def _require_unicode(args: list[str]) -> None:
    """Every argument and option, text or not, must be text that can be stored: bytes that
    are not UTF-8 arrive as lone surrogates, refused here once for every command."""
    for number, arg in enumerate(args, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError as exc:
            raw = arg.encode("utf-8", "surrogateescape")  # the bytes as they were given
            shown = raw.decode("utf-8", "backslashreplace")
            raise TrinhoError.keyed(
                "error.argv.not_unicode",
                number=number,
                shown=one_line(shown)[:60],
                position=exc.start + 1,
            ) from None


def _usage_locale(session: State, ctx: click.Context | None) -> str:
    """The locale for a usage error, which may come before the root group saw its options."""
    if session.given_dir is None:
        given = ctx.find_root().params.get("workspace_dir") if ctx is not None else None
        home = os.environ.get("TRINHO_HOME")
        if isinstance(given, Path):
            session.given_dir = given
        elif home:
            session.given_dir = Path(home)
    return session.locale()


if __name__ == "__main__":
    sys.exit(main())
