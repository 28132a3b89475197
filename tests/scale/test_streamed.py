"""The semimetric matrix held or streamed (energystats._scale.pairwise, Streamed): the same
numbers to rounding for every operation the statistics use, and no n x n array held when
streamed."""

import tracemalloc

import numpy as np
import pytest
from conftest import brute_rho

import energystats as es
from energystats._scale import Streamed, pairwise, upper_product
from energystats._semimetric import resolve_semimetric

METRICS = [
    ("euclidean", 1.0, None),
    ("euclidean", 0.5, None),
    ("euclidean", 2.0, None),
    ("exponential", 1.0, 0.7),
    ("gaussian", 1.0, 1.3),
]
#: MiB small enough that the matrices of these tests do not fit: tiles of 16 to 32 rows
TINY = 0.02


@pytest.mark.parametrize("metric,exponent,sigma", METRICS)
def test_streamed_matrix_equals_the_dense_one(rng, metric, exponent, sigma):
    """D @ Z, the upper-triangle product, row sums and rows of the streamed matrix (several
    bands of tiles) equal those of the brute-force matrix; the weighted block sums of França,
    Rizzo & Vogelstein (2020), eq. (13), from the upper triangle too."""
    n = 70
    X = rng.normal(size=(n, 3))
    sm = resolve_semimetric(metric, exponent, sigma)
    D = brute_rho(X, X, exponent=exponent, metric=metric, sigma=sigma)
    np.testing.assert_allclose(pairwise(X, sm), D, rtol=1e-13, atol=1e-15)  # held
    with es.config_context(working_memory=TINY):
        S = pairwise(X, sm)
        assert isinstance(S, Streamed) and S.shape == (n, n)
        scale = np.abs(D).sum()
        Z = rng.normal(size=(n, 4))
        np.testing.assert_allclose(S @ Z, D @ Z, rtol=1e-12, atol=1e-13 * scale)
        np.testing.assert_allclose(S @ Z[:, 0], D @ Z[:, 0], rtol=1e-12, atol=1e-13 * scale)
        np.testing.assert_allclose(upper_product(S, Z), np.triu(D, 1) @ Z, rtol=1e-12,
                                   atol=1e-13 * scale)
        np.testing.assert_allclose(S.sum(axis=1), D.sum(axis=1), rtol=1e-12)
        assert S.sum() == pytest.approx(D.sum(), rel=1e-12)
        np.testing.assert_allclose(S[5], D[5], rtol=1e-13, atol=1e-15)
        rows = np.array([0, n - 1, 7])
        np.testing.assert_allclose(S[rows], D[rows], rtol=1e-13, atol=1e-15)
        codes, w = rng.integers(0, 3, size=n), rng.uniform(0.0, 5.0, size=n)
        W = w[:, None] * np.eye(3)[codes]
        Y = W.T @ upper_product(S, W)
        np.testing.assert_allclose(Y + Y.T, W.T @ D @ W, rtol=1e-11, atol=1e-12 * scale)
    # the same numbers whatever the tiles: the product of a budget with one band of tiles
    np.testing.assert_allclose(Streamed(X, sm) @ Z, S @ Z, rtol=1e-13, atol=1e-14 * scale)


def test_the_held_upper_product_is_the_strict_upper_triangle(rng):
    """The dense path (BLAS dtrmm) reads the upper triangle only (D's diagonal is 0)."""
    D = rng.normal(size=(30, 30))
    np.fill_diagonal(D, 0.0)
    Z = rng.normal(size=(30, 2))
    np.testing.assert_allclose(upper_product(D, Z), np.triu(D, 1) @ Z, rtol=1e-12, atol=1e-13)


def own_peak(run):
    """Peak bytes that ``run()`` allocates beyond what the process held when it started
    (tracemalloc with its peak reset: the call's own allocations, whether or not something
    else in the process traces already)."""
    tracing = tracemalloc.is_tracing()
    if not tracing:
        tracemalloc.start()
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    try:
        result = run()
        return result, tracemalloc.get_traced_memory()[1] - before
    finally:
        if not tracing:
            tracemalloc.stop()


def test_streamed_paths_hold_no_n_by_n_array():
    """tracemalloc peak far below the 8 n^2 = 122 MiB of one matrix at n = 4,000."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4000, 3))
    full = 8 * 4000**2
    with es.config_context(working_memory=16):
        _, peak = own_peak(lambda: es.KGroups(2, n_init=1, random_state=0).fit(X))
        assert peak < 20 * 2**20 < full / 6
