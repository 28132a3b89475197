"""Energy distance and the DISCO decomposition (energystats._homogeneity.dispersion,
_disco)."""

import re

import numpy as np
import pandas as pd
import pytest
from conftest import brute_g, brute_rho
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.stats import energy_distance as scipy_energy_distance
from scipy.stats import special_ortho_group

import energystats as es

OPTIONS = [
    dict(exponent=1.0),
    dict(exponent=0.5),
    dict(exponent=2.0),
    dict(metric="exponential", sigma=1.0),
    dict(metric="gaussian", sigma=2.0),
]


def brute_dispersion(X, codes, w=None, **kw):
    """W, S, T straight from França et al. eq. (13)-(16), (18)."""
    w = np.ones(len(X)) if w is None else w
    groups = np.unique(codes)
    s = np.array([w[codes == j].sum() for j in groups])
    g = np.array(
        [
            [
                brute_g(X[codes == a], X[codes == b], w[codes == a], w[codes == b], **kw)
                for b in groups
            ]
            for a in groups
        ]
    )
    W = sum(s[j] / 2 * g[j, j] for j in range(len(groups)))
    S = sum(
        s[i] * s[j] / (2 * s.sum()) * (2 * g[i, j] - g[i, i] - g[j, j])
        for i in range(len(groups))
        for j in range(i + 1, len(groups))
    )
    T = s.sum() / 2 * brute_g(X, X, w, w, **kw)
    return W, S, T, g, s


@pytest.mark.parametrize("kw", OPTIONS)
def test_energy_distance_brute_force(rng, kw):
    x, y = rng.normal(size=(12, 3)), rng.normal(1.0, 2.0, size=(9, 3))
    want = 2 * brute_g(x, y, **kw) - brute_g(x, x, **kw) - brute_g(y, y, **kw)
    assert es.energy_distance(x, y, **kw) == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("kw", OPTIONS)
def test_weighted_energy_distance_brute_force(rng, kw):
    x, y = rng.normal(size=(10, 2)), rng.normal(0.5, 1.0, size=(7, 2))
    wx, wy = rng.uniform(0.1, 3, size=10), rng.uniform(0.1, 3, size=7)
    want = (
        2 * brute_g(x, y, wx, wy, **kw) - brute_g(x, x, wx, wx, **kw) - brute_g(y, y, wy, wy, **kw)
    )
    got = es.energy_distance(x, y, x_weights=wx, y_weights=wy, **kw)
    assert got == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("kw", OPTIONS)
def test_u_statistic_brute_force(rng, kw):
    """The V-statistic with the pairs of a point with itself left out of the within means."""
    x, y = rng.normal(size=(12, 3)), rng.normal(1.0, 2.0, size=(9, 3))
    Dx, Dy = brute_rho(x, x, **kw), brute_rho(y, y, **kw)
    want = 2 * brute_rho(x, y, **kw).mean() - Dx.sum() / (12 * 11) - Dy.sum() / (9 * 8)
    assert es.energy_distance(x, y, estimator="U", **kw) == pytest.approx(want, rel=1e-12)


def test_u_statistic_on_the_line_and_by_projection(rng):
    """The sorted (1-D) and projection operators: their block sums have the same zero
    diagonal, so the U-statistic is the V-statistic's sums over other denominators."""
    x, y = rng.normal(size=40), rng.exponential(size=25)
    want = 2 * np.abs(x[:, None] - y).mean() - pdist_sum(x) / (40 * 39) - pdist_sum(y) / (25 * 24)
    assert es.energy_distance(x, y, estimator="U") == pytest.approx(want, rel=1e-12)
    X, Y = rng.normal(size=(30, 3)), rng.normal(size=(20, 3))
    v = es.energy_distance(X, Y, approximation="projection", n_projections=5, rng=1)
    u = es.energy_distance(X, Y, approximation="projection", n_projections=5, rng=1, estimator="U")
    # E_V - E_U = M_jj / (n_j^2 (n_j - 1)) summed over the two samples, M_jj = 2 n_j W_j the
    # within sums of the same projected distances (dispersion draws the same directions)
    within = es.dispersion(
        np.vstack([X, Y]), np.repeat([0, 1], [30, 20]), approximation="projection", n_projections=5,
        rng=1,
    ).within
    assert v - u == pytest.approx(2 * within[0] / (30 * 29) + 2 * within[1] / (20 * 19), rel=1e-10)


