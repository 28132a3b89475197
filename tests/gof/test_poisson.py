"""poisson_statistic and poisson_test (R poisson.e, poisson.m, poisson.tests): the statistics
from their definitions by brute force, the bootstrap's shared samples, level, bad input, and R
(live here; the committed values are in test_r_reference_gof.py)."""

from fractions import Fraction

import numpy as np
import pytest
from _calibration import FALSE_FAILURE, rejection_interval
from scipy import special, stats

import energystats as es
from energystats import _resample


def brute_m(x, top=400):
    """M-CvM and M-AD from the mean distances m_j = mean |x_i - j| and the recursion
    F(k) = min(1, (m_{k+1} + k + 1 - xbar + 2 xbar F(k - 1)) / (2 (k + 1))), in exact rational
    arithmetic (in floating point the recursion multiplies the rounding of m_j by
    xbar^k / k! below the data), summed to k = top."""
    x = [int(v) for v in x]
    n = len(x)
    lam = Fraction(sum(x), n)
    F_hat, previous = [], Fraction(0)
    for k in range(top + 1):
        m = Fraction(sum(abs(v - (k + 1)) for v in x), n)
        previous = min(Fraction(1), (m + k + 1 - lam + 2 * lam * previous) / (2 * (k + 1)))
        F_hat.append(float(previous))
    k = np.arange(top + 1)
    lam = float(lam)
    F, f, sf = stats.poisson.cdf(k, lam), stats.poisson.pmf(k, lam), stats.poisson.sf(k, lam)
    d = (np.array(F_hat) - F) ** 2 * f
    keep = (F > 0) & (sf > 0)
    return n * d.sum(), n * (d[keep] / (F[keep] * sf[keep])).sum()


def brute_e(x, top=400):
    """Q_n with E|x - X| and E|X - X'| summed over the Poisson probabilities to k = top."""
    x = np.asarray(x, float)
    lam, n = x.mean(), x.size
    k = np.arange(top + 1)
    f = stats.poisson.pmf(k, lam)
    to_poisson = np.array([np.sum(np.abs(v - k) * f) for v in x])
    between = np.sum(np.abs(k[:, None] - k[None, :]) * f[:, None] * f[None, :])
    return n * (2 * to_poisson.mean() - between - np.abs(x[:, None] - x).sum() / n**2)


DATA = {
    "lambda 2": np.random.default_rng(1).poisson(2.0, 40),
    "lambda 0.2": np.r_[np.zeros(25, int), 1, 1, 3],
    "lambda 60": np.random.default_rng(2).poisson(60.0, 30),
    "overdispersed": np.random.default_rng(3).negative_binomial(1, 0.2, 35),
    "constant": np.full(10, 4),
    "two": np.array([0, 5]),
}


@pytest.mark.parametrize("name", DATA)
def test_statistics_by_brute_force(name):
    x = DATA[name]
    cvm, ad = brute_m(x)
    assert es.poisson_statistic(x, statistic="M-CvM") == pytest.approx(cvm, rel=1e-11)
    assert es.poisson_statistic(x, statistic="M-AD") == pytest.approx(ad, rel=1e-11)
    assert es.poisson_statistic(x) == pytest.approx(brute_e(x), rel=1e-11)


def test_counts_as_floats_lists_and_columns():
    x = DATA["lambda 2"]
    base = es.poisson_statistic(x)
    assert es.poisson_statistic(x.astype(float)) == base
    assert es.poisson_statistic(list(x)) == base
    assert es.poisson_statistic(x[:, None]) == base


def test_a_sample_of_zeros_has_statistics_zero():
    """Poisson(0) fits it exactly (R: M-AD NaN): only bootstrap samples can be all zeros."""
    from energystats._gof.poisson import _statistics

    np.testing.assert_array_equal(
        _statistics(np.zeros((2, 6), dtype=np.int64), ("M-CvM", "M-AD", "E"))[0], 0.0
    )


