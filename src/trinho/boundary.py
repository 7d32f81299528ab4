"""The error boundary of every surface (the CLI, each tool call, each HTTP route, each MCP
request): any failure becomes one keyed line, and no absolute path of the owner's folder, from
an OS error or from any other message, leaves it.

`public_error` is the one rule; each surface calls it where it turns an exception into an
answer. A path inside the workspace is shown relative to it; a path outside by its last name.

Where a surface starts, `require_extra` checks the optional part it needs: an install with one
extra never imports another's packages, and a missing one is one line naming what to install.
"""

from __future__ import annotations

import errno
import importlib.util
import os
import sqlite3
from pathlib import Path

from trinho.errors import NotFound, TrinhoError, Unavailable
from trinho.i18n import t

MAX_SHOWN_PATH = 80
"""A path longer than this (a 300-character name) is cut in the middle of the message."""

_TOO_LONG = ("error.os.name_too_long", "error.os.name_too_long_here")
_DENIED = ("error.os.denied", "error.os.denied_here")
_NO_SPACE = ("error.os.no_space", "error.os.no_space_here")
_OS_KEYS = {
    errno.ENAMETOOLONG: _TOO_LONG,
    errno.EACCES: _DENIED,
    errno.EPERM: _DENIED,
    errno.ENOSPC: _NO_SPACE,
    errno.EDQUOT: _NO_SPACE,
    errno.EROFS: ("error.os.read_only", "error.os.read_only_here"),
}
"""The catalog keys of an OS error by its errno: with the path it names, and without one."""

CLIENT_ERRNOS = frozenset({errno.ENAMETOOLONG, errno.ENOENT, errno.ENOTDIR, errno.EISDIR})
"""OS errors caused by the path a caller gave, not by the machine: a route answers them 400."""


def _roots(root: Path | None) -> list[str]:
    if root is None:
        return []
    forms = {str(root), os.path.realpath(root), os.path.abspath(root)}
    return sorted((f.rstrip("/") for f in forms if f.rstrip("/")), key=len, reverse=True)


def scrub(text: str, root: Path | None) -> str:
    """`text` with the workspace's absolute path taken out: its files named relative to it."""
    for form in _roots(root):
        text = text.replace(form + os.sep, "").replace(form, ".")
    return text


def shown_path(path: object, root: Path | None) -> str:
    """A path for a message: relative when inside the workspace, else its last name; cut when
    longer than MAX_SHOWN_PATH."""
    raw = os.fsdecode(path) if isinstance(path, str | bytes | os.PathLike) else str(path)
    shown = scrub(raw, root)
    if os.path.isabs(shown):
        shown = os.path.basename(shown.rstrip(os.sep)) or shown
    if len(shown) > MAX_SHOWN_PATH:
        half = MAX_SHOWN_PATH // 2
        shown = f"{shown[:half]}…{shown[-half:]}"
    return shown


def _scrub_value(value: object, root: Path | None) -> object:
    if isinstance(value, Path):
        return shown_path(value, root)
    if isinstance(value, str):
        return scrub(value, root)
    return value


def _os_error(exc: OSError, root: Path | None) -> TrinhoError:
    named, unnamed = _OS_KEYS.get(exc.errno or 0, ("error.os.failed", "error.os.failed_here"))
    reason = scrub(exc.strerror or type(exc).__name__, root)
    if exc.filename is None:
        return TrinhoError.keyed(unnamed, reason=reason)
    return TrinhoError.keyed(named, path=shown_path(exc.filename, root), reason=reason)


def _db_error(exc: sqlite3.Error, root: Path | None) -> TrinhoError:
    text = scrub(str(exc), root)
    if "full" in text.lower():
        return TrinhoError.keyed("error.os.no_space_here", reason=text)
    return TrinhoError.keyed("error.db.failed", reason=text)


def public_error(exc: BaseException, root: Path | None) -> TrinhoError:
    """`exc` as the keyed error a surface shows: a TrinhoError with its paths made relative, an
    OS error by its kind (too long a name, denied, disk full) and the relative path, a database
    error, else an unexpected failure by its type. Never a traceback, never `root`."""
    if isinstance(exc, TrinhoError):
        params = {k: _scrub_value(v, root) for k, v in exc.params.items()}
        text = t("en", exc.key, **params) if exc.key else scrub(str(exc), root)
        return TrinhoError(text, key=exc.key, params=params)
    if isinstance(exc, OSError):
        return _os_error(exc, root)
    if isinstance(exc, sqlite3.Error):
        return _db_error(exc, root)
    reason = scrub(str(exc).split("\n", 1)[0], root)
    return TrinhoError.keyed("error.internal", kind=type(exc).__name__, reason=reason)


def http_status(exc: BaseException) -> int:
    """The status a route answers a failure with: 400 for the caller's input, 503 for a server
    that cannot be reached now (the same request later may succeed), else 500."""
    if isinstance(exc, Unavailable):
        return 503
    if isinstance(exc, TrinhoError):
        return 404 if isinstance(exc, NotFound) else 400
    if isinstance(exc, OSError) and exc.errno in CLIENT_ERRNOS:
        return 400
    return 500


EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "web": ("starlette", "uvicorn", "python_multipart"),
    "mcp": ("mcp", "uvicorn"),
    "telegram": ("telegram",),
    "anthropic": ("anthropic",),
    "local": ("numpy", "tokenizers", "safetensors"),
    "semantic": ("numpy",),
}
"""The optional parts of trinho and the modules each extra installs."""


def require_extra(extra: str, feature: str) -> None:
    """Refuse to start `feature` unless every module of `extra` can be imported."""
    for module in EXTRA_MODULES[extra]:
        if importlib.util.find_spec(module) is None:
            raise TrinhoError.keyed(
                "error.extra.missing", feature=feature, extra=extra, module=module
            )
