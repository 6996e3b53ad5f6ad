"""Layers point one way: the core imports no benchmark, and no modules import each other in a cycle
(issue 29). Read from the source with ``ast``, so an import inside a function counts as much as one at
the top of a module.

How an import counts:

- every ``import`` statement counts, wherever it is (module level, in a function, in a ``try``), because a
  function-level import is still a dependency: it runs the first time the function does;
- an import under ``if TYPE_CHECKING:`` does not count: it never runs, it only names a type;
- ``from package import name`` is an edge to the submodule ``package.name`` when there is one, else to
  the package (its ``__init__``); the package ``__init__`` files Python runs on the way to a submodule
  are not edges of their own (a package that re-exports its modules would be a cycle with each of them).

The registry reaching a benchmark's folder by name (``importlib.import_module``) is the one allowed way
from the core to a benchmark; it is no ``import`` statement, so it is no edge here.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "longbench_suite"
PACKAGE = "longbench_suite"
BENCHMARKS = f"{PACKAGE}.benchmarks"


def _modules() -> dict[str, tuple[Path, bool]]:
    """Every module of the package: dotted name -> (file, is a package ``__init__``)."""
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if package else parts)] = (path, package)
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST):
    """Every import statement of ``tree`` but those under ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from (n for child in node.orelse for n in _imports_of(child))
            continue
        yield from _imports_of(node)


def _imports_of(node: ast.AST):
    if isinstance(node, ast.Import | ast.ImportFrom):
        yield node
    else:
        yield from _imports(node)


def _targets(module: str, package: bool, node: ast.Import | ast.ImportFrom, modules) -> set[str]:
    """The modules of this package that ``node`` imports."""
    if isinstance(node, ast.Import):
        named = [alias.name for alias in node.names]
    else:
        if node.level:
            base = module.split(".") if package else module.split(".")[:-1]
            base = base[: len(base) - (node.level - 1)]
            prefix = ".".join([*base, *([node.module] if node.module else [])])
        else:
            prefix = node.module or ""
        named = [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in modules else prefix for a in node.names]
    targets = set()
    for name in named:
        while name and name not in modules:  # `import a.b.c` of a name inside a module: that module
            name = name.rpartition(".")[0]
        if name and name != module:
            targets.add(name)
    return targets


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules of the package it imports (see the module docstring for what counts)."""
    modules = _modules()
    graph = {}
    for module, (path, package) in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        graph[module] = set().union(*(_targets(module, package, n, modules) for n in _imports(tree)))
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _benchmark_of(module: str) -> str | None:
    if module.startswith(BENCHMARKS + "."):
        return module.split(".")[2]
    return None


def test_the_graph_sees_every_kind_of_import():
    graph = import_graph()
    assert "longbench_suite.errors" in graph["longbench_suite.registry"]  # `from .errors import ...`
    # function-level imports count: HELMET's metrics import their judges and their package (for
    # BENCHMARK) inside functions; `from . import judge` is the submodule, `from . import BENCHMARK` the
    # package
    assert f"{BENCHMARKS}.helmet.judge" in graph[f"{BENCHMARKS}.helmet.metrics"]
    assert f"{BENCHMARKS}.helmet" in graph[f"{BENCHMARKS}.helmet.metrics"]
    # an import under `if TYPE_CHECKING:` does not: row.py names Task only as a type
    assert "longbench_suite.task" not in graph["longbench_suite.row"]


def test_cycles_are_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_core_imports_no_benchmark():
    crossing = [
        f"{module} imports {target}"
        for module, targets in import_graph().items()
        if _benchmark_of(module) is None
        for target in sorted(targets)
        if target.startswith(BENCHMARKS + ".")
    ]
    assert crossing == []


def test_no_benchmark_imports_another():
    crossing = [
        f"{module} imports {target}"
        for module, targets in import_graph().items()
        if _benchmark_of(module) is not None
        for target in sorted(targets)
        if _benchmark_of(target) not in (None, _benchmark_of(module))
    ]
    assert crossing == []


def test_no_import_cycles():
    assert cycles(import_graph()) == []
