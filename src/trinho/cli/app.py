"""The CLI's shared parts: the root group, global options, JSON output, the open workspace."""

from __future__ import annotations

import contextlib
import difflib
import inspect
import io
import os
import sys
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from trinho.config import CONFIG_PATH, TOOL_PROFILES
from trinho.config.files import owner_locale
from trinho.errors import TrinhoError
from trinho.i18n import N_, click_says, said_in, t
from trinho.pg.connect import URL_ENV, database_url
from trinho.textnorm import json_text, printable
from trinho.workspace import Workspace, clock_from_env, default_home, find_workspace, open_workspace

if TYPE_CHECKING:
    from trinho.pg.connect import Database
    from trinho.pg.store import PgRecords
    from trinho.records.protocol import Records

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")
OWNER_ENV = "TRINHO_OWNER"


class _HeldStdout:
    """What a command on a working copy prints, held until the copy is checked in: a refused
    check-in then leaves its one error line alone, not beside a success that did not happen.
    stderr (progress, errors) is not held. The command's own failure still shows what it
    printed, as on files: the check-in runs at the close either way."""

    def __init__(self) -> None:
        self.real = sys.stdout
        self.held = io.StringIO()

    def __enter__(self) -> _HeldStdout:
        sys.stdout = self.held
        return self

    def __exit__(self, *exc: object) -> None:
        sys.stdout = self.real

    def release(self) -> None:
        self.real.write(self.held.getvalue())
        self.real.flush()


