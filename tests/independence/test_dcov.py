"""Distance covariance and correlation (energystats._independence: dcov, centring, _data;
energystats._scale.concordance): brute force, identities, R."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _r_reference import assert_script_writes
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.stats import special_ortho_group

import energystats as es
from energystats._scale.concordance import abs_product_sum

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = json.loads((ROOT / "tests" / "data" / "r_reference_independence.json").read_text())
CASES = {case["name"]: case for case in REFERENCE["cases"]}


def distances(X, exponent=1.0, metric="euclidean", sigma=None):
    X = np.asarray(X, float).reshape(len(X), -1)
    d = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    if metric == "euclidean":
        return d**exponent
    if metric == "gaussian":
        return 2 - 2 * np.exp(-(d**2) / (2 * sigma**2))
    if metric == "exponential":
        return 2 - 2 * np.exp(-d / (2 * sigma))
    return (d > 0).astype(float)  # discrete


def brute(a, b):
    """(V^2, U) by the definitions: double centring (SRB 2007 eq. 2.7-2.8) and U-centring
    (Székely & Rizzo 2014 eq. 3.1-3.2), with explicit loops over the sums."""
    n = a.shape[0]
    A = a - a.mean(0) - a.mean(1)[:, None] + a.mean()
    B = b - b.mean(0) - b.mean(1)[:, None] + b.mean()

    def ucentre(m):
        out = np.empty_like(m)
        for i in range(n):
            for j in range(n):
                out[i, j] = (
                    m[i, j]
                    - m[i].sum() / (n - 2)
                    - m[:, j].sum() / (n - 2)
                    + m.sum() / ((n - 1) * (n - 2))
                )
        np.fill_diagonal(out, 0.0)
        return out

    U = (ucentre(a) * ucentre(b)).sum() / (n * (n - 3)) if n > 3 else np.nan
    return (A * B).sum() / n**2, U


def brute_stats(x, y, **kw):
    a, b = distances(x, **kw), distances(y, **kw)
    vxy, uxy = brute(a, b)
    vxx, uxx = brute(a, a)
    vyy, uyy = brute(b, b)
    return {"V": (vxy, vxx, vyy), "U": (uxy, uxx, uyy)}


METRICS = [
    dict(exponent=1.0), dict(exponent=0.5), dict(exponent=1.5), dict(exponent=2.0),
    dict(metric="gaussian", sigma=1.3), dict(metric="exponential", sigma=0.8),
]


@pytest.mark.parametrize("kw", METRICS, ids=lambda kw: "-".join(map(str, kw.values())))
@pytest.mark.parametrize("shape", [(23, 1, 1), (23, 3, 2)])
def test_statistics_equal_the_definitions(rng, kw, shape):
    n, p, q = shape
    x = rng.normal(size=(n, p))
    y = np.c_[x[:, :1] ** 2 + rng.normal(size=(n, 1)), rng.normal(size=(n, q - 1))]
    want = brute_stats(x, y, **kw)
    v = es.dcov_stats(x, y, **kw)
    u = es.dcov_stats(x, y, estimator="U", **kw)
    vxy, vxx, vyy = want["V"]
    np.testing.assert_allclose([v.dcov2, v.dvar2_x, v.dvar2_y], [vxy, vxx, vyy], rtol=1e-12)
    assert v.dcor2 == pytest.approx(vxy / np.sqrt(vxx * vyy), rel=1e-12)
    uxy, uxx, uyy = want["U"]
    np.testing.assert_allclose([u.dcov2, u.dvar2_x, u.dvar2_y], [uxy, uxx, uyy], rtol=1e-11)
    assert u.dcor2 == pytest.approx(uxy / np.sqrt(uxx * uyy), rel=1e-11)
    # every field is the square under both estimators: R's dcov and dcor are the roots of "V"'s
    assert (
        es.dcov(x, y, **kw) == np.sqrt(v.dcov2) == v.r_names()["dCov"]
        and es.dcor(x, y, **kw) == np.sqrt(v.dcor2)
    )
    assert (
        es.dcov(x, y, estimator="U", **kw) == u.dcov2
        and es.dcor(x, y, estimator="U", **kw) == u.dcor2
    )


def test_discrete_and_precomputed_variables(rng):
    x = rng.normal(size=(30, 2))
    labels = np.array(list("abcab") * 6)
    codes = pd.Series(labels).map({"a": 0, "b": 1, "c": 2}).to_numpy()
    b = (codes[:, None] != codes[None, :]).astype(float)
    vxy, _ = brute(distances(x), b)
    assert es.dcov(x, labels) ** 2 == pytest.approx(vxy, rel=1e-12)
    assert (
        es.dcov(x, pd.Categorical(labels))
        == es.dcov(x, labels)
        == es.dcov(x, b, metric=("euclidean", "precomputed"))
    )
    assert es.dcov(x, labels) == es.dcov(x, codes, metric=("euclidean", "discrete"))
    ordered = pd.Categorical(labels, categories=["c", "a", "b"], ordered=True)
    # R: an ordered factor's codes
    assert es.dcov(x, ordered) == es.dcov(x, ordered.codes.astype(float))
    D = distances(x)
    assert es.dcor(D, labels, metric=("precomputed", "euclidean")) == pytest.approx(
        es.dcor(x, labels), rel=1e-13
    )


def test_streamed_equals_held(rng):
    x, y = rng.normal(size=(700, 3)), rng.normal(size=(700, 2))
    y[:, 0] += np.abs(x[:, 0])
    held_v, held_u = es.dcov_stats(x, y), es.dcov_stats(x, y, estimator="U")
    with es.config_context(working_memory=0.5):  # the 3.7 MiB matrices do not fit: tiles
        streamed_v, streamed_u = es.dcov_stats(x, y), es.dcov_stats(x, y, estimator="U")
    for a, b in ((held_v, streamed_v), (held_u, streamed_u)):
        np.testing.assert_allclose(
            [a.dcov2, a.dcor2, a.dvar2_x, a.dvar2_y], [b.dcov2, b.dcor2, b.dvar2_x, b.dvar2_y],
            rtol=1e-10,
        )


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(4, 60))
def test_one_dimensional_algorithm_equals_the_matrix(data, n):
    """With ties (values on a coarse grid), offsets and both estimators."""
    values = st.integers(-4, 4).map(float) | st.floats(-1e3, 1e3)
    x = data.draw(arrays(np.float64, n, elements=values))
    y = data.draw(arrays(np.float64, n, elements=values))
    for estimator in ("V", "U"):
        fast = es.dcov_stats(x + 1e6, y, estimator=estimator, algorithm="sorted")
        slow = es.dcov_stats(x + 1e6, y, estimator=estimator, algorithm="pairwise")
        # the O(n log n) path expands the centring (as R's dcov2d): its error is a multiple of
        # eps times the terms it cancels, products of mean distances (dCor^2 to 1e-9 absolute)
        scale = np.abs(x[:, None] - x[None]).mean() * np.abs(y[:, None] - y[None]).mean()
        assert fast.dcov2 == pytest.approx(slow.dcov2, rel=1e-9, abs=1e-9 * scale)
        # (an offset of 1e6 costs the data 1e-10 of their precision, which the U-centring of
        # n = 4 points amplifies: dCor^2 to 1e-8), unless a U-variance is itself within rounding
        # of 0, where dCor divides rounding errors (y = 0, 0, 1, 1e-10: dVar^2_n(y) = 7e-21)
        scales = [np.abs(v[:, None] - v[None]).mean() ** 2 for v in (x, y)]
        if min(scales) > 0 and min(slow.dvar2_x / scales[0], slow.dvar2_y / scales[1]) > 1e-6:
            assert fast.dcor2 == pytest.approx(slow.dcor2, rel=1e-8, abs=1e-8)


@settings(max_examples=80, deadline=None)
@given(data=st.data(), n=st.integers(0, 70))
def test_abs_product_sum_is_the_double_sum(data, n):
    values = st.integers(-3, 3).map(float) | st.floats(-100, 100)
    x = data.draw(arrays(np.float64, n, elements=values))
    y = data.draw(arrays(np.float64, n, elements=values))
    want = float((np.abs(x[:, None] - x[None]) * np.abs(y[:, None] - y[None])).sum())
    assert abs_product_sum(x, y) == pytest.approx(want, rel=1e-10, abs=1e-8)


def test_large_one_dimensional_sample_against_blocks(rng):
    n = 5000
    x, y = rng.normal(size=n), rng.standard_t(3, size=n)
    want = sum(
        (np.abs(x[a : a + 500, None] - x[None]) * np.abs(y[a : a + 500, None] - y[None])).sum()
        for a in range(0, n, 500)
    )
    assert abs_product_sum(x, y) == pytest.approx(want, rel=1e-12)


def test_dcor_properties(rng):
    x = rng.normal(size=(40, 3))
    Q = special_ortho_group.rvs(3, random_state=1)
    assert es.dcor(x, 2.5 * x @ Q.T + 7.0) == pytest.approx(1.0, rel=1e-12)  # similarity
    y = rng.normal(size=(40, 2)) + x[:, :2] ** 2
    r = es.dcor(x, y)
    assert 0 <= r <= 1
    assert es.dcor(y, x) == pytest.approx(r, rel=1e-13)
    # invariance under translation and rotation of either sample; dCov scales as |c|^alpha
    R2 = special_ortho_group.rvs(2, random_state=2)
    assert es.dcor(x @ Q.T - 3.0, y @ R2.T + 1.0) == pytest.approx(r, rel=1e-12)
    for alpha in (0.5, 1.0, 1.7):
        assert es.dcov(3.0 * x, y, exponent=alpha) == pytest.approx(
            3.0 ** (alpha / 2) * es.dcov(x, y, exponent=alpha), rel=1e-12
        )
    # exact rescaling
    assert es.dcov(x * 1e-200, y * 1e250) == pytest.approx(1e25 * es.dcov(x, y), rel=1e-12)
    assert es.dcor(x * 1e-200, y * 1e250) == pytest.approx(r, rel=1e-12)


def test_exponent_two_is_the_squared_cross_covariances(rng):
    """alpha = 2: A = -2 Xc Xc', so V_n^2 = 4 sum_jk cov_n(x_j, y_k)^2 (population cov, 1/n)."""
    x, y = rng.normal(size=(30, 3)), rng.normal(size=(30, 2))
    y[:, 0] += x[:, 1]
    xc, yc = x - x.mean(0), y - y.mean(0)
    assert es.dcov(x, y, exponent=2.0) ** 2 == pytest.approx(
        4.0 * ((xc.T @ yc / 30) ** 2).sum(), rel=1e-12
    )


