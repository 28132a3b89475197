"""choose_k (energystats/_cluster/choose_k.py, _k_tests.py, _k_curve.py), cluster_test
without k, the dip (``_cluster/dip.py``), and the labels= alignment of cluster_test."""

import itertools
import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from scipy.stats import binom  # noqa: E402

import energystats as es  # noqa: E402
from energystats._cluster._k_curve import gap_choice  # noqa: E402
from energystats._cluster._k_tests import (  # noqa: E402
    CANDIDATES,
    _drops,
    _kmeans_w,
    _reference,
    _scores,
    _unround,
    node_test,
    signal_dimension,
    statistic_and_pvalue,
)
from energystats._cluster.cluster_test import align_labels  # noqa: E402
from energystats.plotting import plot_choose_k  # noqa: E402

# R: precip (datasets), 70 values
PRECIP = [
    67, 54.7, 7, 48.5, 14, 17.2, 20.7, 13, 43.4, 40.2, 38.9, 54.5, 59.8, 48.3, 22.9, 11.5,
    34.4, 35.1, 38.7, 30.8, 30.6, 43.1, 56.8, 40.8, 41.8, 42.5, 31, 31.7, 30.2, 25.9, 49.2, 37,
    35.9, 15, 30.2, 7.2, 36.2, 45.5, 7.8, 33.4, 36.1, 40.2, 42.7, 42.5, 16.2, 39, 35, 37, 31.4,
    37.6, 39.9, 36.2, 42.8, 46.4, 24.7, 49.1, 46, 35.9, 7.8, 48.2, 15.2, 32.5, 44.7, 42.6,
    38.8, 17.4, 40.8, 29.1, 14.6, 59.2
]


def blobs(rng, centres, size=40, sd=1.0):
    return np.vstack([rng.normal(c, sd, size=(size, len(c))) for c in centres])


# --- the dip -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "x, expected",
    [
        # R diptest's own tests (tests/ex1.R): exact values
        ([1, 1, 2, 2], 0.25),  # stopifnot(dip(c(1,1,2,2)) == 1/4)
        ([0, 1, 3, 6], 1 / 8),  # stopifnot(d == 1/(2*n)), u <- cumsum(0:3)
        ([1] + [2] * 9, 0.05),  # dip(c(1, rep(2, 9))): 0.05
    ],
)
def test_dip_exact_values_of_r(x, expected):
    assert es.dip_statistic(x) == pytest.approx(expected, rel=1e-15)


def test_dip_printed_values_of_r():
    # R: dip(c(0,2:3,5:6)) prints 0.133; dip(precip) prints 0.0357 (three digits printed)
    assert es.dip_statistic([0, 2, 3, 5, 6]) == pytest.approx(0.133, rel=5e-3)
    assert es.dip_statistic(PRECIP) == pytest.approx(0.0357, rel=2e-3)


def test_dip_invariances_and_bounds(rng):
    x = np.r_[rng.normal(0, 1, 60), rng.normal(3, 0.5, 40)]
    d = es.dip_statistic(x)
    assert es.dip_statistic(-x) == pytest.approx(d, rel=1e-12)  # reflection (R's d2 = dip(6 - x))
    assert es.dip_statistic(3.5 * x - 2.0) == pytest.approx(d, rel=1e-12)  # affine maps
    assert es.dip_statistic(rng.permutation(x)) == d  # order of the input
    assert 1 / (2 * x.size) <= d <= 0.25
    assert es.dip_statistic([5.0, 5.0, 5.0, 5.0]) == 0.0


def test_dip_test_is_the_engine_pvalue(rng):
    res = es.dip_test(np.r_[rng.normal(0, 1, 50), rng.normal(6, 1, 50)], n_resamples=99, rng=3)
    expected = (1 + np.sum(res.null_distribution >= res.statistic)) / 100
    assert res.pvalue == expected == 0.01
    statistic, p = res
    assert (statistic, p) == (res.statistic, res.pvalue)
    assert "dip test" in repr(res)