def pdist_sum(z):
    return np.abs(z[:, None] - z[None, :]).sum()


def test_u_statistic_is_unbiased():
    """N(0, 1) against N(1, 1): E = 2 E|X - Y| - 2 E|X - X'| with X - Y ~ N(1, 2), X - X' ~
    N(0, 2), so E = 2 (sqrt(2) (2 phi(1 / sqrt 2) + (1 / sqrt 2)(2 Phi(1 / sqrt 2) - 1)))
    - 2 (2 / sqrt(pi)). The mean of 1,000 U-statistics (n = 8, 6) is within 4 standard errors
    of it; the V-statistic's mean is more than 8 standard errors above (15.5 here)."""
    from scipy.stats import norm

    s = np.sqrt(2.0)
    e_abs = s * (2 * norm.pdf(1 / s) + (1 / s) * (2 * norm.cdf(1 / s) - 1))
    true = 2 * e_abs - 2 * 2 / np.sqrt(np.pi)
    rng = np.random.default_rng(11)
    u, v = [], []
    for _ in range(1000):
        x, y = rng.normal(size=8), rng.normal(1.0, 1.0, size=6)
        u.append(es.energy_distance(x, y, estimator="U"))
        v.append(es.energy_distance(x, y))
    se = np.std(u) / np.sqrt(len(u))
    # false failure: P(|Z| > 4) = 6.3e-5 (normal bound; here |z| = 0.9)
    assert abs(np.mean(u) - true) < 4 * se
    # the V-statistic's bias is 15.5 standard errors here: P(Z < 8 - 15.5) is nil
    assert np.mean(v) - true > 8 * se


def test_u_statistic_can_be_negative():
    assert es.energy_distance([0.0, 1.0], [0.5, 0.6], estimator="U") < 0


def test_energy_distance_is_scipy_squared(rng):
    u, v = rng.normal(size=40), rng.normal(0.3, 1.5, size=55)
    assert es.energy_distance(u, v) == pytest.approx(scipy_energy_distance(u, v) ** 2, rel=1e-12)


def test_integer_weights_equal_duplication(rng):
    x, y = rng.normal(size=(8, 2)), rng.normal(size=(6, 2))
    reps = rng.integers(1, 4, size=8)
    dup = es.energy_distance(np.repeat(x, reps, axis=0), y)
    assert es.energy_distance(x, y, x_weights=reps) == pytest.approx(dup, rel=1e-12)
    labels = np.r_[np.zeros(8), np.ones(6)]
    weights = np.r_[reps, np.ones(6)]
    res_w = es.dispersion(np.vstack([x, y]), labels, sample_weight=weights)
    res_d = es.dispersion(
        np.vstack([np.repeat(x, reps, axis=0), y]), np.r_[np.zeros(reps.sum()), np.ones(6)]
    )
    for name in ("W", "S", "T", "F"):
        assert getattr(res_w, name) == pytest.approx(getattr(res_d, name), rel=1e-12)


