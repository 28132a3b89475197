"""The k-nearest-neighbour graph as a semimetric (energystats._scale.graph),
the data-driven scale of the Gaussian and exponential semimetrics, and every public function
that takes them: brute force first (the dense matrices of eq. 35), then the identities."""

import numpy as np
import pytest
from scipy.spatial.distance import pdist, squareform
from sklearn.metrics import adjusted_rand_score

import energystats as es
from energystats._scale import GraphMatrix, pairwise, upper_product
from energystats._scale.graph import SCALE_POINTS, Graph, default_neighbors, median_distance
from energystats._semimetric import resolve_semimetric


def rings(rng, n=120, gap=4.0):
    """Two concentric rings (radii 1 and 1 + gap) with a little noise: the same centre; the
    points evenly spread along each ring, so that its neighbours never split it (any seed)."""
    t = np.tile(np.linspace(0, 2 * np.pi, n // 2, endpoint=False), 2)
    t += rng.normal(scale=0.01, size=n)
    r = np.repeat([1.0, 1.0 + gap], n // 2)
    return np.c_[r * np.cos(t), r * np.sin(t)] + rng.normal(scale=0.05, size=(n, 2))


def brute_graph(X, m):
    """A, d and rho (eq. 35) from the m nearest other points of each point, by brute force."""
    D = squareform(pdist(X))
    np.fill_diagonal(D, np.inf)
    C = np.zeros_like(D)
    C[np.arange(len(X))[:, None], np.argsort(D, axis=1, kind="stable")[:, :m]] = 1.0
    A = (C + C.T) / 2
    d = A.sum(axis=1)
    rho = 1 / d[:, None] + 1 / d[None, :] - 2 * A / np.outer(d, d)
    np.fill_diagonal(rho, 0.0)
    return A, d, rho


def indicator(codes, k):
    """The n x k one-hot matrix of the labels ``codes``."""
    return np.eye(k)[codes]


def test_the_graph_is_the_symmetrised_nearest_neighbours(rng):
    X = rng.normal(size=(60, 3))
    g = Graph.of(X, 4)
    A, d, _ = brute_graph(X, 4)
    np.testing.assert_array_equal(g.affinity.toarray(), A)
    np.testing.assert_array_equal(g.degrees, d)
    assert g.degrees.min() >= 2.0 and g.n_neighbors == 4 and g.affinity.diagonal().max() == 0
    assert default_neighbors(60) == 5 == Graph.of(X).n_neighbors  # ceil(ln 60)
    assert [default_neighbors(n) for n in (1, 2, 3, 20, 21, 10_000)] == [1, 1, 2, 3, 4, 10]
    # the neighbours do not depend on the data's scale (rescaled by a power of two inside)
    np.testing.assert_array_equal(Graph.of(X * 1e-300, 4).affinity.toarray(), A)
    np.testing.assert_array_equal(Graph.of(X * 1e300, 4).affinity.toarray(), A)


def test_the_kernel_is_psd_and_generates_eq_35(rng):
    """K = D^-1 (A + D) D^-1 is positive semidefinite (A + D is the signless Laplacian), and
    K_ii + K_jj - 2 K_ij is eq. (35) with the degrees as weights: of negative type."""
    X = rng.normal(size=(50, 2))
    g = Graph.of(X, 3)
    K = g.kernel().toarray()
    assert np.linalg.eigvalsh(K).min() > -1e-12
    _, _, rho = brute_graph(X, 3)
    kd = np.diag(K)
    np.testing.assert_allclose(kd[:, None] + kd[None, :] - 2 * K, rho, atol=1e-15)
    np.testing.assert_allclose(es.pairwise_semimetric(X, metric="nearest_neighbors",
                                                      n_neighbors=3), rho, atol=1e-15)
    assert es.is_negative_type(rho)
    with pytest.raises(ValueError, match="has values only between the points of one sample"):
        resolve_semimetric("nearest_neighbors")(X, X)


def test_graph_matrix_equals_its_dense_matrix(rng):
    """rho of eq. (35) known by its products (GraphMatrix, what pairwise streams for the graph)
    equals the brute-force matrix: products, upper-triangle products, row sums, rows."""
    X = np.r_[rng.normal(size=(30, 2)), rng.normal(size=(25, 2)) + 9.0]  # two components
    sm = resolve_semimetric("nearest_neighbors")
    op = pairwise(X, sm, held=False)
    assert isinstance(op, GraphMatrix)
    _, _, rho = brute_graph(X, default_neighbors(55))
    np.testing.assert_allclose(pairwise(X, sm), rho, atol=1e-15)  # held: the dense matrix
    Z = rng.normal(size=(55, 3))
    np.testing.assert_allclose(op @ Z, rho @ Z, atol=1e-13)
    np.testing.assert_allclose(upper_product(op, Z), np.triu(rho, 1) @ Z, atol=1e-13)
    np.testing.assert_allclose(op.sum(axis=1), rho.sum(axis=1), atol=1e-13)
    assert op.sum() == pytest.approx(rho.sum(), rel=1e-13)
    np.testing.assert_allclose(op[np.arange(55)], rho, atol=1e-15)
    np.testing.assert_allclose(op[7], rho[7], atol=1e-15)
    np.testing.assert_allclose(op.dense(), rho, atol=1e-15)
    codes = rng.integers(0, 3, size=(5, 55))
    for b in range(5):  # the block sums of eq. (13), from the upper triangle
        Zb = indicator(codes[b], 3)
        Y = Zb.T @ upper_product(op, Zb)
        np.testing.assert_allclose(Y + Y.T, Zb.T @ rho @ Zb, rtol=1e-12, atol=1e-12)


def test_normalized_cut_is_W(rng):
    """With degree weights K_ii w_i = 1 and Q_j / s_j = links(C_j) / vol(C_j) + 1 (eq. 34 and
    the shift), so W = n - 2k + Ncut (eq. 23): KGroups minimises the normalized cut, and W_
    is the dispersion of the graph's semimetric weighted by ``sample_weight_``."""
    X = rings(rng)
    km = es.KGroups(2, metric="nearest_neighbors", random_state=0).fit(X)
    g = Graph.of(X)
    Zl = indicator(km.labels_, 2)
    A = g.affinity.toarray()
    vol = Zl.T @ g.degrees
    cut = vol - np.diag(Zl.T @ A @ Zl)
    assert km.W_ == pytest.approx(len(X) - 4 + (cut / vol).sum(), rel=1e-12)
    np.testing.assert_array_equal(km.sample_weight_, g.degrees)
    res = es.dispersion(X, km.labels_, metric="nearest_neighbors", sample_weight=km.sample_weight_)
    assert res.W == pytest.approx(km.W_, rel=1e-12)
    assert res.S == pytest.approx(km.objective_, rel=1e-12)


def test_the_graph_separates_rings_that_the_energy_distance_cuts(rng):
    X = rings(rng)
    truth = np.repeat([0, 1], 60)
    graph = es.KGroups(2, metric="nearest_neighbors", random_state=0).fit(X)
    assert abs(np.corrcoef(graph.labels_, truth)[0, 1]) == 1.0
    energy = es.KGroups(2, random_state=0).fit(X)  # it cuts both rings (W is smaller so)
    assert adjusted_rand_score(energy.labels_, truth) < 0.3
    # the start is the spectral one (init="auto"), computed once
    spectral = es.KGroups(2, metric="nearest_neighbors", init="spectral", random_state=0).fit(X)
    np.testing.assert_array_equal(spectral.labels_, graph.labels_)


def test_energy_test_dispersion_and_choose_k_take_the_graph(rng):
    """Through the shared semimetric resolution: the statistics equal those of the graph's
    matrix passed as precomputed distances, and choose_k finds the two rings."""
    X = rings(rng)
    labels = np.repeat([0, 1], 60)
    rho = es.pairwise_semimetric(X, metric="nearest_neighbors")
    graph = es.energy_test(X, labels, metric="nearest_neighbors", rng=0)
    given = es.energy_test(rho, labels, metric="precomputed", rng=0)
    assert graph.statistic == pytest.approx(given.statistic, rel=1e-12)
    assert graph.pvalue == given.pvalue == 1 / 1000
    shuffled = es.energy_test(X, rng.permutation(labels), metric="nearest_neighbors", rng=0)
    assert shuffled.pvalue > 0.01
    d = es.dispersion(X, labels, metric="nearest_neighbors")
    assert d.W == pytest.approx(es.dispersion(rho, labels, metric="precomputed").W, rel=1e-12)
    assert es.energy_distance(X[:60], X[60:], metric="nearest_neighbors") > 0
    res = es.choose_k(X, k_max=3, metric="nearest_neighbors", n_references=3, rng=0)
    assert res.to_frame()["W"].iloc[1] < res.to_frame()["W"].iloc[0]


@pytest.mark.parametrize("metric", ["gaussian", "exponential"])
def test_sigma_from_the_data_is_half_the_median_distance(rng, metric):
    """Without sigma: half the median distance (of all pairs up to SCALE_POINTS points, else
    of the pairs of SCALE_POINTS evenly spaced ones), the same in every function."""
    X = rng.normal(size=(80, 2))
    median = float(np.median(pdist(X)))
    assert median_distance(X) == median
    assert median_distance(X * 2.0**-1000) == median * 2.0**-1000  # exact, a power of two
    big = rng.normal(size=(SCALE_POINTS + 500, 2))
    picked = np.unique(np.linspace(0, len(big) - 1, SCALE_POINTS).round().astype(int))
    assert median_distance(big) == float(np.median(pdist(big[picked])))
    assert median_distance(np.ones((5, 2))) == 2.0
    assert median_distance(np.r_[np.zeros((3, 1)), np.ones((1, 1))]) == 1.0  # zeros skipped
    km = es.KGroups(2, metric=metric, random_state=0).fit(X)
    sigma = median / 2
    assert km.sigma_ == sigma
    explicit = es.KGroups(2, metric=metric, sigma=sigma, random_state=0).fit(X)
    np.testing.assert_array_equal(km.labels_, explicit.labels_)
    assert km.W_ == explicit.W_
    labels = np.arange(80) % 2
    assert es.dispersion(X, labels, metric=metric).W == es.dispersion(
        X, labels, metric=metric, sigma=sigma).W
    a = es.energy_test(X, labels, metric=metric, rng=0)
    b = es.energy_test(X, labels, metric=metric, sigma=sigma, rng=0)
    assert (a.statistic, a.pvalue) == (b.statistic, b.pvalue)
    np.testing.assert_array_equal(es.pairwise_semimetric(X, metric=metric),
                                  es.pairwise_semimetric(X, metric=metric, sigma=sigma))
    assert es.KGroups(2, random_state=0).fit(X).sigma_ is None


def test_kgroups_on_the_graph_predicts_through_the_neighbours(rng):
    """A new point joins the graph through its m nearest points (affinity 1/2, degree m/2):
    on the rings, new points on either ring go to its group; a point of weight 0 is placed
    by the same rule as predict."""
    X = rings(rng)
    km = es.KGroups(2, metric="nearest_neighbors", random_state=0).fit(X)
    new = rings(np.random.default_rng(1), n=40)
    inner, outer = km.labels_[[0, -1]]
    np.testing.assert_array_equal(km.predict(new), np.where(np.hypot(*new.T) < 3, inner, outer))
    w = np.ones(120)
    w[[5, 70]] = 0.0
    zero = es.KGroups(2, metric="nearest_neighbors", random_state=0).fit(X, sample_weight=w)
    rest = es.KGroups(2, metric="nearest_neighbors", random_state=0).fit(X[w > 0])
    np.testing.assert_array_equal(zero.labels_[w > 0], rest.labels_)
    np.testing.assert_array_equal(zero.labels_[[5, 70]], rest.predict(X[[5, 70]]))


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(metric="nearest_neighbors", approximation="nystroem"),
         "does not apply to metric='nearest_neighbors'"),
        (dict(n_neighbors=5), "`n_neighbors` applies only to metric='nearest_neighbors'"),
        (dict(metric="nearest_neighbors", n_neighbors=-1), "`n_neighbors` must be a positive"),
        (dict(metric="nearest_neighbors", algorithm="r-kgroups"), "needs metric='euclidean'"),
        (dict(metric="precomputed_kernel", n_neighbors=3), "do not apply to metric='precomp"),
    ],
)
def test_bad_graph_arguments(params, match):
    X = np.random.default_rng(0).normal(size=(30, 2))
    if params.get("metric") == "precomputed_kernel":
        X = X @ X.T
    with pytest.raises(ValueError, match=match):
        es.KGroups(2, **params).fit(X)


def test_pairwise_functions_on_the_graph(rng):
    X = rng.normal(size=(40, 2))
    with pytest.raises(ValueError, match="`Y` must be None for metric='nearest_neighbors'"):
        es.pairwise_semimetric(X, X, metric="nearest_neighbors")
    with pytest.raises(ValueError, match="`x0` cannot be used with metric='nearest_neighbors'"):
        es.kernel_matrix(X, metric="nearest_neighbors", x0=np.zeros(2))
    G = es.kernel_matrix(X, metric="nearest_neighbors")
    rho = es.pairwise_semimetric(X, metric="nearest_neighbors")
    g = np.diag(G)
    np.testing.assert_allclose(g[:, None] + g[None, :] - 2 * G, rho, atol=1e-14)
