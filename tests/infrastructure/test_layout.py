"""The package's layout: every module imports on its own, the import graph has no cycle
(function-level imports count: a lazy import that only hides a cycle is still one), no
module is longer than 600 lines, and the pairwise operator is one door, by contract: outside
``energystats/_operator/`` no module imports one of its submodules or a name the door does
not export, builds a back-end or asks an operator for its whole matrix, and a run of the
public API over representative calls (every public function and estimator, on every
back-end) reads no attribute of an operator that ``PairwiseOperator`` does not declare."""

import ast
import functools
import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import pytest
from scipy import stats

import energystats
import energystats as es
from energystats import _operator
from energystats._operator import PairwiseOperator

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
    assert len(graph) >= 30 and "energystats._operator.dense" in graph
    assert cycles(graph) == []
    # the check can fail: a lazy import back into the operator makes a cycle
    graph["energystats._parallel"].add("energystats._operator")
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


# --- the one door: nothing outside _operator/ reaches past make_operator and the interface ----

#: the back-end classes of the operator: only ``make_operator`` and the functions of the
#: ``_operator`` package (``centred_kernel``, ``feature_operator``) construct them
BACKENDS = (
    "SortedOperator", "DenseOperator", "NystroemOperator", "CentredKernel", "ProjectionOperator",
    "StreamedOperator",
)
#: methods that hand out the whole matrix: capabilities of the operator (``centred_rows``,
#: ``power_sums``, ``permuted_products``) use them inside the operator layer only
WHOLE_MATRIX = ("_dense", "_held_matrix")
#: the names the door exports: all that a module outside the operator may import from it
EXPORTS = frozenset(_operator.__all__)
DOOR = "energystats._operator"
NOT_EXPORTED = "which the door does not export"


def door_violations(name: str, source: str, submodules: set[str]) -> list[tuple[str, str]]:
    """(module, what) for each way the module ``name`` (outside the operator) reaches past the
    door in ``source``: an import of an ``_operator`` submodule (``submodules``: their names)
    or of a name the door does not export (:data:`EXPORTS`), a name read from the package that
    it does not export, a back-end constructed, a whole matrix asked for."""
    found = []
    base = name.split(".")[:-1]
    tree = ast.parse(source)
    aliases = set()  # names bound to the operator package itself
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = (
                ".".join(
                    base[: len(base) - node.level + 1] + ([node.module] if node.module else [])
                )
                if node.level
                else node.module or ""
            )
            imported = [module] + [f"{module}.{a.name}" for a in node.names]
            found += [(name, f"imports {m}") for m in imported if m in submodules]
            if module == DOOR:  # a submodule is reported above
                names = [a.name for a in node.names if f"{module}.{a.name}" not in submodules]
                unknown = [a for a in names if a not in EXPORTS | {"*"}]
                found += [(name, f"imports {a}, {NOT_EXPORTED}") for a in unknown]
            aliases.update(a.asname or a.name for a in node.names if f"{module}.{a.name}" == DOOR)
        elif isinstance(node, ast.Import):
            found += [(name, f"imports {a.name}") for a in node.names if a.name in submodules]
            aliases.update(a.asname for a in node.names if a.name == DOOR and a.asname)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id in aliases and node.attr not in EXPORTS:
                found.append((name, f"reads {node.value.id}.{node.attr}, {NOT_EXPORTED}"))
        elif isinstance(node, ast.Call):
            called = (
                node.func.id
                if isinstance(node.func, ast.Name)
                else node.func.attr
                if isinstance(node.func, ast.Attribute)
                else ""
            )
            if called in BACKENDS:
                found.append((name, f"constructs {called}"))
            elif called in WHOLE_MATRIX and isinstance(node.func, ast.Attribute):
                found.append((name, f"calls .{called}()"))
    return found


def _outside_the_door() -> dict[str, Path]:
    return {
        n: p
        for n, p in module_names().items()
        if not (n == "energystats._operator" or n.startswith("energystats._operator."))
    }


def _operator_submodules() -> set[str]:
    return {n for n in module_names() if n.startswith("energystats._operator.")}


def test_nothing_outside_the_operator_reaches_past_the_door():
    found = set()
    for name, path in _outside_the_door().items():
        found.update(door_violations(name, path.read_text(), _operator_submodules()))
    assert found == set(), "reach the operator through make_operator and the interface"


