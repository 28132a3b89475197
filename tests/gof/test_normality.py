"""mvnorm_statistic and mvnorm_test: the closed form against integration and brute force,
affine invariance, level under Gaussian data, power, and bad input.

R parity: the committed values in test_r_reference.py, the live R calls here (marked r)."""

import numpy as np
import pytest
from _calibration import LEVEL_REPS, rejection_interval
from scipy import integrate
from scipy.spatial.distance import pdist
from scipy.special import ellipe, gammaln, hyp1f1

import energystats as es
from energystats import _resample
from energystats._gof.normality import _mean_distance_to_gaussian
from energystats._linalg import standardise as _standardise


@pytest.mark.parametrize("r", [0.0, 0.7, 2.5, 6.0])
def test_mean_distance_to_a_gaussian_in_two_dimensions_by_integration(r):
    """E||a - Z|| for Z ~ N(0, I_2), |a| = r, by quadrature over the radius rho of Z: the
    mean over the angle of |a - Z| is (2 / pi) (rho + r) E(4 rho r / (rho + r)^2), E the
    complete elliptic integral of the second kind."""

    def integrand(rho):
        around = (
            2 / np.pi * (rho + r) * ellipe(4 * rho * r / (rho + r) ** 2) if rho + r > 0 else 0.0
        )
        return around * rho * np.exp(-rho * rho / 2)

    value, _ = integrate.quad(
        integrand, 0, 40, points=[r] if r > 0 else None, epsabs=1e-13, epsrel=1e-13, limit=200
    )
    np.testing.assert_allclose(
        _mean_distance_to_gaussian(np.array([[r, 0.0]]))[0], value, rtol=1e-10
    )


@pytest.mark.parametrize("d", [50, 64, 99])
def test_poisson_mixture_is_the_hypergeometric_form(d):
    """From d = 50 E||y - Z|| is summed as a Poisson mixture of chi means (scipy's hyp1f1
    overflows from d = 100): the two agree where hyp1f1 is finite, at every radius."""
    from energystats._gof import normality

    radii = np.array([0.0, 0.01, 0.5, 1.0, 1.3, 2.0])[:, None]
    Y = np.random.default_rng(d).normal(size=(6, d)) * radii
    r2 = np.einsum("ij,ij->i", Y, Y)
    ratio = np.exp(gammaln((d + 1) / 2) - gammaln(d / 2))
    hypergeometric = np.sqrt(2.0) * ratio * hyp1f1(-0.5, d / 2, -r2 / 2)
    assert d >= normality.MIXTURE_FROM
    np.testing.assert_allclose(_mean_distance_to_gaussian(Y), hypergeometric, rtol=1e-13)


def test_many_dimensions_are_finite():
    """n = 500 x 100 gave inf (issue 42, item 1); R's mvnorm.e at d = 100, 300, 1,000 is
    compared in tests/test_r_reference_gof.py."""
    X = np.random.default_rng(0).normal(size=(500, 100))
    assert np.isfinite(es.mvnorm_statistic(X))
    assert es.mvnorm_test(X, n_resamples=9, rng=0).pvalue > 0


def test_one_dimensional_form_is_the_general_form():
    """2 y Phi(y) + 2 phi(y) - y (d = 1) equals sqrt(2/pi) 1F1(-1/2; 1/2; -y^2/2)."""
    from scipy.special import hyp1f1

    y = np.linspace(-8, 8, 33)
    general = np.sqrt(2 / np.pi) * hyp1f1(-0.5, 0.5, -y * y / 2)
    np.testing.assert_allclose(_mean_distance_to_gaussian(y[:, None]), general, rtol=1e-12)