class State:
    """Per-invocation state: where the workspace is; opened on first use.

    `trinho.cli.main` makes it before parsing, so it can still ask for the owner's locale
    when the command fails.
    """

    def __init__(self, given_dir: Path | None = None) -> None:
        self.given_dir = given_dir
        """--workspace or TRINHO_HOME, once known (None: not given, or not parsed yet)."""
        self.owner: str | None = None
        """`--owner` given before the command (`trinho --owner ID notes`)."""
        self._workspace: Workspace | None = None
        self._copy: Workspace | None = None
        self._records: dict[tuple[str, str | None], PgRecords] = {}

    @property
    def workspace_dir(self) -> Path:
        """--workspace, else TRINHO_HOME, else the nearest workspace from the current folder
        upward, else the default data folder."""
        if self.given_dir is not None:
            return self.given_dir
        with contextlib.suppress(OSError):  # a current folder since removed
            found = find_workspace(Path.cwd())
            if found is not None:
                return found
        return default_home()

    def settings(self) -> Workspace | None:
        """The workspace and its config, whatever store it names; None when it has no config
        (a PostgreSQL store may be named by TRINHO_DATABASE_URL alone)."""
        if self._workspace is None and not (self.workspace_dir / CONFIG_PATH).is_file():
            return None
        return self._open()

    def _open(self) -> Workspace:
        if self._workspace is None:
            from trinho.search import notify_written

            self._workspace = open_workspace(self.workspace_dir, on_written=notify_written)
        return self._workspace

    def workspace(self) -> Workspace:
        """The file workspace, for a command that works on files only: refused in one line
        when a database is configured, so such a command never reads or writes files while
        the owner's memory is in the database."""
        if self.database_url() is not None:
            ctx = click.get_current_context(silent=True)
            raise TrinhoError.keyed(
                "error.store.files_only",
                command=ctx.command_path if ctx is not None else "trinho",
                where=self._url_source(),
            )
        return self._open()

    def database_url(self) -> str | None:
        """The PostgreSQL store to use: `TRINHO_DATABASE_URL`, else `[store] url`; None for
        the file workspace."""
        ws = None if os.environ.get(URL_ENV) else self.settings()
        return database_url(os.environ, ws.config.store.url if ws is not None else None)

    def _url_source(self) -> str:
        return URL_ENV if os.environ.get(URL_ENV) else f"{CONFIG_PATH} [store] url"

    def records(self, owner: str | None) -> Records:
        """One owner's memory, on whichever backend is configured: the file workspace (no
        `--owner` there: it is one owner's), or one owner of the PostgreSQL store."""
        url = self.database_url()
        if url is None:
            from trinho.records.protocol import FileRecords
            from trinho.review.appliers import APPLIERS

            if owner is not None:
                raise TrinhoError.keyed("error.owner.files", owner=owner, env=OWNER_ENV)
            return FileRecords(self.workspace(), APPLIERS)
        return self.database_records(url, owner)

    def database_records(self, url: str, owner: str | None) -> PgRecords:
        """One owner of the PostgreSQL store at `url`: the workspace's config, if any, gives
        the user and the prompt's budgets; file code runs on the owner's working copy."""
        kept = self._records.get((url, owner))
        if kept is not None:  # one pool a state, however many calls (`trinho call --serve`)
            return kept
        from trinho.context.run import budgets_from_config
        from trinho.pg.connect import Database
        from trinho.pg.store import PgRecords

        db = Database(url, max_size=2)
        click.get_current_context().find_root().call_on_close(db.close)
        chosen, zone = choose_owner(db, owner)
        ws = self.settings()

        def on_copy(job: Callable[[Workspace], T]) -> T:
            return job(self.working(chosen))

        records = PgRecords(
            db,
            chosen,
            clock=clock_from_env(),
            timezone=zone,
            user=ws.config.owner if ws is not None else "owner",
            locale=self.locale(),
            budgets=budgets_from_config(ws) if ws is not None else None,
            files=on_copy,
        )
        self._records[(url, owner)] = records
        return records

    def close_databases(self) -> None:
        """Close the pools this state opened for owners' records (also closed when the
        command ends): a kept state given up before then gives its connections back."""
        for records in self._records.values():
            records.db.close()
        self._records.clear()

    def working(self, owner: str | None) -> Workspace:
        """The workspace a command of the file stores works on: the file workspace, or with a
        database one owner's working copy, checked back in when the command ends, all or
        nothing (`trinho.pg.workcopy`). So every such command works on both backends, the
        file code unchanged."""
        url = self.database_url()
        if url is None:
            if owner is not None:
                raise TrinhoError.keyed("error.owner.files", owner=owner, env=OWNER_ENV)
            return self._open()
        if self._copy is not None:
            return self._copy
        from trinho.config import Config
        from trinho.pg.connect import Database, retry_lost
        from trinho.pg.workcopy import checkin, open_checkout, working_copy

        db = Database(url, max_size=2)
        root = click.get_current_context().find_root()
        root.call_on_close(db.close)
        chosen, _ = choose_owner(db, owner)
        home = self.settings()
        config_file = home.internal / "config.toml" if home is not None else None
        config_text = (
            config_file.read_text(encoding="utf-8")
            if config_file is not None and config_file.is_file()
            else None
        )
        done = root.with_resource(working_copy(db, chosen, config_text))
        out = root.with_resource(_HeldStdout())

        def check_in() -> None:  # once more on a new connection when a restart cut it
            retry_lost(db.url, lambda: checkin(db, done))
            out.release()

        root.call_on_close(check_in)
        self._copy = open_checkout(
            done, home.config if home is not None else Config(), clock_from_env()
        )
        return self._copy

    def shown(self, message: str) -> str:
        """An error line as the owner can act on it: a working copy's files named by their
        path in the owner's records, not by the temporary folder they were copied to."""
        if self._copy is None:
            return message
        return message.replace(f"{self._copy.root}{os.sep}", "").replace(str(self._copy.root), ".")

    @property
    def copied(self) -> bool:
        """Whether the command works on a working copy: its announcements then wait in the
        owner's outbox (`HeldChannel`), never sent through the deployment's channel."""
        return self._copy is not None

    def locale(self) -> str:
        """The owner's locale: the open workspace's, else its config's if readable, else en."""
        if self._workspace is not None:
            return self._workspace.locale
        return owner_locale(self.workspace_dir)


def choose_owner(db: Database, given: str | None) -> tuple[str, str]:
    """The owner a command works on, and their time zone: the one named (by `--owner` or
    TRINHO_OWNER), which must exist; else the store's only owner. With several and none
    named, refused in one line: a command never guesses whose memory to touch."""
    import psycopg

    from trinho.pg.owners import require_owner, sole_owner

    try:
        if given is not None:
            return given, require_owner(db, given)
        only, count = sole_owner(db)
    except psycopg.errors.InsufficientPrivilege:
        raise TrinhoError.keyed("error.owner.registry_denied") from None
    if only is not None:
        return only
    if not count:
        raise TrinhoError.keyed("error.owner.none")
    raise TrinhoError.keyed("error.owner.choose", number=count, env=OWNER_ENV)


