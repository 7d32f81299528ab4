"""Rewrite the replayed console sessions of docs/*.md with what the commands print now.

    .venv/bin/python tests/support/regen_docs.py cli.md rules.md

For a deliberate change of behaviour: `tests/test_docs.py` fails when a documented session no
longer prints what it shows; this writes the new output in, for review in `git diff`.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))

from test_docs import DOCS, SESSIONS, replay

BLOCK = re.compile(r"(<!-- replay(?:, model replies: [^>]*?)? -->\n```console\n)(.*?)(```)", re.S)


def _delenv(name: str, raising: bool = True) -> None:
    os.environ.pop(name, None)


def _setenv(name: str, value: str) -> None:
    os.environ[name] = value


def regenerate(page: str) -> None:
    path = DOCS / page
    text = path.read_text(encoding="utf-8")
    sessions = iter([s for s in SESSIONS if s.page == page])
    saved, here = dict(os.environ), os.getcwd()

    def fresh(match: re.Match[str]) -> str:
        with tempfile.TemporaryDirectory() as folder:
            try:
                lines = replay(next(sessions), Path(folder), _setenv, _delenv, os.chdir)
            finally:
                os.chdir(here)
                os.environ.clear()
                os.environ.update(saved)
        return match.group(1) + "\n".join(lines) + "\n" + match.group(3)

    path.write_text(BLOCK.sub(fresh, text), encoding="utf-8")


if __name__ == "__main__":
    for name in sys.argv[1:] or sorted({s.page for s in SESSIONS}):
        regenerate(name)
