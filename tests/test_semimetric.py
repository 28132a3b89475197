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


@pytest.mark.parametrize(
    "kwargs,err,match",
    [
        (dict(metric="cityblock"), ValueError, "`metric` must be one of"),
        (dict(exponent=0.0), ValueError, r"`exponent` must lie in \(0, 2\]"),
        (dict(exponent=2.5), ValueError, r"`exponent` must lie in \(0, 2\]"),
        (dict(exponent="1"), TypeError, "`exponent` must be a real number"),
        (dict(metric="gaussian"), ValueError, "`sigma` is required"),
        (dict(metric="gaussian", sigma=-1.0), ValueError, "`sigma` must be a positive"),
        (dict(metric="gaussian", sigma="a"), TypeError, "`sigma` must be a real number"),
        (dict(sigma=1.0), ValueError, "`sigma` applies only to"),
        (dict(metric="exponential", sigma=1.0, exponent=0.5), ValueError, "`exponent` applies only"),
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
        (np.array([[0.0, np.nan], [np.nan, 0.0]]), "contains NaN"),
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
