"""Semimetrics and the kernels they generate (energystats._semimetric)."""

import numpy as np
import pytest
from conftest import brute_rho

import energystats as es

METRICS = [
    ("euclidean", 1.0, None),
    ("euclidean", 0.5, None),
    ("euclidean", 1.5, None),
    ("euclidean", 2.0, None),
    ("exponential", 1.0, 0.7),
    ("gaussian", 1.0, 1.3),
]


@pytest.mark.parametrize("metric,exponent,sigma", METRICS)
def test_pairwise_matches_brute_force(rng, metric, exponent, sigma):
    x, y = rng.normal(size=(7, 3)), rng.normal(size=(5, 3))
    got = es.pairwise_semimetric(x, y, metric=metric, exponent=exponent, sigma=sigma)
    want = brute_rho(x, y, exponent=exponent, metric=metric, sigma=sigma)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


def test_pairwise_callable_and_default_y(rng):
    x = rng.normal(size=(6, 2))

    def manhattan(a, b):
        return np.abs(a[:, None, :] - b[None, :, :]).sum(-1)

    got = es.pairwise_semimetric(x, metric=manhattan)
    np.testing.assert_allclose(got, manhattan(x, x), rtol=1e-15)


def test_callable_returning_wrong_shape_is_rejected(rng):
    x = rng.normal(size=(4, 2))
    with pytest.raises(ValueError, match="`metric` callable must return an array of shape"):
        es.pairwise_semimetric(x, metric=lambda a, b: np.zeros((2, 2)))
    with pytest.raises(ValueError, match="`metric` callable returned NaN"):
        es.pairwise_semimetric(x, metric=lambda a, b: np.full((len(a), len(b)), np.nan))


def test_callable_returning_negative_values_is_rejected_everywhere_it_is_used(rng):
    x = rng.normal(size=(8, 2))
    signed = lambda a, b: a[:, None, 0] - b[None, :, 0]  # noqa: E731 (antisymmetric, negative below the diagonal)
    for call in (
        lambda: es.pairwise_semimetric(x, metric=signed),
        lambda: es.energy_distance(x[:4], x[4:], metric=signed),
        lambda: es.dispersion(x, np.repeat([0, 1], 4), metric=signed),
        lambda: es.KGroups(2, metric=signed, random_state=0).fit(x),
    ):
        with pytest.raises(ValueError, match=r"`metric` callable returned a negative value \(-"):
            call()


@pytest.mark.parametrize(
    "kwargs,err,match",
    [
        (dict(metric="cityblock"), ValueError, "`metric` must be one of"),
        (dict(exponent=0.0), ValueError, r"`exponent` must lie in \(0, 2\]"),
        (dict(exponent=2.5), ValueError, r"`exponent` must lie in \(0, 2\]"),
        (dict(exponent="1"), TypeError, "`exponent` must be a real number"),
        (dict(metric="nearest_neighbors", sigma=1.0), ValueError, "`sigma` applies only to"),
        (dict(n_neighbors=5), ValueError, "`n_neighbors` applies only to"),
        (dict(metric="nearest_neighbors", n_neighbors=0), ValueError,
         "`n_neighbors` must be a positive integer"),
        (dict(metric="nearest_neighbors", n_neighbors=2.5), ValueError,
         "`n_neighbors` must be a positive integer"),
        (dict(metric="nearest_neighbors", exponent=0.5), ValueError, "`exponent` applies only"),
        (dict(metric="gaussian", sigma=-1.0), ValueError, "`sigma` must be a positive"),
        (dict(metric="gaussian", sigma="a"), TypeError, "`sigma` must be a real number"),
        (dict(sigma=1.0), ValueError, "`sigma` applies only to"),
        (
            dict(metric="exponential", sigma=1.0, exponent=0.5), ValueError,
            "`exponent` applies only",
        ),
    ],
)
def test_bad_semimetric_options(kwargs, err, match):
    with pytest.raises(err, match=match):
        es.pairwise_semimetric([[0.0], [1.0]], **kwargs)


