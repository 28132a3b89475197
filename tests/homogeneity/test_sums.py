"""The block sums of labelings by every path (energystats._homogeneity._sums): the matrix held
or streamed, the line, and the one rule that chooses; the public functions give the same
answers on every path (floats to rounding, p-values and decisions exactly)."""

import tracemalloc

import numpy as np
import pytest
from conftest import brute_rho

import energystats as es
from energystats._homogeneity import _sums
from energystats._scale.line import LINE_MIN
from energystats._semimetric import resolve_semimetric


def streaming(n):
    """A working memory of 60% of the n x n matrix: it streams, in small blocks."""
    return es.config_context(working_memory=0.6 * 8 * n * n / 2**20)


TINY = 0.02  # MiB: no matrix of these tests fits
METRICS = [("euclidean", 1.0, None), ("euclidean", 0.5, None), ("euclidean", 2.0, None),
           ("exponential", 1.0, 0.7), ("gaussian", 1.0, 1.3)]


def test_the_rule(rng):
    euclidean, pre = resolve_semimetric(), resolve_semimetric("precomputed")
    X = rng.normal(size=(60, 2))
    assert _sums.block_sums(X, euclidean).kind == "held"
    assert _sums.block_sums(brute_rho(X, X), pre).kind == "held"
    assert _sums.block_sums(X[:, :1], euclidean).kind == "held"  # below LINE_MIN
    assert _sums.block_sums(rng.normal(size=(LINE_MIN, 1)), euclidean).kind == "line"
    assert _sums.block_sums(X, euclidean, directions=np.eye(2)).kind == "projection"
    with es.config_context(working_memory=TINY):
        assert _sums.block_sums(X, euclidean).kind == "streamed"
        assert _sums.block_sums(brute_rho(X, X), pre).kind == "held"  # the user's matrix


@pytest.mark.parametrize("streamed", [False, True])
@pytest.mark.parametrize("k", [2, 3, 5])
def test_block_sums_of_labelings_and_their_completion(rng, monkeypatch, streamed, k):
    """C = Z'DZ for the first g groups of each labeling (with weights too), and the last
    group's sums from the row sums; one labeling of many groups by sparse indicators."""
    X = rng.normal(size=(70, 3))
    D = brute_rho(X, X)
    labelings = rng.integers(0, k, size=(6, 70))
    w = rng.uniform(0.5, 2.0, size=70)
    monkeypatch.setattr(_sums, "fits", lambda n: not streamed)
    sums = _sums.block_sums(X, resolve_semimetric())
    assert sums.kind == ("streamed" if streamed else "held")
    C, zr, total = sums.of(labelings, k - 1)
    M = _sums.complete(C, zr, total)
    Cw = sums.of(labelings, k, w)[0]
    many = sums.of(np.arange(70)[None] % 66, 66, w)[0][0]
    for b in range(6):
        Z = (labelings[b][:, None] == np.arange(k)).astype(float)
        np.testing.assert_allclose(M[b], Z.T @ D @ Z, rtol=1e-11)
        np.testing.assert_allclose(Cw[b], (Z * w[:, None]).T @ D @ (Z * w[:, None]), rtol=1e-11)
    np.testing.assert_array_equal(M, M.transpose(0, 2, 1))
    Z = (np.arange(70)[:, None] % 66 == np.arange(66)) * w[:, None]
    np.testing.assert_allclose(many, Z.T @ D @ Z, rtol=1e-11, atol=1e-12)
    np.testing.assert_array_equal(many, many.T)


@pytest.mark.parametrize("statistic", ["S", "E", "F"])
@pytest.mark.parametrize("sizes", [(40, 45), (30, 25, 35)])
def test_energy_test_held_and_streamed(rng, statistic, sizes):
    X = rng.normal(size=(sum(sizes), 3))
    labels = rng.permutation(np.repeat(np.arange(len(sizes)), sizes))
    X[labels == 1] += 0.3
    held = es.energy_test(X, labels, statistic=statistic, n_resamples=99, rng=7)
    with streaming(len(X)):
        assert _sums.block_sums(X, resolve_semimetric()).kind == "streamed"
        streamed = es.energy_test(X, labels, statistic=statistic, n_resamples=99, rng=7)
    assert streamed.pvalue == held.pvalue
    assert streamed.statistic == pytest.approx(held.statistic, rel=1e-10)
    np.testing.assert_allclose(streamed.null_distribution, held.null_distribution, rtol=1e-10)


def test_exact_energy_test_held_and_streamed(monkeypatch):
    x = np.array([[0.0, 1.0], [0.3, 0.2], [1.1, 0.9], [2.0, 2.1], [2.2, 1.7], [3.1, 2.5],
                  [2.9, 3.3], [0.4, 0.6]])
    labels = np.array([0, 0, 0, 1, 1, 1, 1, 0])
    for ties in ("tolerant", "strict"):
        held = es.energy_test(x, labels, ties=ties)
        with monkeypatch.context() as patch:  # 8 points fit any budget: make them not fit
            patch.setattr(_sums, "fits", lambda n: False)
            assert _sums.block_sums(x, resolve_semimetric()).kind == "streamed"
            streamed = es.energy_test(x, labels, ties=ties)
        assert held.exact and streamed.exact and held.n_resamples == 70
        assert streamed.pvalue == held.pvalue
        np.testing.assert_allclose(streamed.null_distribution, held.null_distribution, rtol=1e-10)