def test_labels_relation_to_the_between_sample_statistic(rng):
    r"""With the 0-1 distance on labels, n^2 V_n^2 = sum_{g<h} c_gh n_g n_h E_gh with
    c_gh = (n_g + n_h)/n - sum_l n_l^2/n^2 (docs: Independence); equal sizes: 2 S / (n k);
    two groups: 4 n_1 n_2 S / n^3."""
    x = rng.normal(size=(60, 2))
    for labels in (
        np.repeat([0, 1, 2], [10, 30, 20]), np.arange(60) % 3, np.repeat([0, 1], [15, 45]),
    ):
        x_shifted = x + labels[:, None] * 0.7
        n = 60
        sizes = np.bincount(labels)
        disco = es.dispersion(x_shifted, labels)
        E = disco.pairwise * (sizes[:, None] + sizes[None, :]) / np.outer(sizes, sizes)
        c = (sizes[:, None] + sizes[None, :]) / n - (sizes**2).sum() / n**2
        iu = np.triu_indices(len(sizes), 1)
        want = (c * np.outer(sizes, sizes) * E)[iu].sum() / n**2
        assert es.dcov(x_shifted, labels.astype(str)) ** 2 == pytest.approx(want, rel=1e-12)
        if len(set(sizes)) == 1:
            assert es.dcov(x_shifted, labels.astype(str)) ** 2 == pytest.approx(
                2 * disco.S / (n * len(sizes)), rel=1e-12
            )
        if len(sizes) == 2:
            assert es.dcov(x_shifted, labels.astype(str)) ** 2 == pytest.approx(
                4 * sizes[0] * sizes[1] * disco.S / n**3, rel=1e-12
            )