def test_pairwise_feature_mismatch():
    with pytest.raises(ValueError, match="`X` and `Y` must have the same number of features"):
        es.pairwise_semimetric(np.zeros((2, 2)), np.zeros((2, 3)))


@pytest.mark.parametrize(
    "D,match",
    [
        (np.zeros((2, 3)), "must be a square distance matrix"),
        (np.array([[0.0, 1.0], [2.0, 0.0]]), "must be symmetric"),
        (np.array([[1.0, 1.0], [1.0, 0.0]]), "must have a zero diagonal"),
        (np.array([[0.0, -1.0], [-1.0, 0.0]]), "must be non-negative"),
        (np.array([[0.0, np.nan], [np.nan, 0.0]]), "contains (NaN|missing values)"),
    ],
)
def test_bad_precomputed_matrix(D, match):
    with pytest.raises(ValueError, match=f"`D` {match}"):
        es.is_negative_type(D)
    with pytest.raises(ValueError, match=f"`X` {match}"):
        es.dispersion(D, [0, 1], metric="precomputed")


@pytest.mark.parametrize("metric,exponent,sigma", METRICS)
def test_kernel_generates_the_semimetric(rng, metric, exponent, sigma):
    X = rng.normal(size=(15, 3))
    w = rng.uniform(0.5, 2.0, size=15)
    D = brute_rho(X, X, exponent=exponent, metric=metric, sigma=sigma)
    for G in (
        es.kernel_matrix(X, metric=metric, exponent=exponent, sigma=sigma),
        es.kernel_matrix(X, metric=metric, exponent=exponent, sigma=sigma, sample_weight=w),
        es.kernel_matrix(X, metric=metric, exponent=exponent, sigma=sigma, x0=np.zeros(3)),
    ):
        diag = np.diag(G)
        np.testing.assert_allclose(diag[:, None] + diag[None, :] - 2 * G, D, atol=1e-12)
        np.testing.assert_array_equal(G, G.T)
    # The centred form is centred at the weighted mean: G p = 0.
    G = es.kernel_matrix(X, metric=metric, exponent=exponent, sigma=sigma, sample_weight=w)
    np.testing.assert_allclose(G @ (w / w.sum()), 0.0, atol=1e-12)


def test_kernel_x0_is_the_papers_eq7(rng):
    X = rng.normal(size=(6, 2))
    x0 = np.array([0.3, -1.0])
    r0 = np.linalg.norm(X - x0, axis=1)
    want = 0.5 * (r0[:, None] + r0[None, :] - brute_rho(X, X))
    np.testing.assert_allclose(es.kernel_matrix(X, x0=x0), want, rtol=1e-13, atol=1e-15)


def test_centred_kernel_keeps_precision_far_from_origin(rng):
    X = rng.normal(size=(40, 2))
    D = brute_rho(X, X, exponent=2.0)
    shifted = X + 1e8  # exact in float64 to ~1e-8
    centred = es.kernel_matrix(shifted, exponent=2.0)
    origin = es.kernel_matrix(shifted, exponent=2.0, x0=np.zeros(2))
    errors = []
    for G in (centred, origin):
        diag = np.diag(G)
        errors.append(np.abs(diag[:, None] + diag[None, :] - 2 * G - D).max())
    # Centred: the error is the input's own rounding (1e8 * 2**-52 ~ 1e-8, times |x - y|).
    assert errors[0] < 1e-6
    # x0 = 0: entries ~1e16, so rho (of order 1) is lost to cancellation.
    assert errors[1] > 1e-2


