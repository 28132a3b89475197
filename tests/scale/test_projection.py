"""Random projections (energystats._scale.projection): the directions, the constant C_d, the
average over directions, and the projected statistics of the homogeneity family (unbiased,
exact level, reproducible, within the memory budget)."""

import tracemalloc

import numpy as np
import pytest

import energystats as es
from energystats._scale import line
from energystats._scale.projection import average, random_directions, sphere_constant


def test_sphere_constant_closed_form_and_monte_carlo():
    """Closed forms for d = 1, 2, 3; ||x|| = C_d E|u'x| over 10,000 directions: 4.5 standard
    errors are at most 3.4% of ||x||, and a constant with a Gamma function's argument off by
    one half is 27% off at d = 2 and 10% at d = 5 (and the directions' norms checked)."""
    assert sphere_constant(1) == pytest.approx(1.0, rel=1e-14)
    assert sphere_constant(2) == pytest.approx(np.pi / 2, rel=1e-14)
    assert sphere_constant(3) == pytest.approx(2.0, rel=1e-14)
    for d in (2, 5, 10, 50):
        U = random_directions(10_000, d, np.random.default_rng(d))
        np.testing.assert_allclose(np.linalg.norm(U, axis=1), 1.0, rtol=1e-12)
        x = np.random.default_rng(100 + d).normal(size=d)
        a = np.abs(U @ x)  # ||x|| = C_d E|u'x|
        # false failure: 4 P(|Z| > 4.5) = 2.7e-5 over the four d (normal bound; here |z| <= 0.66)
        assert sphere_constant(d) * a.mean() == pytest.approx(
            np.linalg.norm(x), abs=4.5 * sphere_constant(d) * a.std() / np.sqrt(a.size)
        )


def test_directions_come_in_orthonormal_blocks(rng):
    U = random_directions(7, 3, rng)
    assert U.shape == (7, 3)
    for block in (U[:3], U[3:6]):
        np.testing.assert_allclose(block @ block.T, np.eye(3), atol=1e-14)


def test_average_is_the_statistic_of_the_projected_distance(rng):
    """The block sums averaged over directions are those of D_hat = C_d / L sum_l |u_l'(x - y)|,
    which is of negative type; with joblib tasks the same numbers (added in the directions'
    order; to rounding, as the workers' arrays are aligned otherwise for SIMD sums)."""
    X = rng.normal(size=(40, 4))
    U = random_directions(7, 4, rng)
    P = X @ U.T
    D_hat = sphere_constant(4) / 7 * np.abs(P[:, None, :] - P[None, :, :]).sum(axis=2)
    labelings = rng.integers(0, 3, size=(5, 40))

    def sums(y):
        return line.block_sums(line.sort(y), labelings, 3)

    C, zr, total = average(sums, [(X, U)])
    for b in range(5):
        Z = (labelings[b][:, None] == np.arange(3)).astype(float)
        np.testing.assert_allclose(C[b], Z.T @ D_hat @ Z, rtol=1e-11)
        np.testing.assert_allclose(zr[b], Z.T @ D_hat.sum(axis=1), rtol=1e-11)
    assert total == pytest.approx(D_hat.sum(), rel=1e-12)
    assert es.is_negative_type(D_hat)
    for a, b in zip(average(sums, [(X, U)], n_jobs=2), (C, zr, total)):
        np.testing.assert_allclose(a, b, rtol=1e-14)


def test_projection_statistics_are_unbiased(rng):
    """Their mean over 300 draws of the directions is the exact statistic (4.5 standard errors:
    a bias of 6 is caught with probability 0.93)."""
    X = rng.normal(size=(80, 6))
    labels = np.repeat([0, 1, 2], [30, 25, 25])
    X[labels == 2] += 0.4
    exact_e = es.energy_distance(X[:30], X[30:])
    exact = es.dispersion(X, labels)
    draws = [es.dispersion(X, labels, approximation="projection", n_projections=5, rng=s)
             for s in range(300)]
    e_draws = [es.energy_distance(X[:30], X[30:], approximation="projection", n_projections=5,
                                  rng=s) for s in range(300)]
    for value, sample in (
        (exact_e, e_draws), (exact.S, [d.S for d in draws]), (exact.W, [d.W for d in draws]),
    ):
        # false failure: 3 P(|t_299| > 4.5) = 2.9e-5 over the three statistics (here |z| <= 1.7)
        assert np.mean(sample) == pytest.approx(
            value, abs=4.5 * np.std(sample) / np.sqrt(len(sample)))
    for d in draws[:20]:
        assert d.S + d.W == pytest.approx(d.T, rel=1e-12)


