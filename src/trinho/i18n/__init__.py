"""What trinho writes for the owner, in the owner's locale (English and Vietnamese).

The messages are gettext catalogs, domain `trinho`: src/trinho/i18n/locale/{en,vi}/LC_MESSAGES/
trinho.po, compiled to .mo when the package is built (hatch_build.py). A message's key
("channel.waiting") is its msgid in both catalogs; the en catalog holds the English text,
so `str(error)` and logs read the same in every locale. A message about a number of things
has plural forms, chosen by its `count` parameter through the catalog's Plural-Forms
(English: one, other; Vietnamese: one form). The same domain holds click's own msgids
(English sentences) for `click_in`.

A key computed from a value is picked from a literal mapping of `N_("key")` entries, so
Babel's extractor (keywords in tests/test_i18n.py) sees every key the code can ask for.
"""

from __future__ import annotations

import gettext
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache

DOMAIN = "trinho"
LOCALES = ("en", "vi")


def N_(key: str) -> str:
    """Marks a key kept for later (in a mapping) so extraction sees it; the key itself."""
    return key


@cache
def catalog(locale: str) -> gettext.NullTranslations:
    """The compiled catalog of `locale`; an empty one for a locale trinho does not speak.

    Read once, as package data: the catalogs are part of the code, not the owner's files."""
    from importlib.resources import files  # at first use: it loads pathlib, urllib

    if locale not in LOCALES:
        return gettext.NullTranslations()
    path = files(__package__).joinpath(f"locale/{locale}/LC_MESSAGES/{DOMAIN}.mo")
    try:
        with path.open("rb") as handle:
            return gettext.GNUTranslations(handle)
    except FileNotFoundError:
        raise RuntimeError(
            f"{path} is missing: the catalogs are compiled when trinho is built "
            "(pip install -e . or pip install .)"
        ) from None


def _lookup(locale: str, key: str, count: object) -> str | None:
    """The template of `key` in `locale`, its plural form for `count`; None if it lacks it.

    A key never translates to itself, so gettext answering with the key means "absent"."""
    found = catalog(locale)
    if isinstance(count, int) and not isinstance(count, bool):
        text = found.ngettext(key, key, count)
        if text != key:
            return text
    text = found.gettext(key)
    return None if text == key else text


class Term(str):
    """A parameter that is itself a catalog key (a word such as "fact key"): said in the
    message's locale when the message is, so no English word lands in a Vietnamese line."""

    __slots__ = ()


def t(locale: str, key: str, /, **params: object) -> str:
    """The message `key` in `locale` (English when that locale lacks it), filled with params;
    a `count` parameter picks the plural form, a `Term` parameter is said in `locale` too."""
    count = params.get("count")
    text = _lookup(locale, key, count) if locale != "en" else None
    if text is None:
        text = _lookup("en", key, count)
    if text is None:
        raise KeyError(key)
    said = {k: t(locale, v) if isinstance(v, Term) else v for k, v in params.items()}
    return text.format(**said)


def said_in(locale: str, text: str) -> str:
    """English `text` (a command's or option's help) in `locale`: the catalog's msgid is the
    English itself, as click's own are; as it is where the catalog lacks it."""
    return catalog(locale).gettext(text) if text else text


def _click_modules() -> Iterator[object]:
    return (module for name, module in list(sys.modules.items()) if name.split(".")[0] == "click")


_click_locale: list[Callable[[], str]] = []
"""The locale click speaks in, innermost `click_in` last."""


def click_says(message: str) -> str:
    """Click's msgid `message` in the locale of the innermost `click_in`; as it is outside one
    (for a wording click fixed at import, such as --version's help)."""
    return catalog(_click_locale[-1]()).gettext(message) if _click_locale else message


@contextmanager
def click_in(locale: Callable[[], str]) -> Iterator[None]:
    """Click's own messages (usage errors, "Usage:", "Show this message and exit.") from the
    trinho domain, in the locale `locale()` names when click says them; click's English for a
    msgid the catalog lacks.

    Click calls `gettext.gettext`/`ngettext` (the global domain, the process's LANG), bound
    in each of its modules at import; for the duration of the block those names say the
    owner's catalog instead, and are put back after.
    """

    def plural(singular: str, plural_: str, n: int) -> str:
        return catalog(locale()).ngettext(singular, plural_, n)

    saved: list[tuple[object, str, object]] = []
    for module in _click_modules():
        for name, value in list(vars(module).items()):
            if value is gettext.gettext or value is gettext.ngettext:
                saved.append((module, name, value))
                setattr(module, name, click_says if value is gettext.gettext else plural)
    _click_locale.append(locale)
    try:
        yield
    finally:
        _click_locale.pop()
        for module, name, value in reversed(saved):
            setattr(module, name, value)
