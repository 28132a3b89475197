"""One vocabulary (the front door, ``_frontdoor.front_door``, and every public signature): one
name per concept and one concept per name, held against the table below and the docs page that
prints it.

A parameter name that is not in :data:`VOCABULARY` fails :func:`test_every_name_is_in_the_table`
until it is added with its meaning (and to ``docs/vocabulary.md``, which
:func:`test_docs_table_is_the_vocabulary` compares with the signatures)."""

import inspect
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import energystats as es
import energystats.datasets
import energystats.plotting
from energystats._frontdoor import FOREIGN_NAMES

DOCS = Path(__file__).resolve().parents[2] / "docs" / "vocabulary.md"

#: Every parameter name of the public API and its one meaning (the docs table's middle column).
VOCABULARY = {
    "D": "a square matrix of pairwise distances",
    "U": "a U-centred distance matrix (`u_center`'s result)",
    "V": "a second U-centred distance matrix, of the same points",
    "X": "the data: n rows (points) of d columns; with `labels`, the pooled groups; a data frame's "
    "column names are kept",
    "Y": "a second set of points whose distances to the rows of `X` are computed",
    "algorithm": "how the result is computed; the statistic is the same (for `KGroups`, the "
    "search: Hartigan's exact moves or Lloyd's steps)",
    "alpha": "a level of the tests, in (0, 1)",
    "annotate": "write each value in its cell of the plot",
    "approximation": "an approximation for large n (None: exact)",
    "ax": "the matplotlib Axes to draw in (None: a new figure)",
    "axes": "the two matplotlib Axes to draw in, side by side (None: a new figure)",
    "axis": "the axis of `x` along which a sample lies",
    "batch_size": "points per mini-batch step of the clustering",
    "bins": "number of histogram bins",
    "cluster_test_options": "further keyword options of `cluster_test`",
    "columns": "which columns of `X` to plot (positions or names)",
    "correction": "the multiple-testing correction, a method of statsmodels' `multipletests`",
    "cov": "the noise covariance of the data (a number, a vector or a matrix)",
    "data_name": "what the result calls the data (R's `data.name`; None: pandas names, else the "
    "parameter names)",
    "dendrogram_options": "further keyword options of scipy's `dendrogram`",
    "directions": 'which principal directions the cluster test looks at: `"conditional"` or '
    '`"whitened"`',
    "dist": "the hypothesised distribution (a scipy.stats distribution)",
    "eigenvalues": "the eigenvalues of a sample covariance, largest first",
    "energy_test_options": "further keyword options of `energy_test`",
    "epsilon": "the thinning fraction of data fission, in (0, 1)",
    "equal_sizes": "clusters of equal size",
    "estimator": '`"V"` (V-statistic) or `"U"` (U-statistic)',
    "eta": "the factor by which the power s is decreased",
    "exact": 'enumerate every distinct resample when they are few (`"auto"`, True or False)',
    "exponent": "the power of the Euclidean distance, in (0, 2]",
    "family": "the distribution family of the data's noise",
    "fit": "how the parameters not known are estimated",
    "groups": "variables made of several columns: `{name: [columns]}`",
    "init": "the initial clusters: a method or labels",
    "k_max": "the largest number of clusters considered",
    "kgroups_options": "further keyword options of `KGroups`",
    "known_params": "the distribution's parameters that are known, `{name: value}`",
    "labels": "the group (or cluster) of each row of `X`, or the name of the data frame column "
    "that holds it",
    "landmarks": "how the Nyström landmarks are drawn",
    "mark_rejected": "mark the cells of rejected pairs",
    "max_iter": "the most iterations of one run",
    "method": 'how the p-value is computed: `"permutation"`, `"gamma"`, `"bootstrap"`, `"limit"` '
    'or `"t"`',
    "metric": 'the semimetric between points (a name or a callable; `"precomputed"` for a distance '
    "matrix)",
    "min_size": "the smallest cluster that is tested or split",
    "minimum": "the smallest number of directions returned",
    "n_clusters": "the number of clusters k",
    "n_components": "the number of principal components the cluster test looks at",
    "n_features": "the number of columns (dimensions) d",
    "n_init": "the number of runs from different starts, the best kept",
    "n_jobs": "the number of processes or threads (joblib's convention; None: one, or joblib's "
    "context)",
    "n_landmarks": "the number of Nyström landmarks",
    "n_neighbors": "the neighbours of each point in the nearest-neighbour graph",
    "n_projections": "the number of random projections",
    "n_references": "the number of reference (null) data sets",
    "n_resamples": "the number of resamples: permutations, bootstrap or Monte Carlo samples",
    "n_samples": "the number of rows (points) n",
    "name": "the name of a data set",
    "nan_policy": 'what missing values do: `"raise"`, `"omit"` or `"propagate"`',
    "null": "the null model the number of clusters is tested against",
    "permutations": "the permutations (of the rows) to evaluate, given",
    "progress": "show a progress bar (None: when a person is watching)",
    "random_state": "the seed of an estimator: an int, a numpy Generator or None",
    "result": "the result to plot",
    "rng": "the seed of a function: an int, a numpy Generator or None",
    "s0": "the initial power s of power k-means",
    "sample_weight": "a non-negative weight per row of `X`",
    "samples": "the samples, one array each",
    "sigma": "the bandwidth of a Gaussian or exponential kernel metric",
    "statistic": "which statistic is computed (or tested, or drawn)",
    "ties": "how permutation statistics equal to the observed one are counted",
    "tol": "a numerical tolerance",
    "working_memory": "the memory budget in MiB",
    "x": "a sample or variable (the first of two or three): a vector, or rows of a table",
    "x0": "the reference point of the kernel",
    "x_weights": "a non-negative weight per row of `x`",
    "y": "a second sample (`energy_distance`) or variable paired with `x`; a data frame column "
    "name takes it from `x`",
    "y_weights": "a non-negative weight per row of `y`",
    "z": "the variable conditioned on (partial distance covariance); a data frame column name "
    "takes it from `x`",
}