@pytest.mark.parametrize("lam,n", [(3.0, 50), (0.01, 20), (1e4, 5)])
def test_energy_statistic_of_a_block_is_each_samples(lam, n):
    """The E statistic of a block of samples is each sample's alone, bit for bit, whether the
    cdf at the counts is read from a table over the block's range (small rates) or evaluated
    at each count (counts spread wider than twice their number: 1e4 here): scipy's values."""
    from energystats._gof.poisson import _statistics

    X = np.random.default_rng(n).poisson(lam, size=(30, n))
    X[:, 0] = np.maximum(X[:, 0], 1)  # no sample of zeros only
    block = _statistics(X, ("E",))[0][:, 0]
    np.testing.assert_array_equal(block, [es.poisson_statistic(x) for x in X])
    x = np.sort(X[3])
    lam3 = x.mean()
    g = 2 * x * stats.poisson.cdf(x, lam3) - 2 * lam3 * stats.poisson.cdf(x - 1, lam3) + lam3 - x
    between = 2 * lam3 * (special.i0e(2 * lam3) + special.i1e(2 * lam3))
    pairs = np.abs(x[:, None] - x).sum() / n**2
    assert block[3] == pytest.approx(n * (2 * g.mean() - between - pairs), rel=1e-10, abs=1e-12)
    # the tie rule's scale: the size of the sums the statistic is a difference of
    scale = _statistics(X, ("E",))[1][3, 0]
    assert scale == pytest.approx(n * (2 * g.mean() + between + pairs), rel=1e-12)


def test_all_statistics_come_from_the_same_samples(monkeypatch):
    x = DATA["lambda 2"]
    full = es.poisson_test(x, n_resamples=59, rng=4)
    m = es.poisson_test(x, statistic="M", n_resamples=59, rng=4)
    e = es.poisson_test(x, statistic="E", n_resamples=59, rng=4)
    np.testing.assert_allclose(
        full.null_distribution, np.column_stack([m.null_distribution, e.null_distribution]),
        rtol=1e-12,
    )
    np.testing.assert_array_equal(full.pvalue, np.r_[m.pvalue, e.pvalue])
    assert (
        full.statistic_names == ("M-CvM", "M-AD", "E") and m.statistic_names == ("M-CvM", "M-AD")
        and e.statistic_names == ("E",)
    )
    # blocks of one sample: the same samples; E bit for bit, M to the rounding of their grids
    monkeypatch.setattr(_resample, "BLOCK_BYTES", 1)
    blocked = es.poisson_test(x, n_resamples=59, rng=4)
    np.testing.assert_allclose(blocked.null_distribution, full.null_distribution, rtol=1e-12)
    np.testing.assert_array_equal(blocked.null_distribution[:, 2], full.null_distribution[:, 2])


def test_pvalue_counts_ties():
    """Counts repeat, so bootstrap samples equal to the data up to order recur; their
    statistics equal the data's (E bit for bit, M to the rounding of a longer sum over the
    counts), and count as extreme: (1 + #{t* >= t - 100 eps t}) / (B + 1)."""
    from energystats._gof.poisson import _statistics

    x = np.array([0, 1, 0, 1, 2, 0, 1, 0])
    rng = np.random.default_rng(1)
    batch = rng.poisson(2.0, size=(20, 8))
    batch[5] = rng.permutation(x)
    alone, inside = (
        _statistics(x[None], ("M-CvM", "M-AD", "E"))[0][0],
        _statistics(batch, ("M-CvM", "M-AD", "E"))[0][5],
    )
    assert alone[2] == inside[2]
    np.testing.assert_allclose(inside, alone, rtol=4 * np.finfo(float).eps)
    res = es.poisson_test(x, n_resamples=199, rng=0)
    for j in range(3):
        t, null = res.statistic[j], res.null_distribution[:, j]
        assert np.any(np.abs(null - t) <= 4 * np.finfo(float).eps * t)
        assert (
            res.pvalue[j] == (1 + np.count_nonzero(null >= t - 100 * np.finfo(float).eps * t)) / 200
        )