def test_dip_errors():
    with pytest.raises(ValueError, match="`x` must be one-dimensional"):
        es.dip_statistic(np.ones((5, 2)))
    with pytest.raises(ValueError, match="`x` contains NaN or infinite values"):
        es.dip_statistic([1.0, np.inf, 2.0, 3.0])
    with pytest.raises(ValueError, match="`n_resamples` must be a positive integer"):
        es.dip_test([1.0, 2.0, 3.0, 4.0, 5.0], n_resamples=0)


# --- the node statistic: identities and brute force ---------------------------------------


def brute_force_w(Z: np.ndarray, k: int) -> float:
    """The least within sum of squares over every partition of the rows of Z into k groups."""
    best = np.inf
    for codes in itertools.product(range(k), repeat=Z.shape[0] - 1):
        labels = np.r_[0, codes]
        if np.unique(labels).size < k:
            continue
        best = min(best, sum(((Z[labels == j] - Z[labels == j].mean(0)) ** 2).sum()
                             for j in range(k)))
    return best


def test_kmeans_w_is_the_brute_force_optimum_on_separated_points(rng):
    for J in (1, 2):  # one dimension takes the sorted path
        # one best split in two (the far group alone), one in three
        centres = [[0.0], [20.0], [100.0]] if J == 1 else [[0.0, 0.0], [20.0, 0.0], [0.0, 100.0]]
        Z = np.stack([np.repeat(centres, 3, axis=0) + rng.normal(size=(9, J)) for _ in range(4)])
        draws = rng.random((4, 3, CANDIDATES))
        for k in (2, 3):
            expected = [brute_force_w(z, k) for z in Z]
            np.testing.assert_allclose(_kmeans_w(Z, k, draws[:, :k]), expected, rtol=1e-12)
        # any sample: never below the optimum
        Z = rng.normal(size=(3, 8, J))
        W = _kmeans_w(Z, 2, rng.random((3, 2, CANDIDATES)))
        assert all(w >= brute_force_w(z, 2) * (1 - 1e-12) for w, z in zip(W, Z))


def test_a_sample_s_fit_does_not_depend_on_its_batch(rng):
    Z, draws = rng.normal(size=(5, 30, 2)), rng.random((5, 4, CANDIDATES))
    for J in (1, 2):
        whole = _kmeans_w(Z[:, :, :J], 4, draws)
        alone = [_kmeans_w(Z[i : i + 1, :, :J], 4, draws[i : i + 1])[0] for i in range(5)]
        np.testing.assert_array_equal(whole, alone)


def test_drops_are_log_w1_minus_log_wk(rng):
    Z = rng.normal(size=(2, 9, 2))
    draws = rng.random((2, 4, CANDIDATES))
    D = _drops(Z, 4, draws)
    W1 = ((Z - Z.mean(1, keepdims=True)) ** 2).sum((1, 2))
    for k in range(2, 5):
        Wk = _kmeans_w(Z, k, draws[:, :k])
        np.testing.assert_allclose(D[:, k - 2], np.log(W1) - np.log(Wk))
    # three distinct points: W_3 = 0 is floored, no log of zero
    with np.errstate(all="raise"):
        D = _drops(np.repeat(rng.normal(size=(1, 3, 2)), 4, axis=1), 3, draws[:1, :3])
    assert np.isfinite(D).all()


def test_statistic_and_pvalue_by_hand(rng):
    drops, null = rng.normal(size=3), rng.normal(size=(19, 3))
    D = np.vstack([drops, null])
    t = ((D - D.mean(0)) / D.std(0)).max(1)
    statistic, p, t_null = statistic_and_pvalue(drops, null)
    assert statistic == pytest.approx(t[0], rel=1e-12)
    np.testing.assert_allclose(t_null, t[1:], rtol=1e-12)
    assert p == (1 + np.sum(t[1:] >= t[0])) / 20


@pytest.mark.parametrize("kind", ["box", "simplex", "gaussian"])
def test_references_have_mean_zero_and_identity_covariance(kind):
    R = _reference(kind, np.random.default_rng(0), 200_000, 3)
    np.testing.assert_allclose(R.mean(0), 0, atol=0.01)
    np.testing.assert_allclose(np.cov(R.T), np.eye(3), atol=0.02)


