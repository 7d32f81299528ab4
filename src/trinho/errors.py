"""Errors that reach the owner as one clear line, never as a traceback."""

from __future__ import annotations


class TrinhoError(Exception):
    """A user error (bad input, a missing file, a refusing rule): says what, where, how to fix."""

    exit_code = 1


class NotFound(TrinhoError):
    """Something asked for does not exist (a fact, a proposal, a file)."""
