"""The import contracts (pyproject.toml, docs/architecture.md), held by lint-imports.

import-linter checks the layers by module name: every module of the package root and of each
feature package is in a layer (`exhaustive`), pure modules (named `rules`, `format`, `render`,
`plan`, ...) reach no I/O module, no store and no wiring, even indirectly, and no two sibling
packages or modules import each other in a cycle. These tests run it, prove that it catches a
planted break, and check at run time what the static contract cannot: that importing a pure
module in a fresh interpreter loads no I/O module.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import grimp
import pytest

import trinho

SRC = Path(trinho.__file__).resolve().parent.parent
ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

CONTRACTS = {
    c["id"]: c
    for c in tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "importlinter"
    ]["contracts"]
}

FORBIDDEN_AT_RUN_TIME = ("sqlite3", "socket", "ssl", "http", "urllib", "subprocess", "asyncio")
"""What a fresh interpreter must not have loaded after importing a pure module (`os`,
`pathlib` and `io` are loaded by every interpreter at start)."""


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted((SRC / "trinho").rglob("*.py"))}
PACKAGES = {name for name, path in MODULES.items() if path.name == "__init__.py"}
EAGER = "trinho.cli"
"""The one package whose `__init__` runs code (`trinho.cli:main`, the command's entry point);
every other package `__init__` imports nothing but `LAZY`."""
LAZY = "trinho.exports"
"""The base module whose `lazy_exports` each package `__init__` calls."""


def matches(name: str, expression: str) -> bool:
    """import-linter's module expressions (`*` one name, `**` any number of them); a match
    covers the module's descendants too."""
    parts = [
        {"*": "[^.]+", "**": ".+"}.get(part, re.escape(part)) for part in expression.split(".")
    ]
    return re.match(r"\.".join(parts) + r"(\.|$)", name) is not None


def pure_modules() -> list[str]:
    sources = CONTRACTS["pure"]["source_modules"]
    return sorted(m for m in MODULES if any(matches(m, s) for s in sources))


def lint(cwd: Path, src: Path) -> subprocess.CompletedProcess[str]:
    inherited = os.environ.get("PYTHONPATH")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), *filter(None, [inherited])])}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=cwd, env=env, capture_output=True, text=True
    )


def test_lint_imports_keeps_every_contract() -> None:
    result = lint(ROOT, SRC)
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BROKEN" not in result.stdout


def test_every_pure_module_is_covered_by_its_name() -> None:
    """The pure layer is found by name patterns, and the known pure decisions are in it."""
    found = set(pure_modules())
    for module in (
        "trinho.condense.rules.gate",
        "trinho.facts.rules",
        "trinho.context.assembly",
        "trinho.memory.format",
        "trinho.schedule.plan",
    ):
        assert module in found