def test_projection_test_is_reproducible_and_uses_the_exact_tests_relabelings(rng):
    X = rng.normal(size=(60, 3))
    labels = np.arange(60) % 2
    kw = dict(n_resamples=49, approximation="projection", n_projections=20)
    a, b = (es.energy_test(X, labels, rng=3, **kw) for _ in range(2))
    np.testing.assert_array_equal(a.null_distribution, b.null_distribution)
    assert a.pvalue == b.pvalue and a.approximation == "projection" and a.n_projections == 20
    assert "distance estimated from 20 random projections" in repr(a)
    assert es.energy_test(X, labels, rng=4, **kw).statistic != a.statistic  # other directions
    # with one dimension the projection is exact: the same null as the exact test
    x = X[:, :1]
    np.testing.assert_allclose(
        es.energy_test(x, labels, rng=3, n_resamples=49, approximation="projection",
                       n_projections=3).null_distribution,
        es.energy_test(x, labels, rng=3, n_resamples=49).null_distribution, rtol=1e-10)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(exponent=0.5), "needs numeric data with metric='euclidean' and exponent=1"),
        (dict(metric="gaussian", sigma=1.0),
         "needs numeric data with metric='euclidean' and exponent=1"),
        (dict(approximation="nystroem"), "`approximation` must be None or 'projection'"),
        (dict(n_projections=0), "`n_projections` must be an integer >= 1"),
    ],
)
def test_bad_projection_arguments(rng, kwargs, match):
    X = rng.normal(size=(20, 2))
    labels = np.arange(20) % 2
    kwargs = {"approximation": "projection", **kwargs}
    with pytest.raises(ValueError, match=match):
        es.energy_test(X, labels, **kwargs)
    with pytest.raises(ValueError, match=match):
        es.dispersion(X, labels, **kwargs)
    with pytest.raises(ValueError, match=match):
        es.energy_distance(X[:10], X[10:], **kwargs)


def test_projection_test_stays_within_the_budget():
    """n = 100,000 (the matrix would need 75 GiB): 8 MiB hold a projection's sort and blocks of
    relabelings, and 7 MiB (one relabeling a block) and 64 MiB (one block) give the same
    p-value; 0.5 MiB, less than one relabeling's work, is refused before any work."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100_000, 3))
    labels = rng.integers(0, 2, size=100_000)

    def run():
        return es.energy_test(X, labels, n_resamples=19, rng=0, approximation="projection",
                              n_projections=4)

    tracemalloc.start()
    try:
        with es.config_context(working_memory=8):
            res = run()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 2**20
    for memory in (7, 64):
        with es.config_context(working_memory=memory):
            assert run().pvalue == res.pvalue
    with (es.config_context(working_memory=0.5),
          pytest.raises(es.WorkingMemoryError,
                        match=r"energy_test \(n = 100000, k = 2\) \(one relabeling\)")):
        run()


@pytest.mark.slow
def test_projection_test_keeps_its_level_under_heavy_tails():
    """Data sets of t(3) in d = 8 under H0: rejections at 0.05 within the binomial interval
    of false-failure probability 5.2e-5, over 300 data sets (COARSE_LEVEL_REPS: the interval
    then catches a true level of 0.15 with probability 0.98, 0.125 with 0.81); B = 19, so
    that p <= 0.05 exactly when no relabeling reaches the observed statistic."""
    from _calibration import COARSE_LEVEL_REPS, rejection_interval

    rejections = 0
    for seed in range(COARSE_LEVEL_REPS):
        g = np.random.default_rng(seed)
        X = g.standard_t(3, size=(80, 8))
        res = es.energy_test(X, np.arange(80) % 2, n_resamples=19, rng=g,
                             approximation="projection", n_projections=25)
        rejections += res.pvalue <= 0.05
    lo, hi = rejection_interval(COARSE_LEVEL_REPS)
    # false failure: P(Binom(300, 0.05) outside [3, 32]) = 5.2e-5 (tests/_calibration.py)
    assert lo <= rejections / COARSE_LEVEL_REPS <= hi