def test_kernel_matrix_bad_input(rng):
    X = rng.normal(size=(4, 2))
    with pytest.raises(ValueError, match="`x0` must be a single point with 2 coordinates"):
        es.kernel_matrix(X, x0=np.zeros(3))
    with pytest.raises(ValueError, match="`x0` cannot be used with metric='precomputed'"):
        es.kernel_matrix(brute_rho(X, X), metric="precomputed", x0=np.zeros(4))
    with pytest.raises(ValueError, match="`sample_weight` only defines the centre"):
        es.kernel_matrix(X, x0=np.zeros(2), sample_weight=np.ones(4))
    with pytest.raises(ValueError, match="`sample_weight` must be non-negative"):
        es.kernel_matrix(X, sample_weight=-np.ones(4))


@pytest.mark.parametrize("exponent", [0.3, 1.0, 1.7, 2.0])
def test_euclidean_powers_are_of_negative_type(rng, exponent):
    X = rng.normal(size=(25, 4))
    assert es.is_negative_type(es.pairwise_semimetric(X, exponent=exponent))


@pytest.mark.parametrize("metric", ["exponential", "gaussian"])
def test_exponential_and_gaussian_are_of_negative_type(rng, metric):
    X = rng.normal(size=(25, 4))
    assert es.is_negative_type(es.pairwise_semimetric(X, metric=metric, sigma=0.8))


def test_cube_of_distance_is_not_of_negative_type(rng):
    X = rng.normal(size=(25, 2))
    assert not es.is_negative_type(es.pairwise_semimetric(X) ** 3)


def test_is_negative_type_bad_tol():
    with pytest.raises(ValueError, match="`tol` must be a non-negative number"):
        es.is_negative_type(np.zeros((2, 2)), tol=-1.0)


# --- numeric range: exact power-of-two rescaling, never a silent inf, NaN or 0 -----------

#: scales near both ends of float64, powers of two and not
SCALES = [1e-300, 2.0**-990, 1e300, 2.0**1000]


@pytest.mark.parametrize("c", SCALES)
@pytest.mark.parametrize("exponent", [1.0, 0.5])
def test_statistics_are_homogeneous_across_the_range(rng, c, exponent):
    x, y = rng.normal(size=(12, 3)), rng.normal(0.5, 1.0, size=(15, 3))
    f = c**exponent
    assert es.energy_distance(x * c, y * c, exponent=exponent) == pytest.approx(
        f * es.energy_distance(x, y, exponent=exponent), rel=1e-12
    )
    X, labels = np.vstack([x, y]), np.repeat([0, 1], [12, 15])
    a, b = (
        es.dispersion(X * c, labels, exponent=exponent),
        es.dispersion(X, labels, exponent=exponent),
    )
    for field in ("W", "S", "T"):
        assert getattr(a, field) == pytest.approx(f * getattr(b, field), rel=1e-12)
    assert a.F == pytest.approx(b.F, rel=1e-12)
    np.testing.assert_allclose(a.pairwise, f * b.pairwise, rtol=1e-12)
    t, u = (
        es.energy_test(X * c, labels, exponent=exponent, n_resamples=99, rng=1),
        es.energy_test(X, labels, exponent=exponent, n_resamples=99, rng=1),
    )
    assert t.pvalue == u.pvalue and t.statistic == pytest.approx(f * u.statistic, rel=1e-12)
    np.testing.assert_allclose(t.null_distribution, f * u.null_distribution, rtol=1e-11)
    np.testing.assert_allclose(
        es.pairwise_semimetric(x * c, y * c, exponent=exponent),
        f * es.pairwise_semimetric(x, y, exponent=exponent), rtol=1e-12,
    )
    np.testing.assert_allclose(
        es.kernel_matrix(x * c, exponent=exponent), f * es.kernel_matrix(x, exponent=exponent),
        rtol=1e-10, atol=1e-12 * f,
    )


