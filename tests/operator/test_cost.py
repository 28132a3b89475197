"""The cost model (energystats._cost) and the paths it chooses between: each choice follows from
the sizes of the problem, and every path gives the same statistic to rounding and the same
p-value. The paths are forced through the choosers (never through timings)."""

import numpy as np
import pytest

import energystats as es
import energystats._operator as operator
import energystats._operator.dense as dense_module
import energystats._operator.sorted as sorted_module
from energystats import _config, _cost
from energystats._operator import SortedOperator, permuted
from energystats._operator.choice import Choice, choose_engine, choose_gather, choose_line_sums
from energystats._resampling import loop

B = 99


def _forced(monkeypatch, module, name, value):
    monkeypatch.setattr(module, name, lambda *args, **kwargs: value)


def _same(results, statistic="statistic"):
    """Every result has the first's statistic to rounding and exactly its p-value."""
    first = getattr(results[0], statistic)
    for result in results[1:]:
        assert getattr(result, statistic) == pytest.approx(first, rel=1e-12, abs=1e-14)
        assert result.pvalue == results[0].pvalue


def test_small_problems_take_the_batched_gathers_and_large_ones_the_sorted_kernels():
    """On the line, S(pi) takes the gathers up to a few hundred points (never the O(n log n)
    concordance sum at n = 20..300) and the sorted engine from there; the block sums of
    relabelings take the matrix below a few hundred points and the prefix sums above."""
    for n in (20, 50, 100, 300):
        assert _cost.cheapest(_cost.pairing_costs(n, on_line=True)) != "sorted"
        ops = SortedOperator(np.arange(n, dtype=float)), SortedOperator(np.ones(n))
        assert choose_engine(*ops) == "gather"
        assert choose_line_sums(n) == "dense"
    assert choose_gather(20) == "flat" and choose_gather(1000) == "rows"
    ops = SortedOperator(np.arange(10**4, dtype=float)), SortedOperator(np.ones(10**4))
    assert choose_engine(*ops) == "sorted" and choose_line_sums(10**4) == "sorted"


def test_the_choices_do_not_depend_on_the_machine(monkeypatch):
    """A small call never reads the available memory (the budget is the configured one)."""

    def refuse():
        raise AssertionError("the available memory was read")

    monkeypatch.setattr(_config, "_available_bytes", refuse)
    assert _config.memory_budget(_config.SURE_BYTES) == 1024 * _config.MiB
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=50), rng.normal(size=50)
    es.dcor_test(x, y, n_resamples=B, rng=1)
    es.energy_test(rng.normal(size=(50, 3)), np.arange(50) % 2, n_resamples=B, rng=1)


@pytest.mark.parametrize("n", [30, 70])
def test_dcor_test_on_the_line_is_the_same_on_every_engine(monkeypatch, n):
    """The 1-D test (and a one-column array) by the sorted engine, the flat gathers and the
    rows gathers: the same statistic and p-value."""
    rng = np.random.default_rng(n)
    x = rng.normal(size=n)
    y = np.cos(2 * x) + rng.normal(size=n)
    results = []
    for engine, gather in (("sorted", "flat"), ("gather", "flat"), ("gather", "rows")):
        _forced(monkeypatch, permuted, "choose_engine", engine)
        _forced(monkeypatch, permuted, "choose_gather", gather)
        results.append(es.dcor_test(x, y, n_resamples=B, rng=3))
        results.append(es.dcor_test(x[:, None], y[:, None], n_resamples=B, rng=3))
    _same(results)


def test_the_multivariate_tests_are_the_same_on_both_gathers(monkeypatch):
    """dcor_test, pdcor_test and mutual_independence_test by the flat and the rows gathers,
    each on one thread and on threads sharing the permutations."""
    rng = np.random.default_rng(5)
    x, z = rng.normal(size=(40, 3)), rng.normal(size=(40, 2))
    y = np.column_stack([x[:, 0] ** 2, x[:, 1]]) + rng.normal(size=(40, 2))
    calls = (
        lambda: es.dcor_test(x, y, n_resamples=B, rng=4),
        lambda: es.pdcor_test(x, y, z, n_resamples=B, rng=4),
        lambda: es.mutual_independence_test(x, n_resamples=B, rng=4),
    )
    for call in calls:
        results = []
        for gather in ("flat", "rows"):
            for threads in (False, True):
                _forced(monkeypatch, permuted, "choose_gather", gather)
                _forced(monkeypatch, loop, "worth_threads", threads)
                results.append(call())
        _same(results)


@pytest.mark.parametrize("k", [2, 3])
def test_the_k_sample_tests_on_the_line_are_the_same_on_both_sums(monkeypatch, k):
    """energy_test and dispersion of points on the line by the matrix's products and by the
    prefix sums: the same statistic and p-value (the same relabelings, drawn alike)."""
    rng = np.random.default_rng(k)
    labels = np.arange(45) % k
    X = rng.normal(size=45) + 0.4 * labels
    results = {"energy_test": [], "dispersion": []}
    for sums in ("dense", "sorted"):
        _forced(monkeypatch, sorted_module, "choose_line_sums", sums)
        results["energy_test"].append(es.energy_test(X, labels, n_resamples=B, rng=6))
        results["dispersion"].append(es.dispersion(X, labels, n_resamples=B, rng=6))
    _same(results["energy_test"])
    _same(results["dispersion"], "F")


def test_the_held_products_are_the_same_on_any_blas_threads_or_streamed(monkeypatch):
    """The block sums of a held matrix on BLAS's threads or on the calling thread, and of
    tiles streamed from the points: the same statistic and p-value."""
    rng = np.random.default_rng(7)
    labels = np.arange(60) % 3
    X = rng.normal(size=(60, 3)) + 0.3 * labels[:, None]
    results = []
    for threads in (False, True):
        _forced(monkeypatch, dense_module, "worth_threads", threads)
        results.append(es.energy_test(X, labels, n_resamples=B, rng=8))
    for backend in ("dense", "streamed"):
        _forced(monkeypatch, operator, "choose_backend", Choice(backend))
        results.append(es.energy_test(X, labels, n_resamples=B, rng=8))
    _same(results)