def test_node_test_of_constant_points_is_one_cluster():
    res = node_test(np.ones((12, 3)), "unimodal", 19, 4, np.random.default_rng(0))
    assert (res.statistic, res.pvalue, res.components, res.k_split) == (0.0, 1.0, 0, 1)


def test_tied_coordinates_are_spread_over_their_rounding_interval(rng):
    X = np.column_stack([rng.integers(1, 6, 50), rng.normal(size=50), np.full(50, 2.0)])
    X[:, 0] *= 0.5  # a grid of 0.5
    out = _unround(X, np.random.default_rng(0))
    assert np.abs(out[:, 0] - X[:, 0]).max() <= 0.25 and np.unique(out[:, 0]).size == 50
    np.testing.assert_array_equal(out[:, 1:], X[:, 1:])  # no ties, or one value: untouched
    assert not np.shares_memory(out, X)


def test_the_axes_are_all_of_them_when_none_stands_out(rng):
    """Seven clusters on the axes of 3-D and at the origin leave the covariance nearly
    spherical: every axis is kept (J = 3), where the signal dimension alone keeps one."""
    centres = np.vstack([np.zeros(3), 3 * np.eye(3), -3 * np.eye(3)])
    X = blobs(rng, centres, size=30, sd=0.3)
    assert signal_dimension(np.linalg.eigvalsh(np.cov(X.T))[::-1], 210, minimum=0) == 0
    assert _scores(X)[0].shape[1] == 3
    elongated = rng.normal(size=(200, 3)) * [5.0, 1.0, 1.0]
    assert _scores(elongated)[0].shape[1] == 1


# --- choose_k: identities, invariances, seeds ----------------------------------------------


def test_table_w_is_kgroups_w_for_each_k(rng):
    X = blobs(rng, [[0, 0], [10, 0], [0, 10]], size=25)
    res = es.choose_k(X, k_max=4, n_references=0, rng=7)
    # the tests' stream is spawned first, then the table's k_max fits
    streams = np.random.default_rng(7).spawn(5)[1:]
    for k, stream in zip(range(1, 5), streams):
        fit = es.KGroups(k, n_init=10, random_state=stream).fit(X)
        row = res.table.iloc[k - 1]
        assert row["W"] == pytest.approx(fit.W_, rel=1e-12)
        assert row["S"] == pytest.approx(fit.objective_, rel=1e-12, abs=1e-9)
    T = res.table["W"] + res.table["S"]  # Lemma 1: W + S = T for every k
    np.testing.assert_allclose(T, T.iloc[0], rtol=1e-12)
    assert res.model.n_clusters == res.k == 3
    np.testing.assert_array_equal(res.labels, res.model.labels_)  # the tested clusters
    assert res.model.W_ == pytest.approx(es.dispersion(X, res.model.labels_).W, rel=1e-12)


@pytest.mark.parametrize("null", ["unimodal", "gaussian"])
def test_cluster_test_without_k_is_the_first_test(rng, null):
    X = blobs(rng, [[0, 0], [5, 0], [0, 5]], size=25)
    res = es.choose_k(X, k_max=4, null=null, n_resamples=39, n_references=0, rng=3)
    first = es.cluster_test(X, k_max=4, null=null, n_resamples=39, rng=3)
    root = res.nodes.iloc[0]
    assert root["k"] == 1 and root["size"] == 75
    assert first.pvalue == root["pvalue"] and first.statistic == root["statistic"]
    assert first.n_clusters == root["k_split"] and first.n_components == root["components"]
    assert first.null_distribution.shape == (39,) and first.k_max == 4


def test_k_max_one_gives_one(rng):
    res = es.choose_k(rng.normal(size=(30, 2)), k_max=1, rng=0)
    assert res.k == 1 and len(res.table) == 1 and len(res.nodes) == 0
    assert (res.labels == 0).all() and res.k_gap == 1 and res.deciding is None
    assert res.stopped == "1 cluster: k_max reached"


