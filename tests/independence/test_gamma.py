"""The p-value without permutations (energystats._independence.gamma): the exact permutation
moments against enumeration, the Pearson III tail, calibration under independence."""

from itertools import permutations

import numpy as np
import pytest
from _calibration import COARSE_LEVEL_REPS, rejection_interval
from scipy.stats import gamma

import energystats as es
from energystats._independence.gamma import gamma_pvalue, qap_moments


def enumerate_moments(F, G):
    values = np.array([(F * G[np.ix_(p, p)]).sum() for p in map(list, permutations(range(len(F))))])
    return values.mean(), values.var()


def test_qap_moments_are_those_of_all_permutations(rng):
    n = 7
    F, G = rng.normal(size=(n, n)), rng.exponential(size=(n, n))
    F, G = F + F.T, G + G.T
    np.fill_diagonal(F, 0.0)
    np.fill_diagonal(G, 0.0)
    sums = lambda M: (M.sum(), (M**2).sum(), (M.sum(axis=1) ** 2).sum())  # noqa: E731
    mean, variance = qap_moments(n, sums(F), sums(G))
    want_mean, want_variance = enumerate_moments(F, G)
    assert (
        mean == pytest.approx(want_mean, rel=1e-12)
        and variance == pytest.approx(want_variance, rel=1e-10)
    )


@pytest.mark.parametrize("kind", ["multivariate", "one-dimensional", "discrete", "precomputed"])
def test_dcov_permutation_moments_equal_enumeration(rng, kind, monkeypatch):
    """The gamma method's mean and variance are those of n^2 V_n^2 over all 7! permutations."""
    from energystats._independence import testing

    n = 7
    x, y = rng.normal(size=(n, 2)), rng.normal(size=(n, 3))
    kw = {}
    if kind == "one-dimensional":
        x, y = x[:, 0], y[:, 0]
    elif kind == "discrete":
        y = np.array(list("aabbcab"))
    elif kind == "precomputed":
        y = np.sqrt(((y[:, None] - y[None]) ** 2).sum(-1))
        kw = dict(metric=("euclidean", "precomputed"))
    seen = {}
    original = testing.gamma_pvalue
    monkeypatch.setattr(
        testing, "gamma_pvalue",
        lambda s, m, v, k: seen.update(mean=m, variance=v) or original(s, m, v, k),
    )
    res = es.dcov_test(x, y, method="gamma", **kw)
    exact = es.dcov_test(x, y, exact=True, **kw)
    values = exact.null_distribution * n  # n V^2 -> n^2 V^2 = S
    assert seen["mean"] == pytest.approx(values.mean(), rel=1e-10)
    assert seen["variance"] == pytest.approx(values.var(), rel=1e-9)
    assert (
        res.statistic == pytest.approx(exact.statistic, rel=1e-12)
        and res.method == "gamma"
        and res.null_distribution is None
    )


def test_pearson_three_tail_has_the_moments():
    """The three-parameter gamma whose tail gamma_pvalue gives has the mean, variance and
    skewness asked for; without a skewness, the two-parameter gamma."""
    mean, variance, skew = 5.0, 4.0, 1.3
    shape, scale = 4 / skew**2, np.sqrt(variance) * skew / 2
    loc = mean - shape * scale
    m, v, k = gamma.stats(shape, loc=loc, scale=scale, moments="mvs")
    assert (m, v, k) == pytest.approx((mean, variance, skew))
    for t in (loc + 0.1, mean, mean + 3 * np.sqrt(variance)):
        assert gamma_pvalue(t, mean, variance, skew) == pytest.approx(
            gamma.sf(t, shape, loc=loc, scale=scale), rel=1e-12
        )
    assert gamma_pvalue(mean, mean, variance) == pytest.approx(
        gamma.sf(mean, mean**2 / variance, scale=variance / mean)
    )
    assert gamma_pvalue(0.0, 1.0, 0.0) == 1.0


def test_gamma_p_value_is_close_to_the_permutation_p_value(rng):
    x = rng.normal(size=(200, 3))
    y = np.c_[np.abs(x[:, 0]) + 1.5 * rng.normal(size=200), rng.normal(size=200)]
    g = es.dcov_test(x, y, method="gamma", rng=0)
    p = es.dcov_test(x, y, n_resamples=4999, rng=0)
    assert g.statistic == pytest.approx(p.statistic, rel=1e-12)
    # deterministic: fixed seeds; here 0.1051 against 0.1018, a tenth of the bound 0.035 (the
    # permutation p-value's standard error is 0.0043: over its seeds P(|Z| > 7) < 1e-11)
    assert abs(g.pvalue - p.pvalue) < 0.25 * p.pvalue + 0.01
    assert es.dcor_test(x, y, method="gamma", rng=0).pvalue == g.pvalue


def test_bad_method():
    with pytest.raises(ValueError, match=r"`method` must be 'permutation' or 'gamma'"):
        es.dcov_test(np.arange(10.0), np.arange(10.0), method="asymptotic")


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["normal", "heavy tails", "discrete"])
def test_level_of_the_gamma_p_value(kind):
    """Independent samples, n = 60: the rejection rate at 0.05 lies in the binomial interval
    of false-failure probability 5.2e-5 over 300 data sets (COARSE_LEVEL_REPS: a true level of
    0.15 fails with probability 0.98, 0.125 with 0.81); validation/independence_gamma.py
    measures the gamma p-value's level finely (normal, heavy-tailed and discrete data)."""
    gen = np.random.default_rng(10 + len(kind))
    rejections = 0
    for _ in range(COARSE_LEVEL_REPS):
        if kind == "normal":
            x, y = gen.normal(size=(60, 3)), gen.normal(size=(60, 2))
        elif kind == "heavy tails":
            x, y = gen.standard_t(2, size=60), gen.standard_t(2, size=(60, 2))
        else:
            x, y = gen.integers(0, 3, size=60).astype(str), gen.poisson(2.0, size=(60, 2))
        rejections += es.dcov_test(x, y, method="gamma", rng=gen).pvalue <= 0.05
    lo, hi = rejection_interval(COARSE_LEVEL_REPS)
    rate = rejections / COARSE_LEVEL_REPS
    # false failure: P(Binom(300, 0.05) outside [3, 32]) = 5.2e-5 (tests/_calibration.py)
    assert lo <= rate <= hi, (rate, lo, hi)