COMMANDS: dict[str, str] = {
    "approve": "commands.facts",
    "call": "commands.tools",
    "chat": "commands.chat",
    "condense": "commands.condense",
    "context": "commands.context",
    "demo": "commands.demo",
    "export": "commands.store",
    "fact": "commands.facts",
    "facts": "commands.facts",
    "gate": "commands.gate",
    "get": "commands.search",
    "import": "commands.workspace",
    "index": "commands.search",
    "init": "commands.workspace",
    "jobs": "commands.jobs",
    "mcp": "commands.mcp",
    "model": "commands.model",
    "note": "commands.workspace",
    "notes": "commands.workspace",
    "owners": "commands.store",
    "proposals": "commands.facts",
    "reject": "commands.facts",
    "search": "commands.search",
    "serve": "commands.serve",
    "store": "commands.store",
    "tools": "commands.tools",
    "undo": "commands.facts",
    "usage": "commands.model",
    "web": "commands.web",
    "worker": "commands.worker",
}
"""Each command and the module under trinho.cli that defines it (on `cli`, when imported)."""

SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (N_("cli.section.everyday"), ("note", "notes", "search", "get", "chat", "fact", "facts")),
    (N_("cli.section.review"), ("proposals", "approve", "reject", "undo", "condense", "web")),
    (
        N_("cli.section.setup"),
        ("init", "import", "export", "model", "serve", "jobs", "mcp", "usage"),
    ),
    (N_("cli.section.operator"), ("owners", "store", "worker")),
    (N_("cli.section.developer"), ("context", "gate", "index", "tools", "call", "demo")),
)
"""`trinho --help` in groups, everyday commands first; every command is in exactly one."""


