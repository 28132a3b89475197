"""The test of cluster structure against one Gaussian (energystats._cluster_test)."""

import numpy as np
import pytest
from scipy.stats import binom, special_ortho_group

import energystats as es
from energystats._cluster_test import _whiten


def _interval(reps, level=0.05, coverage=0.99):
    lo, hi = binom.ppf([(1 - coverage) / 2, (1 + coverage) / 2], reps, level)
    return lo / reps, hi / reps


def two_groups(gen, n=60, d=2, gap=4.0):
    X = gen.normal(size=(n, d))
    X[n // 2 :, 0] += gap
    return X


def test_naive_permutation_test_on_fitted_labels_is_invalid():
    """One Gaussian, no clusters: testing the clusters found on the same variables rejects almost always."""
    gen = np.random.default_rng(3)
    rejections = 0
    for _ in range(20):
        X = gen.normal(size=(60, 2))
        labels = es.KGroups(2, n_init=3, random_state=gen).fit_predict(X)
        rejections += es.energy_test(X, labels, n_resamples=199, rng=gen).pvalue <= 0.05
    assert rejections >= 19


def test_statistic_is_affine_invariant_and_null_depends_only_on_n_d():
    gen = np.random.default_rng(0)
    X = two_groups(gen, gap=2.0)
    A = special_ortho_group.rvs(2, random_state=1) @ np.diag([3.0, 0.2])
    a = es.cluster_test(X, 2, n_resamples=19, rng=5)
    b = es.cluster_test(X @ A.T + [1e3, -7.0], 2, n_resamples=19, rng=5)
    assert b.statistic == pytest.approx(a.statistic, rel=1e-8)
    np.testing.assert_array_equal(a.null_distribution, b.null_distribution)
    assert a.pvalue == b.pvalue
    assert 0 < a.statistic < 1
    d = es.dispersion(_whiten(X), a.model.labels_)
    assert a.statistic == pytest.approx(d.S / d.T, rel=1e-10)


def test_result_repr():
    res = es.cluster_test(two_groups(np.random.default_rng(1)), 2, n_resamples=9, rng=0, n_init=2)
    assert "ClusterTestResult: energy test of cluster structure against one Gaussian" in repr(res)
    assert "Gaussian null of S/T" in repr(res)


@pytest.mark.parametrize(
    "X,k,kwargs,match",
    [
        (np.zeros((4, 3)), 2, {}, r"needs more samples than features \+ 1"),
        (np.random.default_rng(0).normal(size=(20, 2)), 1, {}, "`n_clusters` must be an integer >= 2"),
        (np.random.default_rng(0).normal(size=(20, 2)), 21, {}, "`n_clusters` must be at most n_samples"),
        (np.random.default_rng(0).normal(size=(20, 2)), 2, dict(metric="precomputed"), "rotation-invariant"),
        (np.random.default_rng(0).normal(size=(20, 2)), 2, dict(random_state=1), "`random_state` is set by cluster_test"),
        (np.c_[np.zeros(20), np.arange(20.0)], 2, {}, "singular sample covariance"),
        (np.full((20, 2), np.nan), 2, {}, "`X` contains NaN"),
    ],
)
def test_bad_input(X, k, kwargs, match):
    with pytest.raises(ValueError, match=match):
        es.cluster_test(X, k, n_resamples=9, **kwargs)


@pytest.mark.slow
@pytest.mark.parametrize("d", [2, 10])
def test_level_for_gaussian_data(d):
    """n = 60, 200 Gaussian data sets with random mean and covariance, B = 39 (so that
    p <= 0.05 has exact level 2/40): the rejection rate lies in the binomial 99% interval."""
    reps = 200
    gen = np.random.default_rng(100 + d)
    rejections = 0
    for _ in range(reps):
        A = gen.normal(size=(d, d))
        X = gen.normal(size=(60, d)) @ A.T + gen.normal(size=d) * 10
        rejections += es.cluster_test(X, 2, n_resamples=39, rng=gen, n_init=1).pvalue <= 0.05
    lo, hi = _interval(reps)
    assert lo <= rejections / reps <= hi, (rejections / reps, lo, hi)


@pytest.mark.slow
def test_power_for_two_separated_groups():
    gen = np.random.default_rng(8)
    rejections = sum(
        es.cluster_test(two_groups(gen), 2, n_resamples=39, rng=gen, n_init=3).pvalue <= 0.05 for _ in range(30)
    )
    assert rejections >= 27
