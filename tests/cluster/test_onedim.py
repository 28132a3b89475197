"""The exact two-class splitter (energystats._cluster.split1d) and the one-dimensional
O(n log n) statistics (energystats._scale.line)."""

import numpy as np
import pytest
from conftest import brute_rho
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.cluster import KMeans

import energystats as es


def eq63(xs_lower, xs_upper):
    """W of a partition into sorted groups, França et al. eq. (63), term by term."""
    W = 0.0
    for group in (np.sort(xs_lower), np.sort(xs_upper)):
        nj = len(group)
        W += sum((2 * l - 1 - nj) / nj * group[l - 1] for l in range(1, nj + 1))
    return W


def brute_weighted_W(groups, weights):
    """Eq. (15) with weights, from the full distance matrix."""
    return sum((w @ brute_rho(g, g) @ w) / (2 * w.sum()) for g, w in zip(groups, weights))


small_samples = st.integers(2, 40).flatmap(
    lambda n: arrays(
        np.float64, n,
        elements=st.integers(-6, 6).map(float) | st.floats(-100, 100, allow_subnormal=False),
    )
)


@settings(max_examples=150, deadline=None)
@given(x=small_samples)
def test_curve_is_eq63_and_split_is_its_argmin(x):
    if np.unique(x).size < 2:
        with pytest.raises(ValueError, match="`x` must hold at least two distinct values"):
            es.split_1d(x)
        return
    res = es.split_1d(x)
    xs = np.sort(x)
    splits = [m for m in range(1, len(xs)) if xs[m - 1] < xs[m]]
    want = np.array([eq63(xs[:m], xs[m:]) for m in splits])
    scale = max(1.0, np.abs(xs).max()) * len(xs)
    np.testing.assert_allclose(res.W_curve, want, rtol=1e-10, atol=1e-12 * scale)
    assert res.W == res.W_curve.min()
    assert res.split_index == splits[int(np.argmin(res.W_curve))]
    # labels: the lower split_index sorted points, equal values never separated
    assert res.labels.sum() == len(x) - res.split_index
    assert x[res.labels == 0].max() < x[res.labels == 1].min()
    assert x[res.labels == 0].max() <= res.threshold < x[res.labels == 1].min()
    d = es.dispersion(x, res.labels)
    assert d.W == pytest.approx(res.W, rel=1e-10, abs=1e-12 * scale)
    assert d.S == pytest.approx(res.S, rel=1e-10, abs=1e-12 * scale)


def test_tiny_samples():
    res = es.split_1d([3.0, 1.0])
    np.testing.assert_array_equal(res.labels, [1, 0])
    assert (res.W, res.S, res.threshold, res.split_index) == (0.0, 1.0, 2.0, 1)
    res = es.split_1d([0.0, 0.0, 1.0])  # one admissible split only
    np.testing.assert_array_equal(res.labels, [0, 0, 1])
    assert res.W_curve.shape == (1,)


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    n=st.integers(2, 30),
)
def test_weighted_curve_matches_brute_force(data, n):
    x = data.draw(
        arrays(
            np.float64, n,
            elements=st.integers(-5, 5).map(float) | st.floats(-10, 10, allow_subnormal=False),
        )
    )
    w = data.draw(arrays(np.float64, n, elements=st.floats(0.01, 10)))
    if np.unique(x).size < 2:
        return
    res = es.split_1d(x, sample_weight=w)
    order = np.argsort(x, kind="stable")
    xs, ws = x[order], w[order]
    splits = [m for m in range(1, n) if xs[m - 1] < xs[m]]
    want = [brute_weighted_W([xs[:m], xs[m:]], [ws[:m], ws[m:]]) for m in splits]
    scale = (np.abs(x).max() + 1) * w.sum()
    np.testing.assert_allclose(res.W_curve, want, rtol=1e-9, atol=1e-11 * scale)
    d = es.dispersion(x, res.labels, sample_weight=w)
    assert d.S + d.W == pytest.approx(res.S + res.W, rel=1e-9, abs=1e-11 * scale)


def test_integer_weights_equal_duplication(rng):
    x = rng.normal(size=30)
    reps = rng.integers(1, 4, size=30)
    a = es.split_1d(x, sample_weight=reps)
    b = es.split_1d(np.repeat(x, reps))
    assert a.threshold == b.threshold
    assert a.W == pytest.approx(b.W, rel=1e-12)
    np.testing.assert_allclose(a.W_curve, b.W_curve, rtol=1e-11)


def test_large_one_dimensional_energy_distance_equals_scipy(rng):
    # 50,000 points: the quadratic path would need 2.5e9 distances; scipy's CDF formula
    # (which returns sqrt(E)) is an independent O(n log n) reference.
    from scipy.stats import energy_distance as scipy_energy_distance

    x, y = rng.normal(size=20_000), rng.normal(0.1, 1.0, size=30_000)
    assert es.energy_distance(x, y) == pytest.approx(scipy_energy_distance(x, y) ** 2, rel=1e-9)


