"""normal_statistic and normal_test (R normal.e, normal.test) and the limit distribution of
_gof/_limit.py: the statistic against brute force and mvnorm_statistic, the bootstrap against
mvnorm_test, the eigenvalues against an independent Galerkin method with exact matrix entries
and against a finer discretisation, Imhof's formula against closed forms, level, bad input,
and R (live here; the committed values are in test_r_reference_gof.py)."""

import numpy as np
import pytest
from _calibration import COARSE_LEVEL_REPS, rejection_interval
from scipy import stats
from scipy.linalg import eigvalsh
from scipy.special import gammaln

import energystats as es
from energystats import _resample
from energystats._gof._limit import (
    CASES,
    KEPT,
    _ritz_values,
    imhof_sf,
    normal_eigenvalues,
    normal_limit_sf,
    normal_trace,
)


def test_statistic_by_brute_force(rng):
    x = rng.exponential(size=37) * 3.0 + 10.0
    y = (x - x.mean()) / x.std(ddof=1)
    to_z = 2 * y * stats.norm.cdf(y) + 2 * stats.norm.pdf(y) - y
    want = 37 * (2 * to_z.mean() - 2 / np.sqrt(np.pi) - np.abs(y[:, None] - y).sum() / 37**2)
    assert es.normal_statistic(x) == pytest.approx(want, rel=1e-12)
    assert es.normal_statistic(x) == pytest.approx(es.mvnorm_statistic(x[:, None]), rel=1e-12)


def test_statistic_is_affine_invariant_and_takes_containers(rng):
    x = rng.standard_t(3, size=25)
    base = es.normal_statistic(x)
    assert es.normal_statistic(-4.0 * x + 1e6) == pytest.approx(base, rel=1e-9)
    assert es.normal_statistic(list(x)) == base
    assert es.normal_statistic(x[:, None]) == base
    # R: normal.e(c(1, 2)) prints 0.2867966 (7 digits)
    assert es.normal_statistic([1.0, 2.0]) == pytest.approx(0.2867966, abs=5e-8)


def test_mc_draws_mvnorm_tests_samples(rng, monkeypatch):
    """The same Gaussian samples as mvnorm_test, hence its null distribution and p-value;
    the blocks of samples (here of 3) change nothing."""
    x = rng.gamma(2.0, size=40)
    ours = es.normal_test(x, n_resamples=99, rng=5)
    theirs = es.mvnorm_test(x[:, None], n_resamples=99, rng=5)
    np.testing.assert_allclose(ours.null_distribution, theirs.null_distribution, rtol=1e-11)
    assert ours.pvalue == theirs.pvalue
    monkeypatch.setattr(_resample, "BLOCK_BYTES", 3 * 64 * 40)
    blocked = es.normal_test(x, n_resamples=99, rng=5)
    np.testing.assert_array_equal(blocked.null_distribution, ours.null_distribution)
    assert ours.pvalue == (1 + np.count_nonzero(ours.null_distribution >= ours.statistic)) / 100
    assert (ours.mean, ours.sd, ours.n_samples, ours.n_resamples) == (
        x.mean(), x.std(ddof=1), 40, 99,
    )
    assert "parametric bootstrap" in repr(ours)


def test_limit_result(rng):
    x = rng.normal(size=200)
    res = es.normal_test(x, method="limit")
    assert res.pvalue == normal_limit_sf(res.statistic)
    assert res.null_distribution is None and res.n_resamples is None
    assert "limit distribution" in repr(res)


# --- the eigenvalues ---------------------------------------------------------------------