def test_result_and_frame():
    x = DATA["lambda 2"]
    res = es.poisson_test(x, n_resamples=19, rng=0)
    frame = res.to_frame()
    assert list(frame.index) == ["M-CvM", "M-AD", "E"]
    assert list(frame.columns) == ["estimate", "statistic", "pvalue", "method"]
    assert list(frame["method"]) == ["M-CvM test", "M-AD test", "Energy test"]
    np.testing.assert_array_equal(frame["statistic"], res.statistic)
    assert (
        res.estimate == x.mean() and res.n_samples == 40 and res.null_distribution.shape == (19, 3)
    )
    text = repr(res)
    assert "Poisson distribution" in text and "Energy test" in text and "M-AD" in text
    assert es.poisson_test(x, rng=3).pvalue[2] == es.poisson_test(x, rng=3).pvalue[2]


@pytest.mark.parametrize(
    "x,kwargs,match",
    [
        ([1, 2, -1], {}, r"`x` must hold non-negative integers \(counts\), got -1\."),
        ([1, 2.5, 3], {}, r"`x` must hold non-negative integers \(counts\), got 2.5"),
        ([3], {}, "`x` must hold at least two counts, got 1"),
        ([0, 0, 0], {}, "`x` is all zeros"),
        ([1, np.nan], {}, "`x` contains missing values .* nan_policy=.omit."),
        ([[1, 2], [3, 4]], {}, "`x` must be one-dimensional counts"),
        ([1, 2, 3], {"statistic": "CvM"}, "`statistic` must be one of"),
        ([1, 2, 3], {"n_resamples": 0}, "`n_resamples` must be a positive integer, got 0"),
    ],
)
def test_bad_input(x, kwargs, match):
    with pytest.raises(ValueError, match=match):
        es.poisson_test(x, **kwargs)
    if not kwargs:
        with pytest.raises(ValueError, match=match):
            es.poisson_statistic(x)


@pytest.mark.parametrize("function", [es.poisson_statistic, es.poisson_test])
def test_bad_test_name(function):
    """Both functions take the same values of ``statistic`` and say which."""
    with pytest.raises(
        ValueError,
        match=r"`statistic` must be one of \('all', 'M', 'E', 'M-CvM', 'M-AD'\), got 'CvM'",
    ):
        function([1, 2], statistic="CvM")


def test_same_test_values():
    """``poisson_statistic`` and ``poisson_test`` take the same values of ``statistic`` and name
    the same statistics: a single one as a float, several as a dict in R's row order."""
    x = [1, 1, 2, 4, 1, 4, 4, 2, 2, 0, 1, 1, 3, 1, 3, 2, 3, 6, 1, 3, 4, 1, 2, 0, 1, 1, 0, 1, 4, 1]
    single = {name: es.poisson_statistic(x, statistic=name) for name in ("M-CvM", "M-AD", "E")}
    assert all(isinstance(value, float) for value in single.values())
    assert es.poisson_statistic(x, statistic="all") == single
    assert list(es.poisson_statistic(x, statistic="all")) == ["M-CvM", "M-AD", "E"]
    assert es.poisson_statistic(x, statistic="M") == {"M-CvM": single["M-CvM"],
                                                      "M-AD": single["M-AD"]}
    for test in ("all", "M", "E", "M-CvM", "M-AD"):
        res = es.poisson_test(x, statistic=test, n_resamples=19, rng=0)
        expected = es.poisson_statistic(x, statistic=test)
        expected = list(expected.values()) if isinstance(expected, dict) else [expected]
        np.testing.assert_allclose(res.statistic, expected, rtol=1e-15)


