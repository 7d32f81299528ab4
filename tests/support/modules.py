"""The modules of `src/trinho` and what each holds, for docs/architecture.md's module list.

    .venv/bin/python tests/support/modules.py

prints the list (one line per module, its dotted name and the first sentence of its
docstring) for pasting into the doc after a module is added, moved or removed;
`tests/test_architecture_docs.py` fails until the doc names every module and no other.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def modules() -> dict[str, str]:
    """Every module's dotted name and the first sentence of its docstring."""
    found: dict[str, str] = {}
    for path in sorted((SRC / "trinho").rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        found[name] = re.split(r"(?<=\.)\s", " ".join(doc.split("\n\n")[0].split()), maxsplit=1)[0]
    return found


def listing() -> str:
    return "\n".join(f"- `{name}`: {first}" for name, first in modules().items())


if __name__ == "__main__":
    print(listing())