@pytest.mark.parametrize("d", [1, 2, 5])
def test_statistic_by_brute_force(d):
    """n E_n with E||y - Z|| and E||Z - Z'|| by Monte Carlo (10^6 draws each): equal within
    four Monte Carlo standard errors; the pairwise term by pdist."""
    rng = np.random.default_rng(d)
    n, draws = 30, 10**6
    X = rng.normal(size=(n, d)) ** 3 if d > 1 else rng.exponential(size=(n, 1))
    Y = _standardise(X)
    Z, Z2, Z3 = (rng.standard_normal((draws, d)) for _ in range(3))
    # per draw: 2 mean_j ||y_j - Z|| - ||Z2 - Z3||, whose mean is the first two terms
    h = 2 * np.mean([np.linalg.norm(Z - y, axis=1) for y in Y], axis=0) - np.linalg.norm(
        Z2 - Z3, axis=1
    )
    within = 2 * pdist(Y).sum() / n**2
    brute, se = n * (h.mean() - within), n * h.std() / np.sqrt(draws)
    # false failure: P(|Z| > 4) = 6.3e-5 (normal bound)
    assert abs(es.mvnorm_statistic(X) - brute) <= 4 * se
    np.testing.assert_allclose(Y.T @ Y / (n - 1), np.eye(d), atol=1e-12)


@pytest.mark.parametrize("d", [1, 3])
def test_statistic_and_its_tie_scale_by_brute_force(d):
    """_statistics gives n (2 m - b - p) and the size of the sums it is a difference of,
    n (2 m + b + p), the scale of the p-value's tie rule: m the mean E||y_j - Z||, b = E||Z -
    Z'||, p the mean of the n^2 distances, here from pdist on the standardised sample."""
    from energystats._gof.normality import _between, _statistics

    X = np.random.default_rng(d).exponential(size=(25, d))
    Y = _standardise(X)
    m, b, p = _mean_distance_to_gaussian(Y).mean(), _between(d), 2 * pdist(Y).sum() / 25**2
    t, scale = _statistics(X[None])
    assert t[0] == pytest.approx(25 * (2 * m - b - p), rel=1e-12)
    assert scale[0] == pytest.approx(25 * (2 * m + b + p), rel=1e-12)


def test_affine_invariance():
    rng = np.random.default_rng(0)
    X = rng.standard_t(4, size=(40, 3))
    A = rng.normal(size=(3, 3))
    np.testing.assert_allclose(
        es.mvnorm_statistic(X @ A.T + [5.0, -1e3, 2.0]), es.mvnorm_statistic(X), rtol=1e-10
    )


def test_test_is_deterministic_and_p_value_is_never_zero():
    X = np.random.default_rng(1).exponential(size=(60, 2))
    a = es.mvnorm_test(X, n_resamples=49, rng=3)
    b = es.mvnorm_test(X, n_resamples=49, rng=3)
    np.testing.assert_array_equal(a.null_distribution, b.null_distribution)
    assert a.pvalue == 1 / 50 and a.statistic == es.mvnorm_statistic(X)
    assert "multivariate normality" in repr(a)


@pytest.mark.parametrize("n,d", [(12, 1), (40, 3), (100, 2), (101, 2), (300, 4)])
def test_null_is_the_statistic_of_each_gaussian_sample(n, d, monkeypatch):
    """The bootstrap's values, evaluated a block of samples at a time, are mvnorm_statistic's
    of each sample drawn from the same seed, bit for bit, whatever the blocks (here of 3
    samples); with the n x n matrix streamed (a working memory too small to hold it) the
    pair sums are added in another order: the same values to rounding, the same p-value."""
    X = np.random.default_rng(n).exponential(size=(n, d))
    res = es.mvnorm_test(X, n_resamples=199, rng=5)
    samples = np.random.default_rng(5).standard_normal((199, n, d))
    np.testing.assert_array_equal(res.null_distribution, [es.mvnorm_statistic(s) for s in samples])
    with monkeypatch.context() as m:
        m.setattr(_resample, "BLOCK_BYTES", 3 * 64 * n * d)
        blocked = es.mvnorm_test(X, n_resamples=199, rng=5)
    np.testing.assert_array_equal(blocked.null_distribution, res.null_distribution)
    if d == 1:  # the sorted path: no matrix
        return
    with es.config_context(working_memory=8 * n * n / 2**20 / 2):  # streamed
        streamed = es.mvnorm_test(X, n_resamples=199, rng=5)
    # n E_n = n (2 m - b - p) with m, b, p near 1: rounding of n times their size
    np.testing.assert_allclose(streamed.null_distribution, res.null_distribution, rtol=0,
                               atol=8 * n * np.finfo(float).eps)
    assert streamed.statistic == pytest.approx(res.statistic, rel=1e-13, abs=1e-13)
    assert streamed.pvalue == res.pvalue


