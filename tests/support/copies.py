"""Runs of code copied between two sets of files: the measure issue 42 asks of the backends.

A run is six or more consecutive lines, identical once their indentation is stripped (blank
lines skipped), found in a file of each set. Run it to print the figure:
`python tests/support/copies.py [SRC]`: PostgreSQL against the file stores, then against every
other module of the package.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

RUN = 6
"""How many lines in a row make a copy."""


@dataclass(frozen=True)
class Copy:
    """A run of `length` lines found at `line` of `path` and at `other_line` of `other`."""

    path: str
    line: int
    other: str
    other_line: int
    length: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line} = {self.other}:{self.other_line} ({self.length} lines)"


def code_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line without indentation) for every line that is not blank, not in an
    import statement and not in a function's signature: two modules importing the same names,
    or two backends implementing the same Protocol's method, share them but copy nothing."""
    kept: list[tuple[int, str]] = []
    skipping: str | None = None
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if skipping is None and line.startswith(("from ", "import ")):
            skipping = "import" if stripped.endswith("(") else None
        elif skipping is None and stripped.startswith(("def ", "async def ")):
            skipping = None if stripped.endswith(":") else "def"
        elif skipping == "import":
            skipping = None if stripped == ")" else skipping
        elif skipping == "def":
            skipping = None if stripped.endswith(":") else skipping
        elif stripped:
            kept.append((n, stripped))
    return kept


def shared_runs(
    ours: Sequence[tuple[str, str]], theirs: Sequence[tuple[str, str]], run: int = RUN
) -> list[Copy]:
    """Every maximal run of at least `run` lines of a file in `ours` also in a file of
    `theirs` (both given as (name, text)), each reported once, at its first place in theirs."""
    windows: dict[tuple[str, ...], tuple[str, int]] = {}
    their_lines: dict[str, list[tuple[int, str]]] = {}
    for name, text in theirs:
        lines = their_lines[name] = code_lines(text)
        for i in range(len(lines) - run + 1):
            key = tuple(s for _, s in lines[i : i + run])
            windows.setdefault(key, (name, i))
    found: list[Copy] = []
    for name, text in ours:
        lines = code_lines(text)
        i = 0
        while i <= len(lines) - run:
            hit = windows.get(tuple(s for _, s in lines[i : i + run]))
            if hit is None:
                i += 1
                continue
            other, j = hit
            other_lines = their_lines[other]
            length = run
            while (
                i + length < len(lines)
                and j + length < len(other_lines)
                and lines[i + length][1] == other_lines[j + length][1]
            ):
                length += 1
            found.append(Copy(name, lines[i][0], other, other_lines[j][0], length))
            i += length
    return found


def read(paths: Iterable[Path], root: Path) -> list[tuple[str, str]]:
    return [(str(p.relative_to(root)), p.read_text(encoding="utf-8")) for p in sorted(paths)]


PROTOCOLS = ("records/protocol.py",)
"""The Protocols both backends implement: their signatures are meant to be the same."""


def pg_copies(src: Path, *, stores_only: bool = False) -> list[Copy]:
    """Runs of `trinho/pg` also found in another module of the package (with `stores_only`,
    in a file store: a module named `store.py` or under a `store` package), Protocols aside."""
    package = src / "trinho"
    pg = read((package / "pg").rglob("*.py"), src)
    rest = [
        p
        for p in package.rglob("*.py")
        if "pg" not in (parts := p.relative_to(package).parts)
        and "/".join(parts) not in PROTOCOLS
        and (not stores_only or p.stem == "store" or "store" in parts)
    ]
    return shared_runs(pg, read(rest, src))


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parents[2] / "src"
    for stores_only in (True, False):
        copies = pg_copies(root, stores_only=stores_only)
        print("against the file stores:" if stores_only else "against every other module:")
        for copy in copies:
            print(f"  {copy}")
        print(f"  {len(copies)} runs, {sum(c.length for c in copies)} lines")
