"""The one resampling engine (energystats._resampling): validation, the exact-or-random choice,
the one loop over resamples (blocks, threads, tasks, progress) and its three kinds of engines,
and the one p-value with its tie rule, used by every Monte Carlo test of the package."""

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import energystats as es
from energystats import _resampling as rs

PACKAGE = Path(es.__file__).parent


# --- the p-value ---------------------------------------------------------------------------


def test_pvalue_counts_the_observed_resample_once():
    null = np.array([0.5, 1.0, 2.0, 3.0])
    assert rs.pvalue(2.0, null) == 3 / 5  # 1 + #{2, 3}
    assert rs.pvalue(10.0, null) == 1 / 5  # never 0
    assert rs.pvalue(-1.0, null) == 1.0
    assert rs.pvalue(2.0, null, strict=True) == 2 / 5  # 1 + #{3}
    # exact: the observed value is among the M enumerated ones
    assert rs.pvalue(2.0, null, exact=True) == 2 / 4
    assert rs.pvalue(2.0, null, exact=True, strict=True) == 2 / 4  # 1 + #{3}


def test_pvalue_of_several_statistics_sharing_their_resamples():
    null = np.array([[1.0, 5.0], [2.0, 6.0], [3.0, 7.0]])
    p = rs.pvalue(np.array([2.0, 8.0]), null)
    np.testing.assert_array_equal(p, [3 / 4, 1 / 4])


def test_a_value_equal_up_to_rounding_ties_and_one_beyond_the_tolerance_does_not():
    """A planted tie: the same terms added in two orders round apart; the tolerance 100 eps s
    counts the null value as equal, and nothing further away than that."""
    rng = np.random.default_rng(1)
    a = rng.normal(size=5_000) * 1e3
    terms = rng.permutation(np.r_[a, -a, 1.0])  # a small sum of large terms: exactly 1
    forward, backward = float(np.sum(terms)), float(sum(terms[::-1].tolist()))
    scale = rs.tie_scale(np.abs(terms).sum(), run=terms.size)  # one sequential run: Python's sum
    low, high = sorted([forward, backward])
    assert low != high  # rounding alone separates them
    assert rs.pvalue(high, np.array([low]), scale=scale) == 1.0  # counted: a tie
    assert rs.pvalue(high, np.array([low]), scale=0.0) == 0.5  # relative to t alone: missed
    beyond = high - 2 * rs.TIE_RTOL * scale
    assert rs.pvalue(high, np.array([beyond]), scale=scale) == 0.5


def test_the_tie_rule_is_the_terms_times_the_square_root_of_the_run():
    assert rs.tie_scale(3.0) == 3.0
    assert rs.tie_scale(3.0, run=16) == 12.0
    np.testing.assert_array_equal(rs.tie_scale(np.array([1.0, 2.0]), run=4), [2.0, 4.0])


@pytest.mark.parametrize(
    "observed, word", [(np.nan, "NaN"), (np.inf, "infinite"), (-np.inf, "infinite")]
)
def test_a_statistic_that_is_not_a_number_gets_no_pvalue(observed, word):
    with pytest.raises(ValueError, match=f"the test statistic is {word}, so it has no p-value"):
        rs.pvalue(observed, np.zeros(9))
    with pytest.raises(ValueError, match=f"dCov is {word}"):
        rs.pvalue(np.array([1.0, observed]), np.zeros((9, 2)), what="dCov")


def test_a_null_value_that_is_nan_cannot_be_counted():
    with pytest.raises(ValueError, match="NaN on 2 of the 5 resamples"):
        rs.pvalue(1.0, np.array([0.0, np.nan, 2.0, np.nan, 1.0]))


