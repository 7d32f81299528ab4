"""The config file `.trinho/config.toml` itself: read into the typed config, written by
`trinho init`, edited in place keeping every line, comment and blank the owner wrote.

Reading it is the one part here that touches the disk (`read_config`, `owner_locale`,
`zone_given`); `trinho.config.check` says what each key may be.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path

import tomlkit

from trinho.config.check import config_from
from trinho.config.schema import CONFIG_PATH, LOCALES, Config
from trinho.durable import read_regular
from trinho.errors import TrinhoError


def parse_config(text: str, where: str = CONFIG_PATH) -> Config:
    """Read config TOML text into the typed config; every wrong value is one keyed line
    naming `[section] key` and the file (`trinho.config` says what each key may be)."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TrinhoError.keyed("error.config.not_toml", where=where, error=str(exc)) from None
    return config_from(raw)


def render_config(config: Config) -> str:
    """The config file `trinho init` writes; other sections are added by hand or by features."""
    return (
        "# trinho workspace config\n"
        "[owner]\n"
        f'timezone = "{config.timezone}"  # IANA zone: note times and days are in it\n'
        f'user = "{config.owner}"  # the owner\'s user id under users/\n'
        f'locale = "{config.locale}"  # en or vi: the language trinho writes to the owner in\n'
        "\n[paths]\n"
        f'users = "{config.users_dir}"  # may point at a users/ folder shared by several agents\n'
        f'proposals = "{config.proposals_dir}"  # the one queue the owner reviews\n'
    )


def read_config(root: Path) -> Config | None:
    path = root / CONFIG_PATH
    if not path.exists():
        return None
    try:
        text = read_regular(path).decode("utf-8")  # a FIFO here would block every command
    except UnicodeDecodeError:
        raise TrinhoError.keyed("error.config.not_utf8", path=CONFIG_PATH) from None
    return parse_config(text)


def owner_locale(root: Path) -> str:
    """The locale set in the config at `root`, English when it cannot be read.

    For saying an error in the owner's language: reading it must never fail in turn.
    """
    try:
        config = read_config(root)
    except (TrinhoError, OSError, ValueError):
        return _written_locale(root)
    return config.locale if config is not None else "en"


def _written_locale(root: Path) -> str:
    """`[owner] locale` as written in a config that is wrong elsewhere: its error is still
    said in the owner's language."""
    try:
        owner = tomllib.loads(read_regular(root / CONFIG_PATH).decode("utf-8")).get("owner")
    except (TrinhoError, OSError, ValueError):
        return "en"
    locale = owner.get("locale") if isinstance(owner, dict) else None
    return locale if isinstance(locale, str) and locale in LOCALES else "en"


def zone_given(root: Path) -> bool:
    """Whether the config at `root` sets `[owner] timezone` itself."""
    try:
        owner = tomllib.loads(read_regular(root / CONFIG_PATH).decode("utf-8")).get("owner")
    except (TrinhoError, OSError, ValueError):
        return True
    return isinstance(owner, dict) and "timezone" in owner


def edit_config(text: str, section: str, values: Mapping[str, str]) -> str:
    """The config text with `values` set in its `[section]` (the table added when missing),
    every other line, comment and blank kept as written: the one editor of the owner's file,
    for `trinho init` and `trinho mcp --init-token` alike."""
    document = tomlkit.parse(text)
    table = document.get(section)
    if table is None:
        table = tomlkit.table()
        document.add(section, table)
    for key, value in values.items():
        if table.get(key) != value:
            table[key] = value
    return tomlkit.dumps(document)


def update_owner_values(text: str, config: Config) -> str:
    """Change the [owner] values in an existing config; a missing [owner] is added."""
    values = {"timezone": config.timezone, "user": config.owner, "locale": config.locale}
    return edit_config(text, "owner", values)