PLANTS = {
    "a pure module importing sqlite3": (
        "trinho/facts/rules.py",
        "import sqlite3\n",
        "trinho.facts.rules is not allowed to import sqlite3",
    ),
    "a pure module importing a store": (
        "trinho/condense/rules/gate.py",
        "import trinho.memory.store\n",
        "trinho.condense.rules is not allowed to import trinho.memory.store",
    ),
    "a module in no layer": (
        "trinho/notes/helpers.py",
        '"""Nobody placed me."""\n',
        "helpers",
    ),
    "a cycle between packages": (
        "trinho/memory/store.py",
        "import trinho.condense.run\n",
        "No cycles are allowed in trinho.",
    ),
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_lint_imports_catches_a_planted_break(plant: str, tmp_path: Path) -> None:
    relative, line, expected = PLANTS[plant]
    shutil.copytree(SRC / "trinho", tmp_path / "src" / "trinho")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / "src" / relative
    before = target.read_text(encoding="utf-8") if target.exists() else ""
    target.write_text(line + before, encoding="utf-8")
    result = lint(tmp_path, tmp_path / "src")
    assert result.returncode != 0
    assert expected in result.stdout, result.stdout


def test_the_package_root_holds_at_most_ten_modules() -> None:
    """The root is the API and the base; everything else lives in a package."""
    root = sorted(p.stem for p in (SRC / "trinho").glob("*.py") if p.name != "__init__.py")
    print(root)
    assert len(root) <= 10


def test_the_package_says_it_is_typed() -> None:
    """PEP 561: the API is documented as typed, so the wheel carries the marker (the wheel
    target ships every file of src/trinho it does not exclude)."""
    assert (SRC / "trinho" / "py.typed").is_file()
    wheel = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["hatch"][
        "build"
    ]["targets"]["wheel"]
    assert wheel["packages"] == ["src/trinho"]
    assert not any(matches("py.typed", pattern) for pattern in wheel.get("exclude", []))


def import_graph() -> ModuleType:
    """bench/import_graph.py, the measure a reviewer repeats from the code's imports."""
    spec = importlib.util.spec_from_file_location(
        "import_graph", ROOT / "bench" / "import_graph.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)  # its dataclasses look themselves up
    spec.loader.exec_module(module)
    return module


def test_no_import_cycle_and_at_most_two_imports_up() -> None:
    """Issue 42's measure: no cycle between modules nor between sibling packages, imports inside
    functions counted, and at most 2 imports from a lower layer of the root contract up."""
    graph = import_graph()
    edges = graph.graph(SRC)
    assert graph.cycles(edges) == []
    assert graph.cycles(graph.sibling_edges(edges)) == []
    upward = graph.upward(edges, graph.root_layers(ROOT / "pyproject.toml"))
    assert len(upward) <= 2, upward


def test_the_import_graph_sees_function_level_imports_and_cycles() -> None:
    graph = import_graph()
    tree = {
        "trinho.a.x": {"trinho.b.y"},
        "trinho.b.y": set(),
        "trinho.b.z": {"trinho.a"},
        "trinho.a": set(),
    }
    assert graph.cycles(tree) == []
    assert graph.cycles(graph.sibling_edges(tree)) == [["trinho.a", "trinho.b"]]
    assert graph.cycles({"p.a": {"p.b"}, "p.b": {"p.c"}, "p.c": {"p.a"}}) == [["p.a", "p.b", "p.c"]]
    source = (
        "def late():\n    from trinho.search import index\n"
        "if TYPE_CHECKING:\n    import trinho.cli\n"
    )
    modules = {
        "trinho.notes.store": Path("x"),
        "trinho.search.index": Path("y"),
        "trinho.cli": Path("z"),
    }
    found = graph.imports_from_source("trinho.notes.store", False, source, modules)
    assert found == {"trinho.search.index"}


def test_package_inits_import_nothing_at_import_time() -> None:
    """Re-exports are lazy (`trinho.exports.lazy_exports`): importing a package loads none of it."""
    graph = grimp.build_graph("trinho", exclude_type_checking_imports=True)
    eager = {
        package: sorted(graph.find_modules_directly_imported_by(package) - {LAZY})
        for package in PACKAGES - {EAGER}
        if graph.find_modules_directly_imported_by(package) - {LAZY}
    }
    assert eager == {}


def loaded_after_import(module: str) -> list[str]:
    code = f"import json, sys\nimport {module}\nprint(json.dumps(sorted(sys.modules)))\n"
    out = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True
    ).stdout
    names: list[str] = json.loads(out)
    return names


def run_time_pure() -> list[str]:
    """The pure modules that import nothing the contract lets through by a listed exception
    (`ignore_imports`, each a follow-up), directly or not."""
    graph = grimp.build_graph("trinho", exclude_type_checking_imports=True)
    excused = {rule.split(" -> ")[0] for rule in CONTRACTS["pure"].get("ignore_imports", [])}
    return [
        m
        for m in pure_modules()
        if m not in excused
        and not (graph.find_upstream_modules(m) & excused)
        and not m.startswith(EAGER + ".")
    ]


@pytest.mark.parametrize("module", run_time_pure())
def test_importing_a_pure_module_loads_no_io_and_no_impure_trinho_module(module: str) -> None:
    loaded = loaded_after_import(module)
    trinho_loaded = sorted(m for m in loaded if m.split(".")[0] == "trinho")
    print(module, "loads", trinho_loaded)
    allowed = set(pure_modules()) | PACKAGES
    assert [m for m in trinho_loaded if m not in allowed] == []
    assert [m for m in loaded if m.split(".")[0] in FORBIDDEN_AT_RUN_TIME] == []


def type_checking_exports(package: str) -> dict[str, str]:
    """The names a package's `TYPE_CHECKING` block imports (what a type checker sees of it),
    each with the module it comes from."""
    tree = ast.parse(MODULES[package].read_text(encoding="utf-8"))
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.module, ast.unparse(imp)
                found |= {alias.asname or alias.name: imp.module for alias in imp.names}
    return found


@pytest.mark.parametrize("package", sorted(PACKAGES - {EAGER}))
def test_every_lazily_exported_name_resolves_to_what_the_type_checker_sees(package: str) -> None:
    """`lazy_exports` and the `TYPE_CHECKING` block name the same things: each name in
    `__all__` is the object its home module defines, and no name is only in one of them."""
    module = __import__(package, fromlist=["__all__"])
    exported = list(getattr(module, "__all__", ()))
    seen = type_checking_exports(package)
    assert sorted(exported) == sorted(seen)
    for name in exported:
        home = __import__(seen[name], fromlist=[name])
        assert getattr(module, name) is getattr(home, name), f"{package}.{name}"
    with pytest.raises(AttributeError):
        module.no_such_name  # noqa: B018


PRINTERS = {"echo", "secho", "print"}
"""Calls that put text on a terminal. Only `trinho.cli.app.say` and `emit` may make them (or
write to sys.stdout/stderr), because they neutralise control characters in stored text."""


def _printing_calls(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        stream = (
            isinstance(func, ast.Attribute)
            and func.attr == "write"
            and isinstance(func.value, ast.Attribute)
            and func.value.attr in ("stdout", "stderr")
        )
        if name in PRINTERS or stream:
            found.append((node.lineno, ast.unparse(func)))
    return found


def test_only_say_and_emit_print() -> None:
    """The next command that prints stored text cannot bypass the neutralisation."""
    allowed = {("trinho.cli.app", name) for name in ("say", "emit")}
    allowed.add(("trinho.mcp.server", "refuse_stdio"))  # JSON-RPC lines made by json_text
    offenders = []
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        allowed_lines = {
            node.lineno
            for fn in ast.walk(tree)
            if isinstance(fn, ast.FunctionDef) and (module, fn.name) in allowed
            for node in ast.walk(fn)
            if isinstance(node, ast.Call)
        }
        offenders += [
            f"{module}:{line} {call}"
            for line, call in _printing_calls(tree)
            if line not in allowed_lines
        ]
    assert offenders == []


def test_the_printing_check_sees_a_print() -> None:
    tree = ast.parse("import sys\nprint(x)\nsys.stderr.write(y)\nclick.echo(z)\n")
    assert [line for line, _ in _printing_calls(tree)] == [2, 3, 4]


BACKENDS = {"trinho.records.protocol": "FileRecords", "trinho.pg.store": "PgRecords"}
"""The one facade of each backend, and the module that holds it."""
BACKEND_MODULES = {*BACKENDS, "trinho.pg.tooling"}
"""Where a backend's facade is written (`trinho.pg.tooling` is `PgRecords`' reads)."""


def _classes(module: str) -> dict[str, ast.ClassDef]:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    return {node.name: node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}


def backend_classes() -> set[str]:
    """The facades and every class built on one (by name, across `src/`)."""
    names = set(BACKENDS.values())
    while True:
        more = {
            name
            for module in MODULES
            for name, node in _classes(module).items()
            if any(ast.unparse(base).split(".")[-1] in names for base in node.bases)
        }
        if more <= names:
            return names
        names |= more


def backend_checks(tree: ast.AST, backends: set[str]) -> list[tuple[int, str]]:
    """Each `isinstance`/`issubclass` call in `tree` that names a backend class."""
    found = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("isinstance", "issubclass")
            and len(node.args) == 2
        ):
            continue
        kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
        if any(ast.unparse(kind).split(".")[-1] in backends for kind in kinds):
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_each_backend_has_one_facade() -> None:
    """`FileRecords` and `PgRecords` are the only classes over the records: none is built on
    either, and the retired per-feature facades are gone."""
    assert backend_classes() == set(BACKENDS.values())
    for module, name in BACKENDS.items():
        assert name in _classes(module)
    retired = {"ToolRecords", "FileTools", "PgToolRecords", "Desk", "FileDesk", "PgDesk"}
    defined = {name for module in MODULES for name in _classes(module)}
    assert defined & retired == set()


def test_no_command_page_or_service_asks_which_backend_it_has() -> None:
    """Outside the two backends no code checks the class of the records it was given: what a
    backend lacks is a method that says so (`Records.on_files`)."""
    backends = backend_classes()
    offenders = [
        f"{module}:{line} {call}"
        for module, path in MODULES.items()
        if module not in BACKEND_MODULES
        for line, call in backend_checks(ast.parse(path.read_text(encoding="utf-8")), backends)
    ]
    assert offenders == []


def test_the_backend_check_sees_a_question_about_the_class() -> None:
    tree = ast.parse(
        "isinstance(r, FileRecords)\n"
        "isinstance(r, (str, store.PgRecords))\n"
        "issubclass(t, PgRecords)\n"
        "isinstance(r, Records)\n"
        "isinstance(r, Workspace)\n"
    )
    assert [line for line, _ in backend_checks(tree, {"FileRecords", "PgRecords"})] == [1, 2, 3]


def test_pg_is_inside_a_layers_contract() -> None:
    """`trinho.pg` is in a layers contract that names every one of its modules."""
    layered = [
        c for c in CONTRACTS.values() if c["type"] == "layers" and "trinho.pg" in c["containers"]
    ]
    assert layered and all(c.get("exhaustive") for c in layered)
    named = {
        name.strip("() ")
        for c in layered
        for layer in c["layers"]
        for name in re.split(r"[:|]", layer)
    }
    pg = {m.split(".")[2] for m in MODULES if m.startswith("trinho.pg.")}
    assert pg <= named


if TYPE_CHECKING:  # mypy checks that both backends keep every promise of `Records`
    from trinho.pg.store import PgRecords
    from trinho.records.protocol import FileRecords, Records

    def _both_are_records(files: FileRecords, pg: PgRecords) -> tuple[Records, Records]:
        return files, pg
