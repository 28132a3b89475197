"""What one KGroups start costs at small n, without changing what it computes: the data read
as scikit-learn reads them (_cluster/_inputs.py), k-means++'s draws (numpy's own, from the same
stream), and BLAS limited only where it would start threads (_cluster/_starts.py)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.utils.validation import validate_data

import energystats as es
from energystats._cluster import _starts
from energystats._cluster._inputs import fit_array
from energystats._cluster._starts import _choice, limit_blas


@pytest.mark.parametrize("size", [None, 1, 3])
def test_choice_is_numpys_draw_from_the_same_stream(size):
    """rng.choice(n, size, p=p) and the draw after it, over random weights with zeros."""
    for seed in range(200):
        g = np.random.default_rng(seed)
        w = g.random(g.integers(2, 60)) * (g.random() > 0.2)
        w[g.integers(w.size)] += 0.5
        p = w / w.sum()
        a, b = np.random.default_rng(seed + 1), np.random.default_rng(seed + 1)
        np.testing.assert_array_equal(_choice(a, p, size), b.choice(p.size, size, p=p))
        assert a.random() == b.random()


def test_fit_array_is_validate_data_for_a_plain_array():
    """The array itself and n_features_in_; feature_names_in_ of an earlier fit on a data frame
    forgotten, as scikit-learn forgets it; anything else through validate_data (its messages)."""
    X = np.random.default_rng(0).normal(size=(30, 3))
    ours, theirs = es.KGroups(2), es.KGroups(2)
    theirs.feature_names_in_ = ours.feature_names_in_ = np.array(["a", "b", "c"], dtype=object)
    assert fit_array(ours, X) is X and validate_data(theirs, X, dtype=np.float64) is X
    assert ours.n_features_in_ == theirs.n_features_in_ == 3
    assert not hasattr(ours, "feature_names_in_") and not hasattr(theirs, "feature_names_in_")
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    np.testing.assert_array_equal(fit_array(ours, frame), X)
    assert list(ours.feature_names_in_) == ["a", "b", "c"]
    np.testing.assert_array_equal(fit_array(ours, X.astype(np.float32)), X.astype(np.float32))
    with pytest.raises(ValueError, match="Input X contains infinity"):
        fit_array(ours, np.r_[X, [[np.inf, 0.0, 0.0]]])
    with pytest.raises(ValueError, match=r"Found array with 0 sample\(s\)"):
        fit_array(ours, np.empty((0, 3)))


def test_blas_limit_is_chosen_by_size_and_changes_nothing(monkeypatch):
    """OpenBLAS threads a product of 2^19 multiply-adds or more (k = 3: from n = 419); the
    labels and W are the same with the limit forced on every run."""
    assert not limit_blas(418, 3) and limit_blas(419, 3)
    X = np.random.default_rng(2).normal(size=(120, 2)) + np.repeat([[0, 0], [3, 0], [0, 3]], 40, 0)
    free = es.KGroups(3, n_init=3, random_state=4).fit(X)
    monkeypatch.setattr(_starts, "limit_blas", lambda n, k: True)
    limited = es.KGroups(3, n_init=3, random_state=4).fit(X)
    np.testing.assert_array_equal(free.labels_, limited.labels_)
    assert free.W_ == limited.W_


@pytest.mark.parametrize("n", [12, 40, 128, 129])
def test_kmeanspp_on_all_pairs_draws_the_same_centres(monkeypatch, n):
    """k-means++ on a held matrix of at most ALL_PAIRS points (rho of every pair at once) gives
    the labels and leaves the stream where the batches of columns do, on rounded data (ties
    between candidates, duplicated points: the layout of rho's columns once decided a tie),
    at and past the boundary."""
    from energystats._operator import Kernel, Repeated, make_operator
    from energystats._semimetric import resolve_semimetric

    assert _starts.ALL_PAIRS == 128
    for d, seed in [(d, seed) for d in (1, 2, 3) for seed in range(4)]:
        g = np.random.default_rng(1000 * n + 10 * d + seed)
        X = np.round(g.normal(size=(n, d)) + 2.0 * (np.arange(n) % 3)[:, None])
        op = make_operator(X, resolve_semimetric("euclidean", 1.0, None), Repeated(0),
                           kernel=Kernel(None))
        w = g.random(n) + 0.5 if seed % 2 else np.ones(n)
        for k, start in [(k, start) for k in (2, 3, 4) for start in range(5)]:
            a, b = np.random.default_rng(start), np.random.default_rng(start)
            every = _starts._kmeanspp(op, w, k, a)
            with monkeypatch.context() as m:
                m.setattr(_starts, "ALL_PAIRS", 0)
                columns = _starts._kmeanspp(op, w, k, b)
            np.testing.assert_array_equal(every, columns)
            assert a.random() == b.random()


@pytest.mark.parametrize("algorithm", ["hartigan", "r-kgroups"])
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_the_spectral_embedding_is_computed_once_per_fit(monkeypatch, algorithm, n_jobs):
    """Ten restarts from the spectral start decompose the kernel once (the spectrum does not
    depend on the restart's stream), also with the restarts as joblib tasks; each start then
    runs its own k-means on the embedding, and the labels are the same whatever ``n_jobs``."""
    X = np.random.default_rng(3).normal(size=(90, 2)) + np.repeat([[0, 0], [4, 0], [0, 4]], 30, 0)
    calls = []
    embed = _starts.spectral_embedding
    monkeypatch.setattr(_starts, "spectral_embedding", lambda *a: calls.append(1) or embed(*a))
    km = es.KGroups(3, algorithm=algorithm, init="spectral", n_init=10, random_state=0,
                    n_jobs=n_jobs).fit(X)
    assert len(calls) == 1
    one = es.KGroups(3, algorithm=algorithm, init="spectral", n_init=10, random_state=0).fit(X)
    np.testing.assert_array_equal(km.labels_, one.labels_)


def test_the_spectral_start_clusters_the_relaxed_indicators():
    """The embedding's rows are W^-1/2 U (eq. 21, 29), the relaxed weighted indicators: for two
    tight groups far apart (a Gaussian kernel constant on each group, zero between them), a
    group's rows are one point whatever the points' weights (in the one direction the centred
    kernel has), where the rows of U vary with the root weights."""
    from energystats._operator import Kernel, Repeated, make_operator
    from energystats._semimetric import resolve_semimetric

    g = np.random.default_rng(5)
    X = np.r_[g.normal(size=(20, 2)), g.normal(size=(20, 2)) + 3e7] * 1e-6
    w = g.uniform(1.0, 100.0, size=40)
    op = make_operator(X, resolve_semimetric("gaussian", sigma=1.0), Repeated(),
                       kernel=Kernel(w))
    Y = _starts.spectral_embedding(op, w, 2, g)[:, -1]  # the top one; the centred G has rank 1
    for group in (slice(0, 20), slice(20, 40)):
        np.testing.assert_allclose(Y[group], Y[group][0], rtol=1e-6)
        assert np.ptp(Y[group] * np.sqrt(w[group])) > 0.1 * np.abs(Y[group][0])