def test_offset_of_1e9_changes_nothing_but_rounding(rng):
    x = np.r_[rng.normal(0, 1, 300), rng.normal(4, 1, 200)]
    base = es.split_1d(x)
    shifted = es.split_1d(x + 1e9)  # the input itself is rounded to ~1.2e-7
    np.testing.assert_array_equal(base.labels, shifted.labels)
    assert shifted.split_index == base.split_index
    assert shifted.W == pytest.approx(base.W, rel=1e-6)
    assert shifted.threshold - 1e9 == pytest.approx(base.threshold, abs=1e-6)
    assert es.energy_distance(x[:300] + 1e9, x[300:] + 1e9) == pytest.approx(
        es.energy_distance(x[:300], x[300:]), rel=1e-6
    )


def test_adjacent_floats_are_split_exactly():
    a = 1.0
    b = np.nextafter(a, 2.0)
    res = es.split_1d([a, a, b, b, b])
    np.testing.assert_array_equal(res.labels, [0, 0, 1, 1, 1])
    assert a <= res.threshold < b


def test_inputs_not_modified_and_containers(rng):
    import pandas as pd

    x = rng.normal(size=20)
    w = rng.uniform(1, 2, size=20)
    xc, wc = x.copy(), w.copy()
    a = es.split_1d(x, sample_weight=w)
    np.testing.assert_array_equal(x, xc)
    np.testing.assert_array_equal(w, wc)
    b = es.split_1d(pd.Series(x), sample_weight=list(w))
    c = es.split_1d(x[:, None].astype(np.float32).astype(np.float64), sample_weight=w)
    assert a.W == b.W
    assert c.threshold == pytest.approx(a.threshold, rel=1e-6)
    assert (
        repr(a).startswith("Exact energy split of one-dimensional data into two groups")
        and f"threshold: {a.threshold:.5g}" in repr(a)
    )


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(x=np.ones(5)), "`x` must hold at least two distinct values"),
        (dict(x=[1.0]), "`x` must hold at least two distinct values"),
        (dict(x=np.zeros((4, 2))), "`x` must be one-dimensional, got 2 columns"),
        (dict(x=[0.0, np.nan]), "`x` contains missing values"),
        (
            dict(x=[0.0, 1.0, 2.0], sample_weight=[1.0, 0.0, 0.0]),
            "at least two distinct values of positive weight",
        ),
        (dict(x=[0.0, 1.0], sample_weight=[0.0, 0.0]), "`sample_weight` is zero for every sample"),
        (dict(x=[0.0, 1.0], sample_weight=[1.0]), "`sample_weight` must be one-dimensional"),
    ],
)
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        es.split_1d(**kwargs)


def _accuracy(labels, truth):
    a = np.mean(labels == truth)
    return max(a, 1 - a)


@pytest.mark.slow
def test_table1_lognormal_mixture_beats_kmeans():
    """França et al. Table 1 setting: n = 2000 from (1/2) N(0, 1.5) + (1/2) N(1.5, 0.3)
    (standard deviations) and its exponential. Paper: splitter 0.807 / 0.846,
    k-means 0.778 / 0.520 (normal / lognormal). Over 5 seeds we require the same
    picture: on the lognormal mixture the splitter is far above k-means."""
    ours = {"normal": [], "lognormal": []}
    km = {"normal": [], "lognormal": []}
    for seed in range(5):
        rng = np.random.default_rng(seed)
        truth = rng.integers(0, 2, size=2000)
        x = np.where(truth == 0, rng.normal(0, 1.5, 2000), rng.normal(1.5, 0.3, 2000))
        for name, data in (("normal", x), ("lognormal", np.exp(x))):
            ours[name].append(_accuracy(es.split_1d(data).labels, truth))
            km_labels = KMeans(2, n_init=10, random_state=seed).fit_predict(data[:, None])
            km[name].append(_accuracy(km_labels, truth))
    # deterministic: fixed seeds 0-4; here 0.851, 0.520, a gap of 0.30 and 0.802
    assert np.mean(ours["lognormal"]) > 0.82
    assert np.mean(km["lognormal"]) < 0.6
    assert min(ours["lognormal"]) - max(km["lognormal"]) > 0.2
    assert np.mean(ours["normal"]) > 0.77


@pytest.mark.r
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_r_kgroups_from_the_split_finds_no_lower_W(seed):
    from energystats._rbridge import r_call, r_field, r_matrix, to_numpy

    rng = np.random.default_rng(seed)
    data = [
        np.r_[rng.normal(0, 1, 120), rng.normal(3, 0.5, 80)],
        np.exp(np.r_[rng.normal(0, 1.5, 150), rng.normal(1.5, 0.3, 150)]),
        rng.standard_t(2, size=250),
    ][seed]
    res = es.split_1d(data)
    out = r_call("kgroups", r_matrix(data), 2, iter_max=100, cluster=res.labels + 1)
    r_labels = np.asarray(to_numpy(r_field(out, "cluster")), dtype=int) - 1
    r_W = es.dispersion(data, r_labels).W
    assert r_W >= res.W * (1 - 1e-12)