#: Names whose defaults differ between the callables that take them, and why (the docs say
#: the same). Every other name has one default wherever it is a keyword.
DEFAULTS_DIFFER = {
    "algorithm": '`dcov` and its siblings pick the fastest exact algorithm (`"auto"`); `KGroups` '
    "defaults to Hartigan's exact moves, which find better partitions than Lloyd's steps",
    "init": '`KGroups` picks its start by the metric (`"auto"`: spectral on a nearest-neighbour '
    'graph, k-means++ otherwise); `PowerKMeans` starts from k-means++ centres',
    "labels": "required where groups are tested; optional in `cluster_test`, where they only name "
    "the user's clusters",
    "max_iter": "`PowerKMeans` anneals s over its iterations and needs more of them than `KGroups`",
    "method": '`pairwise_dcor` defaults to `"gamma"` because a table multiplies the cost of '
    "permutations by its pairs (11 s for the 10 pairs of a 1,000 x 5 table, 0.4 s with gamma); "
    '`normal_test` to its parametric `"bootstrap"`; the others to `"permutation"`',
    "n_clusters": "required everywhere except `cluster_test` (None: the test over k = 2..k_max), "
    "`plot_dendrogram` (None: no cut) and the simulated data of `make_power_kmeans_data`",
    "n_init": "each run of `KGroups` is cheap and restarts find better partitions (10, "
    "scikit-learn's KMeans default, and `choose_k`'s, whose fits are tested); `PowerKMeans` "
    "anneals instead of restarting (1)",
    "n_resamples": "999 where a resample is cheap; 199 for the cluster tests and `choose_k`, whose "
    "every resample is a clustering; 1999 for `dip_test` (R's `dip.test` uses 2000); None for "
    '`normal_test` (999, not accepted with `"limit"`)',
    "n_samples": "required by `signal_dimension`; the simulation's size in "
    "`make_power_kmeans_data`",
    "statistic": "the k-sample statistic is DISCO's between-sample S (R `disco.between`; pass "
    '`"E"` for R\'s `eqdist.e`); `poisson_statistic` returns one number (`"E"`, R `poisson.e`), '
    "`poisson_test` runs the three of R's `poisson.tests`; `plot_null_distribution` draws all",
    "tol": "two different tolerances: of the negative-type check (1e-10) and of `PowerKMeans`' "
    "convergence (1e-6)",
}

#: The values ``method`` takes: how the p-value is computed.
PVALUE_METHODS = {"permutation", "gamma", "bootstrap", "limit", "t"}


def _callables() -> dict:
    """``{name: callable}`` of the public API: functions of ``energystats.__all__``, the
    estimators' ``__init__``, ``energystats.plotting`` and ``energystats.datasets``."""
    out = {}
    for name in es.__all__:
        obj = getattr(es, name)
        if inspect.ismodule(obj) or (inspect.isclass(obj) and not hasattr(obj, "fit")):
            continue  # result dataclasses: their fields are not parameters
        out[name] = obj
    for module, prefix in (
        (energystats.plotting, "plotting."),
        (energystats.datasets, "datasets."),
    ):
        out.update({prefix + name: getattr(module, name) for name in module.__all__})
    return out


CALLABLES = _callables()
ESTIMATORS = {name for name, obj in CALLABLES.items() if inspect.isclass(obj)}


def _parameters(obj) -> dict:
    params = inspect.signature(obj.__init__ if inspect.isclass(obj) else obj).parameters
    return {name: p for name, p in params.items() if name != "self"}