@pytest.mark.slow
@pytest.mark.parametrize("lam,n", [(0.5, 30), (50.0, 40)])
def test_level(lam, n):
    """Poisson samples (small and large mean), B = 19: the rejection rate at 0.05 of each of
    the three tests within the binomial interval of false-failure probability 1e-4 / 3 over
    300 data sets (a union bound over the three: 3.8e-5; the interval [2/300, 33/300] catches a
    true level of 0.15 with probability 0.97, 0.125 with 0.75). The bootstrap is not exact
    (lambda is estimated and the statistics are not pivotal), so this checks that it is not
    far off; validation/gof_power.py measures the three levels finely."""
    reps = 300
    rng = np.random.default_rng(int(70 + lam))
    rejections = np.zeros(3)
    for _ in range(reps):
        rejections += (
            es.poisson_test(rng.poisson(lam, size=n), n_resamples=19, rng=rng).pvalue <= 0.05
        )
    low, high = rejection_interval(reps, false_failure=FALSE_FAILURE / 3)
    # false failure: 3 P(Binom(300, 0.05) outside [2, 33]) = 3.8e-5 (union bound)
    assert np.all((low <= rejections / reps) & (rejections / reps <= high)), rejections / reps


@pytest.mark.r
@pytest.mark.parametrize("name", DATA)
def test_live_r_statistics(name):
    from energystats._rbridge import r_call, to_numpy

    x = DATA[name].astype(np.int64)
    m = to_numpy(r_call("poisson.m", x))
    e = to_numpy(r_call("poisson.e", x))[0]
    assert es.poisson_statistic(x, statistic="M-CvM") == pytest.approx(m[0], rel=1e-10)
    assert es.poisson_statistic(x, statistic="M-AD") == pytest.approx(m[1], rel=1e-10)
    assert es.poisson_statistic(x) == pytest.approx(e, rel=1e-10)


@pytest.mark.r
def test_live_r_poisson_tests_pvalues():
    """R's poisson.tests(x, R = 499) against ours with B = 499 on overdispersed counts and on
    Poisson counts: within 4.5 binomial standard errors (different random streams) plus R's
    missing count. Six checks: false failure 6 P(|Z| > 4.5) = 4.1e-5 (normal bound); a
    difference of 6 standard errors is caught with probability 0.93."""
    from energystats._rbridge import r_call, r_field, to_numpy

    for x in (DATA["lambda 2"], np.random.default_rng(9).negative_binomial(4, 0.6, 40)):
        theirs = to_numpy(r_field(r_call("poisson.tests", x.astype(np.int64), R=499), "p.value"))
        ours = es.poisson_test(x, n_resamples=499, rng=2).pvalue
        p = (ours + theirs) / 2
        # false failure: 3 P(|Z| > 4.5) = 2.0e-5
        assert np.all(np.abs(ours - theirs) <= 4.5 * np.sqrt(2 * p * (1 - p) / 500) + 2 / 500)


@pytest.mark.parametrize("lam", [0.3, 3.0, 1e4, 1e7])
def test_the_grid_margins_leave_out_only_rounding(lam, monkeypatch):
    """The M statistics on the grid of _grid_bounds (e^-80 margins, about 12.6 sd) equal those
    on a grid five times as wide (e^-2000) to rounding: for Poisson samples, a row with an
    outlier 30 sd above its mean and, at small means, one of zeros beside them."""
    from energystats._gof import poisson

    X = np.random.default_rng(int(lam * 10)).poisson(lam, size=(4, 25))
    X[1, 0] = int(lam + 30 * np.sqrt(lam) + 3)
    X[2] *= lam > 10
    tests = ("M-CvM", "M-AD")
    ours = poisson._statistics(X, tests)[0]
    low, high = poisson._grid_bounds(np.sort(X, axis=1), np.sort(X, axis=1).mean(axis=1))
    monkeypatch.setattr(poisson, "_TAIL_LOG", 2000.0)
    wide = poisson._statistics(X, tests)[0]
    wide_low, wide_high = poisson._grid_bounds(np.sort(X, axis=1), X.mean(axis=1))
    assert wide_high - high > 2 * (high - X.max()) and (low == 0 or wide_low < low)
    np.testing.assert_allclose(ours, wide, rtol=1e-14, atol=0)