@pytest.mark.parametrize(
    "X,kwargs,match",
    [
        (np.zeros((3, 2)), {}, r"more samples than features \+ 1"),
        (np.c_[np.arange(10.0), np.arange(10.0)], {}, "singular"),
        ([[1.0, np.inf]] * 5, {}, "infinite"),
        (np.random.default_rng(0).normal(size=(10, 2)), {"n_resamples": 0}, "`n_resamples`"),
    ],
)
def test_bad_input(X, kwargs, match):
    with pytest.raises(ValueError, match=match):
        es.mvnorm_test(X, **kwargs)


@pytest.mark.slow
@pytest.mark.parametrize("d", [1, 3])
def test_level_under_gaussian_data(d):
    """Gaussian data sets (random mean and covariance), B = 19 (p <= 0.05 exactly when the
    data's statistic is the largest of 20): rejection rate at 0.05 within the binomial
    interval of false-failure probability 8.2e-5, over 700 data sets (LEVEL_REPS: it then
    catches a true level of 0.10 with probability 0.91)."""
    rng = np.random.default_rng(30 + d)
    reps = LEVEL_REPS
    rejections = 0
    for _ in range(reps):
        X = rng.normal(size=(40, d)) @ rng.normal(size=(d, d)) + rng.normal(size=d)
        rejections += es.mvnorm_test(X, n_resamples=19, rng=rng).pvalue <= 0.05
    low, high = rejection_interval(reps)
    # false failure: P(Binom(700, 0.05) outside [15, 59]) = 8.2e-5 (tests/_calibration.py)
    assert low <= rejections / reps <= high


@pytest.mark.slow
@pytest.mark.parametrize("alternative,least", [("t3", 30), ("mixture", 32)])
def test_power(alternative, least):
    """n = 100, d = 2: t with 3 degrees of freedom; two Gaussian components 4 apart (30%/70%).

    A pilot (other seeds) rejected 952 of 1,000 t3 data sets and 995 of 1,000 mixtures: 99%
    lower confidence bounds 0.934 and 0.987 on the power. The least number of rejections of
    40 has false-failure probability below 1e-4 there (the old 32 for t3: 9.5e-5 at the
    pilot's 0.952 itself, 1e-3 at its bound); a test with power 0.5 passes with probability
    1e-3 (t3)."""
    rng = np.random.default_rng(40)
    rejections = 0
    for _ in range(40):
        if alternative == "t3":
            X = rng.standard_t(3, size=(100, 2))
        else:
            X = rng.normal(size=(100, 2))
            X[:30, 0] += 4.0
        rejections += es.mvnorm_test(X, n_resamples=99, rng=rng).pvalue <= 0.05
    # false failure: P(Binom(40, 0.934) < 30) = 4.0e-5 (t3); P(Binom(40, 0.987) < 32) = 2e-9
    assert rejections >= least


@pytest.mark.r
@pytest.mark.parametrize("d", [1, 2, 5, 10])
@pytest.mark.parametrize("family", ["gaussian", "lognormal"])
def test_live_r_mvnorm_e(d, family):
    from energystats._rbridge import r_call, r_matrix, to_numpy

    rng = np.random.default_rng(d)
    X = rng.normal(size=(60, d)) if family == "gaussian" else rng.lognormal(size=(60, d))
    np.testing.assert_allclose(
        es.mvnorm_statistic(X), to_numpy(r_call("mvnorm.e", r_matrix(X)))[0], rtol=1e-10
    )
