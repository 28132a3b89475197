"""The tests of independence (energystats._independence.testing, energystats._resample):
permutation nulls against brute force, exact enumeration, the t-test, level, R."""

import json
import math
from itertools import permutations
from pathlib import Path

import numpy as np
import pytest
from _calibration import COARSE_LEVEL_REPS, rejection_interval
from scipy.stats import t as student_t

import energystats as es
from energystats._resample import permutations as drawn

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = json.loads((ROOT / "tests" / "data" / "r_reference_independence.json").read_text())
CASES = {case["name"]: case for case in REFERENCE["cases"]}


def distances(X):
    X = np.asarray(X, float).reshape(len(X), -1)
    return np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))


def n_v2(x, y, perm):
    """n V_n^2(x, y_perm) by the definition."""
    a, b = distances(x), distances(y)[np.ix_(perm, perm)]
    A = a - a.mean(0) - a.mean(1)[:, None] + a.mean()
    B = b - b.mean(0) - b.mean(1)[:, None] + b.mean()
    return (A * B).sum() / len(x)


def drawn_permutations(n, B, seed):
    """The permutations the tests draw from ``rng=seed`` (the identity first)."""
    return np.vstack([np.arange(n), drawn(np.random.default_rng(seed), n, B)])


@pytest.mark.parametrize("shape", [(30, 3, 2), (30, 1, 1)])
def test_null_distribution_is_the_statistic_of_each_permutation(rng, shape):
    n, p, q = shape
    x = rng.normal(size=(n, p))
    y = np.c_[np.abs(x[:, 0]) + rng.normal(size=n), rng.normal(size=(n, q - 1))]
    res = es.dcov_test(x, y, n_resamples=49, rng=3)
    perms = drawn_permutations(n, 49, 3)
    want = np.array([n_v2(x, y, p_) for p_ in perms])
    assert res.statistic == pytest.approx(want[0], rel=1e-11)
    assert res.statistic == pytest.approx(n * es.dcov(x, y) ** 2, rel=1e-11)
    np.testing.assert_allclose(res.null_distribution, want[1:], rtol=1e-10)
    assert res.pvalue == (1 + np.sum(want[1:] >= want[0] * (1 - 1e-13))) / 50
    assert res.statistic_name == "nV^2" and res.estimate == pytest.approx(es.dcov(x, y), rel=1e-13)
    assert res.estimates.r_names()["dCor"] == pytest.approx(es.dcor(x, y), rel=1e-13)


def test_one_dimensional_and_matrix_nulls_agree(rng):
    """The O(n log n) null (sorted) and the gathers of the matrix (a callable metric hides the
    one-dimensional structure) on the same permutations."""
    x = rng.normal(size=50)
    y = np.round(x**2 + rng.normal(size=50), 1)  # ties
    fast = es.dcov_test(x, y, n_resamples=99, rng=4)
    slow = es.dcov_test(
        x, y, n_resamples=99, rng=4, metric=lambda a, b: np.abs(a[:, None, 0] - b[None, :, 0])
    )
    assert fast.pvalue == slow.pvalue
    np.testing.assert_allclose(
        fast.null_distribution, slow.null_distribution, rtol=1e-9, atol=1e-12
    )


def test_dcor_test_orders_permutations_as_dcov_test(rng):
    x, y = rng.normal(size=(25, 2)), rng.normal(size=(25, 2))
    a = es.dcov_test(x, y, n_resamples=99, rng=7)
    b = es.dcor_test(x, y, n_resamples=99, rng=7)
    assert a.pvalue == b.pvalue and b.statistic_name == "dCor"
    assert b.statistic == pytest.approx(es.dcor(x, y), rel=1e-12)
    np.testing.assert_array_equal(
        np.argsort(a.null_distribution, kind="stable"),
        np.argsort(b.null_distribution, kind="stable"),
    )