def test_constant_data_is_one_cluster_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = es.choose_k(np.ones((20, 2)), k_max=5, n_references=3, rng=0)
    assert res.k == 1 and res.k_gap is None and np.isnan(res.table["gap"]).all()
    assert res.stopped == "1 cluster: not significant (node 0)"


def test_tied_points_leave_no_log_of_zero(rng):
    X = np.repeat(np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]]), 12, axis=0)
    X = X + np.repeat(rng.normal(scale=0.1, size=(3, 2)), 12, axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = es.choose_k(X, k_max=5, n_references=3, rng=0)
    assert res.k == 3 and np.isnan(res.table["gap"].iloc[4])  # W_5 = 0: no gap


@pytest.mark.parametrize("scale", [1e160, 1e-160, 1e-300])
def test_scale_invariance(rng, scale):
    X = blobs(rng, [[0, 0], [8, 0], [0, 8]], size=30)
    ref = es.choose_k(X, k_max=5, n_references=0, rng=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = es.choose_k(X * scale, k_max=5, n_references=0, rng=1)
    assert res.k == ref.k == 3
    np.testing.assert_array_equal(res.labels, ref.labels)
    np.testing.assert_array_equal(res.nodes["pvalue"], ref.nodes["pvalue"])
    np.testing.assert_allclose(res.nodes["statistic"], ref.nodes["statistic"], rtol=1e-9)


def test_the_gap_statistic_s_choice_is_the_first_jump(rng):
    """The first test significant, k jumps to the table's gap choice (without reference sets,
    to the first test's own); a cluster of a later partition makes k grow by one."""
    X = blobs(rng, [[0, 0], [9, 0], [0, 9], [9, 9]], size=25)
    with_gap = es.choose_k(X, k_max=6, n_references=4, rng=5)
    assert with_gap.k_gap == 4 and with_gap.nodes["k"].tolist()[:2] == [1, 4]
    without = es.choose_k(X, k_max=6, n_references=0, rng=5)
    assert without.nodes["k"].iloc[1] == without.nodes["k_split"].iloc[0]
    a = es.choose_k(X, k_max=6, n_references=4, rng=5, n_jobs=2)
    pd.testing.assert_frame_equal(a.nodes, with_gap.nodes)


@pytest.mark.parametrize("null", ["unimodal", pytest.param("gaussian", marks=pytest.mark.slow)])
@pytest.mark.parametrize(
    "centres", [[[0, 0], [10, 0], [0, 10]], [[0, 0, 0], [10, 0, 0], [0, 10, 0], [0, 0, 10]]]
)
def test_well_separated_blobs_give_their_k(rng, null, centres):
    X = blobs(rng, centres, size=40)
    res = es.choose_k(X, k_max=6, null=null, n_resamples=99, n_references=3, rng=1)
    assert res.k == len(centres)
    assert np.bincount(res.labels).tolist() == [40] * len(centres)
    assert res.k_gap == res.k_gap_global == len(centres)
    truth = np.repeat(np.arange(len(centres)), 40)
    assert len({(a, b) for a, b in zip(res.labels, truth)}) == len(centres)


def test_seven_clusters_arranged_symmetrically(rng):
    """Seven separated clusters on the axes of 3-D and at the origin (FCPS hepta's design):
    no split in two separates them better than one cluster is split, the drops up to
    k_max do. Each cluster is 0.3 sd across and 3 from its neighbours: the statistic is far
    above every reference, p = 1 / (B + 1) whatever the seed."""
    centres = np.vstack([np.zeros(3), 3 * np.eye(3), -3 * np.eye(3)])
    X = blobs(rng, centres, size=30, sd=0.3)
    assert es.cluster_test(X, rng=rng, n_resamples=39).pvalue == 1 / 40
    res = es.choose_k(X, k_max=8, n_resamples=39, n_references=4, rng=rng)
    assert res.k == 7 and np.bincount(res.labels).tolist() == [30] * 7


def test_k_max_reached_warns_that_it_may_be_too_small(rng):
    X = blobs(rng, [[0, 0], [10, 0], [0, 10], [10, 10]], size=30)
    with pytest.warns(UserWarning, match=r"k_max = 2 with a cluster of KGroups\(k_max\) still"):
        res = es.choose_k(X, k_max=2, n_references=0, rng=0)
    assert res.k == 2 and res.deciding is None and res.nodes["significant"].iloc[-1]
    assert res.stopped == f"2 clusters: k_max reached (node {len(res.nodes) - 1} significant)"
    with pytest.warns(UserWarning, match="k_max may be too small"):
        es.choose_k(X, k_max=2, null="gaussian", n_references=0, rng=0)


def test_the_gaussian_null_on_a_uniform_cluster_warns_of_it(rng):
    X = rng.uniform(size=(300, 2)) * [4.0, 1.0]
    with pytest.warns(UserWarning, match="a cluster that is not Gaussian"):
        res = es.choose_k(X, k_max=3, null="gaussian", n_references=0, rng=1)
    assert res.k == 3


def test_table_nodes_and_printing(rng):
    X = pd.DataFrame(blobs(rng, [[0, 0], [9, 0]], size=30), columns=["lat", "long"])
    res = es.choose_k(X, k_max=3, n_references=4, rng=2)
    frame = res.to_frame()
    assert list(frame.index) == [1, 2, 3]
    assert list(frame.columns) == ["W", "S", "log_W", "ref_log_W", "gap", "gap_se"]
    np.testing.assert_allclose(frame["gap"], frame["ref_log_W"] - frame["log_W"])
    assert list(res.nodes.columns) == [
        "node", "k", "cluster", "size", "statistic", "components", "k_split", "pvalue",
        "threshold", "significant",
    ]
    root = res.nodes.iloc[0]
    assert (root["node"], root["k"], root["cluster"]) == (0, 1, 0)
    assert root["size"] == 60 and root["threshold"] == 0.05 and root["significant"]
    np.testing.assert_allclose(res.nodes["threshold"], 0.05 * res.nodes["size"] / 60)
    assert res.k == 2 and res.stopped == "2 clusters: not significant (node 1, 2)"
    row = res.deciding
    assert not row["significant"] and row["pvalue"] > row["threshold"] and row["k"] == 2
    text = repr(res)
    assert "\nk: 2\n" in text and "cluster sizes: 30, 30" in text
    assert f"decided by node {int(row['node'])} (30 points): p-value" in text
    assert "threshold" in text and "Tested clusters" in text and "k_gap_global" in text
    assert "<table" in res._repr_html_() and "<pre" not in res._repr_html_()


def test_same_seed_same_result_and_n_jobs(rng):
    X = blobs(rng, [[0, 0], [7, 0]], size=30)
    a = es.choose_k(X, k_max=3, n_references=3, rng=5)
    b = es.choose_k(X, k_max=3, n_references=3, rng=5, n_jobs=2)
    pd.testing.assert_frame_equal(a.table, b.table, rtol=1e-10)
    pd.testing.assert_frame_equal(a.nodes, b.nodes)
    np.testing.assert_array_equal(a.labels, b.labels)


def test_missing_rows_omitted(rng):
    X = blobs(rng, [[0, 0], [9, 0]], size=25)
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="missing"):
        es.choose_k(X, k_max=3, rng=0)
    res = es.choose_k(X, k_max=3, n_references=0, rng=0, nan_policy="omit")
    assert res.n_omitted == 1 and res.labels[3] == -1 and res.k == 2


def test_gap_rules():
    # Tibshirani et al.: the smallest k with gap(k) >= gap(k + 1) - s(k + 1); global: the
    # smallest k with gap(k) >= gap(k*) - s(k*), k* the largest gap
    se = np.array([0.01, 0.01, 0.1, 0.01])
    assert gap_choice(np.array([0.1, 0.5, 0.45, 0.6]), se) == 2
    assert gap_choice(np.array([0.1, 0.5, 0.45, 0.6]), se, "global") == 4
    assert gap_choice(np.array([0.1, 0.5, 0.45, 0.6]), np.full(4, 0.2), "global") == 2
    assert gap_choice(np.array([0.1, 0.2, 0.3]), np.array([0.01, 0.01, 0.01])) == 3
    assert gap_choice(np.full(3, np.nan), np.full(3, np.nan)) is None
    assert gap_choice(np.array([0.1, 0.3, np.nan]), np.zeros(3), "global") == 2


def test_progress_bar(rng, capsys):
    X = blobs(rng, [[0, 0], [9, 0]], size=20)
    res = es.choose_k(X, k_max=3, n_references=2, rng=0, progress=True)
    assert res.k == 2
    assert capsys.readouterr().err.count("choose_k") >= 1


def test_choose_k_errors(rng):
    X = rng.normal(size=(30, 2))
    with pytest.raises(ValueError, match="`k_max` must be an integer >= 1"):
        es.choose_k(X, k_max=0)
    with pytest.raises(ValueError, match=r"`k_max` must be at most the number of samples \(30\)"):
        es.choose_k(X, k_max=31)
    with pytest.raises(ValueError, match="`alpha` must be a number strictly between 0 and 1"):
        es.choose_k(X, alpha=1.0)
    with pytest.raises(ValueError, match="`null` must be 'unimodal' or 'gaussian'"):
        es.choose_k(X, null="normal")
    with pytest.raises(ValueError, match="`n_references` must be a non-negative integer"):
        es.choose_k(X, n_references=-1)
    with pytest.raises(ValueError, match=r"`n_references` must be 0 \(no gap statistic\) or at"):
        es.choose_k(X, n_references=1)
    with pytest.raises(ValueError, match="`n_resamples` must be a positive integer"):
        es.choose_k(X, n_resamples=0)
    with pytest.raises(ValueError, match="`min_size` must be"):
        es.choose_k(X, min_size=2)
    with pytest.raises(ValueError, match="`n_init` must be an integer >= 1"):
        es.choose_k(X, n_init=0)
    with pytest.raises(TypeError, match="`progress` must be True or False"):
        es.choose_k(X, progress="yes")
    D = np.abs(X[:, :1] - X[:, 0])
    with pytest.raises(ValueError, match="`metric`='precomputed' is not available in choose_k"):
        es.choose_k(D, metric="precomputed")


def test_plot_choose_k_marks_the_deciding_node(rng):
    X = blobs(rng, [[0, 0], [9, 0], [0, 9]], size=20)
    res = es.choose_k(X, k_max=5, n_references=3, rng=0)
    ax = plot_choose_k(res)
    np.testing.assert_array_equal(ax.get_lines()[0].get_ydata(), res.table["W"])
    assert ax.get_lines()[2].get_xdata()[0] == res.k
    assert ax.get_title() == (
        "choice of k: sequential k-means tests against uniform clusters\ndata: X"
    )
    legend = ax.get_legend().get_texts()[1].get_text()
    assert legend == f"chosen k = {res.k} (family-wise error 0.05)"
    row = res.deciding
    (note,) = ax.texts
    assert note.get_text().startswith(f"node {int(row['node'])} ({int(row['size'])} points): p = ")
    assert note.xy == (res.k, res.table["W"].iloc[res.k - 1])
    assert "(" not in ax.get_xlabel() + ax.get_ylabel()  # no equation numbers
    plt.close("all")


# --- the guarantee ------------------------------------------------------------------------


def binomial_threshold(m: int, level: float, false_failure: float = 1e-5) -> int:
    """The largest count c with P(Binomial(m, level) > c) < false_failure."""
    return int(binom.isf(false_failure, m, level))


@pytest.mark.slow
def test_gaussian_null_rarely_splits_one_gaussian(rng):
    """P(k̂ > 1) <= alpha for one Gaussian sample (the root's test is exact when the scores
    keep every axis, J = d; a chosen J < d makes it nearly so).

    Sizing: n_resamples = 19 and alpha = 0.05 make the root reject with probability 1/20 when
    exact. Over m = 300 data sets the count of k̂ > 1 is Binomial(300, 0.05) (mean 15); the
    assertion fails when it exceeds 33, which a correct rule does with probability 9e-6
    (binom.sf), while a rule whose true rate were 0.15 passes it with probability 0.028, and
    at 0.20 with probability 2e-5.
    """
    m, alpha = 300, 0.05
    threshold = binomial_threshold(m, alpha)
    assert threshold == 33 and binom.cdf(threshold, m, 0.15) < 0.03
    assert binom.cdf(threshold, m, 0.20) < 1e-4
    cov = np.array([[4.0, 1.0], [1.0, 1.0]])  # any covariance: the test is affine invariant
    count = 0
    for _ in range(m):
        X = rng.multivariate_normal([3.0, -1.0], cov, size=40)
        res = es.choose_k(X, k_max=2, null="gaussian", n_resamples=19, n_references=0, rng=rng)
        count += res.k > 1
    assert count <= threshold


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["gaussian", "uniform", "rating"])
def test_unimodal_null_rarely_rejects_one_cluster(rng, shape):
    """P(p <= alpha) <= alpha for cluster_test without k (choose_k's first test: P(k̂ > 1)) on
    one Gaussian, uniform or rating-scale cluster under the unimodal null, over k = 2..10
    (the uniform box is a reference of the test: for uniform data it is exact, up to the
    choice of axes; ratings are spread over their rounding interval first).

    Sizing: over m = 200 data sets at alpha = 0.05 the count is at most Binomial(200, 0.05)
    (mean 10, if the rule were exactly at its level); the assertion fails above 25
    (probability 9e-6 for a correct rule), and catches a rule at 0.20 with probability
    0.996.
    """
    m, alpha = 200, 0.05
    threshold = binomial_threshold(m, alpha)
    assert threshold == 25 and binom.cdf(threshold, m, 0.20) < 0.004
    count = 0
    for _ in range(m):
        if shape == "gaussian":
            X = rng.normal(size=(100, 2)) * [3.0, 1.0]
        elif shape == "uniform":
            X = rng.uniform(size=(100, 2))
        else:  # ratings 1..5 of three questions
            X = np.clip(np.round(3.0 + rng.normal(size=(100, 3))), 1, 5)
        count += es.cluster_test(X, n_resamples=19, rng=rng).pvalue <= alpha
    assert count <= threshold