@pytest.mark.parametrize(
    "planted,what",
    [
        (
            "from .._operator.sorted import sorted_pair_sums\n",
            "imports energystats._operator.sorted",
        ),
        ("from .._operator import sorted\n", "imports energystats._operator.sorted"),
        ("import energystats._operator.dense\n", "imports energystats._operator.dense"),
        (
            "from .._operator import make_operator\nop = SortedOperator(x)\n",
            "constructs SortedOperator",
        ),
        (
            "import energystats._operator as o\nG = o.make_operator(o.CentredKernel)\n",
            "reads o.CentredKernel, which the door does not export",
        ),
        ("D = op._dense('y')\n", "calls ._dense()"),
        ("M = op._held_matrix()\n", "calls ._held_matrix()"),
        ("from .._operator import TILE\n", "imports TILE, which the door does not export"),
        (
            "from .._operator import make_operator, StreamedOperator\n",
            "imports StreamedOperator, which the door does not export",
        ),
        (
            "from .. import _operator\nstep = _operator.TILE // 2\n",
            "reads _operator.TILE, which the door does not export",
        ),
    ],
)
def test_the_door_check_catches_a_planted_violation(planted, what):
    """The checker flags each kind of leak in a planted module of a family, and not the
    allowed forms (the package's own exports, a capability asked of the operator)."""
    submodules = _operator_submodules()
    assert door_violations("energystats._gof.planted", planted, submodules) == [
        ("energystats._gof.planted", what)
    ]
    allowed = (
        "from .._operator import make_operator, sorted_pair_sums\nfrom .. import _operator\n"
        "G = op.centred_rows(0, 4)\ne = permuted_products(a, b)\n"
        "op = _operator.make_operator(X, sm)\n"
    )
    assert door_violations("energystats._gof.planted", allowed, submodules) == []


# --- the door by contract: a family reads of an operator only what its base declares -------

#: what a family may ask of an operator: the public names PairwiseOperator declares (its
#: methods, properties and attributes, with their defaults); the names that start with an
#: underscore are the operator layer's own
DECLARED = frozenset(
    name
    for name in set(dir(PairwiseOperator)) | set(PairwiseOperator.__annotations__)
    if not name.startswith("_")
)


class StrictOperator:
    """An operator that refuses every attribute its base class does not declare: the read is
    recorded in ``found`` and raises (a ``TypeError``, which ``getattr(op, name, default)`` and
    ``hasattr`` do not swallow). Operators its methods return come back wrapped too."""

    __slots__ = ("_op", "_found")

    def __init__(self, op: PairwiseOperator, found: list):
        object.__setattr__(self, "_op", op)
        object.__setattr__(self, "_found", found)

    def __getattr__(self, name):
        if name not in DECLARED:
            self._found.append(f"{type(self._op).__name__}.{name}")
            raise TypeError(f"{type(self._op).__name__}.{name} is not declared by PairwiseOperator")
        value = getattr(self._op, name)
        if inspect.ismethod(value):

            @functools.wraps(value)
            def method(*args, **kwargs):
                return strict(value(*args, **kwargs), self._found)

            return method
        return value

    def __setattr__(self, name, value):
        self._found.append(f"{type(self._op).__name__}.{name} (set)")
        raise TypeError(f"a family sets {name} on an operator")


def strict(value, found: list):
    """``value`` with every operator in it (itself, or in a list or tuple) wrapped."""
    if isinstance(value, PairwiseOperator):
        return StrictOperator(value, found)
    if isinstance(value, (list, tuple)) and any(isinstance(v, PairwiseOperator) for v in value):
        return type(value)(strict(v, found) for v in value)
    return value


def plain(value):
    """``value`` with every wrapped operator in it (itself, or in a list or tuple) unwrapped: the
    door's functions get the operators themselves."""
    if isinstance(value, StrictOperator):
        return object.__getattribute__(value, "_op")
    if isinstance(value, (list, tuple)) and any(isinstance(v, StrictOperator) for v in value):
        return type(value)(plain(v) for v in value)
    return value


def strict_door(monkeypatch, found: list) -> None:
    """Every function the door exports, where a module outside the operator bound it, replaced
    by one that unwraps the operators it is given and wraps those it returns."""
    for function in (getattr(_operator, name) for name in _operator.__all__):
        if not inspect.isfunction(function):
            continue

        def door(*args, _function=function, **kwargs):
            args, kwargs = [plain(a) for a in args], {k: plain(v) for k, v in kwargs.items()}
            return strict(_function(*args, **kwargs), found)

        for name, module in list(sys.modules.items()):
            outside = name.startswith("energystats.") and not name.startswith(DOOR)
            if outside and getattr(module, function.__name__, None) is function:
                monkeypatch.setattr(module, function.__name__, door)


