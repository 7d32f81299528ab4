"""The optional parts of trinho and the extra that installs each: checked where a part starts,
so an install with one extra never imports another's packages, and a missing one is one line
naming what to install."""

from __future__ import annotations

import importlib.util

from trinho.errors import TrinhoError

EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "web": ("starlette", "uvicorn", "python_multipart"),
    "mcp": ("mcp", "uvicorn"),
    "telegram": ("telegram",),
    "anthropic": ("anthropic",),
    "local": ("numpy", "tokenizers", "safetensors"),
    "semantic": ("numpy",),
}


def require_extra(extra: str, feature: str) -> None:
    """Refuse to start `feature` unless every module of `extra` can be imported."""
    for module in EXTRA_MODULES[extra]:
        if importlib.util.find_spec(module) is None:
            raise TrinhoError.keyed(
                "error.extra.missing", feature=feature, extra=extra, module=module
            )