def _uses() -> dict:
    """``{parameter name: sorted names of the callables that take it}``."""
    uses = {}
    for where, obj in CALLABLES.items():
        for name in _parameters(obj):
            uses.setdefault(name, []).append(where)
    return {name: sorted(places) for name, places in uses.items()}


USES = _uses()


def test_every_name_is_in_the_table():
    new = sorted(set(USES) - set(VOCABULARY))
    assert not new, (
        "parameter names not in VOCABULARY (add each with its meaning, and to "
        f"docs/vocabulary.md): {new}"
    )
    stale = sorted(set(VOCABULARY) - set(USES))
    assert not stale, f"VOCABULARY names that no public signature uses any more: {stale}"
    assert set(DEFAULTS_DIFFER) <= set(VOCABULARY)


def test_rng_in_functions_random_state_in_estimators():
    for where, obj in CALLABLES.items():
        names = set(_parameters(obj))
        if where in ESTIMATORS:
            assert "rng" not in names, where
        else:
            assert "random_state" not in names, (
                f"{where} takes `random_state`: functions take `rng`"
            )
    assert all("random_state" in _parameters(CALLABLES[name]) for name in ESTIMATORS)


def test_no_foreign_name_is_a_parameter():
    """``level``, ``seed``, ``n_permutations``, ``R``, ``B`` are nobody's parameter: levels are
    ``alpha``, seeds ``rng``/``random_state``, resample counts ``n_resamples``."""
    for wrong in set(FOREIGN_NAMES) - {"rng", "random_state"}:
        assert wrong not in USES, f"{wrong} is a parameter of {USES.get(wrong)}"


def test_progress_defaults_to_none():
    for where in USES["progress"]:
        assert _parameters(CALLABLES[where])["progress"].default is None, where


def test_method_is_how_the_pvalue_is_computed():
    for where in USES["method"]:
        default = _parameters(CALLABLES[where])["method"].default
        assert default in PVALUE_METHODS, (where, default)


def test_siblings_share_defaults():
    """One default per name, except the names of DEFAULTS_DIFFER (whose reasons the docs give)."""
    for name, places in USES.items():
        defaults = {repr(_parameters(CALLABLES[where])[name].default) for where in places}
        if name in DEFAULTS_DIFFER:
            assert len(defaults) > 1, f"{name} has one default now: drop it from DEFAULTS_DIFFER"
        else:
            assert len(defaults) == 1, (
                f"{name} has defaults {sorted(defaults)} in {places}: align them or say why in "
                "DEFAULTS_DIFFER"
            )


def _foreign_cases():
    """Each public callable with a foreign keyword it does not take but whose right name it
    takes (itself or through the function it forwards ``**options`` to)."""
    cases = []
    for where, obj in CALLABLES.items():
        names = set(_parameters(obj))
        forwards = {
            "energy_test_samples": es.energy_test,
            "pairwise_energy_tests": es.energy_test,
        }.get(where)
        taken = names | (set(inspect.signature(forwards).parameters) if forwards else set())
        for wrong, rights in FOREIGN_NAMES.items():
            right = next((r for r in rights if r in taken), None)
            if wrong not in names and right is not None:
                cases.append(pytest.param(obj, wrong, right, id=f"{where}-{wrong}"))
    return cases


@pytest.mark.parametrize("obj,wrong,right", _foreign_cases())
def test_foreign_name_says_the_right_one(obj, wrong, right):
    """``random_state`` to a function, ``rng`` to an estimator, ``seed``, ``n_permutations``,
    ``R``, ``B``, ``level``: a TypeError naming the argument taken instead, before anything
    else is checked."""
    name = obj.__name__
    with pytest.raises(TypeError, match=rf"^{name}\(\) takes `{right}`, not `{wrong}`: "):
        obj(**{wrong: 1})