@pytest.mark.parametrize("c", SCALES)
def test_estimators_and_the_splitter_across_the_range(rng, c):
    X = np.r_[rng.normal(0, 1, (30, 2)), rng.normal(0, 1, (30, 2)) + [4.0, 0.0]]
    km, ref = es.KGroups(2, random_state=0).fit(X * c), es.KGroups(2, random_state=0).fit(X)
    np.testing.assert_array_equal(km.labels_, ref.labels_)
    assert (
        km.W_ == pytest.approx(c * ref.W_, rel=1e-12)
        and km.objective_ == pytest.approx(c * ref.objective_, rel=1e-12)
    )
    np.testing.assert_array_equal(km.predict(X[:7] * c), ref.predict(X[:7]))
    pkm, pref = (
        es.PowerKMeans(2, random_state=0).fit(X * c),
        es.PowerKMeans(2, random_state=0).fit(X),
    )
    np.testing.assert_array_equal(pkm.labels_, pref.labels_)
    np.testing.assert_allclose(pkm.cluster_centers_, c * pref.cluster_centers_, rtol=1e-12)
    np.testing.assert_array_equal(pkm.predict(X * c), pref.predict(X))
    if c > 1:  # the k-means objective is quadratic: about 1e600
        with pytest.raises(OverflowError, match="inertia_ is about 2\\^2.*beyond float64"):
            pkm.inertia_
    else:
        with pytest.raises(
            ValueError, match="inertia_ is about 2\\^-1.*below float64's smallest number"
        ):
            pkm.inertia_
    split, sref = es.split_1d(X[:, 0] * c), es.split_1d(X[:, 0])
    np.testing.assert_array_equal(split.labels, sref.labels)
    assert (
        split.threshold == pytest.approx(c * sref.threshold, rel=1e-12)
        and split.W == pytest.approx(c * sref.W, rel=1e-12)
    )
    ct, cref = (
        es.cluster_test(X * c, 2, n_resamples=9, rng=0),
        es.cluster_test(X, 2, n_resamples=9, rng=0),
    )
    assert ct.pvalue == cref.pvalue and ct.statistic == pytest.approx(cref.statistic, rel=1e-9)


def test_bounded_semimetrics_scale_with_sigma(rng):
    x, y = rng.normal(size=(10, 2)), rng.normal(size=(11, 2))
    for metric in ("exponential", "gaussian"):
        for c in (1e-300, 1e300):
            assert es.energy_distance(x * c, y * c, metric=metric, sigma=0.7 * c) == pytest.approx(
                es.energy_distance(x, y, metric=metric, sigma=0.7), rel=1e-12
            )


def test_results_that_float64_cannot_hold_raise_instead_of_inf_or_zero(rng):
    x, y = rng.normal(size=(10, 2)), rng.normal(size=(10, 2))
    # exponent 1: the examples, now exact
    assert es.energy_distance(x * 1e200, y * 1e200) == pytest.approx(
        1e200 * es.energy_distance(x, y), rel=1e-12
    )
    assert es.energy_distance(x * 1e-200, y * 1e-200) == pytest.approx(
        1e-200 * es.energy_distance(x, y), rel=1e-12
    )
    with pytest.raises(OverflowError, match=r"the energy distance is about 2\^\d+, beyond float64"):
        es.energy_distance(x * 1e300, y * 1e300, exponent=2.0)
    with pytest.raises(
        ValueError, match=r"the energy distance is about 2\^-\d+, below float64's smallest number"
    ):
        es.energy_distance(x * 1e-300, y * 1e-300, exponent=2.0)
    with pytest.raises(OverflowError, match="W is about"):
        es.dispersion(np.r_[x, y] * 1e300, np.repeat([0, 1], 10), exponent=2.0)
    with pytest.raises(OverflowError, match="the statistic is about"):
        es.energy_test(np.r_[x, y] * 1e300, np.repeat([0, 1], 10), exponent=2.0, n_resamples=9)
    km = es.KGroups(2, exponent=2.0, random_state=0).fit(np.r_[x, y] * 1e300)
    assert np.bincount(km.labels_).sum() == 20  # the clustering itself is fine
    with pytest.raises(OverflowError, match="W_ is about"):
        km.W_
    # a true zero stays 0
    assert es.dispersion(np.r_[x, x] * 1e-300, np.repeat([0, 1], 10)).S == 0.0