def hermite_galerkin(estimated, size=800):
    """The operator in the orthonormal Hermite basis He_i / sqrt(i!) of L^2(phi), i >= 1,
    whose entries are exact: with |x - y| = (1/pi) int (1 - cos s(x - y)) / s^2 ds and
    E He_i(X) e^{isX} = (is)^i e^{-s^2/2}, <h, He_i (x) He_j> = (1/pi) (-1)^((i - j)/2)
    Gamma((i + j - 1)/2) / sqrt(i! j!) for i + j even, 0 otherwise. Estimating the mean
    (sd) removes He_1 (He_2). Converges slowly (the k-th eigenvalue needs ~k^2 terms), but
    its first 15 values are exact to 1e-12 at this size."""
    i = np.arange(1, size + 1)
    drop = {"mean": 1, "sd": 2}
    i = i[~np.isin(i, [drop[p] for p in estimated])]
    values = []
    for parity in (0, 1):  # the matrix splits into even and odd blocks
        j = i[i % 2 == parity]
        I, J = np.meshgrid(j, j, indexing="ij")
        M = np.exp(gammaln((I + J - 1) / 2) - 0.5 * (gammaln(I + 1) + gammaln(J + 1))) / np.pi
        values.append(eigvalsh(np.where((I - J) // 2 % 2 == 0, M, -M)))
    return np.sort(np.concatenate(values))[::-1]


@pytest.mark.parametrize("case", CASES)
def test_eigenvalues_by_an_exact_galerkin_method(case):
    ours = normal_eigenvalues(CASES[case])
    np.testing.assert_allclose(ours[:15], hermite_galerkin(CASES[case])[:15], rtol=1e-10)


def test_eigenvalues_are_converged():
    """Twice the polynomials and nodes change the kept eigenvalues by less than 1e-10."""
    fine = _ritz_values(("mean", "sd"), 600, 6000, KEPT)
    np.testing.assert_allclose(normal_eigenvalues(), fine, rtol=1e-10)
    assert normal_eigenvalues() is normal_eigenvalues(("sd", "mean"))  # computed once
    assert not normal_eigenvalues().flags.writeable


@pytest.mark.parametrize("case", CASES)
def test_the_rest_of_the_trace_is_the_tail_of_the_asymptotic_eigenvalues(case):
    """The eigenvalues decay as c / k^2 (WKB for the string -F'' = (2 / lambda) phi F: c ->
    4 sqrt(2 pi) / pi^2 = 1.016): the trace less the kept sum, about 0.0067, is
    lambda_KEPT KEPT^2 sum_{k > KEPT} 1 / k^2 to 2%, so the kept eigenvalues and the closed-form
    trace agree."""
    lam = normal_eigenvalues(CASES[case])
    rest = normal_trace(CASES[case]) - lam.sum()
    k = np.arange(KEPT + 1, 10**6)
    assert rest == pytest.approx(lam[-1] * KEPT**2 * np.sum(1.0 / k**2), rel=0.02)
    assert np.all(np.diff(lam) < 0) and lam[-1] > 0


# --- Imhof's formula -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "t,eigenvalues,shift,exact",
    [
        (2.5, [1.0], 0.0, stats.chi2.sf(2.5, 1)),
        (0.01, [1.0], 0.0, stats.chi2.sf(0.01, 1)),
        (30.0, [1.0], 0.0, stats.chi2.sf(30.0, 1)),
        (3.0, [2.0, 2.0], 0.0, np.exp(-3.0 / 4.0)),
        (7.0, [1.0] * 5, 0.0, stats.chi2.sf(7.0, 5)),
        (0.05, [0.3] * 3, 0.0, stats.chi2.sf(0.05 / 0.3, 3)),
        (4.0, [0.5] * 40, 1.5, stats.chi2.sf(2.5 / 0.5, 40)),
        (0.5, [1.0], 0.7, 1.0),
    ],
)
def test_imhof_against_closed_forms(t, eigenvalues, shift, exact):
    assert imhof_sf(t, eigenvalues, shift) == pytest.approx(exact, rel=1e-9, abs=1e-14)


def test_imhof_of_distinct_eigenvalues_against_simulation():
    """Two distinct weights: the sf of 0.7 Z1^2 + 0.2 Z2^2 has no simple closed form; 4e6
    draws give it to 3e-4 (binomial standard error); within 4.5 standard errors (three
    checks: false failure 3 P(|Z| > 4.5) = 2.0e-5, normal bound; an error of 6 standard
    errors, 2e-3, is caught with probability 0.93)."""
    rng = np.random.default_rng(3)
    q = 0.7 * rng.standard_normal(4 * 10**6) ** 2 + 0.2 * rng.standard_normal(4 * 10**6) ** 2
    for t in (0.3, 1.0, 3.0):
        p = (q > t).mean()
        # false failure: P(|Z| > 4.5) = 6.8e-6
        assert abs(imhof_sf(t, [0.7, 0.2]) - p) < 4.5 * np.sqrt(p * (1 - p) / q.size)


def test_limit_sf_is_a_survival_function():
    t = np.array([0.05, 0.2, 0.4, 0.8, 1.5, 3.0])
    p = np.array([normal_limit_sf(v) for v in t])
    assert np.all(np.diff(p) < 0) and p[0] > 0.99 and p[-1] < 1e-5
    assert normal_limit_sf(0.0) == 1.0


# --- bad input and level ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "x,kwargs,err,match",
    [
        ([1.0], {}, ValueError, "`x` must hold at least two values, got 1"),
        ([2.0, 2.0, 2.0], {}, ValueError, "`x` is constant"),
        ([1.0, np.nan, 2.0], {}, ValueError, "`x` contains missing values .* nan_policy=.omit."),
        (np.zeros((5, 2)) + np.arange(5)[:, None], {}, ValueError, "`x` must be univariate"),
        (
            [1.0, 2.0, 4.0], {"method": "asymptotic"}, ValueError,
            r"`method` must be one of \('bootstrap', 'limit'\), got 'asymptotic'\.$",
        ),
        (
            [1.0, 2.0, 4.0], {"method": "mc"}, ValueError,
            r"got 'mc' \(R's method = \"mc\" is 'bootstrap' here\)",
        ),
        (
            [1.0, 2.0, 4.0], {"method": "limit", "n_resamples": 99}, ValueError,
            "`n_resamples` applies to method='bootstrap' only",
        ),
        (
            [1.0, 2.0, 4.0], {"n_resamples": 0}, ValueError,
            "`n_resamples` must be a positive integer, got 0",
        ),
        ([1.0, 2.0, 4.0], {"n_resamples": 9.5}, ValueError, "`n_resamples` must be a whole .*9.5"),
    ],
)
def test_bad_input(x, kwargs, err, match):
    with pytest.raises(err, match=match):
        es.normal_test(x, **kwargs)
    if not kwargs:
        with pytest.raises(err, match=match):
            es.normal_statistic(x)


@pytest.mark.slow
@pytest.mark.parametrize("method,n", [("bootstrap", 20), ("limit", 100)])
def test_level(method, n):
    """Normal data sets (random mean and sd); "bootstrap" with B = 19 (p <= 0.05 exactly when the
    data's statistic is the largest of 20), "limit" at n = 100: rejection rate at 0.05 within
    the binomial interval of false-failure probability 5.2e-5 over COARSE_LEVEL_REPS = 300
    data sets (which catches a true level of 0.15 with probability 0.98, 0.125 with 0.81);
    validation/gof_power.py measures both levels finely (1,000 data sets, B = 199)."""
    rng = np.random.default_rng(60 + n)
    rejections = 0
    for _ in range(COARSE_LEVEL_REPS):
        x = rng.normal(rng.normal(), rng.uniform(0.1, 10), size=n)
        res = (
            es.normal_test(x, n_resamples=19, rng=rng)
            if method == "bootstrap"
            else es.normal_test(x, method="limit")
        )
        rejections += res.pvalue <= 0.05
    low, high = rejection_interval(COARSE_LEVEL_REPS)
    # false failure: P(Binom(300, 0.05) outside [3, 32]) = 5.2e-5 (tests/_calibration.py)
    assert low <= rejections / COARSE_LEVEL_REPS <= high


@pytest.mark.slow
def test_limit_distribution_against_simulated_statistics():
    """20,000 normal samples of n = 1,000: the mean statistic is the trace 3 / (4 sqrt(pi)) =
    0.4231 (R's EVnormal sums to 0.3977) within 4.5 standard errors, and the share of
    statistics above t = 0.4 and 0.8 is the limit's tail probability within 4.5 binomial
    standard errors plus 0.005 for the finite n (three checks: false failure
    3 P(|Z| > 4.5) = 2.0e-5, normal bound)."""
    from energystats._gof.normality import _statistics

    rng = np.random.default_rng(8)
    t = np.concatenate([_statistics(rng.standard_normal((2000, 1000, 1)))[0] for _ in range(10)])
    # false failure: P(|Z| > 4.5) = 6.8e-6
    assert abs(t.mean() - normal_trace()) < 4.5 * t.std() / np.sqrt(t.size)
    for level in (0.4, 0.8):
        p = (t > level).mean()
        # false failure: P(|Z| > 4.5) = 6.8e-6
        assert abs(normal_limit_sf(level) - p) < 4.5 * np.sqrt(p * (1 - p) / t.size) + 0.005


# --- R (live) -------------------------------------------------------------------------------


@pytest.mark.r
@pytest.mark.parametrize("n", [2, 10, 100, 1000])
def test_live_r_normal_e(rng, n):
    from energystats._rbridge import r_call, to_numpy

    for x in (rng.normal(size=n), rng.lognormal(size=n)):
        assert es.normal_statistic(x) == pytest.approx(
            to_numpy(r_call("normal.e", x))[0], rel=1e-10
        )


@pytest.mark.r
def test_live_r_evnormal():
    """Our eigenvalues against R's EVnormal, all four cases: the first 15 to 1e-10; R's table
    then falls below them (its sum is short of the operator's trace by 0.025 in every case)."""
    from energystats._rbridge import _load, to_numpy

    ro, _ = _load()
    table = to_numpy(ro.r("local({data(EVnormal, package = 'energy'); EVnormal})"))
    for case, estimated in CASES.items():
        ours = normal_eigenvalues(estimated)
        np.testing.assert_allclose(ours[:15], table[:15, case], rtol=1e-10)
        assert normal_trace(estimated) - table[:, case].sum() == pytest.approx(0.0255, abs=5e-4)


@pytest.mark.r
def test_live_r_normal_test_mc_pvalue(rng):
    """R's normal.test(x, R = 499) against ours with B = 499: within 4 binomial standard errors
    (different random streams) plus R's missing count."""
    from energystats._rbridge import r_call, r_field, to_numpy

    x = rng.gamma(5.0, size=60)
    theirs = to_numpy(r_field(r_call("normal.test", x, R=499), "p.value"))[0]
    ours = es.normal_test(x, n_resamples=499, rng=1).pvalue
    p = (ours + theirs) / 2
    # false failure: P(|Z| > 4) = 6.3e-5 (normal bound)
    assert abs(ours - theirs) <= 4 * np.sqrt(2 * p * (1 - p) / 500) + 2 / 500