def test_zero_weights_are_removed_points(rng):
    x = np.r_[rng.normal(0, 1, 30), rng.normal(5, 1, 30)]
    w = rng.uniform(0.5, 2.0, size=60)
    w[[0, 31, 45]] = 0.0
    a = es.split_1d(x, sample_weight=w)
    b = es.split_1d(x[w > 0], sample_weight=w[w > 0])
    assert a.threshold == b.threshold and a.split_index == b.split_index
    assert a.W == pytest.approx(b.W, rel=1e-12) and a.S == pytest.approx(b.S, rel=1e-12)
    np.testing.assert_array_equal(a.labels[w > 0], b.labels)
    np.testing.assert_array_equal(a.labels, (x > a.threshold).astype(int))
    np.testing.assert_allclose(a.W_curve, b.W_curve, rtol=1e-12)


def test_split_within_the_budget_or_refused_before_allocating(rng):
    """split_1d holds 25 bytes a point beyond the data (sorted copy turned into the thresholds,
    W curve, admissible splits, labels); a budget below that is refused with the sizes."""
    x = rng.normal(size=50_000)
    res = es.split_1d(x)
    np.testing.assert_array_equal(
        res.curve_thresholds, 0.5 * np.sort(x)[:-1] + 0.5 * np.sort(x)[1:]
    )
    with (
        es.config_context(working_memory=1),
        pytest.raises(es.WorkingMemoryError, match="split_1d of 50000 points"),
    ):
        es.split_1d(x)


def test_exact_p_values_on_the_line_count_the_ties_of_swapped_groups():
    """A labeling and its swap of two equal-sized groups give the same statistic; the sums
    from one sort round differently from the dense ones (1e-13 of T), and must still tie:
    the exact p-value on the line equals the dense path's for every statistic and tie rule
    (seed 21 lost 10 of 2,368 ties with a tolerance relative to the statistic)."""
    labels = np.repeat([0, 1], 7)  # 3,432 relabelings
    for seed in (21, *range(4)):
        x = np.random.default_rng(seed).normal(size=14) * 10
        for statistic in "SEF":
            for ties in ("tolerant", "strict"):
                line = es.energy_test(x, labels, exact=True, statistic=statistic, ties=ties)
                plane = es.energy_test(
                    np.c_[x, 0 * x], labels, exact=True, statistic=statistic, ties=ties
                )
                assert line.pvalue == plane.pvalue, (seed, statistic, ties)


def _pair_sum(x, w):
    """sum_{x, y} w(x) w(y) |x - y| of a sample on the line, from one sort and one cumulative
    sum of the weights (eq. 62 with weights): 2 sum_l w_l x_(l) (c_{l-1} + c_l - s)."""
    order = np.argsort(x)
    xs, ws = x[order] - x.mean(), w[order]
    c = np.cumsum(ws)
    return 2.0 * float(ws * xs @ (2.0 * c - ws - c[-1]))


@pytest.mark.parametrize("weighted", [False, True])
def test_split_past_the_blocks_of_32768_points_is_the_split_of_least_W(rng, weighted):
    """n = 70,000, three blocks of the prefix sums: the returned W is the W of the returned
    groups recomputed from their own sorted pair sums (eq. 62, 15); the curve at every split
    equals the same prefix-sum formula in one block (no carry between blocks); and the split
    is its argmin. Dropping a block's carry of either prefix sum breaks all three."""
    n = 70_000
    x = np.concatenate([rng.normal(0.0, 1.0, 40_000), rng.normal(3.0, 1.0, n - 40_000)])
    w = rng.uniform(0.5, 2.0, n) if weighted else np.ones(n)
    res = es.split_1d(x, sample_weight=w if weighted else None)
    W = sum(_pair_sum(x[res.labels == g], w[res.labels == g]) / (2.0 * w[res.labels == g].sum())
            for g in (0, 1))
    assert res.W == pytest.approx(W, rel=1e-9)
    assert res.S + res.W == pytest.approx(_pair_sum(x, w) / (2.0 * w.sum()), rel=1e-9)
    order = np.argsort(x, kind="stable")
    xs, ws = x[order] - x.mean(), w[order]
    c = np.cumsum(ws)
    p0, p1, s = np.cumsum(ws * xs), np.cumsum(ws * xs * (2.0 * c - ws)), c[-1]
    P0, P1, c, p0, p1 = p0[-1], p1[-1], c[:-1], p0[:-1], p1[:-1]  # the splits after 1..n-1
    curve = (p1 - c * p0) / c + ((P1 - p1) - (s + c) * (P0 - p0)) / (s - c)
    np.testing.assert_allclose(res.W_curve, curve, rtol=1e-9, atol=1e-12 * W)
    assert res.split_index == int(np.argmin(curve)) + 1
    assert (res.labels == 1).sum() == n - res.split_index