def test_u_statistic_is_unbiased_and_v_is_not():
    """Mean over 1,000 samples of n = 8 against a sample of 20,000 (the sorted O(n log n) path):
    the U-statistic's mean is within 4 standard errors, the V-statistic's is not (28 standard
    errors above). A U-statistic divided by n(n - 1) instead of n(n - 3) is 5.3 standard errors
    below: caught with probability 0.9."""
    gen = np.random.default_rng(5)
    big_x = gen.normal(size=20_000)
    target = es.dcov(big_x, big_x**2 + gen.normal(size=20_000), estimator="U")
    u, v = [], []
    for _ in range(1000):
        x = gen.normal(size=8)
        y = x**2 + gen.normal(size=8)
        stats_u = es.dcov_stats(x, y, estimator="U")
        u.append(stats_u.dcov2)
        v.append(es.dcov(x, y) ** 2)
    u, v = np.array(u), np.array(v)
    # false failure: P(|Z| > 4) = 6.3e-5 (normal bound; the 0.01 target slack, 0.24 standard
    # errors at 4,000 samples, and the target's own error are ignored: here |z| = 0.5)
    assert abs(u.mean() - target) < 4 * u.std() / np.sqrt(u.size) + 0.01 * target
    # the V-statistic's bias is 28 standard errors here: P(Z < 8 - 28) is nil
    assert v.mean() - target > 8 * v.std() / np.sqrt(v.size)