def test_exact_enumeration():
    x = np.array([0.1, 1.3, 2.2, 3.0, 4.8, 5.1])
    y = np.array([0.0, 1.1, 3.9, 9.2, 16.1, 24.9])
    res = es.dcov_test(x, y)  # 720 <= 999: all permutations
    assert res.exact and res.n_resamples == 720
    values = np.array([n_v2(x, y, np.array(p)) for p in permutations(range(6))])
    assert res.pvalue == pytest.approx(np.sum(values >= values[0] * (1 - 1e-12)) / 720, rel=1e-12)
    assert res.pvalue == pytest.approx(1 / 720)  # y increases with x: only the identity reaches it
    assert not es.dcov_test(x, y, exact=False, n_resamples=99, rng=0).exact
    with pytest.raises(
        ValueError, match=r"`exact`=True needs more than 1000000 permutations \(12! of them\)"
    ):
        es.dcov_test(np.arange(12.0), np.arange(12.0), exact=True)


def test_same_rng_same_result_whatever_the_threads_and_budget(rng):
    """The same seed: the same p-value; the null distribution equal to rounding (relative
    1e-12: blocks of another size add the same terms in another order, and BLAS kernels
    round products differently), and bitwise within one configuration."""
    x, y = rng.normal(size=(60, 2)), rng.normal(size=(60, 3))
    a = es.dcor_test(x, y, n_resamples=99, rng=11)
    b = es.dcor_test(x, y, n_resamples=99, rng=11)
    np.testing.assert_array_equal(a.null_distribution, b.null_distribution)
    with es.config_context(working_memory=0.3):  # blocks of a few permutations at a time
        c = es.dcor_test(x, y, n_resamples=99, rng=11)
    assert c.pvalue == a.pvalue
    np.testing.assert_allclose(c.null_distribution, a.null_distribution, rtol=1e-12, atol=0)
    d = es.dcor_test(x, y, n_resamples=99, rng=12)
    assert not np.allclose(a.null_distribution, d.null_distribution, rtol=1e-12, atol=0)


def test_matrices_that_cannot_fit_are_refused_before_allocating(rng):
    x, y = rng.normal(size=(400, 2)), rng.normal(size=(400, 2))
    with es.config_context(working_memory=1):
        with pytest.raises(
            es.WorkingMemoryError, match=r"the permutation test's matrices \(n = 400\)"
        ):
            es.dcov_test(x, y, n_resamples=9)


def test_dcor_ttest_is_the_t_transform_of_bcdcor(rng):
    x, y = rng.normal(size=(20, 30)), rng.normal(size=(20, 5))
    res = es.dcor_ttest(x, y)
    r = es.dcor(x, y, estimator="U")
    v = 20 * 17 / 2
    assert res.df == v - 1 and res.estimate == pytest.approx(r, rel=1e-13)
    assert res.statistic == pytest.approx(np.sqrt(v - 1) * r / np.sqrt(1 - r * r), rel=1e-12)
    assert res.pvalue == pytest.approx(student_t.sf(res.statistic, v - 1), rel=1e-12)
    assert res.null_distribution is None and res.method == "t"
    assert es.dcor_ttest(x, x).pvalue == 0.0  # bcdcor = 1: T is infinite


def test_result_prints():
    res = es.dcov_test(np.arange(8.0), np.arange(8.0) ** 2, n_resamples=19, rng=0)
    assert (
        "Distance covariance test of independence (R dcov.test)" in repr(res)
        and "<table" in res._repr_html_()
    )
    assert "dcor t-test" not in repr(res)
    assert "t-test of independence in high dimension (R dcorT.test)" in repr(
        es.dcor_ttest(np.arange(8.0), np.arange(8.0) ** 2)
    )


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        (dict(n_resamples=0), ValueError, r"`n_resamples` must be a positive integer, got 0"),
        (dict(n_resamples=9.5), ValueError, r"`n_resamples` must be a whole number .*, got 9.5"),
        (dict(exact="yes"), ValueError, r"`exact` must be 'auto', True or False"),
        (dict(progress=1), TypeError, r"`progress` must be True or False"),
        (dict(n_jobs=0), ValueError, r"`n_jobs` must be None or a non-zero integer"),
    ],
)
def test_bad_options(kwargs, error, match):
    with pytest.raises(error, match=match):
        es.dcov_test(np.arange(10.0), np.arange(10.0), **kwargs)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["normal", "heavy tails", "discrete"])