# --- options, the exact-or-random choice, batches, progress ---------------------------------


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"n_resamples": 0}, ValueError, "`n_resamples` must be a positive integer, got 0"),
        ({"n_resamples": 9.5}, ValueError, r"`n_resamples` must be a whole number \(a .*, got 9.5"),
        ({"n_resamples": np.nan}, ValueError, "`n_resamples` must be a whole number"),
        ({"n_resamples": -9.0}, ValueError, "`n_resamples` must be a positive integer, got -9.0"),
        ({"n_resamples": "9"}, TypeError, "`n_resamples` must be a positive integer, got str"),
        ({"n_resamples": True}, TypeError, "`n_resamples` must be a positive integer, got bool"),
        ({"n_resamples": 10**8}, ValueError, "`n_resamples` must be at most 10,000,000"),
        (
            {"n_resamples": 9, "exact": "yes"}, ValueError,
            "`exact` must be 'auto', True or False, got 'yes'",
        ),
        ({"n_resamples": 9, "batch": 0}, ValueError, "`batch` must be an integer >= 1"),
        (
            {"n_resamples": 9, "progress": "no"}, TypeError,
            "`progress` must be True or False \\(or None: when a person is watching\\), got 'no'",
        ),
    ],
)
def test_options_are_checked_with_messages_naming_the_argument(kwargs, error, match):
    with pytest.raises(error, match=match):
        rs.check_options(**kwargs)


def test_a_count_written_as_a_whole_float_is_a_count():
    """R users write 999 (a double) where a count is asked, as scipy accepts 999.0."""
    assert rs.check_resamples(999.0) == 999 and type(rs.check_resamples(np.float64(99.0))) is int
    x = np.r_[np.zeros(6), np.ones(6)] + np.arange(12) / 100
    labels = np.repeat([0, 1], 6)
    as_float, as_int = (es.energy_test(x, labels, n_resamples=B, rng=1) for B in (99.0, 99))
    assert as_float.pvalue == as_int.pvalue and as_float.n_resamples == 99
    np.testing.assert_array_equal(as_float.null_distribution, as_int.null_distribution)
    with pytest.raises(ValueError, match="`n_resamples` must be a whole number .* got 99.5"):
        es.dcor_test(x, labels, n_resamples=99.5)


def test_exact_auto_enumerates_only_what_is_no_more_work_than_the_draws(monkeypatch):
    def count(number):
        return lambda cap: min(number, cap + 1)

    assert rs.use_exact(count(20), rs.check_options(20), "relabelings")
    assert not rs.use_exact(count(21), rs.check_options(20), "relabelings")
    assert not rs.use_exact(count(5), rs.check_options(20, exact=False), "relabelings")
    assert rs.use_exact(count(5_000), rs.check_options(20, exact=True), "relabelings")
    monkeypatch.setattr("energystats._resampling.options.MAX_EXACT", 100)
    # past the cap: drawn
    assert not rs.use_exact(count(101), rs.check_options(10**4), "relabelings")
    with pytest.raises(ValueError, match="`exact`=True needs more than 100 permutations"):
        rs.use_exact(count(101), rs.check_options(9, exact=True), "permutations")


def test_batches_fit_the_working_memory_or_say_why_not():
    with es.config_context(working_memory=1.0):  # MiB
        assert rs.batch_size(1000, 10**6, "a test") == 2**20 // 1000
        assert rs.batch_size(1000, 10, "a test") == 10
        assert rs.batch_size(1000, 10**6, "a test", cap=7) == 7
        assert rs.batch_size(1000, 10**6, "a test", batch=3) == 3
        with pytest.raises(es.WorkingMemoryError, match="a test with `batch`=2000"):
            rs.batch_size(1000, 10**6, "a test", batch=2000)
        with pytest.raises(es.WorkingMemoryError, match=r"a test \(one resample\)"):
            rs.batch_size(2 * 2**20, 10, "a test")


def test_one_progress_bar_and_none_for_a_single_batch(capsys):
    items = [1, 2, 3]
    assert rs.progress_bar(items, 1, True, "x") is items
    assert rs.progress_bar(items, 3, False, "x") is items
    assert list(rs.progress_bar(items, 3, True, "resamples")) == items
    assert "resamples" in capsys.readouterr().err


def test_pairings_are_the_same_permutations_whatever_the_batch():
    engine = lambda perms: perms[:, 0].astype(float)  # noqa: E731 - the first row's partner
    a = rs.null_distribution(rs.Pairings(12, engine), rs.check_options(50), 3)
    b = rs.null_distribution(rs.Pairings(12, engine), rs.check_options(50, batch=7), 3)
    assert a.observed == b.observed == 0.0 and not a.exact
    np.testing.assert_array_equal(a.values, b.values)
    exact = rs.null_distribution(rs.Pairings(4, engine), rs.check_options(50), 3)
    assert exact.exact and exact.count == 24
    assert np.bincount(exact.values.astype(int)).tolist() == [6, 6, 6, 6]


