"""Partial distance covariance and correlation (energystats._independence.partial)."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

import energystats as es
from energystats._resample import permutations

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = json.loads((ROOT / "tests" / "data" / "r_reference_independence.json").read_text())
CASES = {case["name"]: case for case in REFERENCE["cases"]}


def ucentre(X):
    X = np.asarray(X, float).reshape(len(X), -1)
    a = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    n = len(a)
    U = a - a.sum(1)[:, None] / (n - 2) - a.sum(0)[None] / (n - 2) + a.sum() / ((n - 1) * (n - 2))
    np.fill_diagonal(U, 0.0)
    return U


def dot(U, V):
    n = len(U)
    return (U * V).sum() / (n * (n - 3))


def projection(x, z):
    """P_z(x) of Székely & Rizzo (2014), eq. 4.1, by the definition."""
    A, C = ucentre(x), ucentre(z)
    return A - dot(A, C) / dot(C, C) * C if dot(C, C) > 0 else A


def test_pdcov_and_pdcor_are_the_projections_inner_products(rng):
    z = rng.normal(size=(25, 2))
    x = z[:, 0] + rng.normal(size=25)
    y = np.c_[z[:, 1] ** 2 + rng.normal(size=25), rng.normal(size=25)]
    Px, Py = projection(x, z), projection(y, z)
    assert es.pdcov(x, y, z) == pytest.approx(dot(Px, Py), rel=1e-11)
    assert es.pdcor(x, y, z) == pytest.approx(
        dot(Px, Py) / math.sqrt(dot(Px, Px) * dot(Py, Py)), rel=1e-11
    )
    assert es.pdcor(y, x, z) == pytest.approx(es.pdcor(x, y, z), rel=1e-12)  # symmetric in x and y
    assert -1 <= es.pdcor(x, y, z) <= 1


def test_a_constant_z_removes_nothing(rng):
    x, y = rng.normal(size=20), rng.normal(size=(20, 2))
    assert es.pdcor(x, y, np.ones(20)) == pytest.approx(es.dcor(x, y, estimator="U"), rel=1e-12)
    assert es.pdcov(x, y, np.ones(20)) == pytest.approx(es.dcov(x, y, estimator="U"), rel=1e-12)


def test_test_statistics_and_null(rng):
    z = rng.normal(size=30)
    x, y = z + rng.normal(size=30), z + rng.normal(size=30)
    cov = es.pdcov_test(x, y, z, n_resamples=49, rng=2)
    cor = es.pdcor_test(x, y, z, n_resamples=49, rng=2)
    assert cov.statistic == pytest.approx(30 * es.pdcov(x, y, z), rel=1e-11)  # R's n V*
    assert cor.statistic == pytest.approx(es.pdcor(x, y, z), rel=1e-11)
    assert cov.pvalue == cor.pvalue and cov.statistic_name == "n pdcov"
    block = np.vstack([np.arange(30), permutations(np.random.default_rng(2), 30, 49)])
    Px, Py = projection(x, z), projection(y, z)
    want = np.array([30 * dot(Px[np.ix_(p, p)], Py) for p in block[1:]])
    np.testing.assert_allclose(cov.null_distribution, want, rtol=1e-9, atol=1e-12)


def test_bad_input():
    with pytest.raises(ValueError, match=r"`x` must hold at least 4 sample"):
        es.pdcor([1.0, 2, 3], [1.0, 2, 3], [1.0, 2, 4])
    with pytest.raises(ValueError, match=r"`x` and `z` must have the same number of rows"):
        es.pdcov(np.arange(5.0), np.arange(5.0), np.arange(6.0))
    with pytest.raises(ValueError, match=r"`n_resamples` must be a positive integer"):
        es.pdcov_test(np.arange(5.0), np.arange(5.0), np.arange(5.0) ** 2, n_resamples=-1)


@pytest.mark.parametrize("name", sorted(CASES))
def test_committed_r_pdcor_test(name):
    case = CASES[name]
    x, y, z = (np.asarray(case[k], float) for k in "xyz")
    res = es.pdcor_test(x, y, z, rng=1)
    assert res.statistic == pytest.approx(case["pdcor_test"]["statistic"], rel=1e-10)
    p, q = res.pvalue, case["pdcor_test"]["p_value"]
    # false failure: P(|Z| > 4) = 6.3e-5 (normal bound)
    assert abs(p - q) <= 4 * math.sqrt(2 * max(p * (1 - p), 1e-3) / 1000) + 0.002


@pytest.mark.r
def test_live_r(rng):
    from energystats._rbridge import r_call, r_field, r_matrix, to_numpy

    z = rng.normal(size=(35, 2))
    x, y = z @ [1.0, -1.0] + rng.normal(size=35), np.c_[z[:, 0] ** 2 + rng.normal(size=35)]
    assert es.pdcov(x, y, z) == pytest.approx(
        to_numpy(r_call("pdcov", x, r_matrix(y), r_matrix(z)))[0], rel=1e-10
    )
    assert es.pdcor(x, y, z) == pytest.approx(
        to_numpy(r_call("pdcor", x, r_matrix(y), r_matrix(z)))[0], rel=1e-10
    )
    res = es.pdcov_test(x, y, z, rng=3)
    r = r_call("pdcov.test", x, r_matrix(y), r_matrix(z), R=999)
    assert res.statistic == pytest.approx(to_numpy(r_field(r, "statistic"))[0], rel=1e-10)
    # R's pdcov.test reports pdcor as its estimate
    assert es.pdcor(x, y, z) == pytest.approx(to_numpy(r_field(r, "estimate"))[0], rel=1e-10)
    p, q = res.pvalue, to_numpy(r_field(r, "p.value"))[0]
    # false failure: P(|Z| > 4) = 6.3e-5 (normal bound)
    assert abs(p - q) <= 4 * math.sqrt(2 * max(p * (1 - p), 1e-3) / 1000) + 0.002