def _docs_rows(heading: str) -> dict:
    """``{name: [cells after the name]}`` of the markdown table under ``heading``."""
    text = DOCS.read_text(encoding="utf-8")
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = (
            [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        )
        if len(cells) < 2 or set(cells[0]) <= set("-: ") or cells[0] == "Parameter":
            continue
        rows[cells[0].strip("`")] = cells[1:]
    return rows


def test_docs_table_is_the_vocabulary():
    """docs/vocabulary.md lists exactly the names the signatures use, each with the meaning of
    VOCABULARY."""
    rows = _docs_rows("The table")
    assert sorted(rows) == sorted(USES), (
        f"docs table names differ: missing {sorted(set(USES) - set(rows))}, extra "
        f"{sorted(set(rows) - set(USES))}"
    )
    for name, (meaning,) in rows.items():
        assert meaning == VOCABULARY[name], (
            f"docs/vocabulary.md row of `{name}` should read: | `{name}` | {VOCABULARY[name]} |")


def test_docs_say_why_defaults_differ():
    rows = _docs_rows("Defaults that differ")
    assert sorted(rows) == sorted(DEFAULTS_DIFFER)
    for name, (why,) in rows.items():
        assert why == DEFAULTS_DIFFER[name], name


def test_contents_link_the_page():
    contents = (DOCS.parent / "contents.rst").read_text(encoding="utf-8")
    assert re.search(r"^\s+(Vocabulary <vocabulary>|vocabulary)$", contents, re.M)


# -- data frames: columns by name, non-numeric columns refused -----------------------------


@pytest.fixture(scope="module")
def frame():
    gen = np.random.default_rng(0)
    df = pd.DataFrame(gen.normal(size=(30, 3)), columns=["a", "b", "c"])
    df["group"] = np.repeat(["u", "v", "w"], 10)
    df["b"] += (df["group"] == "w") * 3.0
    return df


def test_labels_by_column_name(frame):
    data = frame.drop(columns="group")
    by_name = es.energy_test(frame, "group", n_resamples=99, rng=1)
    by_value = es.energy_test(data, frame["group"], n_resamples=99, rng=1)
    assert by_name.statistic == by_value.statistic and by_name.pvalue == by_value.pvalue
    assert es.dispersion(frame, "group").S == es.dispersion(data, frame["group"]).S
    a = es.pairwise_energy_tests(frame, "group", n_resamples=19, rng=2).table
    b = es.pairwise_energy_tests(data, frame["group"], n_resamples=19, rng=2).table
    pd.testing.assert_frame_equal(a, b)
    np.testing.assert_array_equal(
        es.ksample_statistic(frame, "group"), es.ksample_statistic(data, frame["group"])
    )


def test_y_and_z_by_column_name(frame):
    numbers = frame.drop(columns="group")
    assert es.dcor(numbers, "b") == es.dcor(numbers[["a", "c"]], numbers["b"])
    assert (
        es.dcov_test(numbers, "b", n_resamples=19, rng=0).pvalue
        == es.dcov_test(numbers[["a", "c"]], numbers["b"], n_resamples=19, rng=0).pvalue
    )
    assert es.pdcor(numbers, "b", "c") == es.pdcor(numbers[["a"]], numbers["b"], numbers["c"])
    with pytest.raises(ValueError, match=r"^`y` is the column 'b' of `x`: left in `x`"):
        es.pdcor(numbers, numbers["b"], "c")  # b left in x (issue 42, item 8)


def test_column_name_errors(frame):
    with pytest.raises(
        ValueError,
        match=r"^`labels`='species' is not a column of `X` "
        r"\(its columns: 'a', 'b', 'c', 'group'\)\.$",
    ):
        es.energy_test(frame, "species")
    with pytest.raises(
        ValueError, match=r"`labels`='group' names a column, but `X` is not a data frame"
    ):
        es.energy_test(frame.to_numpy(), "group")
    with pytest.raises(ValueError, match=r"^`y` and `z` name the same column 'b'\.$"):
        es.pdcor(frame, "b", "b")


def test_input_frame_untouched(frame):
    before = frame.copy()
    es.energy_test(frame, "group", n_resamples=9, rng=0)
    pd.testing.assert_frame_equal(frame, before)


@pytest.mark.parametrize(
    "call",
    [
        lambda X: es.KGroups(3, n_init=1).fit(X),
        lambda X: es.PowerKMeans(3).fit(X),
        lambda X: es.energy_hclust(X),
        lambda X: es.mvnorm_statistic(X),
        lambda X: es.energy_test(X, np.arange(len(X)) % 2, n_resamples=9),
    ],
    ids=["KGroups", "PowerKMeans", "energy_hclust", "mvnorm_statistic", "energy_test"],
)
def test_non_numeric_columns_named(call):
    iris = es.datasets.load_iris()
    with pytest.raises(
        ValueError,
        match=r"^`X` has a column 'Species' that is not numeric: drop it "
        r"\(X\.drop\(columns=\['Species'\]\)\)",
    ):
        call(iris)
    two = iris.assign(site=pd.Categorical(["a", "b"] * 75))
    with pytest.raises(
        ValueError, match=r"^`X` has columns 'Species', 'site' that are not numeric: drop them"
    ):
        call(two)


def test_numbers_held_as_objects_pass():
    """Object columns of numbers (and missing values) are numbers: only what cannot be read as a
    number is refused."""
    X = pd.DataFrame(
        {"a": np.array([1.0, 2.0, 4.0, 8.0, 3.0], dtype=object), "b": [1, 3, 2, 5, None]}
    )
    numbers = np.array([[1.0, 1.0], [2.0, 3.0], [4.0, 2.0], [8.0, 5.0]])
    assert es.dcor(X, [1.0, 2.0, 0.0, 5.0, 4.0], nan_policy="omit") == es.dcor(
        numbers, [1.0, 2.0, 0.0, 5.0]
    )