def _representative_calls() -> dict[str, list]:
    """Public function or estimator -> calls of it on every back-end it reaches: dense, streamed
    (a small budget), sorted (one dimension), projection, Nyström, the user's matrix (distances,
    Gram), the centred kernel, and joblib tasks (the threading backend)."""
    rng = np.random.default_rng(0)
    labels = np.arange(36) % 3
    X = rng.normal(size=(36, 2)) + 2.5 * labels[:, None]
    x, y, z = X[:, 0], X[:, 1] + X[:, 0] ** 2, rng.normal(size=36)
    big = np.repeat(X, 4, axis=0) + rng.normal(scale=0.1, size=(144, 2))  # 162 KiB as a matrix
    D, K = es.pairwise_semimetric(X), es.kernel_matrix(X)
    two = pd.DataFrame({"a": labels, "b": np.arange(36) % 2})
    B = dict(n_resamples=19, rng=1)
    P = dict(approximation="projection", n_projections=5)
    N = dict(approximation="nystroem", n_landmarks=10)
    km = dict(random_state=0, n_init=2)
    one_out = np.r_[0.0, np.ones(35)]  # a point of weight 0: predict's rule places it

    def small(call):  # the streamed back-end
        with es.config_context(working_memory=0.1):
            return call()

    def tasks(call):  # products as joblib tasks, in this process
        with joblib.parallel_config(backend="threading"):
            return call()

    return {
        "energy_distance": [
            lambda: es.energy_distance(X[:15], X[15:], x_weights=np.ones(15)),
            lambda: es.energy_distance(x[:15], x[15:]),
            lambda: es.energy_distance(X[:15], X[15:], rng=1, **P),
            lambda: small(lambda: es.energy_distance(big[:70], big[70:])),
            lambda: tasks(lambda: es.energy_distance(X[:15], X[15:], n_jobs=2)),
        ],
        "dispersion": [
            lambda: es.dispersion(X, labels, n_resamples=19),
            lambda: es.dispersion(D, labels, metric="precomputed"),
            lambda: es.dispersion(X, two),
            lambda: es.dispersion(X, labels, rng=1, **P),
            lambda: small(lambda: es.dispersion(big, np.arange(144) % 3)),
        ],
        "energy_test": [
            lambda: es.energy_test(X, labels, **B),
            lambda: es.energy_test(x, labels, statistic="E", **B),
            lambda: es.energy_test(D, labels, metric="precomputed", **B),
            lambda: es.energy_test(X, labels, **P, **B),
            lambda: small(lambda: es.energy_test(big, np.arange(144) % 2, **B)),
            lambda: tasks(lambda: es.energy_test(X, labels, n_jobs=2, **B)),
        ],
        "energy_test_samples": [lambda: es.energy_test_samples(X[:10], X[10:20], **B)],
        "pairwise_energy_tests": [lambda: es.pairwise_energy_tests(X, labels, **B)],
        "ksample_statistic": [lambda: es.ksample_statistic(X, labels)],
        "symmetry_test": [lambda: es.symmetry_test(X, **B)],
        "dcov": [
            lambda: es.dcov(X, y),
            lambda: es.dcov(x, y),
            lambda: es.dcov(x, y, algorithm="pairwise"),
            lambda: es.dcov(X, y, rng=1, **P),
            lambda: small(lambda: es.dcov(big, big[:, ::-1])),
        ],
        "dcor": [lambda: es.dcor(X, y, estimator="U"), lambda: es.dcor(X, y, rng=1, **P)],
        "dcov_stats": [lambda: es.dcov_stats(X, y)],
        "dcov_test": [
            lambda: es.dcov_test(X, y, **B),
            lambda: es.dcov_test(x, y, **B),
            lambda: es.dcov_test(X, y, method="gamma"),
            lambda: es.dcov_test(X, y, **P, **B),
        ],
        "dcor_test": [
            lambda: es.dcor_test(X, y, **B),
            lambda: es.dcor_test(X, y, method="gamma", rng=1, **P),
        ],
        "dcor_ttest": [lambda: es.dcor_ttest(X, y)],
        "pdcov": [lambda: es.pdcov(X, y, z)],
        "pdcor": [lambda: es.pdcor(x, y, z)],
        "pdcov_test": [lambda: es.pdcov_test(X, y, z, **B)],
        "pdcor_test": [lambda: es.pdcor_test(x, y, z, **B)],
        "mutual_independence_test": [lambda: es.mutual_independence_test(np.c_[X, z], **B)],
        "mvi": [lambda: es.mvi(X[:12], y[:12])],
        "mvi_test": [lambda: es.mvi_test(X[:12], y[:12], **B)],
        "pairwise_dcor": [lambda: es.pairwise_dcor(np.c_[X, z], **B)],
        "d_center": [lambda: es.d_center(D)],
        "u_center": [lambda: es.u_center(D)],
        "u_product": [lambda: es.u_product(D, D)],
        "mvnorm_statistic": [lambda: es.mvnorm_statistic(X)],
        "mvnorm_test": [lambda: es.mvnorm_test(X, **B)],
        "normal_statistic": [lambda: es.normal_statistic(x)],
        "normal_test": [lambda: es.normal_test(x, **B)],
        "poisson_statistic": [lambda: es.poisson_statistic(labels)],
        "poisson_test": [lambda: es.poisson_test(labels, **B)],
        "energy_gof_statistic": [lambda: es.energy_gof_statistic(stats.norm(), x)],
        "energy_gof": [lambda: es.energy_gof(x, stats.norm(), **B)],
        "KGroups": [
            lambda: es.KGroups(3, **km).fit(X).predict(X[:5]),
            lambda: es.KGroups(3, algorithm="lloyd", init="spectral", **km).fit(X),
            lambda: es.KGroups(3, algorithm="r-kgroups", **km).fit(X),
            lambda: es.KGroups(3, **km).fit(x[:, None]),
            lambda: es.KGroups(3, metric="precomputed", **km).fit(D, sample_weight=one_out),
            lambda: es.KGroups(3, metric="precomputed_kernel", **km).fit(K),
            lambda: es.KGroups(3, **N, **km).fit(X).predict(X[:5]),
            lambda: es.KGroups(3, batch_size=12, **N, **km).fit(X),
            lambda: small(lambda: es.KGroups(3, **km).fit(big)),
            lambda: tasks(lambda: es.KGroups(3, n_jobs=2, **km).fit(X)),
        ],
        "PowerKMeans": [lambda: es.PowerKMeans(3, random_state=0).fit(X)],
        "energy_hclust": [lambda: es.energy_hclust(X)],
        "split_1d": [lambda: es.split_1d(x)],
        "cluster_test": [lambda: es.cluster_test(X, 2, n_resamples=9, rng=1, n_init=1)],
        "significant_clusters": [
            lambda: es.significant_clusters(X, n_resamples=9, rng=1, min_size=20),
        ],
        "choose_k": [lambda: es.choose_k(X, 3, n_init=1, rng=1, n_references=2)],
        "thinned_cluster_comparison": [
            lambda: es.thinned_cluster_comparison(X, 2, cov=np.eye(2), n_init=1, **B),
        ],
        "dip_statistic": [lambda: es.dip_statistic(x)],
        "dip_test": [lambda: es.dip_test(x, **B)],
        "signal_dimension": [lambda: es.signal_dimension(np.array([5.0, 1.0, 0.5]), 36)],
        "is_negative_type": [lambda: es.is_negative_type(D)],
        "kernel_matrix": [lambda: es.kernel_matrix(X)],
        "pairwise_semimetric": [lambda: es.pairwise_semimetric(X)],
    }


#: public names that are not computations: results, the error, the configuration, data sets
NOT_COMPUTATIONS = ("WorkingMemoryError", "config_context", "get_config", "set_config", "datasets")


def _run_public_api_strictly(monkeypatch) -> list[str]:
    """The representative calls with every operator a family gets wrapped: the undeclared reads."""
    found = []
    strict_door(monkeypatch, found)
    for calls in _representative_calls().values():
        for call in calls:
            call()
    return found


def test_the_representative_calls_cover_the_public_api():
    computations = {n for n in es.__all__ if not n.endswith("Result") and n not in NOT_COMPUTATIONS}
    assert computations == set(_representative_calls())


def test_families_read_only_what_the_operator_declares(monkeypatch):
    """Every public function and estimator, on every back-end, with every operator a family
    gets from the door wrapped in :class:`StrictOperator`: no undeclared attribute is read."""
    assert _run_public_api_strictly(monkeypatch) == []