def test_precomputed_energy_test_under_a_tiny_budget_reads_the_matrix(rng):
    X = rng.normal(size=(60, 2))
    D = brute_rho(X, X)
    labels = np.repeat([0, 1, 2], 20)
    a = es.energy_test(D, labels, metric="precomputed", statistic="E", rng=3, n_resamples=50)
    with es.config_context(working_memory=TINY):
        b = es.energy_test(D, labels, metric="precomputed", statistic="E", rng=3, n_resamples=50)
        pairs = es.pairwise_energy_tests(D, labels, metric="precomputed", rng=2,
                                         n_resamples=50).table
    assert a.pvalue == b.pvalue
    np.testing.assert_allclose(a.null_distribution, b.null_distribution, rtol=1e-12)
    want = es.pairwise_energy_tests(D, labels, metric="precomputed", rng=2, n_resamples=50).table
    np.testing.assert_array_equal(pairs["pvalue"], want["pvalue"])


def test_pairwise_tests_held_and_streamed(rng):
    X = rng.normal(size=(90, 2))
    labels = np.repeat(["a", "b", "c"], 30)
    X[labels == "c"] += 0.8
    held = es.pairwise_energy_tests(X, labels, n_resamples=60, rng=1).table
    with streaming(60):  # each pair's 60 points stream
        streamed = es.pairwise_energy_tests(X, labels, n_resamples=60, rng=1).table
    np.testing.assert_array_equal(streamed["pvalue"], held["pvalue"])
    np.testing.assert_allclose(streamed["statistic"], held["statistic"], rtol=1e-10)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("metric,exponent,sigma", METRICS)
def test_dispersion_and_energy_distance_streamed(rng, weighted, metric, exponent, sigma):
    X = rng.normal(size=(70, 2))
    labels = rng.integers(0, 3, size=70)
    w = rng.uniform(0.2, 3.0, size=70) if weighted else None
    kw = dict(metric=metric, exponent=exponent, sigma=sigma)
    with streaming(70):
        res = es.dispersion(X, labels, sample_weight=w, **kw)
        e = es.energy_distance(X[:30], X[30:], x_weights=None if w is None else w[:30],
                               y_weights=None if w is None else w[30:], **kw)
    want = es.dispersion(brute_rho(X, X, **kw), labels, sample_weight=w, metric="precomputed")
    for field in ("W", "S", "T", "F"):
        assert getattr(res, field) == pytest.approx(getattr(want, field), rel=1e-10)
    wx = np.ones(30) if w is None else w[:30]
    wy = np.ones(40) if w is None else w[30:]
    g = lambda A, u, v: u @ A @ v / (u.sum() * v.sum())  # noqa: E731
    want_e = (2 * g(brute_rho(X[:30], X[30:], **kw), wx, wy)
              - g(brute_rho(X[:30], X[:30], **kw), wx, wx)
              - g(brute_rho(X[30:], X[30:], **kw), wy, wy))
    assert e == pytest.approx(want_e, rel=1e-10)


@pytest.mark.parametrize("n", [LINE_MIN - 1, LINE_MIN, 400])
def test_the_line_equals_the_matrix(rng, n):
    """One-dimensional data with exponent 1 on either side of LINE_MIN (ties included): the
    statistics and nulls of the matrix, the same p-values. S is a difference of sums of the
    order of T (300 times S here), which the paths add in different orders: 1e-10 of S."""
    x = np.round(rng.normal(size=n), 1)
    labels = rng.integers(0, 3, size=n)
    w = rng.uniform(0.5, 2.0, size=n)
    D = brute_rho(x, x)
    for name in ("S", "E", "F"):
        line = es.energy_test(x, labels, statistic=name, n_resamples=60, rng=9)
        matrix = es.energy_test(D, labels, statistic=name, metric="precomputed", n_resamples=60,
                                rng=9)
        assert line.statistic == pytest.approx(matrix.statistic, rel=1e-10)
        np.testing.assert_allclose(line.null_distribution, matrix.null_distribution, rtol=1e-10)
        assert line.pvalue == matrix.pvalue
    a = es.dispersion(x, labels, sample_weight=w)
    b = es.dispersion(D, labels, sample_weight=w, metric="precomputed")
    for field in ("W", "S", "T", "F"):
        assert getattr(a, field) == pytest.approx(getattr(b, field), rel=1e-12)
    np.testing.assert_allclose(a.pairwise, b.pairwise, rtol=1e-11)


def test_streamed_paths_hold_no_n_by_n_array():
    """tracemalloc peak far below the 8 n^2 = 122 MiB of one matrix at n = 4,000."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4000, 3))
    labels = rng.integers(0, 2, size=4000)
    with es.config_context(working_memory=16):
        for run in (lambda: es.energy_test(X, labels, n_resamples=49, rng=0),
                    lambda: es.dispersion(X, labels)):
            tracemalloc.start()
            try:
                run()
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
            assert peak < 20 * 2**20 < 8 * 4000**2 / 6


def test_the_same_pvalues_under_any_working_memory(rng):
    """Held, streamed in one block, streamed one relabeling at a time: the same null."""
    X = rng.normal(size=(300, 2))
    labels = np.arange(300) % 3
    X[labels == 2] += 0.2
    ref = es.energy_test(X, labels, statistic="E", n_resamples=39, rng=5)
    for memory in (0.6, 0.05):
        with es.config_context(working_memory=memory):
            res = es.energy_test(X, labels, statistic="E", n_resamples=39, rng=5)
        assert res.pvalue == ref.pvalue
        np.testing.assert_allclose(res.null_distribution, ref.null_distribution, rtol=1e-10)


def test_a_budget_too_small_for_one_relabeling_says_so(rng):
    X = rng.normal(size=(500, 2))
    labels = np.arange(500) % 2
    with es.config_context(working_memory=0.025):  # the row sums fit, a relabeling does not
        with pytest.raises(es.WorkingMemoryError,
                           match=r"energy_test \(n = 500, k = 2\) \(one relabeling\)"):
            es.energy_test(X, labels, n_resamples=9)