def test_level_under_independence(kind):
    """Independent samples: the rejection rate at 0.05 lies in the binomial interval of
    false-failure probability 5.2e-5, over 300 data sets (COARSE_LEVEL_REPS: a true level of
    0.15 fails with probability 0.98, 0.125 with 0.81); B = 19, so that p <= 0.05 exactly
    when no permutation reaches the observed statistic. validation/independence_gamma.py
    measures the permutation test's level finely beside the gamma p-value's."""
    gen = np.random.default_rng(len(kind))
    rejections = 0
    for _ in range(COARSE_LEVEL_REPS):
        if kind == "normal":
            x, y = gen.normal(size=(30, 3)), gen.normal(size=(30, 2))
        elif kind == "heavy tails":
            x, y = gen.standard_t(1.5, size=30), gen.standard_t(1.5, size=30)  # the O(n log n) path
        else:
            x, y = gen.integers(0, 3, size=30).astype(str), gen.poisson(2.0, size=(30, 2))
        rejections += es.dcov_test(x, y, n_resamples=19, rng=gen).pvalue <= 0.05
    lo, hi = rejection_interval(COARSE_LEVEL_REPS)
    rate = rejections / COARSE_LEVEL_REPS
    # false failure: P(Binom(300, 0.05) outside [3, 32]) = 5.2e-5 (tests/_calibration.py)
    assert lo <= rate <= hi, (rate, lo, hi)


# --- R ---------------------------------------------------------------------------------


def mc_close(p, q, B=999, k=4.5):
    """Two Monte Carlo p-values from B resamples each agree within k standard errors: the
    tests below check two pairs, false failure 2 P(|Z| > 4.5) = 1.4e-5 (normal bound, the
    2 / (B + 1) and the 1 / B floor of the variance make it conservative); a difference of
    6 standard errors is caught with probability 0.93."""
    se = math.sqrt(2 * max(p * (1 - p), 1 / B) / (B + 1))
    return abs(p - q) <= k * se + 2 / (B + 1)


@pytest.mark.parametrize("name", sorted(CASES))
def test_committed_r_permutation_tests(name):
    case = CASES[name]
    x, y = np.asarray(case["x"], float), np.asarray(case["y"], float)
    cov, cor = es.dcov_test(x, y, rng=1), es.dcor_test(x, y, rng=1)
    assert cov.statistic == pytest.approx(case["dcov_test"]["statistic"], rel=1e-10)
    assert cor.statistic == pytest.approx(case["dcor_test"]["statistic"], rel=1e-10)
    np.testing.assert_allclose(
        list(cov.estimates.r_names().values()), case["dcov_test"]["estimates"], rtol=1e-10
    )
    # false failure: 2 P(|Z| > 4.5) = 1.4e-5
    assert (
        mc_close(cov.pvalue, case["dcov_test"]["p_value"])
        and mc_close(cor.pvalue, case["dcor_test"]["p_value"])
    )


@pytest.mark.r
def test_live_r_tests(rng):
    from energystats._rbridge import r_call, r_field, r_matrix, to_numpy

    x = rng.normal(size=(45, 2))
    y = np.c_[x[:, 0] * x[:, 1] + rng.normal(size=45)]
    for ours, theirs in ((es.dcov_test, "dcov.test"), (es.dcor_test, "dcor.test")):
        res = ours(x, y, rng=2)
        r = r_call(theirs, r_matrix(x), r_matrix(y), R=999)
        assert res.statistic == pytest.approx(to_numpy(r_field(r, "statistic"))[0], rel=1e-10)
        # false failure: 2 P(|Z| > 4.5) = 1.4e-5 over the loop
        assert mc_close(res.pvalue, to_numpy(r_field(r, "p.value"))[0])
        assert res.statistic_name == list(r_field(r, "statistic").names)[0]
    t = es.dcor_ttest(x, y)
    r = r_call("dcorT.test", r_matrix(x), r_matrix(y))
    assert t.statistic == pytest.approx(to_numpy(r_field(r, "statistic"))[0], rel=1e-10)
    assert t.df == to_numpy(r_field(r, "parameter"))[0]
    assert t.pvalue == pytest.approx(to_numpy(r_field(r, "p.value"))[0], rel=1e-9)
