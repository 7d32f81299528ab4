"""The message catalogs as the tests read them: the .po sources, through Babel."""

from __future__ import annotations

import re
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po

import trinho

LOCALE_DIR = Path(trinho.__file__).parent / "i18n" / "locale"
LOCALES = ("en", "vi")


def read(locale: str) -> Catalog:
    with (LOCALE_DIR / locale / "LC_MESSAGES" / "trinho.po").open("rb") as handle:
        return read_po(handle, locale=locale)


PO: dict[str, Catalog] = {locale: read(locale) for locale in LOCALES}


def msgid(message: Message) -> str:
    return message.id[0] if isinstance(message.id, tuple | list) else message.id


def is_key(message: Message) -> bool:
    """A trinho key ("note.saved"), not one of click's English msgids ("Usage:")."""
    text = msgid(message)
    return bool(text) and "." in text and " " not in text and text == text.lower()


def forms(message: Message) -> tuple[str, ...]:
    """The message's text: its plural forms, or its one text."""
    text = message.string
    return tuple(text) if isinstance(text, tuple | list) else (str(text or ""),)


CATALOG: dict[str, dict[str, str]] = {
    msgid(m): {loc: forms(PO[loc][msgid(m)])[-1] for loc in LOCALES if msgid(m) in PO[loc]}
    for m in PO["en"]
    if is_key(m)
}
"""Every trinho key -> locale -> text (a plural message: its last form, the "other" one)."""


INTERNAL_TERMS: tuple[str, ...] = (
    "agent:main",
    "job:",
    "condense:",
    "basis",
    "inferred",
    "owner",
    "tokens",
    "budget",
    "valid",
    "similarity",
)
"""Words of trinho's inside that an owner reading Vietnamese must never meet: origin codes
(`agent:main`, `job:facts`, `condense:2026-W48`) and English field names (a fact's basis, a
budget in tokens). Every page, message and CLI output in the vi locale is
checked against them (`internal_terms_in`), as is every run id shown as a title."""

_RUN_ID = re.compile(r"\b\d{4}-W\d{2}\b")


def cli_helps() -> set[str]:
    """Every help text of the commands and their options, as its msgid: click's cleaning
    done (`inspect.cleandoc`, up to a form feed), in English whatever was shown before."""
    import inspect

    import click

    from trinho.cli.app import COMMANDS, ENGLISH_HELP, cli

    for module in sorted(set(COMMANDS.values())):
        __import__(f"trinho.cli.{module}")
    found: set[str] = set()

    def walk(command: click.Command) -> None:
        for item in (command, *command.params):
            text = getattr(item, ENGLISH_HELP, (getattr(item, "help", None),))[0]
            if text:
                found.add(inspect.cleandoc(text).partition("\f")[0])
        if isinstance(command, click.Group):
            for sub in command.commands.values():
                walk(sub)

    walk(cli)
    return found


def internal_terms_in(text: str) -> list[str]:
    """The internal terms `text` carries, as whole words (case-insensitive), in catalog order."""
    found = []
    for term in INTERNAL_TERMS:
        left = r"\b" if term[0].isalnum() else ""
        right = r"\b" if term[-1].isalnum() else ""
        if re.search(f"{left}{re.escape(term)}{right}", text, re.IGNORECASE):
            found.append(term)
    return found


def run_ids_in(title: str) -> list[str]:
    """Run ids (`2026-W48`) in a title, where a person reads days instead."""
    return _RUN_ID.findall(title)


# ---- words never shown to an owner ------------------------------------------------------------

OWNER_NEVER: dict[str, re.Pattern[str]] = {
    "a file name": re.compile(
        r"MEMORY\.md|\b[\w./-]+\.(?:md|jsonl|toml|json)\b|\.trinho/|\bmemory_proposals\b"
    ),
    "the model's protocol": re.compile(
        r"(?i:\brewrit(?:e|es|ten)\b|edit script|bản viết lại|kịch bản sửa)"
        r"|\b(?:ADD|EDIT|DATE|REMOVE|NONE)\b"
    ),
    "a score": re.compile(r"(?i:similarity|\bscore\b)|\{similarity|\b0\.\d\d\b"),
    "a token count": re.compile(r"(?i)\btokens?\b"),
    "a run's week id": re.compile(r"\b\d{4}-W\d{2}\b|\{run\}"),
    "an id": re.compile(r"\{id\}|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{6,}\b"),
}
"""What an owner never reads on a review screen, an announcement or a notification: file
names (MEMORY.md, memory/archive.md), the model's protocol (a rewrite, an edit script, its
ADD/EDIT/DATE/REMOVE/NONE), scores ("similarity 0.64"), token counts, a run's ISO week id
(2026-W48) and bare hex ids (a proposal's, or the `{id}`/`{run}` blanks that print them).
Placeholders other than those are not shown and are left out of the check."""

CLI_COMMAND = re.compile(r"`?trinho (?:approve|reject|proposals) [0-9a-zA-Z_-]+`?")
"""The commands that name a proposal by its id: the one place an owner meets an id, on the
CLI surface (the console announcement and `trinho proposals`), since the CLI decides by it."""


def owner_leaks(text: str, *, cli: bool = False) -> dict[str, list[str]]:
    """What `text` shows that an owner must not read, by kind; with `cli`, a proposal's id
    inside a command that takes it (`trinho approve 3fa9c1`) and a listing's id are allowed."""
    if cli:
        text = CLI_COMMAND.sub("", text)
    found: dict[str, list[str]] = {}
    for kind, pattern in OWNER_NEVER.items():
        if cli and kind == "an id":
            continue
        hits = [m.group(0) for m in pattern.finditer(text)]
        if hits:
            found[kind] = hits
    return found