@pytest.mark.parametrize("kw", OPTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_dispersion_brute_force(rng, kw, weighted):
    X = rng.normal(size=(30, 3))
    codes = rng.permutation(np.arange(30) % 4)
    w = rng.uniform(0.2, 2.0, size=30) if weighted else None
    res = es.dispersion(X, codes, sample_weight=w, **kw)
    W, S, T, g, s = brute_dispersion(X, codes, w, **kw)
    assert res.W == pytest.approx(W, rel=1e-12)
    assert res.S == pytest.approx(S, rel=1e-12)
    assert res.T == pytest.approx(T, rel=1e-12)
    E = 2 * g - np.diag(g)[:, None] - np.diag(g)[None, :]
    np.testing.assert_allclose(
        res.pairwise, np.outer(s, s) / np.add.outer(s, s) * E, rtol=1e-11, atol=1e-14
    )
    assert res.F == pytest.approx((S / 3) / (W / (s.sum() - 4)), rel=1e-12)
    np.testing.assert_allclose(res.within.sum(), res.W, rtol=1e-14)


@settings(max_examples=80, deadline=None)
@given(
    data=st.data(),
    n=st.integers(3, 30),
    k=st.integers(2, 4),
    kwi=st.sampled_from(range(len(OPTIONS))),
)
def test_decomposition_identities(data, n, k, kwi):
    kw = OPTIONS[kwi]
    # values below 1e-30 would be refused (a ValueError, tested with the numeric range):
    # squared below 1e-200 with exponent 2, or 2^128 times below the kernels' fixed sigma
    X = data.draw(
        arrays(
            np.float64, (n, 2),
            elements=st.floats(-1e3, 1e3).filter(lambda v: v == 0 or abs(v) > 1e-30),
        )
    )
    codes = np.arange(n) % k
    res = es.dispersion(X, codes, **kw)
    scale = max(1e-300, res.T)
    assert abs(res.S + res.W - res.T) <= 1e-12 * scale  # Lemma 1, eq. (18)
    np.testing.assert_array_equal(res.pairwise, res.pairwise.T)
    assert (res.pairwise >= -1e-12 * scale).all()  # E >= 0 for negative type
    x, y = X[codes == 0], X[codes == 1]
    e_xy, e_yx = es.energy_distance(x, y, **kw), es.energy_distance(y, x, **kw)
    assert e_xy == pytest.approx(e_yx, rel=1e-12, abs=1e-12 * scale)
    assert abs(es.energy_distance(x, x, **kw)) <= 1e-12 * max(1.0, scale)


def test_translation_rotation_float32_invariance(rng):
    X = rng.normal(size=(60, 3)) * np.array([1.0, 2.0, 0.5])
    codes = rng.integers(0, 3, size=60)
    base = es.dispersion(X, codes)
    Q = special_ortho_group.rvs(3, random_state=rng)
    # rotation: only rounding of the product changes distances
    rotated = es.dispersion(X @ Q.T, codes)
    # translation by 1e8: the shifted input itself is rounded to 1e8 * 2**-52 ~ 1.5e-8
    translated = es.dispersion(X + 1e8, codes)
    # float32: exact conversion of data already representable in float32
    X32 = X.astype(np.float32)
    single = es.dispersion(X32, codes)
    single_ref = es.dispersion(X32.astype(np.float64), codes)
    for name in ("W", "S", "T"):
        assert getattr(rotated, name) == pytest.approx(getattr(base, name), rel=1e-12)
        assert getattr(translated, name) == pytest.approx(getattr(base, name), rel=1e-6)
        assert getattr(single, name) == getattr(single_ref, name)
    x, y = X[codes == 0], X[codes == 1]
    assert es.energy_distance(x + 1e8, y + 1e8) == pytest.approx(es.energy_distance(x, y), rel=1e-6)


def test_precomputed_equals_points(rng):
    X = rng.normal(size=(25, 2))
    codes = rng.integers(0, 3, size=25)
    codes[:3] = [0, 1, 2]
    a = es.dispersion(X, codes, exponent=0.5)
    b = es.dispersion(brute_rho(X, X, exponent=0.5), codes, metric="precomputed")
    for name in ("W", "S", "T", "F"):
        assert getattr(a, name) == pytest.approx(getattr(b, name), rel=1e-12)


def test_containers_and_labels(rng):
    X = rng.normal(size=(10, 2))
    labels = np.array(["b", "a"] * 5)
    ref = es.dispersion(X, labels)
    df = pd.DataFrame(X, columns=["u", "v"])
    assert es.dispersion(df, pd.Series(labels)).W == ref.W
    assert es.dispersion(X.tolist(), list(labels)).W == ref.W
    np.testing.assert_array_equal(ref.groups, ["a", "b"])
    np.testing.assert_array_equal(ref.sizes, [5, 5])
    assert list(ref.to_frame().index) == ["a", "b"]
    assert ref.pairwise_frame().loc["a", "b"] == ref.pairwise[0, 1]
    assert es.energy_distance(pd.Series(X[:, 0]), X[:, 1].tolist()) == es.energy_distance(
        X[:, 0], X[:, 1]
    )


def test_inputs_are_not_modified(rng):
    X = rng.normal(size=(12, 2))
    labels = np.arange(12) % 3
    w = rng.uniform(1, 2, size=12)
    copies = [a.copy() for a in (X, labels, w)]
    es.dispersion(X, labels, sample_weight=w)
    es.energy_distance(X, X[::-1], x_weights=w)
    D = brute_rho(X, X)
    Dc = D.copy()
    es.dispersion(D, labels, metric="precomputed")
    es.kernel_matrix(D, metric="precomputed")
    for a, c in zip((X, labels, w, D), copies + [Dc]):
        np.testing.assert_array_equal(a, c)


def test_matches_r_scaling_on_iris():
    """Reference values printed by R 4.2.2, energy 1.7-11 (7 significant digits shown):
    x <- as.matrix(iris[, 1:4]); disco(x, iris$Species, R = 0); edist(x, c(50, 50, 50))
    """
    iris = es.datasets.load_iris()
    res = es.dispersion(iris.iloc[:, :4], iris["Species"])
    assert res.S == pytest.approx(119.2373, abs=5e-5)
    assert res.W == pytest.approx(70.33848, abs=5e-6)
    assert res.T == pytest.approx(189.5758, abs=5e-5)
    assert res.F == pytest.approx(124.5967, abs=5e-5)
    assert res.pairwise[0, 1] == pytest.approx(123.55381, abs=5e-6)
    assert res.pairwise[1, 2] == pytest.approx(38.85415, abs=5e-6)


def test_repr_is_readable(rng):
    res = es.dispersion(rng.normal(size=(9, 2)), np.arange(9) % 3)
    text = repr(res)
    assert text.startswith("Distance components (DISCO)\n\ndata:  X by labels")
    # R disco's decimals and blank cells
    assert re.search(rf"^Within +6 +{res.W:.5f} +{res.W / 6:.5f}$", text, re.M)
    assert "Pairwise n_i n_j / (n_i + n_j) * E_ij (R edist)" in text
    # the data line, the disco table and the pairwise matrix, as HTML tables
    assert res._repr_html_().count("</table>") == 3


@pytest.mark.parametrize(
    "call,err,match",
    [
        (
            lambda: es.dispersion(np.zeros((4, 2)), [0, 0, 0, 0]), ValueError,
            "`labels` must define at least two groups",
        ),
        (
            lambda: es.dispersion(np.zeros((4, 2)), [0, 1, 0]), ValueError,
            r"`labels` must have one entry per sample \(4\)",
        ),
        (
            lambda: es.dispersion(np.zeros((4, 2)), np.zeros((4, 1, 1))), ValueError,
            "`labels` must be one-dimensional",
        ),
        (
            lambda: es.dispersion(np.zeros((4, 2)), [[0, 1], [0, 1]]), ValueError,
            r"`labels\[0\]` must have one entry per sample \(4\)",
        ),
        (
            lambda: es.dispersion([[0.0, np.nan], [1, 1]], [0, 1]), ValueError,
            r"`X` contains missing values \(NaN, None or masked\) in 1 of 2 row",
        ),
        (
            lambda: es.dispersion([[0.0, np.inf], [1, 1]], [0, 1]), ValueError,
            "`X` contains NaN or infinite",
        ),
        (
            lambda: es.dispersion(np.zeros((2, 2, 2)), [0, 1]), ValueError,
            "`X` must be a 1-D or 2-D array, got 3",
        ),
        (
            lambda: es.dispersion(np.zeros((4, 0)), [0, 1, 0, 1]), ValueError,
            "`X` must have at least one feature",
        ),
        (
            lambda: es.dispersion([["a", "b"], ["c", "d"]], [0, 1]), ValueError,
            "`X` must hold numbers only",
        ),
        (
            lambda: es.dispersion(np.eye(2), [0, 1], sample_weight=[1, -1]), ValueError,
            "`sample_weight` must be non-negative",
        ),
        (
            lambda: es.dispersion(np.eye(2), [0, 1], sample_weight=[1]), ValueError,
            "`sample_weight` must be one-dimensional",
        ),
        (
            lambda: es.dispersion(np.eye(2), [0, 1], sample_weight=[1, 0]), ValueError,
            "`sample_weight` gives group 1 zero total weight",
        ),
        (
            lambda: es.dispersion(np.eye(2), [0, 1], sample_weight=[0, 0]), ValueError,
            "`sample_weight` is zero for every sample",
        ),
        (
            lambda: es.dispersion(np.eye(2), [0, 1], exponent=3), ValueError,
            r"`exponent` must lie in \(0, 2\]",
        ),
        (
            lambda: es.energy_distance(np.zeros((3, 2)), np.zeros((3, 3))), ValueError,
            "`x` and `y` must have the same number of features",
        ),
        (lambda: es.energy_distance([], [1.0]), ValueError, "`x` must hold at least 1 sample"),
        (
            lambda: es.energy_distance([1.0], np.zeros((0, 1))), ValueError,
            "`y` must hold at least 1 sample",
        ),
        (
            lambda: es.energy_distance([1.0], [2.0], y_weights=[np.nan]), ValueError,
            "`y_weights` contains missing values",
        ),
        (
            lambda: es.energy_distance(np.eye(2), np.eye(2), metric="precomputed"), ValueError,
            "not available for two separate samples",
        ),
        (
            lambda: es.energy_distance([1.0, 2.0], [3.0, 4.0], estimator="W"), ValueError,
            "`estimator` must be 'V' or 'U'",
        ),
        (
            lambda: es.energy_distance([1.0, 2.0], [3.0, 4.0], estimator="U", x_weights=[1, 2]),
            ValueError, "`estimator`='U' takes no `x_weights`",
        ),
        (
            lambda: es.energy_distance([1.0], [3.0, 4.0], estimator="U"), ValueError,
            "`x` needs at least two points for `estimator`='U'",
        ),
        (
            lambda: es.energy_distance([1.0, 2.0], [[3.0]], estimator="U"), ValueError,
            "`y` needs at least two points",
        ),
    ],
)
def test_bad_input(call, err, match):
    with pytest.raises(err, match=match):
        call()


# --- Cross-checks against R's energy package (R 4.2.2, energy 1.7-11) -------------


def _r_datasets():
    """(name, X sorted by group, codes, exponent): iris and random unequal groups, k = 2..5."""
    iris = es.datasets.load_iris()
    sets = [
        ("iris", iris.iloc[:, :4].to_numpy(), pd.factorize(iris["Species"])[0], a)
        for a in (1.0, 0.5)
    ]
    rng = np.random.default_rng(20261121)
    for k in (2, 3, 4, 5):
        sizes = rng.integers(5, 40, size=k)
        codes = np.repeat(np.arange(k), sizes)
        X = rng.normal(size=(sizes.sum(), 3)) + codes[:, None] * rng.normal(0, 0.5, size=3)
        for a in (1.0, 0.5):
            sets.append((f"random k={k}", X, codes, a))
    return sets


@pytest.mark.r
@pytest.mark.parametrize(
    "name,X,codes,exponent", _r_datasets(), ids=lambda v: v if isinstance(v, str) else None
)
def test_dispersion_equals_r(name, X, codes, exponent):
    from energystats._rbridge import r_call, r_factor, r_field, r_matrix, to_numpy

    sizes = np.bincount(codes)
    res = es.dispersion(X, codes, exponent=exponent)
    xr = r_matrix(X)
    edist = to_numpy(r_call("as.matrix", r_call("edist", xr, sizes, alpha=exponent)))
    discoB = to_numpy(
        r_call("as.matrix", r_call("edist", xr, sizes, alpha=exponent, method="discoB"))
    )
    eqdist_e = to_numpy(r_call("eqdist.e", xr, sizes, distance=False, method="original"))
    disco = r_call("disco", xr, r_factor(codes), index=exponent, R=0)
    np.testing.assert_allclose(res.pairwise, edist, rtol=1e-10)
    np.testing.assert_allclose(
        res.pairwise * np.add.outer(sizes, sizes) / (2 * sizes.sum()), discoB, rtol=1e-10
    )
    if exponent == 1.0:  # eqdist.e has no exponent argument
        assert res.pairwise[np.triu_indices(len(sizes), 1)].sum() == pytest.approx(
            eqdist_e[0], rel=1e-10
        )
    assert res.S == pytest.approx(to_numpy(r_field(disco, "between"))[0], rel=1e-10)
    assert res.W == pytest.approx(to_numpy(r_field(disco, "within"))[0], rel=1e-10)
    assert res.W == pytest.approx(to_numpy(r_field(disco, "withins"))[0], rel=1e-10)
    assert res.T == pytest.approx(to_numpy(r_field(disco, "total"))[0], rel=1e-10)
    assert res.F == pytest.approx(to_numpy(r_field(disco, "statistic"))[0], rel=1e-10)


@pytest.mark.r
def test_precomputed_dispersion_equals_r(rng):
    from energystats._rbridge import r_call, r_dist, r_factor, r_field, to_numpy

    sizes = np.array([12, 20, 7])
    codes = np.repeat(np.arange(3), sizes)
    X = rng.standard_t(3, size=(sizes.sum(), 2))
    # L1, negative type
    D = np.abs(X[:, None, 0] - X[None, :, 0]) + np.abs(X[:, None, 1] - X[None, :, 1])
    res = es.dispersion(D, codes, metric="precomputed")
    edist = to_numpy(r_call("as.matrix", r_call("edist", r_dist(D), sizes, distance=True)))
    disco = r_call("disco", r_dist(D), r_factor(codes), distance=True, R=0)
    np.testing.assert_allclose(res.pairwise, edist, rtol=1e-10)
    assert res.S == pytest.approx(to_numpy(r_field(disco, "between"))[0], rel=1e-10)
    assert res.W == pytest.approx(to_numpy(r_field(disco, "within"))[0], rel=1e-10)
    assert res.F == pytest.approx(to_numpy(r_field(disco, "statistic"))[0], rel=1e-10)


@pytest.mark.r
def test_two_sample_energy_distance_equals_r_edist(rng):
    from energystats._rbridge import r_call, r_matrix, to_numpy

    x, y = rng.normal(size=(33, 4)), rng.normal(0.2, 1.0, size=(21, 4))
    for exponent in (1.0, 0.5, 1.5):
        e = es.energy_distance(x, y, exponent=exponent)
        r = to_numpy(
            r_call("edist", r_matrix(np.vstack([x, y])), np.array([33, 21]), alpha=exponent)
        )[0]
        assert 33 * 21 / 54 * e == pytest.approx(r, rel=1e-10)


def test_zero_weights_are_removed_points(rng):
    X = rng.normal(size=(40, 3))
    labels = rng.integers(0, 3, size=40)
    w = rng.uniform(0.5, 2.0, size=40)
    w[[3, 7, 8, 20]] = 0.0
    keep = w > 0
    a = es.dispersion(X, labels, sample_weight=w)
    b = es.dispersion(X[keep], labels[keep], sample_weight=w[keep])
    for field in ("W", "S", "T", "F"):
        assert getattr(a, field) == pytest.approx(getattr(b, field), rel=1e-12)
    np.testing.assert_array_equal(a.sizes, b.sizes)
    np.testing.assert_allclose(a.pairwise, b.pairwise, rtol=1e-12)
    x, y, wx = X[:15], X[15:], w[:15]
    assert es.energy_distance(x, y, x_weights=wx, y_weights=w[15:]) == pytest.approx(
        es.energy_distance(
            x[wx > 0], y[keep[15:]], x_weights=wx[wx > 0], y_weights=w[15:][keep[15:]]
        ),
        rel=1e-12,
    )
    with pytest.raises(ValueError, match="`sample_weight` gives group 1 zero total weight"):
        es.dispersion(X, labels, sample_weight=np.where(labels == 1, 0.0, 1.0))
    with pytest.raises(ValueError, match="`x_weights` is zero for every sample"):
        es.energy_distance(x, y, x_weights=np.zeros(15))
