"""Mutual independence and the coefficient I_n (energystats._independence.mutual)."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

import energystats as es
from energystats._resample import permutations

ROOT = Path(__file__).resolve().parents[2]
MUTUAL = json.loads((ROOT / "tests" / "data" / "r_reference_independence.json").read_text())[
    "mutual"
]


def test_statistic_is_the_sum_of_bias_corrected_dcor(rng):
    X = rng.normal(size=(30, 4))
    X[:, 3] += X[:, 0] * X[:, 1]
    res = es.mutual_independence_test(X, n_resamples=49, rng=0)
    terms = [es.dcor(X[:, k], X[:, k + 1 :], estimator="U") for k in range(3)]
    np.testing.assert_allclose(res.estimates, terms, rtol=1e-12)
    assert res.statistic == pytest.approx(sum(terms), rel=1e-12) and res.statistic_name == "Sum(R*)"


def test_null_permutes_each_column_against_the_rest(rng):
    """Each replicate applies one permutation to the rows of X_k in every term, against the
    unpermuted columns after it (R's scheme)."""
    X = rng.normal(size=(20, 3))
    res = es.mutual_independence_test(X, n_resamples=9, rng=4)
    block = np.vstack([np.arange(20), permutations(np.random.default_rng(4), 20, 9)])
    want = [
        sum(es.dcor(X[p, k], X[:, k + 1 :], estimator="U") for k in range(2)) for p in block[1:]
    ]
    np.testing.assert_allclose(res.null_distribution, want, rtol=1e-10, atol=1e-13)


def test_a_constant_column_contributes_zero(rng):
    X = np.c_[rng.normal(size=(15, 2)), np.ones(15)]
    X[:, 1] = X[:, 0] ** 2
    res = es.mutual_independence_test(X, n_resamples=19, rng=0)
    assert res.estimates[1] == 0.0 and res.statistic == pytest.approx(res.estimates[0], rel=1e-13)


def test_mvi_test_null_and_bad_input(rng):
    x, y = rng.normal(size=(15, 2)), rng.normal(size=15)
    res = es.mvi_test(x, y, n_resamples=19, rng=5)
    assert (
        res.statistic == pytest.approx(15 * es.mvi(x, y) ** 2, rel=1e-12)
        and res.statistic_name == "n I^2"
    )
    block = np.vstack([np.arange(15), permutations(np.random.default_rng(5), 15, 19)])
    np.testing.assert_allclose(
        res.null_distribution, [15 * es.mvi(x, y[p]) ** 2 for p in block[1:]], rtol=1e-10,
        atol=1e-13,
    )
    with pytest.raises(ValueError, match=r"`X` needs at least two columns"):
        es.mutual_independence_test(np.ones((10, 1)))
    with pytest.raises(ValueError, match=r"`x` and `y` must have the same number of rows"):
        es.mvi(np.ones(5), np.ones(6))


def test_committed_r_mutual_independence():
    X = np.asarray(MUTUAL["x"], float)
    res = es.mutual_independence_test(X, rng=1)
    assert res.statistic == pytest.approx(MUTUAL["statistic"], rel=1e-10)
    np.testing.assert_allclose(res.estimates, MUTUAL["terms"], rtol=1e-10)
    p, q = res.pvalue, MUTUAL["p_value"]
    # false failure: P(|Z| > 4) = 6.3e-5 (normal bound)
    assert abs(p - q) <= 4 * math.sqrt(2 * max(p * (1 - p), 1e-3) / 1000) + 0.002


@pytest.mark.r
def test_live_r_mutual_and_mvi(rng):
    from energystats._rbridge import r_call, r_field, r_matrix, to_numpy

    X = rng.normal(size=(30, 3))
    X[:, 2] = np.abs(X[:, 0]) + 0.5 * rng.normal(size=30)
    res = es.mutual_independence_test(X, rng=6)
    r = r_call("mutualIndep.test", r_matrix(X), R=999)
    assert res.statistic == pytest.approx(to_numpy(r_field(r, "statistic"))[0], rel=1e-10)
    p, q = res.pvalue, to_numpy(r_field(r, "p.value"))[0]
    # false failure: P(|Z| > 4) = 6.3e-5 (normal bound)
    assert abs(p - q) <= 4 * math.sqrt(2 * max(p * (1 - p), 1e-3) / 1000) + 0.002
    x, y = X[:, :2], X[:, 2]
    assert es.mvi(x, y) == pytest.approx(to_numpy(r_call("mvI", r_matrix(x), y))[0], rel=1e-10)
    ours = es.mvi_test(x, y, rng=1)
    theirs = r_call("mvI.test", r_matrix(x), y, R=199)
    assert ours.statistic == pytest.approx(to_numpy(r_field(theirs, "statistic"))[0], rel=1e-10)
    # energy 1.7-11's mvI.test returns replicates that are all 0 and a p-value that does not
    # follow from them (docs: Independence); energystats' permutation null is the statistic of
    # each permutation (test_mvi_test_null_and_bad_input)
    assert np.all(to_numpy(r_field(theirs, "replicates")) == 0)


@pytest.mark.parametrize("scale", [1e100, 1e-100, 1e300, 1e-300])
def test_mvi_is_invariant_to_a_common_scale(rng, scale):
    """I_n of (c x, c y) is I_n of (x, y) (issue 42: x and y were rescaled by powers of two of
    their own past 2^±128, 0.2708 against 0.2570 at 1e100): to rounding, and the same p-value
    for the same seed. y's range is about a sixteenth of x's, so that each would get its own
    power of two."""
    x = rng.normal(size=(15, 2))
    y = (np.abs(x[:, 0]) + rng.normal(size=15)) / 16
    assert es.mvi(x * scale, y * scale) == pytest.approx(es.mvi(x, y), rel=1e-12)
    ours = es.mvi_test(x, y, n_resamples=49, rng=3)
    scaled = es.mvi_test(x * scale, y * scale, n_resamples=49, rng=3)
    assert scaled.statistic == pytest.approx(ours.statistic, rel=1e-12)
    assert scaled.pvalue == ours.pvalue


@pytest.mark.r
def test_live_r_mvi_at_the_ends_of_float64(rng):
    """energystats' I_n of (c x, c y) at c = 1e±100 and 1e±300 equals R's ``mvI(x, y)``, and
    R's own ``mvI(c x, c y)`` where R computes it (1e±100; at 1e±300 its squared distances
    overflow or underflow)."""
    from energystats._rbridge import r_call, r_matrix, to_numpy

    x = rng.normal(size=(15, 2))
    y = (np.abs(x[:, 0]) + rng.normal(size=15)) / 16
    want = to_numpy(r_call("mvI", r_matrix(x), y))[0]
    for scale in (1e100, 1e-100, 1e300, 1e-300):
        assert es.mvi(x * scale, y * scale) == pytest.approx(want, rel=1e-10)
    for scale in (1e100, 1e-100):
        assert to_numpy(r_call("mvI", r_matrix(x * scale), y * scale))[0] == pytest.approx(
            want, rel=1e-10
        )