# --- cluster_test's labels= ------------------------------------------------------------------


def test_align_labels_is_the_best_permutation(rng):
    for _ in range(20):
        ours = rng.integers(0, 3, size=30)
        theirs = rng.integers(0, 3, size=30)
        aligned, agreement = align_labels(ours, theirs)
        best = max(np.mean(np.array(p)[ours] == theirs) for p in itertools.permutations(range(3))
                   if len(set(ours)) == 3)
        assert agreement == pytest.approx(best)
        assert len(np.unique(aligned)) == len(np.unique(ours))  # a renumbering


def test_cluster_test_aligns_to_the_users_fit(rng):
    X = blobs(rng, [[0, 0], [6, 0], [0, 6]], size=30)
    user = np.repeat([2, 0, 1], 30)  # the user's numbering
    res = es.cluster_test(X, 3, n_resamples=19, rng=0, labels=user)
    np.testing.assert_array_equal(res.labels, user)
    assert res.agreement == 1.0
    plain = es.cluster_test(X, 3, n_resamples=19, rng=0)
    assert plain.pvalue == res.pvalue and np.isnan(plain.agreement)
    assert "not a fit to X" in repr(plain) and "agree on 100.0%" in repr(res)
    with pytest.raises(ValueError, match=r"`labels` must have one entry per sample \(90\)"):
        es.cluster_test(X, 3, n_resamples=19, rng=0, labels=user[:10])


def test_significant_clusters_progress_type(rng):
    with pytest.raises(TypeError, match="`progress` must be True or False"):
        es.significant_clusters(rng.normal(size=(30, 2)), progress=1)
