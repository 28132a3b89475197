"""Kernel k-groups and weighted kernel k-means (energystats._cluster.kgroups and its _partition,
_starts, _assignment)."""

import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import brute_rho
from sklearn.base import clone
from sklearn.datasets import load_wine
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.metrics import adjusted_rand_score
from sklearn.preprocessing import StandardScaler

import energystats as es
from energystats._cluster._partition import FeaturePartition, Partition, fit_once, hartigan_gains
from energystats._scale.nystroem import nystroem_features
from energystats._semimetric import resolve_semimetric


def blobs(rng, sizes=(20, 25, 15), d=2, sep=3.0):
    codes = np.repeat(np.arange(len(sizes)), sizes)
    centres = rng.normal(0, sep, size=(len(sizes), d))
    return rng.normal(size=(codes.size, d)) + centres[codes], codes


def recompute(st):
    return Partition(st.D, st.w, st.labels, st.k)


@pytest.mark.parametrize("algorithm", ["hartigan", "lloyd"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("kw", [dict(), dict(exponent=0.5), dict(metric="gaussian", sigma=1.0)])
def test_W_and_objective_are_the_dispersion_decomposition(rng, algorithm, weighted, kw):
    X, _ = blobs(rng)
    w = rng.uniform(0.5, 2.0, size=len(X)) if weighted else None
    km = es.KGroups(3, algorithm=algorithm, n_init=3, random_state=0, **kw).fit(X, sample_weight=w)
    d = es.dispersion(X, km.labels_, sample_weight=w, **kw)
    assert km.W_ == pytest.approx(d.W, rel=1e-10)
    assert km.objective_ == pytest.approx(d.S, rel=1e-10)
    assert km.converged_
    np.testing.assert_array_equal(km.cluster_sizes_, np.bincount(km.labels_, minlength=3))


def test_every_hartigan_gain_is_the_drop_of_W_by_brute_force(rng):
    """Eq. (50): for every point and every other group, the gain of the vectorised sweep's best
    move and of the scalar evaluation equal W before less W after the move, recomputed by
    ``dispersion`` (weighted, held and streamed); a planted bug in either formula fails here."""
    from energystats._cluster._partition import _point_gain

    X, _ = blobs(rng, sizes=(7, 6, 8), sep=1.0)
    w = rng.uniform(0.5, 2.0, size=len(X))
    labels = np.random.default_rng(1).permutation(np.arange(len(X)) % 3)
    W = es.dispersion(X, labels, sample_weight=w).W
    for D in (brute_rho(X, X), es._scale.Streamed(X, resolve_semimetric())):
        st = Partition(D, w, labels, 3)
        assert st.W() == pytest.approx(W, rel=1e-12)
        best = hartigan_gains(st)
        for i in range(len(X)):
            drops = {}
            for l in set(range(3)) - {labels[i]}:
                moved = labels.copy()
                moved[i] = l
                drops[l] = W - es.dispersion(X, moved, sample_weight=w).W
            gain, target = _point_gain(st, i)
            assert gain == pytest.approx(max(drops.values()), rel=1e-9, abs=1e-12 * W)
            assert drops[target] == pytest.approx(gain, rel=1e-9, abs=1e-12 * W)
            assert best[i] == pytest.approx(gain, rel=1e-9, abs=1e-12 * W)


def test_hartigan_never_increases_W_and_stops_at_a_local_optimum(rng):
    X, _ = blobs(rng, sizes=(12, 9, 14), sep=1.0)
    w = rng.uniform(0.5, 2.0, size=len(X))
    history = []

    def callback(event, st):
        if event == "move":
            history.append(st.W())
            fresh = recompute(st)
            np.testing.assert_allclose(st.B, fresh.B, rtol=1e-9, atol=1e-9)
            np.testing.assert_allclose(st.A, fresh.A, rtol=1e-9, atol=1e-9)

    start = np.random.default_rng(1).permutation(np.arange(len(X)) % 3)
    st, sweeps, converged = fit_once(Partition(brute_rho(X, X), w, start, 3), "hartigan", 100,
                                     np.random.default_rng(2), 1e-12, callback)
    assert converged and len(history) > 0
    assert np.all(np.diff(history) < 0)
    # brute force: no single-point move (that keeps every group non-empty) lowers W
    W = es.dispersion(X, st.labels, sample_weight=w).W
    assert st.W() == pytest.approx(W, rel=1e-12)
    for i in range(len(X)):
        for l in range(3):
            moved = st.labels.copy()
            moved[i] = l
            if l == st.labels[i] or np.bincount(moved, minlength=3).min() == 0:
                continue
            assert es.dispersion(X, moved, sample_weight=w).W >= W - 1e-10 * W


def test_lloyd_keeps_its_sums_exact_after_every_sweep(rng):
    X, _ = blobs(rng, sep=1.5)
    checked = []

    def callback(event, st):
        if event == "sweep":
            fresh = recompute(st)
            np.testing.assert_allclose(st.B, fresh.B, rtol=1e-10)
            np.testing.assert_allclose(st.A, fresh.A, rtol=1e-10, atol=1e-10)
            np.testing.assert_array_equal(st.s, fresh.s)
            checked.append(True)

    start = np.random.default_rng(0).permutation(np.arange(len(X)) % 3)
    fit_once(Partition(brute_rho(X, X), np.ones(len(X)), start, 3), "lloyd", 100,
             np.random.default_rng(0), 1e-12, callback)
    assert checked


def test_weight_two_acts_like_a_duplicate(rng):
    """Eq. (50) with w_p = 2 gives the same gains as duplicating point p (both copies kept
    together)."""
    X, _ = blobs(rng, sizes=(8, 7, 9))
    labels = np.random.default_rng(3).permutation(np.arange(len(X)) % 3)
    p = 5
    w = np.ones(len(X))
    w[p] = 2.0
    Xd = np.vstack([X, X[p]])
    ld = np.r_[labels, labels[p]]
    st_w = Partition(brute_rho(X, X), w, labels, 3)
    st_d = Partition(brute_rho(Xd, Xd), np.ones(len(Xd)), ld, 3)
    np.testing.assert_allclose(st_w.B / st_w.s, st_d.B / st_d.s, rtol=1e-12)
    gains_w = hartigan_gains(st_w)
    gains_d = hartigan_gains(st_d)
    others = np.arange(len(X)) != p
    np.testing.assert_allclose(gains_w[others], gains_d[: len(X)][others], rtol=1e-10, atol=1e-12)
    km_w = es.KGroups(3, init=labels).fit(X, sample_weight=w)
    assert km_w.W_ == pytest.approx(
        es.dispersion(Xd, np.r_[km_w.labels_, km_w.labels_[p]]).W, rel=1e-10
    )


def test_translation_by_1e8_gives_the_same_labels(rng):
    X, _ = blobs(rng, sep=2.0)
    a = es.KGroups(3, random_state=4).fit(X)
    b = es.KGroups(3, random_state=4).fit(X + 1e8)
    # the same partition (k-means++ may number the groups differently: its sampling
    # probabilities change in the 8th digit)
    assert adjusted_rand_score(a.labels_, b.labels_) == 1.0
    assert b.W_ == pytest.approx(a.W_, rel=1e-6)
    start = np.random.default_rng(0).permutation(np.arange(len(X)) % 3)
    c = es.KGroups(3, init=start, random_state=4).fit(X)
    d = es.KGroups(3, init=start, random_state=4).fit(X + 1e8)
    np.testing.assert_array_equal(c.labels_, d.labels_)


def test_precomputed_and_precomputed_kernel_agree_with_points(rng):
    X, _ = blobs(rng)
    start = np.random.default_rng(0).permutation(np.arange(len(X)) % 3)
    a = es.KGroups(3, init=start, random_state=0).fit(X)
    b = es.KGroups(3, init=start, metric="precomputed", random_state=0).fit(brute_rho(X, X))
    c = es.KGroups(3, init=start, metric="precomputed_kernel", random_state=0).fit(
        es.kernel_matrix(X)
    )
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_array_equal(a.labels_, c.labels_)
    assert b.W_ == pytest.approx(a.W_, rel=1e-10)
    # with weights, a distance matrix is centred like points: objective_ is still S
    w = rng.uniform(0.5, 2.0, size=len(X))
    d = es.KGroups(3, init=start, metric="precomputed", random_state=0).fit(
        brute_rho(X, X), sample_weight=w
    )
    ref = es.dispersion(X, d.labels_, sample_weight=w)
    assert d.objective_ == pytest.approx(ref.S, rel=1e-10)
    assert d.W_ == pytest.approx(ref.W, rel=1e-10)


@pytest.mark.parametrize("init", ["k-means++", "random", "spectral", "power-kmeans"])
@pytest.mark.parametrize("algorithm", ["hartigan", "lloyd"])
def test_initialisations_find_well_separated_blobs(rng, init, algorithm):
    truth = np.repeat([0, 1, 2], [20, 25, 15])
    X = rng.normal(size=(60, 2)) + np.array([[0.0, 0.0], [15.0, 0.0], [0.0, 15.0]])[truth]
    km = es.KGroups(3, init=init, algorithm=algorithm, n_init=5, random_state=1).fit(X)
    assert pd.crosstab(km.labels_, truth).gt(0).sum(axis=1).eq(1).all()  # each cluster one blob


def test_more_restarts_never_worse_and_reproducible(rng):
    X, _ = blobs(rng, sep=1.0)
    one = es.KGroups(3, n_init=1, random_state=7).fit(X)
    many = es.KGroups(3, n_init=8, random_state=7).fit(X)
    assert many.W_ <= one.W_ * (1 + 1e-12)
    again = es.KGroups(3, n_init=8, random_state=7).fit(X)
    np.testing.assert_array_equal(many.labels_, again.labels_)
    gen = np.random.default_rng(7)
    assert es.KGroups(3, n_init=8, random_state=gen).fit(X).W_ == many.W_


def test_sklearn_conventions(rng):
    X, _ = blobs(rng)
    km = es.KGroups(3, exponent=0.5, n_init=2, random_state=0)
    assert km.get_params()["exponent"] == 0.5
    km.set_params(exponent=1.5)
    assert clone(km).exponent == 1.5
    assert km.fit(X) is km
    np.testing.assert_array_equal(
        es.KGroups(3, exponent=1.5, n_init=2, random_state=0).fit_predict(X), km.labels_
    )
    Xc = X.copy()
    es.KGroups(3, n_init=1, random_state=0).fit(X, sample_weight=np.ones(len(X)))
    np.testing.assert_array_equal(X, Xc)
    assert es.KGroups(3, n_init=1, random_state=0).fit(
        pd.DataFrame(X).astype(np.float32)
    ).labels_.shape == (len(X),)


def test_predict_is_the_energy_cost_of_adding_a_point(rng):
    X, truth = blobs(rng, sep=6.0)
    km = es.KGroups(3, n_init=3, random_state=0).fit(X)
    new = rng.normal(size=(6, 2)) * 3
    pred = km.predict(new)
    for x, p in zip(new, pred):
        costs = []
        for l in range(3):
            members = X[km.labels_ == l]
            grown = np.vstack([members, x])
            costs.append(
                es.dispersion(
                    np.vstack([grown, X[km.labels_ != l]]),
                    np.r_[np.zeros(len(grown)), np.ones(len(X) - len(members))],
                ).within[0]
                - es.dispersion(X, km.labels_ == l).within[1]
            )
        assert p == int(np.argmin(costs))
    assert (km.predict(X) == km.labels_).mean() > 0.95  # deterministic: fixed seed; here 1.0
    D_new = es.pairwise_semimetric(new, X)
    pre = es.KGroups(3, metric="precomputed", init=km.labels_).fit(brute_rho(X, X))
    np.testing.assert_array_equal(pre.predict(D_new), pred)


def test_constant_data_and_duplicates_terminate():
    X = np.ones((10, 2))
    km = es.KGroups(3, n_init=2, random_state=0).fit(X)
    assert km.converged_ and km.cluster_sizes_.min() >= 1 and km.W_ == 0.0
    dup = np.repeat(np.arange(4.0)[:, None], 5, axis=0)
    for algorithm in ("hartigan", "lloyd", "r-kgroups"):
        km = es.KGroups(4, algorithm=algorithm, init="spectral", n_init=2, random_state=0).fit(dup)
        assert km.converged_ and km.cluster_sizes_.min() >= 1


def test_convergence_warning(rng):
    X, _ = blobs(rng, sep=0.5)
    start = np.random.default_rng(0).permutation(np.arange(len(X)) % 3)
    with pytest.warns(ConvergenceWarning, match="did not converge within max_iter=1"):
        km = es.KGroups(3, init=start, max_iter=1).fit(X)
    assert not km.converged_ and km.n_iter_ == 1


@pytest.mark.parametrize(
    "params,X,weights,err,match",
    [
        (dict(n_clusters=0), None, None, ValueError, "`n_clusters` must be an integer >= 1"),
        (dict(n_clusters=2.5), None, None, TypeError, "`n_clusters` must be an integer"),
        (
            dict(n_clusters=11), None, None, ValueError,
            r"`n_clusters` must be at most n_samples \(10\)",
        ),
        (
            dict(n_clusters=2), np.full((10, 2), np.nan), None, ValueError,
            r"`X` contains missing values \(NaN, None or masked\) in 10 of 10 row",
        ),
        (
            dict(n_clusters=2), np.ones(10), None, ValueError,
            "Expected a 2-dimensional container|Reshape your data",
        ),
        (
            dict(n_clusters=2), None, -np.ones(10), ValueError,
            "`sample_weight` must be non-negative",
        ),
        (
            dict(n_clusters=2), None, np.zeros(10), ValueError,
            "`sample_weight` is zero for every sample",
        ),
        (
            dict(n_clusters=3), None, np.r_[np.zeros(8), np.ones(2)], ValueError,
            r"`n_clusters` must be at most n_samples \(2\)",
        ),
        (
            dict(n_clusters=2, init=np.r_[np.zeros(9, int), 1]), None, np.r_[np.ones(9), 0],
            ValueError, "leave cluster 1 empty among the points of positive weight",
        ),
        (
            dict(n_clusters=2, init=np.zeros(9, int)), None, None, ValueError,
            r"`init` must have one entry per sample \(10\), got 9",
        ),
        (
            dict(n_clusters=2, init=np.zeros(10, int)), None, None, ValueError,
            "`init` labels must take k = 2 distinct values, got 1",
        ),
        (
            dict(n_clusters=2, init=np.arange(10) % 3), None, None, ValueError,
            "`init` labels must take k = 2 distinct values, got 3",
        ),
        (
            dict(n_clusters=2, init=np.r_[np.zeros(9), np.nan]), None, None, ValueError,
            r"`init` contains missing values \(NaN, None or masked\) in 1 of 10 row",
        ),
        (dict(n_clusters=2, init="farthest"), None, None, ValueError, "`init` must be one of"),
        (
            dict(n_clusters=2, init="power-kmeans", metric="precomputed"), np.zeros((10, 10)), None,
            ValueError, "needs the points themselves",
        ),
        (
            dict(n_clusters=2, algorithm="elkan"), None, None, ValueError,
            "`algorithm` must be one of",
        ),
        (dict(n_clusters=2, n_init=0), None, None, ValueError, "`n_init` must be an integer >= 1"),
        (
            dict(n_clusters=2, algorithm="r-kgroups", exponent=0.5), None, None, ValueError,
            "needs metric='euclidean' with exponent=1",
        ),
        (
            dict(n_clusters=2, algorithm="r-kgroups"), None, np.ones(10), ValueError,
            "takes no `sample_weight`",
        ),
        (
            dict(n_clusters=2, metric="precomputed_kernel"), np.zeros((10, 3)), None, ValueError,
            "must be a square Gram matrix",
        ),
        (dict(n_clusters=2, metric="cosine"), None, None, ValueError, "`metric` must be one of"),
    ],
)
def test_bad_input(params, X, weights, err, match):
    X = np.arange(20.0).reshape(10, 2) if X is None else X
    with pytest.raises(err, match=match):
        es.KGroups(**params).fit(X, sample_weight=weights)


def test_predict_errors(rng):
    X, _ = blobs(rng)
    with pytest.raises(NotFittedError, match="not fitted yet"):
        es.KGroups(2).predict(X)
    km = es.KGroups(2, n_init=1, random_state=0).fit(X)
    with pytest.raises(ValueError, match="X has 3 features, but KGroups is expecting 2 features"):
        km.predict(np.zeros((2, 3)))
    kern = es.KGroups(2, metric="precomputed_kernel", n_init=1, random_state=0).fit(
        es.kernel_matrix(X)
    )
    with pytest.raises(ValueError, match="metric='precomputed_kernel' has none"):
        kern.predict(X)


# --- R's kgroups ----------------------------------------------------------------------


def _r_kgroups_sets():
    iris = es.datasets.load_iris().iloc[:, :4].to_numpy()
    wine = StandardScaler().fit_transform(load_wine().data)
    random = np.random.default_rng(5).normal(size=(120, 3))
    return [("iris", iris, 3), ("wine", wine, 3), ("random k=4", random, 4)]


@pytest.mark.r
@pytest.mark.parametrize(
    "name,X,k", _r_kgroups_sets(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_r_kgroups_mode_equals_r(name, X, k):
    from energystats._rbridge import r_call, r_field, r_matrix, to_numpy

    xr = r_matrix(X)
    for seed in range(4):
        start = np.random.default_rng(seed).permutation(np.arange(len(X)) % k)
        for iter_max in (1, 2, 50):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                ours = es.KGroups(k, algorithm="r-kgroups", init=start, max_iter=iter_max).fit(X)
            out = r_call("kgroups", xr, k, iter_max=iter_max, cluster=start + 1)
            np.testing.assert_array_equal(ours.labels_ + 1, to_numpy(r_field(out, "cluster")))
            np.testing.assert_array_equal(ours.cluster_sizes_, to_numpy(r_field(out, "sizes")))
            assert ours.n_iter_ == to_numpy(r_field(out, "iterations"))[0]
            assert ours.count_ == to_numpy(r_field(out, "count"))[0]
            within = es.dispersion(X, ours.labels_).within
            np.testing.assert_allclose(within, to_numpy(r_field(out, "within")), rtol=1e-10)
            assert ours.W_ == pytest.approx(to_numpy(r_field(out, "W"))[0], rel=1e-10)
        # Hartigan from R's converged partition finds W no larger
        r_labels = ours.labels_
        h = es.KGroups(k, init=r_labels).fit(X)
        assert h.W_ <= ours.W_ * (1 + 1e-12)


@pytest.mark.parametrize("algorithm", ["hartigan", "lloyd"])
def test_zero_weights_are_removed_points_and_integer_weights_repetitions(rng, algorithm):
    X, _ = blobs(rng, sep=2.0)
    w = rng.integers(0, 4, size=len(X)).astype(float)
    keep = w > 0
    a = es.KGroups(3, algorithm=algorithm, random_state=1).fit(X, sample_weight=w)
    b = es.KGroups(3, algorithm=algorithm, random_state=1).fit(X[keep], sample_weight=w[keep])
    np.testing.assert_array_equal(a.labels_[keep], b.labels_)
    np.testing.assert_array_equal(a.labels_[~keep], b.predict(X[~keep]))
    assert (
        a.W_ == pytest.approx(b.W_, rel=1e-12)
        and a.objective_ == pytest.approx(b.objective_, rel=1e-12)
    )
    np.testing.assert_array_equal(a.cluster_sizes_, np.bincount(a.labels_, minlength=3))
    repeated = es.KGroups(3, algorithm=algorithm, random_state=1).fit(
        X.repeat(w.astype(int), axis=0)
    )
    assert repeated.W_ == pytest.approx(a.W_, rel=1e-9)
    # the same partition, the same numbering
    np.testing.assert_array_equal(repeated.predict(X), a.predict(X))
    D = brute_rho(X, X)
    pre = es.KGroups(3, algorithm=algorithm, metric="precomputed", random_state=1).fit(
        D, sample_weight=w
    )
    assert pre.W_ == pytest.approx(a.W_, rel=1e-9)
    np.testing.assert_array_equal(pre.labels_, a.labels_)
    G = es.kernel_matrix(X, sample_weight=w)
    kern = es.KGroups(3, algorithm=algorithm, metric="precomputed_kernel", random_state=1).fit(
        G, sample_weight=w
    )
    np.testing.assert_array_equal(kern.labels_, a.labels_)


# --- Nyström ------------------------------------------------------------------------------


def test_nystroem_features_with_every_point_a_landmark_give_the_centred_kernel(rng):
    X, _ = blobs(rng)
    w = rng.uniform(0.5, 2.0, size=len(X))
    for how in ("d2", "uniform"):
        Phi, _, residual = nystroem_features(
            X, resolve_semimetric(exponent=0.5), w, len(X), np.random.default_rng(0), how
        )
        G = es.kernel_matrix(X, exponent=0.5, sample_weight=w)
        np.testing.assert_allclose(Phi @ Phi.T, G, rtol=1e-8, atol=1e-8 * np.abs(G).max())
        np.testing.assert_allclose(residual, 0.0, atol=1e-8 * np.abs(G).max())


@pytest.mark.parametrize("algorithm", ["hartigan", "lloyd"])
def test_nystroem_with_every_point_a_landmark_is_the_exact_fit(rng, algorithm):
    X, _ = blobs(rng, sep=1.5)
    w = rng.uniform(0.5, 2.0, size=len(X))
    start = np.random.default_rng(0).permutation(np.arange(len(X)) % 3)
    exact = es.KGroups(3, algorithm=algorithm, init=start, random_state=1).fit(X, sample_weight=w)
    nys = es.KGroups(
        3, algorithm=algorithm, init=start, random_state=1, approximation="nystroem",
        n_landmarks=len(X),
    ).fit(X, sample_weight=w)
    np.testing.assert_array_equal(nys.labels_, exact.labels_)
    assert nys.W_ == pytest.approx(exact.W_, rel=1e-8) and nys.n_iter_ == exact.n_iter_
    new = rng.normal(size=(30, 2)) * 3
    np.testing.assert_array_equal(nys.predict(new), exact.predict(new))


def test_feature_partition_keeps_its_sums_exact_and_equals_the_matrix_of_its_features(rng):
    X, _ = blobs(rng, sep=1.0)
    w = rng.uniform(0.5, 2.0, size=len(X))
    Phi, _, _ = nystroem_features(X, resolve_semimetric(), w, 25, np.random.default_rng(3), "d2")
    checked = []

    def callback(event, st):
        if event == "move":
            fresh = FeaturePartition(Phi, w, st.labels, 3)
            np.testing.assert_allclose(st.S, fresh.S, rtol=1e-9, atol=1e-9)
            np.testing.assert_allclose(st.energies(), fresh.energies(), rtol=1e-9, atol=1e-9)
            checked.append(True)

    start = np.random.default_rng(1).permutation(np.arange(len(X)) % 3)
    st, _, converged = fit_once(FeaturePartition(Phi, w, start, 3), "hartigan", 100,
                                np.random.default_rng(2), 1e-12, callback)
    assert converged and checked
    # the same energies, W and gains as the matrix of the features' squared distances
    dense = Partition(brute_rho(Phi, Phi) ** 2, w, st.labels, 3)
    scale = np.abs(dense.energies()).max()
    np.testing.assert_allclose(st.energies(), dense.energies(), atol=1e-10 * scale)
    assert st.W() == pytest.approx(dense.W(), rel=1e-10)
    np.testing.assert_allclose(st.within(), dense.within(), rtol=1e-10)
    assert (hartigan_gains(st) <= 1e-9 * abs(st.W())).all()


def test_nystroem_is_close_to_the_exact_fit_and_reproducible(rng):
    X, truth = blobs(rng, sizes=(300, 250, 350), d=3, sep=2.0)
    exact = es.KGroups(3, random_state=0).fit(X)
    a = es.KGroups(3, random_state=5, approximation="nystroem", n_landmarks=100).fit(X)
    b = es.KGroups(3, random_state=5, approximation="nystroem", n_landmarks=100).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    # deterministic: fixed seeds; here 0.997
    assert adjusted_rand_score(a.labels_, exact.labels_) > 0.97
    assert es.dispersion(X, a.labels_).W <= exact.W_ * 1.01
    assert (a.predict(X) == a.labels_).mean() > 0.97  # deterministic: fixed seeds; here 1.0
    w = np.ones(len(X))
    w[:50] = 0.0  # zero weights: removed points, labelled by predict's rule
    c = es.KGroups(3, random_state=5, approximation="nystroem", n_landmarks=100).fit(
        X, sample_weight=w
    )
    d = es.KGroups(3, random_state=5, approximation="nystroem", n_landmarks=100).fit(X[50:])
    np.testing.assert_array_equal(c.labels_[50:], d.labels_)
    np.testing.assert_array_equal(c.labels_[:50], d.predict(X[:50]))


@pytest.mark.parametrize("exponent", [1.0, 0.5])
def test_nystroem_W_bounds_the_exact_W_of_its_labels(rng, exponent):
    # W_hat <= W <= W_hat + sum w e: W_ is the upper bound; without the residuals it would be
    # the lower bound, far below the exact W at these m.
    X, _ = blobs(rng, sizes=(200, 150, 250), d=5, sep=1.5)
    w = rng.uniform(0.5, 2.0, size=len(X))
    for m, slack in ((20, 1.15), (100, 1.03)):
        km = es.KGroups(
            3, random_state=2, exponent=exponent, approximation="nystroem", n_landmarks=m
        ).fit(X, sample_weight=w)
        exact = es.dispersion(X, km.labels_, exponent=exponent, sample_weight=w)
        landmark_stream = np.random.default_rng(2).spawn(11)[10]  # after the 10 starts' streams
        _, _, residual = nystroem_features(
            X, resolve_semimetric(exponent=exponent), w, m, landmark_stream, "d2"
        )
        assert km.W_ - w @ residual <= exact.W * (1 + 1e-12) <= km.W_ * (1 + 1e-12)
        assert km.W_ <= exact.W * slack
    # Q of the features, at m = 100 (within 0.009-0.075 of S over 20 seeds and exponents)
    assert km.objective_ == pytest.approx(exact.S, rel=0.1)


@pytest.mark.parametrize(
    "params,match",
    [
        (dict(approximation="projection"), "`approximation` must be None or 'nystroem'"),
        (dict(approximation="nystroem", n_landmarks=0), "`n_landmarks` must be an integer >= 1"),
        (
            dict(approximation="nystroem", landmarks="random"),
            "`landmarks` must be 'd2' or 'uniform'",
        ),
        (dict(approximation="nystroem", algorithm="r-kgroups"), "takes no `approximation`"),
        (dict(approximation="nystroem", metric="precomputed"), "needs the points"),
        (
            dict(approximation="nystroem", algorithm="lloyd", batch_size=0),
            "`batch_size` must be an integer >= 1",
        ),
        (
            dict(algorithm="lloyd", batch_size=5),
            "mini-batch Lloyd steps on Nystroem features: it needs approximation='nystroem'",
        ),
        (
            dict(approximation="nystroem", algorithm="lloyd", batch_size=5, init=np.arange(10) % 2),
            "`init` must be a string",
        ),
    ],
)
def test_bad_nystroem_arguments(params, match):
    X = np.arange(20.0).reshape(10, 2)
    with pytest.raises(ValueError, match=match):
        es.KGroups(2, **params).fit(X)


def test_nystroem_raises_only_when_no_path_fits_and_names_the_options():
    """Neither the features nor mini-batch steps of one point fit: the message names the
    working memory, ``batch_size`` and ``n_landmarks``; with ``init`` labels (no mini-batch
    path) it says so."""
    X = np.random.default_rng(0).normal(size=(2000, 3))
    with es.config_context(working_memory=0.5):
        with pytest.raises(
            es.WorkingMemoryError,
            match=r"Nystroem k-groups on 2000 points with 50 landmarks, even in mini-batch steps "
            r"of one point \(`batch_size`=1\), needs .*set_config\(working_memory=.*lower "
            r"`n_landmarks`",
        ):
            es.KGroups(2, n_init=1, approximation="nystroem", n_landmarks=50).fit(X)
        with pytest.raises(
            es.WorkingMemoryError,
            match=r"`init` labels rule out mini-batch steps, `batch_size`\) needs "
            r".*set_config\(working_memory=.*lower `n_landmarks`, or give `init` as a string",
        ):
            es.KGroups(2, init=np.arange(2000) % 2, approximation="nystroem", n_landmarks=50).fit(X)


@pytest.mark.parametrize("algorithm", ["hartigan", "lloyd"])
def test_nystroem_takes_the_minibatch_path_when_the_features_do_not_fit(rng, algorithm):
    """The chooser: at the default budget the features are held (path "nystroem"); at a budget
    below their 8 n (m + 1) bytes and the partition's state, the mini-batch path runs by itself
    with the largest batch of at most MAX_BATCH points that fits (checked against the memory
    formula on both sides), and gives what ``batch_size`` set to that batch gives."""
    from energystats._cluster._minibatch import MAX_BATCH, minibatch_bytes
    from energystats._config import memory_budget

    X, _ = blobs(rng, sizes=(3000, 2000, 3000), d=3, sep=3.0)
    n, m, k = len(X), 40, 3
    options = dict(
        algorithm=algorithm, approximation="nystroem", n_landmarks=m, random_state=4, n_init=2
    )
    held = es.KGroups(k, **options).fit(X)
    assert (held.path_, held.batch_size_) == ("nystroem", None)
    assert 8 * n * (m + 1) + 8 * n * (4 * k + 8) > 2.5 * 2**20  # the features do not fit 2.5 MiB
    with es.config_context(working_memory=2.5):
        chosen = es.KGroups(k, **options).fit(X)
        budget = memory_budget()
    b = chosen.batch_size_
    assert chosen.path_ == "nystroem-minibatch"
    assert 1 <= b < MAX_BATCH
    assert minibatch_bytes(n, m, m, k, b) <= budget < minibatch_bytes(n, m, m, k, b + 1)
    given = es.KGroups(k, batch_size=b, **options).fit(X)
    assert (given.path_, given.batch_size_) == ("nystroem-minibatch", b)
    np.testing.assert_array_equal(chosen.labels_, given.labels_)
    assert chosen.W_ == pytest.approx(given.W_, rel=1e-12)
    # deterministic: fixed seeds; here 1.0 (both algorithms)
    assert adjusted_rand_score(chosen.labels_, held.labels_) > 0.99


def test_exact_path_is_named_and_streams_where_the_matrix_does_not_fit(rng):
    """Without ``approximation`` the path is "exact", whether the centred kernel is held or,
    below its 8 n^2 bytes, streamed in tiles: the same labels, W to rounding."""
    X, _ = blobs(rng, sizes=(120, 150, 130), d=2)
    held = es.KGroups(3, random_state=1, n_init=2).fit(X)
    with es.config_context(working_memory=8 * 400**2 / 2**20 / 2):
        streamed = es.KGroups(3, random_state=1, n_init=2).fit(X)
    assert held.path_ == streamed.path_ == "exact"
    assert held.batch_size_ is None and streamed.batch_size_ is None
    np.testing.assert_array_equal(held.labels_, streamed.labels_)
    assert streamed.W_ == pytest.approx(held.W_, rel=1e-12)



def test_an_exact_fit_goes_on_when_the_system_has_less_memory_than_its_held_matrix(
    rng, monkeypatch
):
    """The 18 MiB kernel of 1,500 points is held; then the system reports 10 MiB available
    (the matrix itself took the rest): the fit goes on (its products need KiB) with the
    result of the fit without pressure. It failed half-way, checking the held matrix again."""
    from energystats import _config
    from energystats._cluster import kgroups

    X, _ = blobs(rng, sizes=(500, 500, 500))
    free = es.KGroups(3, n_init=2, random_state=0).fit(X)
    build = kgroups.pairwise

    def squeezed(*args, **kwargs):
        D = build(*args, **kwargs)
        monkeypatch.setattr(_config, "_available_bytes", lambda: 10 * 2**20)
        return D

    monkeypatch.setattr(kgroups, "pairwise", squeezed)
    km = es.KGroups(3, n_init=2, random_state=0).fit(X)
    np.testing.assert_array_equal(km.labels_, free.labels_)
    assert km.W_ == free.W_ and km.path_ == "exact"

@pytest.mark.parametrize("weighted", [False, True])
def test_minibatch_nystroem_ends_at_a_lloyd_fixed_point_of_the_features(rng, weighted):
    """Mini-batch steps, then Lloyd's passes over all points: the labels are a fixed point of
    Lloyd's rule on the features of the same landmarks (the held features, started from them,
    do not move), with the same W_; predict gives the training points their labels; points of
    weight 0 are placed by predict's rule."""
    X, _ = blobs(rng, sizes=(400, 300, 500), d=3, sep=2.0)
    w = rng.uniform(0.5, 2.0, size=len(X)) if weighted else None
    if weighted:
        w[:7] = 0.0
    options = dict(
        algorithm="lloyd", approximation="nystroem", n_landmarks=60, random_state=3, n_init=1
    )
    mini = es.KGroups(3, batch_size=100, **options).fit(X, sample_weight=w)
    assert mini.converged_ and mini.n_iter_ >= 1
    kept = slice(None) if w is None else w > 0
    held = es.KGroups(3, init=mini.labels_, **options).fit(X, sample_weight=w)  # the same landmarks
    np.testing.assert_array_equal(held.labels_[kept], mini.labels_[kept])
    assert mini.W_ == pytest.approx(held.W_, rel=1e-10)
    assert mini.objective_ == pytest.approx(held.objective_, rel=1e-9)
    np.testing.assert_array_equal(mini.predict(X), mini.labels_)


def test_init_labels_of_any_k_values_are_the_same_start(rng):
    """R's 1-based clusters, integral floats and strings start where codes 0..k-1 do: the sorted
    values become groups 0..k-1."""
    X = rng.normal(size=(60, 2))
    start = np.arange(60) % 3
    base = es.KGroups(3, init=start, random_state=0).fit(X)
    for other in (
        start + 1, (start + 1).astype(float), np.array(["a", "b", "c"])[start], 10 * start - 7,
    ):
        np.testing.assert_array_equal(
            es.KGroups(3, init=other, random_state=0).fit(X).labels_, base.labels_
        )


def test_canonical_order_numbers_a_partition_whatever_its_labels(rng):
    """Brute force: any renaming of the groups gives the same canonical labels; they are
    numbered by total weight, largest first, equal weights in the order of their first point;
    an empty group comes last."""
    from energystats._cluster._partition import canonical_order

    for trial in range(50):
        k = int(rng.integers(2, 6))
        labels = rng.integers(0, k, size=int(rng.integers(k, 40)))
        w = None if trial % 2 else rng.integers(1, 4, size=labels.size).astype(float)
        order = canonical_order(labels, w, k)
        canonical = np.argsort(order)[labels]
        renamed = rng.permutation(k)[labels]
        np.testing.assert_array_equal(
            np.argsort(canonical_order(renamed, w, k))[renamed], canonical
        )
        sizes = np.bincount(canonical, weights=w, minlength=k)
        present = np.unique(canonical)
        first = [np.flatnonzero(canonical == g)[0] for g in present]
        keys = [(-sizes[g], f) for g, f in zip(present, first)]
        # empty groups last
        assert keys == sorted(keys) and present.tolist() == list(range(present.size))


def test_mirror_image_clusters_are_numbered_by_their_first_point_on_every_path(rng):
    """Two clusters that are mirror images (equal sizes, equal within dispersion to rounding):
    label 0 is the cluster of point 0, whatever the seed and whether the kernel is held or
    streamed (different rounding)."""
    A = rng.normal(size=(30, 2)) + [4.0, 0.0]
    X = np.empty((60, 2))
    X[1::2], X[0::2] = A, -A  # point 0 in the mirrored cluster
    truth = np.arange(60) % 2
    fits = [es.KGroups(2, random_state=s, n_init=2).fit(X) for s in range(3)]
    with es.config_context(working_memory=8 * 60**2 / 2**20 / 2):
        fits.append(es.KGroups(2, random_state=0, n_init=2).fit(X))
    for km in fits:
        np.testing.assert_array_equal(km.labels_, truth)
        np.testing.assert_array_equal(km.cluster_sizes_, [30, 30])
        np.testing.assert_array_equal(km.predict(X), truth)


KERNEL_FITS = """
import json
import numpy as np
import energystats as es
rng = np.random.default_rng(35)
A = rng.normal(size=(40, 2)) + [4.0, 0.0]
mirror = np.empty((80, 2))
mirror[0::2], mirror[1::2] = A, -A
blobs = np.repeat([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]], 30, axis=0) + rng.normal(size=(90, 2))
out = {}
for s in range(3):
    km = es.KGroups(2, random_state=s, n_init=2).fit(mirror)
    pk = es.PowerKMeans(3, n_init=3, random_state=s).fit(blobs)
    out[s] = [km.labels_.tolist(), km.W_, pk.labels_.tolist(), pk.cluster_centers_.tolist()]
print(json.dumps(out))
"""


# subprocesses on other thread counts or BLAS kernels: the machine matrix, in make test
@pytest.mark.slow
def test_labels_do_not_depend_on_the_blas_kernel():
    """The issue-35 cases under two OpenBLAS kernels (this machine's and Prescott's, which
    rounds products differently; on another BLAS the variable is ignored and the runs agree
    trivially), one BLAS thread each: KGroups on mirror-image clusters and PowerKMeans on
    three blobs give identical labels over seeds; W and the centres agree to rounding."""
    import json
    import os
    import subprocess
    import sys

    def run(env):
        out = subprocess.run(
            [sys.executable, "-c", KERNEL_FITS], capture_output=True, text=True, check=True,
            env=dict(os.environ, OPENBLAS_NUM_THREADS="1", **env),
        )
        return json.loads(out.stdout)

    here, prescott = run({}), run({"OPENBLAS_CORETYPE": "Prescott"})
    for s in here:
        (km_a, W_a, pk_a, c_a), (km_b, W_b, pk_b, c_b) = here[s], prescott[s]
        assert km_a == km_b and pk_a == pk_b
        assert W_a == pytest.approx(W_b, rel=1e-12)
        np.testing.assert_allclose(c_a, c_b, rtol=1e-12, atol=1e-14)


# --- held and streamed D: the same fits ---------------------------------------------------

#: A working memory (MiB) below the 8 n^2 bytes of the matrices here: they stream.
TINY = 0.01


@pytest.fixture
def count_streamed(monkeypatch):
    """Counts the products and rows a :class:`~energystats._scale.Streamed` matrix computes,
    to prove a run did stream."""
    from energystats._scale.streamed import Streamed

    calls = []
    products, rows = Streamed._products, Streamed.__getitem__
    monkeypatch.setattr(Streamed, "_products",
                        lambda self, *a: calls.append("product") or products(self, *a))
    monkeypatch.setattr(Streamed, "__getitem__",
                        lambda self, idx: calls.append("rows") or rows(self, idx))
    return calls


@pytest.mark.parametrize(
    "algorithm,data",
    [(a, d) for a in ("hartigan", "lloyd")
     for d in ("points", "precomputed", "weighted", "gaussian")]
    + [("r-kgroups", "points"), ("r-kgroups", "precomputed")],  # R's rule: Euclidean, unit weights
)
def test_kgroups_held_and_streamed(rng, count_streamed, algorithm, data):
    """Labels, sweeps and predictions equal, W and S to rounding, whether D is held or
    streamed (a precomputed matrix is used as given whatever the budget)."""
    X, _ = blobs(rng, sizes=(30, 30, 30))
    kw, w, fit_X = {}, None, X
    if data == "precomputed":
        kw, fit_X = dict(metric="precomputed"), brute_rho(X, X)
    elif data == "weighted":
        w = rng.uniform(0.5, 2.0, size=len(X))
    elif data == "gaussian":
        kw = dict(metric="gaussian", sigma=1.5)
    for init in ("k-means++", rng.permutation(np.arange(len(X)) % 3)):
        def fit(init=init):
            return es.KGroups(3, algorithm=algorithm, init=init, n_init=3, random_state=5,
                              **kw).fit(fit_X, sample_weight=w)

        count_streamed.clear()
        held = fit()
        assert not count_streamed
        with es.config_context(working_memory=TINY):
            streamed = fit()
        assert bool(count_streamed) == (data != "precomputed")
        np.testing.assert_array_equal(streamed.labels_, held.labels_)
        assert streamed.W_ == pytest.approx(held.W_, rel=1e-9)
        assert streamed.objective_ == pytest.approx(held.objective_, rel=1e-9)
        assert streamed.n_iter_ == held.n_iter_
        if data != "precomputed":
            new = rng.normal(size=(25, 2)) * 3
            np.testing.assert_array_equal(streamed.predict(new), held.predict(new))


def test_the_spectral_start_of_a_streamed_matrix_runs_lanczos_on_its_products(rng,
                                                                              count_streamed):
    X, _ = blobs(rng, sizes=(30, 30, 30))
    held = es.KGroups(3, init="spectral", n_init=2, random_state=1).fit(X)
    with es.config_context(working_memory=TINY):
        streamed = es.KGroups(3, init="spectral", n_init=2, random_state=1).fit(X)
    assert count_streamed.count("product") > 10  # a product per Lanczos iteration
    assert adjusted_rand_score(held.labels_, streamed.labels_) == 1.0
    assert streamed.W_ == pytest.approx(held.W_, rel=1e-9)


def test_predict_takes_new_points_in_blocks(rng, monkeypatch):
    """Blocks of one new point give the labels of one block of all of them."""
    from dataclasses import replace

    from energystats._cluster import _assignment

    X, _ = blobs(rng)
    km = es.KGroups(3, random_state=0).fit(X)
    new = rng.normal(size=(300, 2)) * 3
    want = km.predict(new)
    calls = []
    rule = km._assignment
    monkeypatch.setattr(km, "_assignment", replace(rule, semimetric=lambda A, B: calls.append(
        len(A)) or rule.semimetric(A, B)))
    monkeypatch.setattr(_assignment, "BLOCK_VALUES", len(X))  # one point per block
    np.testing.assert_array_equal(km.predict(new), want)
    assert calls == [1] * 300


def test_n_jobs_on_small_data_starts_no_process(rng, monkeypatch):
    """Ten starts on 60 points are far below a worker's start-up: they run here (joblib never
    called) with the labels of n_jobs=None; PowerKMeans alike."""
    from energystats._cluster import kgroups, power_kmeans

    X, _ = blobs(rng)
    want = es.KGroups(3, random_state=0).fit(X).labels_
    pk = es.PowerKMeans(3, n_init=3, random_state=0).fit(X).labels_

    def refuse(*args, **kwargs):
        raise AssertionError("a process was started")

    monkeypatch.setattr(kgroups, "run_tasks", refuse)
    monkeypatch.setattr(power_kmeans, "run_tasks", refuse)
    np.testing.assert_array_equal(es.KGroups(3, random_state=0, n_jobs=2).fit(X).labels_, want)
    np.testing.assert_array_equal(es.PowerKMeans(3, n_init=3, random_state=0, n_jobs=2).fit(X)
                                  .labels_, pk)


def test_cluster_test_held_and_streamed(rng, count_streamed):
    """cluster_test's fits (the data's and each Gaussian sample's) on a held or streamed D:
    the same p-value, null and labels."""
    X, _ = blobs(rng, sizes=(30, 30))
    held = es.cluster_test(X, 2, n_resamples=9, rng=3, n_init=2)
    assert not count_streamed
    with es.config_context(working_memory=TINY):
        streamed = es.cluster_test(X, 2, n_resamples=9, rng=3, n_init=2)
    assert count_streamed
    assert streamed.pvalue == held.pvalue
    np.testing.assert_allclose(streamed.null_distribution, held.null_distribution, rtol=1e-9)
    np.testing.assert_array_equal(streamed.model.labels_, held.model.labels_)