class LazyGroup(click.Group):
    """The root group: a command's module is imported when that command is asked for, so a
    run of one command loads only what that command needs."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | set(COMMANDS))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            import_module(f"trinho.cli.{COMMANDS[cmd_name]}")
        command = self.commands.get(cmd_name)
        if command is not None:
            localize(command, context_locale(ctx))
        return command

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        localize(self, context_locale(ctx), deep=False)
        super().format_help(ctx, formatter)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """A mistyped command is refused with the commands it is close to, in the owner's
        language (click's own refusal names none)."""
        name = args[0] if args else ""
        known = self.list_commands(ctx)
        if name and not name.startswith("-") and name not in known:
            close = difflib.get_close_matches(name, known, n=3)
            if close:
                ctx.fail(
                    t(
                        context_locale(ctx),
                        N_("cli.did_you_mean"),
                        name=name,
                        close=", ".join(close),
                    )
                )
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands in `SECTIONS`, each section titled in the owner's language; a command
        no section names (one added elsewhere) under the last."""
        root = ctx.find_root().obj
        locale = root.locale() if isinstance(root, State) else "en"
        listed = {name for _, names in SECTIONS for name in names}
        extra = tuple(name for name in self.list_commands(ctx) if name not in listed)
        sections = [*SECTIONS[:-1], (SECTIONS[-1][0], SECTIONS[-1][1] + extra)]
        width = formatter.width - 6 - max(len(name) for name in self.list_commands(ctx))
        for title, names in sections:
            rows = []
            for name in names:
                command = self.get_command(ctx, name)
                if command is not None and not command.hidden:
                    rows.append((name, command.get_short_help_str(limit=width)))
            if rows:
                with formatter.section(t(locale, title)):
                    formatter.write_dl(rows)


ENGLISH_HELP = "_trinho_english_help"
"""The attribute keeping a command's or option's English help, which `localize` says anew."""


def localize(command: click.Command, locale: str, *, deep: bool = True) -> None:
    """The help of `command`, its options and (`deep`) its subcommands, in `locale`: each
    English text is its own msgid in the catalogs (as click's are); said again from the
    English each time, so one process may show the help in either language."""
    items: list[Any] = [command, *command.params]
    for item in items:
        english = getattr(item, ENGLISH_HELP, None)
        if english is None:
            english = (item.help, getattr(item, "short_help", None))
            setattr(item, ENGLISH_HELP, english)
        item.help = _said(locale, english[0])
        if isinstance(item, click.Command):
            item.short_help = _said(locale, english[1])
    if deep and isinstance(command, click.Group) and not isinstance(command, LazyGroup):
        for sub in command.commands.values():
            localize(sub, locale)


def _said(locale: str, text: str | None) -> str | None:
    """`text` in `locale`, as its catalog has it once click's cleaning (`inspect.cleandoc`,
    up to a form feed) is done; as it is where the catalog lacks it."""
    if not text:
        return text
    clean = inspect.cleandoc(text).partition("\f")[0]
    said = said_in(locale, clean)
    return text if said == clean else said


def context_locale(ctx: click.Context) -> str:
    """The owner's locale for what click shows in `ctx`: the root's `State` (its workspace
    given by --workspace or TRINHO_HOME when the root's options are parsed), else English."""
    root = ctx.find_root()
    if not isinstance(root.obj, State):
        return "en"
    given = root.params.get("workspace_dir")
    home = os.environ.get("TRINHO_HOME")
    if root.obj.given_dir is None and (isinstance(given, Path) or home):
        root.obj.given_dir = given if isinstance(given, Path) else Path(str(home))
    return root.obj.locale()


class ClickWordedOption(click.Option):
    """An option whose help is click's own wording, fixed when click was imported (--version):
    said in the owner's locale when the help is shown."""

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        record = super().get_help_record(ctx)
        return None if record is None else (record[0], click_says(record[1]))


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--workspace",
    "workspace_dir",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="TRINHO_HOME",
    default=None,
    help="Agent workspace folder. Default: $TRINHO_HOME, else the nearest workspace from the "
    "current folder upward, else $XDG_DATA_HOME/trinho/workspace "
    "(~/.local/share/trinho/workspace).",
)
@click.option(
    "--owner",
    "owner",
    default=None,
    metavar="ID",
    help="Whose memory, in a PostgreSQL store of many owners: as the command's own --owner.",
)
@click.version_option(package_name="trinho", cls=ClickWordedOption)
@click.pass_context
def cli(ctx: click.Context, workspace_dir: Path | None, owner: str | None) -> None:
    """trinho: long-term memory for a personal AI assistant.

    TRINHO_NOW (ISO 8601 with an offset) fixes the clock for every command.
    """
    found = ctx.ensure_object(State)
    found.given_dir, found.owner = workspace_dir, owner


def json_option(func: F) -> F:
    """`--json`: print one JSON document on stdout and nothing else there."""
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")(func)


def profile_option(func: F) -> F:
    """`--profile`: the tools' argument names and result shapes (`trinho tools`, `trinho mcp`)."""
    return click.option(
        "--profile",
        type=click.Choice(TOOL_PROFILES),
        default=None,
        help="Argument names and result shapes of the tools: default, or openclaw (OpenClaw's "
        "memory_search and memory_get). Default: [tools] profile in the config, else default.",
    )(func)


def owner_given(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """The command's `--owner`; when it was not on the command line, the one given before
    the command (`trinho --owner ID notes`), which beats TRINHO_OWNER as a flag does."""
    root = ctx.find_root().obj
    before = root.owner if isinstance(root, State) else None
    source = ctx.get_parameter_source(param.name) if param.name else None
    if before is not None and source is not click.core.ParameterSource.COMMANDLINE:
        return before
    return value


def owner_option(func: F) -> F:
    """`--owner ID` (or TRINHO_OWNER): whose memory, in a PostgreSQL store of many owners."""
    return click.option(
        "--owner",
        "owner",
        default=None,
        callback=owner_given,
        envvar=OWNER_ENV,
        help="Whose memory, in a PostgreSQL store of many owners (default: $TRINHO_OWNER, "
        "else the store's only owner). Not for a file workspace, which is one owner's.",
    )(func)


def caller_options(func: F) -> F:
    """`--as` and `--agent`: whom a tool call speaks for (`trinho call`, `trinho mcp`)."""
    func = click.option("--agent", default="main", show_default=True, help="The agent's name.")(
        func
    )
    return click.option(
        "--as",
        "actor_kind",
        type=click.Choice(["chat", "job"]),
        default="chat",
        show_default=True,
        help="Who calls: chat (the owner is present) or job (unattended).",
    )(func)


def state() -> State:
    obj = click.get_current_context().find_root().obj
    assert isinstance(obj, State)
    return obj


def say(text: str, *, err: bool = False) -> None:
    """Print a line for the owner. Everything the CLI prints goes through here or `emit`, so
    stored text holding a terminal escape is shown, never acted on (`textnorm.printable`)."""
    click.echo(printable(text), err=err)


def emit(
    as_json: bool, data: object, human: str | Callable[[], str], *, styled: bool = False
) -> None:
    """Print `data` as JSON, or the human text, on stdout. `styled`: the human text was made
    printable line by line and then coloured by trinho itself (click drops the colours when
    the output is piped), so it is printed as it is."""
    if as_json:
        sys.stdout.write(json_text(data) + "\n")
        return
    text = human() if callable(human) else human
    if styled:
        click.echo(text)
    else:
        say(text)
