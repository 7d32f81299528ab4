"""Errors that reach the owner as one clear line, never as a traceback."""

from __future__ import annotations

from dataclasses import dataclass


class TrinhoError(Exception):
    """A user error (bad input, a missing file, a refusing rule): says what, where, how to fix."""

    exit_code = 1


class NotFound(TrinhoError):
    """Something asked for does not exist (a fact, a proposal, a file)."""


@dataclass(frozen=True)
class BrokenFile:
    """A file a listing could not read, and why: reported, while the others are still read."""

    path: str
    error: str
