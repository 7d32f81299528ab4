"""The import graph of trinho, read from its source: cycles, and imports from a lower layer up.

Every `import` and `from ... import` in src/trinho counts, those inside functions too (they run
later, but they still tie the two modules together); only those under `if TYPE_CHECKING:` are
left out, as they never run. A name imported from a package that is not one of its modules
(`from trinho import lazy_exports`) is an import of the package itself.

Cycles are looked for twice: between modules, and between sibling packages or modules (each
import seen as one between the two children of the package that holds both ends).

The layers are the root contract's in pyproject.toml (`api`, then the feature packages, then
the base); the package root `trinho` sits above them all. An import is upward when the module it
names is in a higher layer than the importing one.

Run: .venv/bin/python bench/import_graph.py [--src src]
"""

from __future__ import annotations

import argparse
import ast
import sys
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "trinho"


def module_names(src: Path) -> dict[str, Path]:
    """Every module under `src/trinho` by its dotted name (a package by its `__init__`)."""
    found = {}
    for path in sorted((src / PACKAGE).rglob("*.py")):
        parts = path.relative_to(src).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return ast.unparse(test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")


def _runtime_imports(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements under `node` that can run (a `TYPE_CHECKING` branch never does)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:
                yield from _runtime_imports(ast.Module(body=[other], type_ignores=[]))
            continue
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child
        yield from _runtime_imports(child)


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _known(name: str, modules: Mapping[str, Path]) -> str | None:
    """The nearest trinho module `name` names (itself, or the package holding it)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def imports_of(module: str, path: Path, modules: Mapping[str, Path]) -> set[str]:
    """The trinho modules `module` imports at run time (at its top or inside a function)."""
    source = path.read_text(encoding="utf-8")
    return imports_from_source(module, path.name == "__init__.py", source, modules)


def imports_from_source(
    module: str, is_package: bool, source: str, modules: Mapping[str, Path]
) -> set[str]:
    tree = ast.parse(source)
    found: set[str] = set()
    for node in _runtime_imports(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            origin = _absolute(module, is_package, node)
            names = [
                f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in modules else origin
                for alias in node.names
            ]
        found |= {known for name in names if (known := _known(name, modules)) is not None}
    return found - {module}


def graph(src: Path) -> dict[str, set[str]]:
    modules = module_names(src)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def cycles(edges: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, iterative), each
    sorted; every one holds at least one cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def sibling_edges(edges: Mapping[str, set[str]]) -> dict[str, set[str]]:
    """Each import seen from the package holding both ends: an edge between its two children
    that hold them (`trinho.facts.store -> trinho.context.assembly` is `trinho.facts ->
    trinho.context`), as import-linter's acyclic_siblings contract squashes them. A cycle among
    these is one between sibling packages or modules, even when no two modules close it."""
    squashed: dict[str, set[str]] = {}
    for importer, targets in edges.items():
        mine = importer.split(".")
        for imported in targets:
            theirs = imported.split(".")
            common = 0
            while common < min(len(mine), len(theirs)) and mine[common] == theirs[common]:
                common += 1
            if common == len(mine) or common == len(theirs):
                continue  # a package and its own module: no siblings
            source, target = ".".join(mine[: common + 1]), ".".join(theirs[: common + 1])
            squashed.setdefault(source, set()).add(target)
            squashed.setdefault(target, set())
    return squashed


def root_layers(pyproject: Path) -> list[set[str]]:
    """The root contract's layers, highest first, each a set of top-level names under trinho."""
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    root = next(c for c in contracts if c.get("id") == "root")
    return [
        {name.strip().strip("()") for name in layer.replace("|", ":").split(":")}
        for layer in root["layers"]
    ]


def layer_of(module: str, layers: list[set[str]]) -> int | None:
    """0 for the package root, 1 for the highest layer and so on; None for a module the
    contract does not place."""
    if module == PACKAGE:
        return 0
    top = module.split(".")[1]
    return next((i + 1 for i, names in enumerate(layers) if top in names), None)


@dataclass(frozen=True)
class Upward:
    importer: str
    imported: str


def upward(edges: Mapping[str, set[str]], layers: list[set[str]]) -> list[Upward]:
    """The imports from a module up to one in a higher layer (a lower number)."""
    found = []
    for importer, targets in sorted(edges.items()):
        mine = layer_of(importer, layers)
        for imported in sorted(targets):
            theirs = layer_of(imported, layers)
            if mine is not None and theirs is not None and theirs < mine:
                found.append(Upward(importer, imported))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--src", type=Path, default=ROOT / "src")
    parser.add_argument("--pyproject", type=Path, default=ROOT / "pyproject.toml")
    args = parser.parse_args()
    edges = graph(args.src)
    found = cycles(edges)
    between = [group for group in cycles(sibling_edges(edges)) if group not in found]
    up = upward(edges, root_layers(args.pyproject))
    print(f"{len(edges)} modules, {sum(map(len, edges.values()))} imports")
    print(f"cycles (strongly connected groups of modules): {len(found)}")
    for group in found:
        print(f"  {len(group)} modules: " + ", ".join(group))
    print(f"cycles between sibling packages or modules: {len(between)}")
    for group in between:
        print("  " + ", ".join(group))
    print(f"upward imports (a lower layer importing a higher one): {len(up)}")
    for edge in up:
        print(f"  {edge.importer} -> {edge.imported}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
