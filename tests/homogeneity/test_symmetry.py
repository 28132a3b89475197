"""symmetry_test (Székely & Móri 2001): the statistic by its definition and as n/2 times the
energy distance between the sample and its reflection, the null over every sign vector, the
invariances, the level, and bad input."""

import itertools

import numpy as np
import pytest
from scipy.stats import special_ortho_group

import energystats as es

#: the example of its result for tests/infrastructure/test_results.py (kind: a test)
RESULT_FACTORIES = {"SymmetryTestResult": (
    lambda: es.symmetry_test(np.random.default_rng(0).normal(size=20), n_resamples=19, rng=0),
    "test")}


def _brute(Y, exponent):
    """T_n = (1/n) sum_ij ||y_i + y_j||^a - ||y_i - y_j||^a, pair by pair."""
    n = len(Y)
    return sum(np.linalg.norm(Y[i] + Y[j]) ** exponent - np.linalg.norm(Y[i] - Y[j]) ** exponent
               for i in range(n) for j in range(n)) / n


@pytest.mark.parametrize("d, exponent", [(1, 1.0), (3, 0.5), (2, 1.5)])
def test_statistic_by_its_definition_and_as_an_energy_distance(rng, d, exponent):
    X = rng.normal(size=(15, d)) + 0.4
    T = es.symmetry_test(X if d > 1 else X[:, 0], exponent=exponent, n_resamples=9,
                         rng=0).statistic
    assert T == pytest.approx(_brute(X, exponent), rel=1e-12)
    assert T == pytest.approx(len(X) / 2 * es.energy_distance(X, -X, exponent=exponent),
                              rel=1e-12)


def test_exact_pvalue_is_the_share_of_all_sign_vectors(rng):
    X = rng.normal(size=(8, 2)) + 0.5
    res = es.symmetry_test(X, exact=True)
    null = [_brute(np.array(s)[:, None] * X, 1.0) for s in itertools.product((1, -1), repeat=8)]
    assert res.exact and res.n_resamples == 256
    assert res.pvalue == np.mean(np.array(null) >= res.statistic - 1e-12)
    np.testing.assert_allclose(np.sort(res.null_distribution), np.sort(null), rtol=1e-12)


def test_invariant_under_rotation_and_reflection_equivariant_under_scale(rng):
    X = rng.normal(size=(20, 3)) + np.array([0.5, 0.0, -0.2])
    base = es.symmetry_test(X, n_resamples=99, rng=3)
    Q = special_ortho_group.rvs(3, random_state=1)
    for other in (X @ Q.T, -X):
        res = es.symmetry_test(other, n_resamples=99, rng=3)
        assert res.statistic == pytest.approx(base.statistic, rel=1e-12)
        assert res.pvalue == base.pvalue
    half = es.symmetry_test(X, exponent=0.5, n_resamples=9, rng=0).statistic
    assert es.symmetry_test(4.0 * X, exponent=0.5, n_resamples=9, rng=0).statistic == (
        pytest.approx(2.0 * half, rel=1e-12))


def test_level_and_power():
    """Level: 400 symmetric samples (t with 3 d.f., n = 20) at alpha = 0.05 reject at most
    0.05 + 3 sd = 0.083 of the time (sd = 0.011 at a true level 0.05; a test rejecting at
    0.10 fails with probability 0.99). Power: a centred exponential sample of 60 (skewness
    2) is rejected."""
    gen = np.random.default_rng(11)
    rejected = [es.symmetry_test(gen.standard_t(3, size=20), n_resamples=99,
                                 rng=gen).pvalue <= 0.05 for _ in range(400)]
    assert np.mean(rejected) <= 0.083
    assert es.symmetry_test(gen.exponential(size=60) - np.log(2.0), rng=0).pvalue <= 0.01


def test_same_seed_same_result(rng):
    x = rng.normal(size=30)
    a, b = (es.symmetry_test(x, n_resamples=99, rng=7) for _ in range(2))
    np.testing.assert_array_equal(a.null_distribution, b.null_distribution)


@pytest.mark.parametrize("kwargs, err, match", [
    ({"exponent": 2.0}, ValueError, r"`exponent` must be in \(0, 2\)"),
    ({"exact": "yes"}, ValueError, "`exact` must be 'auto', True or False"),
    ({"n_resamples": 0}, ValueError, "`n_resamples`"),
])
def test_bad_input(rng, kwargs, err, match):
    with pytest.raises(err, match=match):
        es.symmetry_test(rng.normal(size=10), **kwargs)


def test_bad_data(rng):
    with pytest.raises(ValueError, match="`exact`=True needs 2\\^30 sign vectors"):
        es.symmetry_test(rng.normal(size=30), exact=True)
    with pytest.raises(ValueError, match="`x`"):
        es.symmetry_test([1.0, np.nan, 2.0])
    x = np.array([1.0, -2.0, 3.0])
    es.symmetry_test(x, n_resamples=9, rng=0)
    np.testing.assert_array_equal(x, [1.0, -2.0, 3.0])
