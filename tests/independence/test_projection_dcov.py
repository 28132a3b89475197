"""Randomly projected distance covariance (energystats._independence.projection)."""

import numpy as np
import pytest
from _calibration import COARSE_LEVEL_REPS, rejection_interval

import energystats as es
from energystats._resample import permutations
from energystats._scale.projection import random_directions, sphere_constant


def test_statistic_is_the_average_of_one_dimensional_ones(rng):
    x, y = rng.normal(size=(40, 3)), rng.normal(size=(40, 2))
    y[:, 0] += np.abs(x[:, 1])
    got = es.dcov(x, y, approximation="projection", n_projections=7, rng=3)
    gen = np.random.default_rng(3)
    Ux, Uy = random_directions(7, 3, gen), random_directions(7, 2, gen)
    want = (
        sphere_constant(3)
        * sphere_constant(2)
        * np.mean([es.dcov(x @ u, y @ v) ** 2 for u, v in zip(Ux, Uy)])
    )
    assert got**2 == pytest.approx(want, rel=1e-12)
    u = es.dcov(x, y, estimator="U", approximation="projection", n_projections=7, rng=3)
    want_u = (
        sphere_constant(3)
        * sphere_constant(2)
        * np.mean([es.dcov(x @ a, y @ b, estimator="U") for a, b in zip(Ux, Uy)])
    )
    assert u == pytest.approx(want_u, rel=1e-11)


@pytest.mark.slow
def test_unbiased_over_directions_and_converging_at_the_monte_carlo_rate(rng):
    """Over 100 draws of the directions the mean is the exact U-statistic (4.1 standard
    errors); the root mean squared error falls as 1/sqrt(K) (9 times the directions: about 3
    times smaller, between 2 and 4.5). A wrong sphere constant or directions that are not
    independent fail it; validation/approximations.py measures the bias over 500 draws."""
    x = rng.normal(size=(100, 4))
    y = np.c_[x[:, 0] ** 2 + rng.normal(size=100), rng.normal(size=(100, 2))]
    exact = es.dcov(x, y, estimator="U")
    errors = {}
    for K in (4, 36):
        draws = np.array([es.dcov(x, y, estimator="U", approximation="projection", n_projections=K,
                                  rng=s) for s in range(100)])
        errors[K] = np.sqrt(np.mean((draws - exact) ** 2))
        if K == 4:
            # false failure: P(|t_99| > 4.1) = 8.5e-5
            assert abs(draws.mean() - exact) < 4.1 * draws.std() / np.sqrt(draws.size)
    # false failure: 3.5e-5 (normal bound: over 2,000 draws the ratio is 3.06 and the log of
    # the ratio of 100 has standard deviation 0.096 by the delta method, so 2 and 4.5 are
    # 4.4 and 4.0 of them away: 4.9e-6 + 3.0e-5)
    assert 2 < errors[4] / errors[36] < 4.5


def test_correlation_and_tests(rng):
    x = rng.normal(size=(80, 3))
    y = np.abs(x[:, :1]) + 0.2 * rng.normal(size=(80, 1))
    stats = es.dcov_stats(x, y, approximation="projection", n_projections=30, rng=1)
    assert 0 <= stats.dcor2 <= 1 and np.sqrt(stats.dcor2) == pytest.approx(es.dcor(x, y), abs=0.15)
    for method in ("permutation", "gamma"):  # 50 directions: near the exact test's power (docs)
        res = es.dcov_test(
            x, y, approximation="projection", n_projections=50, method=method, n_resamples=99, rng=2
        )
        # deterministic: fixed seeds; p = 0.01 (the smallest of B = 99) and 0.0047
        assert res.pvalue <= 0.05, method
    # the permutation null is the projected statistic of each permutation
    res = es.dcov_test(x, y, approximation="projection", n_projections=5, n_resamples=9, rng=4)
    gen = np.random.default_rng(4)
    gen.spawn(1)
    block = np.vstack([np.arange(80), permutations(gen, 80, 9)])
    sub = np.random.default_rng(4).spawn(1)[0]
    Ux, Uy = random_directions(5, 3, sub), random_directions(5, 1, sub)
    c = sphere_constant(3) * sphere_constant(1)
    want = [
        80 * c * np.mean([es.dcov(x @ u, y[p] @ v) ** 2 for u, v in zip(Ux, Uy)]) for p in block
    ]
    assert res.statistic == pytest.approx(want[0], rel=1e-10)
    np.testing.assert_allclose(res.null_distribution, want[1:], rtol=1e-9)


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        (dict(n_projections=0), ValueError, r"`n_projections` must be an integer >= 1"),
        (dict(n_projections=2.5), TypeError, r"`n_projections` must be an integer"),
        (
            dict(exponent=0.5), ValueError,
            r"`approximation`='projection' estimates Euclidean distances",
        ),
        (
            dict(approximation="nystroem"), ValueError,
            r"`approximation` must be None or 'projection'",
        ),
    ],
)
def test_bad_input(kwargs, error, match):
    options = dict(approximation="projection") | kwargs
    with pytest.raises(error, match=match):
        es.dcov(np.arange(10.0), np.arange(10.0) ** 2, **options)


def test_categorical_data_cannot_be_projected():
    with pytest.raises(ValueError, match=r"needs numeric data with metric='euclidean'"):
        es.dcov_test(list("abababab"), np.arange(8.0), approximation="projection", method="gamma")


@pytest.mark.slow
def test_projection_gamma_keeps_its_level_under_heavy_tails():
    """Independent t(3) samples in d = 5 and 3, n = 100, K = 8: the rejection rate at 0.05 in
    the binomial interval of false-failure probability 5.2e-5 over 300 data sets
    (COARSE_LEVEL_REPS: it catches a true level of 0.15 with probability 0.98, 0.125 with
    0.81). validation/independence_gamma.py measures the level finely, at larger n and K."""
    gen = np.random.default_rng(33)
    rejections = sum(
        es.dcov_test(
            gen.standard_t(3, size=(100, 5)), gen.standard_t(3, size=(100, 3)),
            approximation="projection", n_projections=8, method="gamma", rng=gen,
        ).pvalue
        <= 0.05
        for _ in range(COARSE_LEVEL_REPS)
    )
    lo, hi = rejection_interval(COARSE_LEVEL_REPS)
    # false failure: P(Binom(300, 0.05) outside [3, 32]) = 5.2e-5 (tests/_calibration.py)
    assert lo <= rejections / COARSE_LEVEL_REPS <= hi