def first_partner(block: np.ndarray) -> np.ndarray:
    """A picklable engine: the partner of the first row (a permutation's first entry)."""
    return block[:, 0].astype(float)


def test_the_null_does_not_depend_on_blocks_threads_or_tasks():
    """The resamples are drawn in the calling process in order: one block, blocks of 7,
    blocks shared among threads, and joblib tasks give the same null."""
    options = rs.check_options(199)
    one = rs.null_distribution(rs.Pairings(30, first_partner), options, 5)
    small = rs.null_distribution(rs.Pairings(30, first_partner), rs.check_options(199, batch=7), 5)
    tasks = rs.null_distribution(rs.Pairings(30, first_partner), options, 5, n_jobs=2)
    for other in (small, tasks):
        np.testing.assert_array_equal(other.values, one.values)
    draws = rs.Draws(lambda gen, size: gen.random((size, 3)), lambda block: block.sum(axis=1),
                     item_bytes=24, what="a test")
    whole = rs.null_distribution(draws, options, np.random.default_rng(2))
    with es.config_context(working_memory=(8 * 199 + 24 * 10) / 2**20):  # blocks of 10
        assert rs.plan(199, 24, "a test", held=8 * 199).blocks == 20
        blocked = rs.null_distribution(draws, options, np.random.default_rng(2))
    assert whole.observed is None and whole.count == 199
    np.testing.assert_array_equal(blocked.values, whole.values)


def test_the_plan_is_one_quiet_block_when_the_whole_fits():
    """Where everything fits: one block, one thread, no tasks (no pool, bar or task started)."""
    assert rs.plan(1000, 800, "a test") == rs.Plan(step=1000, blocks=1, threads=1, tasks=False)
    assert rs.plan(1000, 800, "a test", cap=300) == rs.Plan(300, 4, 1, False)
    assert rs.plan(1000, 800, "a test", batch=7).blocks == 143
    # joblib workers: four tasks each, whatever the cap of a block evaluated here
    assert rs.plan(1000, 800, "a test", cap=300, workers=2) == rs.Plan(125, 8, 1, True)
    assert rs.plan(1000, 800, "a test", thread_bytes=0).threads == es._parallel.THREADS


def test_relabelings_enumerated_when_they_are_few_and_the_observed_one_among_them():
    codes, sizes = np.array([1, 0, 1, 0]), np.array([2, 2])
    engine = rs.Relabelings(codes, sizes, first_partner, item_bytes=8)
    null = rs.null_distribution(engine, rs.check_options(99), 0)
    assert null.exact and null.count == 6 and null.observed == 1.0
    assert sorted(null.values.tolist()) == [0.0, 0.0, 0.0, 1.0, 1.0, 1.0]
    refused = rs.Relabelings(codes, sizes, lambda block: np.full(len(block), np.inf), item_bytes=8,
                             undefined="no statistic here")
    for options in (rs.check_options(99), rs.check_options(3)):  # enumerated, drawn
        with pytest.raises(ValueError, match="no statistic here"):
            rs.null_distribution(refused, options, 0)


# --- every Monte Carlo test of the package goes through the one loop and the one p-value ---


def package_modules():
    """(path relative to the package, syntax tree) of every module outside _resampling/."""
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if not name.startswith("_resampling/"):
            yield name, ast.parse(path.read_text())


def own_pvalues(tree) -> list[int]:
    """Lines that compare a null distribution with the statistic (``null >= ...``)."""
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        names = {n.id for n in ast.walk(node.left) if isinstance(n, ast.Name)}
        if {type(op) for op in node.ops} & {ast.GtE, ast.Gt} and names & {"null", "values"}:
            lines.append(node.lineno)
    return lines


#: Words of a progress bar's description that say it counts resamples.
RESAMPLE_WORDS = ("permutation", "relabel", "resample", "sample", "bootstrap", "draw")


