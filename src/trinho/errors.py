"""Errors that reach the owner as one clear line, never as a traceback."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Self

from trinho.i18n import t


class TrinhoError(Exception):
    """A user error (bad input, a missing file, a refusing rule): says what, where, how to fix.

    `str(error)` is always English (logs, JSON, tests). An error built with `keyed` also
    carries its catalog key and parameters, so the CLI can say it in the owner's locale.
    Every error trinho raises is built so (tests/test_errors.py scans for any other); the
    plain form is for errors from outside, and an error no owner can cause is a ValueError.
    """

    exit_code = 1

    def __init__(
        self, message: str, *, key: str | None = None, params: Mapping[str, object] | None = None
    ) -> None:
        super().__init__(message)
        self.key = key
        self.params: dict[str, object] = dict(params or {})

    @classmethod
    def keyed(cls, key: str, /, **params: object) -> Self:
        """The error whose text is catalog entry `key`: English now, any locale later."""
        return cls(t("en", key, **params), key=key, params=params)

    def localized(self, locale: str) -> str:
        """The message in `locale`; the English text when the error has no catalog key."""
        if self.key is None:
            return str(self)
        return t(locale, self.key, **self.params)


def in_locale(error: BaseException, locale: str) -> str:
    """Any error's message for the owner: a keyed TrinhoError in `locale`, others as they are."""
    return error.localized(locale) if isinstance(error, TrinhoError) else str(error)


class NotFound(TrinhoError):
    """Something asked for does not exist (a fact, a proposal, a file)."""


class Unavailable(TrinhoError):
    """A server this needs cannot be reached now (a database restarting): nothing of the
    request was written, and the same request later may succeed. HTTP answers 503."""


@dataclass(frozen=True)
class BrokenFile:
    """A file a listing could not read, and why: reported, while the others are still read."""

    path: str
    error: str
