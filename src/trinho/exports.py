"""Lazy re-exports for a package's `__init__`: its public names, each imported on first use.

A base module, so a feature package's `__init__` imports this and not the package root (which
sits above every feature package).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping


def lazy_exports(
    package: str, modules: Mapping[str, Iterable[str]]
) -> tuple[list[str], Callable[[str], object]]:
    """A package's `__all__` and module `__getattr__` for the names its modules define
    (`modules`: module -> names), each imported on first use and then kept, so importing
    one module of a package loads no other. The package's `TYPE_CHECKING` block imports the
    same names (`import X as X`), which is what a type checker reads."""
    module_of = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> object:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    return sorted(module_of), __getattr__