def test_constant_samples_give_zero(rng):
    x = rng.normal(size=12)
    for estimator in ("V", "U"):
        assert es.dcor(x, np.ones(12), estimator=estimator) == 0.0  # R: 0, not NaN
        assert es.dcov(x, np.ones(12), estimator=estimator) == 0.0
    assert es.dcor_ttest(x, np.ones(12)).statistic == 0.0


def test_centring_functions(rng):
    x = rng.normal(size=(9, 2))
    D = distances(x)
    U = es.u_center(D)
    assert np.allclose(es.u_center(U), U) and np.allclose(es.d_center(U), U)  # R's help page
    np.testing.assert_allclose(U.sum(axis=1), 0, atol=1e-12)
    np.testing.assert_array_equal(np.diag(U), 0)
    A = es.d_center(D)
    np.testing.assert_allclose(A.sum(axis=0), 0, atol=1e-12)
    y = rng.normal(size=9)
    assert es.u_product(U, es.u_center(distances(y))) == pytest.approx(
        es.dcov(x, y, estimator="U"), rel=1e-12
    )
    copy = D.copy()
    es.u_center(D), es.d_center(D)
    np.testing.assert_array_equal(D, copy)


@pytest.mark.parametrize(
    "call,error,match",
    [
        (
            lambda: es.dcov(np.ones(5), np.ones(6)), ValueError,
            r"`x` and `y` must have the same number of rows, got 5 and 6",
        ),
        (lambda: es.dcov([1.0], [2.0]), ValueError, r"`x` must hold at least 2 sample"),
        (
            lambda: es.dcov([1.0, 2, 3], [2.0, 1, 4], estimator="U"), ValueError,
            r"`estimator`='U' needs at least 4 samples",
        ),
        (
            lambda: es.dcor_ttest([1.0, 2, 3], [2.0, 1, 4]), ValueError,
            r"t-test needs at least 4 samples",
        ),
        (
            lambda: es.dcov([1.0, np.nan, 3], [1.0, 2, 3]),
            ValueError,
            r"`x` contains missing values \(NaN, None or masked\) in 1 of 3 row\(s\): pass "
            r"nan_policy=.omit.",
        ),
        (
            lambda: es.dcov([1.0, 2, 3], [1.0, np.inf, 3]), ValueError,
            r"`y` contains NaN or infinite",
        ),
        (
            lambda: es.dcov([1.0, 2, 3], [1.0, 2, 3], exponent=2.5), ValueError,
            r"`exponent` must lie in \(0, 2\]",
        ),
        (
            lambda: es.dcov([1.0, 2, 3], [1.0, 2, 3], exponent=0.0), ValueError,
            r"`exponent` must lie in \(0, 2\]",
        ),
        (
            lambda: es.dcov([1.0, 2, 3], [1.0, 2, 3], exponent="1"), TypeError,
            r"`exponent` must be a real number",
        ),
        (
            lambda: es.dcov(np.ones((3, 2)), [1.0, 2, 3], metric="precomputed"), ValueError,
            r"`x` must be a square distance matrix",
        ),
        (
            lambda: es.dcov(
                np.array([[0, 1, 2], [1, 0, 1], [3, 1, 0.0]]), [1.0, 2, 3],
                metric=("precomputed", "euclidean"),
            ),
            ValueError,
            r"`x` must be symmetric",
        ),
        (
            lambda: es.dcov([1.0, 2, 3], [1.0, 2, 3], estimator="W"), ValueError,
            r"`estimator` must be 'V' or 'U'",
        ),
        (
            lambda: es.dcov([1.0, 2, 3], [1.0, 2, 3], algorithm="fast"), ValueError,
            r"`algorithm` must be one of",
        ),
        (
            lambda: es.dcov(np.ones((3, 2)), [1.0, 2, 3], algorithm="sorted"), ValueError,
            r"`algorithm`='sorted' needs one-dimensional",
        ),
        (
            lambda: es.dcov(["a", "b", "a"], [1.0, 2, 3], metric="gaussian", sigma=1.0), ValueError,
            r"`x` is categorical",
        ),
        (
            lambda: es.dcov(["a", None, "a"], [1.0, 2, 3]), ValueError,
            r"`x` contains missing values",
        ),
        (
            lambda: es.dcov([1.0, 2, 3], [1.0, 2, 3], metric=("euclidean",)), ValueError,
            r"`metric` must be one value or 2 values",
        ),
        (lambda: es.u_center(np.ones((3, 4))), ValueError, r"`D` must be a square matrix"),
        (
            lambda: es.u_product(np.zeros((3, 3)), np.zeros((3, 3))), ValueError,
            r"`U` must be at least 4 x 4",
        ),
    ],
)
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_input_is_not_modified(rng):
    x, y = rng.normal(size=(20, 2)), rng.normal(size=20)
    cx, cy = x.copy(), y.copy()
    es.dcov_stats(x, y), es.dcov_stats(x, y, estimator="U"), es.dcor_ttest(x, y)
    np.testing.assert_array_equal(x, cx)
    np.testing.assert_array_equal(y, cy)


