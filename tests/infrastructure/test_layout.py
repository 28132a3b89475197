"""The package's layout: every module imports on its own, the import graph has no cycle
(function-level imports count: a lazy import that only hides a cycle is still one), lazy
imports load optional dependencies only, and no module is longer than 600 lines."""

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import energystats

PACKAGE = Path(energystats.__file__).parent
#: optional dependencies imported lazily inside functions (a package, not a cycle)
OPTIONAL = ("dask", "distributed", "matplotlib", "rpy2", "tqdm", "statsmodels")


def module_names(package: Path = PACKAGE) -> dict[str, Path]:
    names = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        names[name] = path
    return names


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the package's modules it imports anywhere in its source."""
    names = module_names(package)
    graph = {name: set() for name in names}
    for name, path in names.items():
        base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                prefix = (
                    ".".join(
                        base[: len(base) - node.level + 1] + ([node.module] if node.module else [])
                    )
                    if node.level
                    else node.module
                )
                targets = [
                    f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in names else prefix
                    for a in node.names
                ]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            # importing a parent package is not an edge back: the parent is initialised first
            graph[name].update(
                t for t in targets if t in names and t != name and not name.startswith(t + ".")
            )
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_the_import_graph_has_no_cycle():
    graph = import_graph()
    assert len(graph) >= 30 and "energystats._scale.streamed" in graph
    assert cycles(graph) == []
    # the check can fail: a lazy import back into the scale layer makes a cycle
    graph["energystats._parallel"].add("energystats._scale")
    assert any("energystats._parallel" in c for c in cycles(graph))


def test_every_module_imports_in_a_fresh_interpreter():
    """Every module imported in a fresh interpreter (any first import runs the package's
    ``__init__`` first, so this is every import order there is; a cycle would show as an
    ImportError of a partly initialised module)."""
    names = [name for name in module_names() if name != "energystats"]
    code = f"import importlib\nfor name in {names!r}:\n    importlib.import_module(name)\n"
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)


def test_lazy_imports_are_optional_dependencies_only():
    """Function-level imports load optional dependencies (or the package's own modules that
    need them), never a module of the package to dodge a cycle."""
    lazy = []
    for name, path in module_names().items():
        for function in ast.walk(ast.parse(path.read_text())):
            if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(function):
                    if isinstance(node, ast.ImportFrom) and (
                        node.level or (node.module or "").startswith("energystats")
                    ):
                        lazy.append(f"{name}: from {'.' * node.level}{node.module} import ...")
                    elif isinstance(node, (ast.Import, ast.ImportFrom)):
                        module = (
                            node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
                        )
                        if not module.startswith(OPTIONAL):
                            lazy.append(f"{name}: {module}")
    assert lazy == []


@pytest.mark.parametrize("name", sorted(module_names()))
def test_no_module_is_longer_than_600_lines(name):
    assert len(module_names()[name].read_text().splitlines()) <= 600


def test_every_module_of_the_public_api_is_importable():
    for name in energystats.__all__:
        assert getattr(energystats, name) is not None
    assert energystats.__all__ == sorted(energystats.__all__)
    importlib.import_module("energystats.plotting")
