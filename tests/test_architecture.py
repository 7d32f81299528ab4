"""The import contract (docs/architecture.md): a pure core, and no cycle among trinho modules.

The core is checked twice: statically (what its source imports) and at run time (what a fresh
interpreter has loaded after importing it), so neither a function-level import nor a package
`__init__` can pull I/O into it unseen.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import trinho

SRC = Path(trinho.__file__).resolve().parent.parent

CORE = (
    "trinho.condense.gate",
    "trinho.condense.match",
    "trinho.condense.reasons",
    "trinho.condense.ops",
    "trinho.condense.archive",
    "trinho.facts.rules",
    "trinho.context",
    "trinho.memory_md",
    "trinho.markers",
    "trinho.authority",
    "trinho.textnorm",
    "trinho.tokens",
    "trinho.scheduler",
    "trinho.config",
    "trinho.wallclock",
)
"""The decisions: each rule of docs/rules.md is a pure function in one of these."""

CORE_SUPPORT = ("trinho.i18n", "trinho.message_keys", "trinho.errors")
"""Pure values the core speaks with: the message catalogs, their keys and the error type."""

FORBIDDEN = ("sqlite3", "socket", "ssl", "http", "urllib", "subprocess", "asyncio")


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted((SRC / "trinho").rglob("*.py"))}
PACKAGES = {name for name, path in MODULES.items() if path.name == "__init__.py"}


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imported(module: str) -> set[str]:
    """Every module `module` imports anywhere in its source (functions included), resolved to
    the submodule for `from package import submodule`; `if TYPE_CHECKING:` blocks never run."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = {
        id(child)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and _type_checking_only(node)
        for stmt in node.body
        for child in ast.walk(stmt)
    }
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module if module in PACKAGES else module.rsplit(".", 1)[0]
                for _ in range(node.level - 1):
                    package = package.rsplit(".", 1)[0]
                base = f"{package}.{base}" if base else package
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in MODULES else base)
    return found


def trinho_graph() -> dict[str, set[str]]:
    return {m: {d for d in imported(m) if d in MODULES and d != m} for m in MODULES}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.append(top)
                        if top == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_no_cycle_among_trinho_modules_function_level_imports_included() -> None:
    assert cycles(trinho_graph()) == []


def test_the_cycle_check_sees_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_package_inits_import_nothing_at_import_time() -> None:
    """Re-exports are lazy (module `__getattr__`): importing a package loads none of it."""
    graph = trinho_graph()
    eager = {p: sorted(graph[p]) for p in PACKAGES if p != "trinho.cli" and graph[p]}
    assert eager == {}


@pytest.mark.parametrize("module", CORE + CORE_SUPPORT)
def test_core_source_imports_only_the_core_and_pure_stdlib(module: str) -> None:
    allowed = set(CORE) | set(CORE_SUPPORT) | PACKAGES
    outside = sorted(
        d
        for d in imported(module)
        if (d.startswith("trinho") and d not in allowed)
        or d.split(".")[0] in FORBIDDEN
        or d.split(".")[0] in ("os", "pathlib", "io", "fcntl", "shutil", "tempfile")
    )
    assert outside == [], f"{module} imports {outside}"


def loaded_after_import(module: str) -> list[str]:
    code = f"import json, sys\nimport {module}\nprint(json.dumps(sorted(sys.modules)))\n"
    out = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True
    ).stdout
    names: list[str] = json.loads(out)
    return names


@pytest.mark.parametrize("module", CORE)
def test_importing_a_core_module_loads_no_io_and_no_other_trinho_module(module: str) -> None:
    loaded = loaded_after_import(module)
    trinho_loaded = sorted(m for m in loaded if m.split(".")[0] == "trinho")
    print(module, "loads", trinho_loaded)
    allowed = set(CORE) | set(CORE_SUPPORT) | PACKAGES
    assert [m for m in trinho_loaded if m not in allowed] == []
    assert [m for m in loaded if m.split(".")[0] in FORBIDDEN] == []


@pytest.mark.parametrize("package", sorted(PACKAGES - {"trinho.cli"}))
def test_every_lazily_exported_name_resolves(package: str) -> None:
    module = __import__(package, fromlist=["__all__"])
    for name in getattr(module, "__all__", ()):
        assert getattr(module, name) is not None, f"{package}.{name}"


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
    allowed.add(("trinho.mcp_server", "refuse_stdio"))  # JSON-RPC lines made by json_text
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