# --- R ---------------------------------------------------------------------------------


def case_data(name):
    case = CASES[name]
    return np.asarray(case["x"], float), np.asarray(case["y"], float), np.asarray(case["z"], float)


@pytest.mark.parametrize("name", sorted(CASES))
def test_committed_r_statistics(name):
    """R's printed precision is 15 significant digits: 1e-10 relative leaves room only for
    the different order of the sums."""
    case = CASES[name]
    x, y, z = case_data(name)
    for entry in case["by_index"]:
        assert es.dcov(x, y, exponent=entry["index"]) == pytest.approx(entry["dcov"], rel=1e-10)
        assert es.dcor(x, y, exponent=entry["index"]) == pytest.approx(entry["dcor"], rel=1e-10)
    v = es.dcov_stats(x, y)
    np.testing.assert_allclose(list(v.r_names().values()), case["DCOR"], rtol=1e-10)
    u = es.dcov_stats(x, y, estimator="U")
    np.testing.assert_allclose(
        [u.dcov2, u.dcor2, u.dvar2_x, u.dvar2_y], case["dcovU_stats"], rtol=1e-10
    )
    assert (
        u.dcov2 == pytest.approx(case["dcovU"], rel=1e-10)
        and u.dcor2 == pytest.approx(case["bcdcor"], rel=1e-10)
    )
    assert es.u_product(es.u_center(distances(x)), es.u_center(distances(y))) == pytest.approx(
        case["U_product"], rel=1e-10
    )
    t = es.dcor_ttest(x, y)
    assert t.statistic == pytest.approx(case["dcorT"], rel=1e-10)
    assert t.df == case["dcorT_test"]["df"]
    assert t.pvalue == pytest.approx(case["dcorT_test"]["p_value"], rel=1e-8)
    assert es.pdcov(x, y, z) == pytest.approx(case["pdcov"], rel=1e-10)
    assert es.pdcor(x, y, z) == pytest.approx(case["pdcor"], rel=1e-10)
    # mvI's numerator 2 zbar - z_d - z is a difference of mean distances (1.6% of them on the
    # tied data): R's value differs there by 3.5e-10 from a compensated (math.fsum)
    # evaluation, which energystats' equals to 1e-13 (test_mvi_against_compensated_sums)
    assert es.mvi(x, y) == pytest.approx(case["mvI"], rel=1e-9)
    if "dcov2d" in case:
        assert es.dcov(x, y) ** 2 == pytest.approx(case["dcov2d"]["V"], rel=1e-10)
        assert es.dcov(x, y, estimator="U") == pytest.approx(case["dcov2d"]["U"], rel=1e-10)
        assert es.dcor(x, y) ** 2 == pytest.approx(case["dcor2d"]["V"], rel=1e-10)
        assert es.dcor(x, y, estimator="U") == pytest.approx(case["dcor2d"]["U"], rel=1e-10)