def own_loops(tree) -> list[int]:
    """Lines where a module runs its own loop over resamples: it sizes blocks of them within the
    budget (``batch_size``), draws a progress bar over them (a description naming them), loops
    over ``range(...)`` of ``n_resamples``, or imports a submodule of the resampling package
    (the loop's parts) instead of the package."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("_resampling."):
            lines.append(node.lineno)
        if not isinstance(node, ast.Call):
            continue
        called = getattr(node.func, "id", getattr(node.func, "attr", ""))
        given = node.args[3:] + [k.value for k in node.keywords if k.arg == "desc"]
        texts = [a.value for a in given if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        desc = " ".join(texts).lower()
        counted = {getattr(n, "id", getattr(n, "attr", "")) for a in node.args for n in ast.walk(a)}
        if called == "batch_size" or (called == "range" and "n_resamples" in counted):
            lines.append(node.lineno)
        if called == "progress_bar" and any(word in desc for word in RESAMPLE_WORDS):
            lines.append(node.lineno)
    return lines


def test_no_module_counts_its_own_monte_carlo_pvalue():
    """The p-value is computed in _resampling only: no other module compares a null
    distribution with the statistic (``null >= ...``) or divides by B + 1 itself."""
    found = [f"{name}:{line}" for name, tree in package_modules() for line in own_pvalues(tree)]
    assert found == []


def test_no_module_runs_its_own_loop_over_resamples():
    """The loop over resamples (blocks, threads, tasks, progress, enumeration) is
    _resampling's: every other module hands it an engine."""
    found = {name: own_loops(tree) for name, tree in package_modules()}
    assert {name: lines for name, lines in found.items() if lines} == {}


@pytest.mark.parametrize("planted", [
    "def p(null, t, B):\n    return (1 + (null >= t).sum()) / (B + 1)\n",
])
def test_the_pvalue_check_sees_a_planted_pvalue(planted):
    assert len(own_pvalues(ast.parse(planted))) == 1


@pytest.mark.parametrize("planted", [
    "null = [stat(gen.random(n)) for _ in range(options.n_resamples)]\n",
    "for block in progress_bar(blocks, k, progress, 'Gaussian samples'):\n    pass\n",
    "step = batch_size(8 * n, B, 'my test')\n",
    "from .._resampling.loop import plan\n",
])
def test_the_loop_check_sees_a_planted_loop(planted):
    assert len(own_loops(ast.parse(planted))) == 1
    pairs = "for pair in progress_bar(pairs, k, progress, 'pairs of groups'):\n    pass\n"
    assert own_loops(ast.parse(pairs)) == []  # a loop over tests, each through the engine


# --- the families: a statistic that is not a number is refused, ties tie -------------------


def test_goodness_of_fit_refuses_parameters_that_make_the_statistic_undefined():
    x = np.random.default_rng(0).normal(size=30)
    with pytest.raises(
        ValueError,
        match=r"`known_params` gave scale=0: known parameters of norm must be finite, with "
        r"scale > 0",
    ):
        es.energy_gof(x, stats.norm, known_params={"scale": 0}, n_resamples=9, rng=0)
    with pytest.raises(ValueError, match=r"`dist` gave norm parameters loc=nan, scale=1"):
        es.energy_gof(x, stats.norm(np.nan, 1), n_resamples=9, rng=0)
    with pytest.raises(ValueError, match=r"`fit` gave norm parameters loc=nan, scale=1"):
        es.energy_gof(x, stats.norm, fit=lambda data: (np.nan, 1.0), n_resamples=9, rng=0)


def test_categorical_ties_count_as_the_contingency_tables_say():
    """Two binary variables: S(pi) depends on the permutation only through the 2 x 2 table, so
    permutations with the observed table tie it exactly. The p-value equals the one counted in
    integers from the tables of the same permutations (the engine draws them as below)."""
    rng = np.random.default_rng(5)
    n, B = 400, 199
    x = rng.integers(0, 2, n)
    y = rng.integers(0, 2, n)  # independent: the observed table lies among the null ones
    res = es.dcov_test(x.astype(str), pd.Categorical(y), n_resamples=B, rng=0)
    gen = np.random.default_rng(0)
    perms = np.tile(np.arange(n), (B + 1, 1))
    gen.permuted(perms[1:], axis=1, out=perms[1:])
    # dCov^2 of two binary variables is a function of |n n_11 - n_1. n_.1| (the table's determinant)
    det = np.abs(n * ((x == 1) & (y[perms] == 1)).sum(axis=1) - (x == 1).sum() * (y == 1).sum())
    expected = (1 + np.count_nonzero(det[1:] >= det[0])) / (B + 1)
    assert np.count_nonzero(det[1:] == det[0]) > 0  # ties there are
    assert res.pvalue == expected