def test_committed_r_factors():
    f = REFERENCE["factors"]
    x = np.asarray(f["x"])
    assert es.dcov(x, f["factor"]) == pytest.approx(f["dcov_factor"], rel=1e-10)
    assert es.dcor(x, pd.Categorical(f["factor"])) == pytest.approx(f["dcor_factor"], rel=1e-10)
    ordered = pd.Categorical(f["ordered"], categories=f["ordered_levels"], ordered=True)
    assert es.dcov(x, ordered) == pytest.approx(f["dcov_ordered"], rel=1e-10)


@pytest.mark.r
def test_live_r_statistics(rng):
    from energystats._rbridge import r_call, r_matrix, to_numpy

    x = rng.standard_t(4, size=(35, 3))
    y = np.c_[np.sin(x[:, 0]) + rng.normal(size=35), rng.normal(size=35)]
    X, Y = r_matrix(x), r_matrix(y)
    for a in (0.3, 1.0, 1.8):
        assert es.dcov(x, y, exponent=a) == pytest.approx(
            to_numpy(r_call("dcov", X, Y, index=a))[0], rel=1e-10
        )
        assert es.dcor(x, y, exponent=a) == pytest.approx(
            to_numpy(r_call("dcor", X, Y, index=a))[0], rel=1e-10
        )
    assert es.dcov(x, y, estimator="U") == pytest.approx(
        to_numpy(r_call("dcovU", X, Y))[0], rel=1e-10
    )
    assert es.dcor(x, y, estimator="U") == pytest.approx(
        to_numpy(r_call("bcdcor", X, Y))[0], rel=1e-10
    )
    Dx, Dy = distances(x), distances(y)
    np.testing.assert_allclose(
        es.u_center(Dx), to_numpy(r_call("U_center", r_matrix(Dx))), rtol=1e-12, atol=1e-13
    )
    np.testing.assert_allclose(
        es.d_center(Dx), to_numpy(r_call("D_center", r_matrix(Dx))), rtol=1e-12, atol=1e-13
    )
    stats = es.dcov_stats(Dx, Dy, metric="precomputed", estimator="U")
    np.testing.assert_allclose(
        list(stats.r_names().values()), to_numpy(r_call("dcovU_stats", r_matrix(Dx), r_matrix(Dy))),
        rtol=1e-10,
    )
    x1, y1 = x[:, 0], y[:, 0]
    assert es.dcov(x1, y1) ** 2 == pytest.approx(to_numpy(r_call("dcov2d", x1, y1))[0], rel=1e-10)
    assert es.dcor(x1, y1, estimator="U") == pytest.approx(
        to_numpy(r_call("dcor2d", x1, y1, type="U"))[0], rel=1e-10
    )


def test_mvi_against_compensated_sums(rng):
    """I_n^2 = (2 zbar - z_d - z) / (xbar + ybar - z) (Bakirov, Rizzo & Székely 2006) with every
    mean distance summed exactly (math.fsum) over the n^2, n^3 and n^4 pairs."""
    import math

    x, y = np.round(rng.normal(size=(14, 2)), 1), np.round(rng.normal(size=14), 1)
    y = y + np.round(np.abs(x[:, 0]), 1)
    n = 14
    a, b = distances(x), distances(y)
    xbar, ybar = math.fsum(a.ravel()) / n**2, math.fsum(b.ravel()) / n**2
    zd = math.fsum(np.sqrt(a**2 + b**2).ravel()) / n**2
    zbar = math.fsum(np.sqrt(a[:, :, None] ** 2 + b[:, None, :] ** 2).ravel()) / n**3
    z = math.fsum(np.sqrt(a[:, :, None, None] ** 2 + b[None, None, :, :] ** 2).ravel()) / n**4
    assert es.mvi(x, y) == pytest.approx(
        math.sqrt((2 * zbar - zd - z) / (xbar + ybar - z)), rel=1e-12
    )


@pytest.mark.r
def test_committed_reference_is_what_the_r_script_writes(tmp_path):
    assert_script_writes(ROOT / "validation" / "r_reference_independence.R", REFERENCE, tmp_path)


def test_streamed_partial_and_t_test_equal_held(rng):
    x, y, z = rng.normal(size=(800, 2)), rng.normal(size=(800, 3)), rng.normal(size=(800, 1))
    y[:, 0] += z[:, 0] ** 2
    held = (
        es.pdcor(x, y, z), es.pdcov(x, y, z), es.dcor_ttest(x, y).statistic,
        es.dcov_test(x, y, method="gamma").pvalue,
    )
    # 4.9 MiB matrices: tiles (the gamma's 300 rows fit)
    with es.config_context(working_memory=3.5):
        streamed = (
            es.pdcor(x, y, z), es.pdcov(x, y, z), es.dcor_ttest(x, y).statistic,
            es.dcov_test(x, y, method="gamma").pvalue,
        )
    np.testing.assert_allclose(streamed, held, rtol=1e-10)


def test_a_budget_too_small_for_one_tile_is_refused_before_allocating(rng):
    x, y = rng.normal(size=(600, 2)), rng.normal(size=(600, 2))
    with es.config_context(working_memory=0.005):
        with pytest.raises(
            es.WorkingMemoryError, match=r"the centred products of 2 600 x 600 matrices"
        ):
            es.dcor(x, y)
