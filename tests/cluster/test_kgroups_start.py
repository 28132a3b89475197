"""What one KGroups start costs at small n, without changing what it computes: the data read
as scikit-learn reads them (_cluster/_problem.py), k-means++'s draws (numpy's own, from the same
stream), and BLAS limited only where it would start threads (_cluster/_starts.py)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.utils.validation import validate_data

import energystats as es
from energystats._cluster import _starts, kgroups
from energystats._cluster._problem import fit_array
from energystats._cluster._starts import _choice
from energystats._scale import Streamed
from energystats._semimetric import resolve_semimetric


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
    """OpenBLAS threads a product of 2^19 multiply-adds or more; the labels and W are the same
    with the limit forced on every run."""
    assert _starts.BLAS_THREADED == 2**19
    X = np.random.default_rng(2).normal(size=(120, 2)) + np.repeat([[0, 0], [3, 0], [0, 3]], 40, 0)
    free = es.KGroups(3, n_init=3, random_state=4).fit(X)
    monkeypatch.setattr(_starts, "BLAS_THREADED", 0)
    limited = es.KGroups(3, n_init=3, random_state=4).fit(X)
    np.testing.assert_array_equal(free.labels_, limited.labels_)
    assert free.W_ == limited.W_


@pytest.mark.parametrize("n", [12, 40, 129])
def test_kmeanspp_draws_the_same_centres_from_a_held_or_streamed_matrix(n):
    """k-means++ on the held matrix (its columns) and on the streamed one (its rows, recomputed)
    gives the same labels and leaves the stream where it was, on rounded data (ties between
    candidates, duplicated points)."""
    sm = resolve_semimetric()
    for d, seed in [(d, seed) for d in (1, 2, 3) for seed in range(4)]:
        g = np.random.default_rng(1000 * n + 10 * d + seed)
        X = np.round(g.normal(size=(n, d)) + 2.0 * (np.arange(n) % 3)[:, None])
        w = g.random(n) + 0.5 if seed % 2 else np.ones(n)
        for k, start in [(k, start) for k in (2, 3, 4) for start in range(5)]:
            a, b = np.random.default_rng(start), np.random.default_rng(start)
            held = _starts._kmeanspp(sm(X, X), w, k, a)
            np.testing.assert_array_equal(held, _starts._kmeanspp(Streamed(X, sm), w, k, b))
            assert a.random() == b.random()
            assert np.unique(held).size == k


@pytest.mark.parametrize("algorithm", ["hartigan", "r-kgroups"])
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_the_spectral_embedding_is_computed_once_per_fit(monkeypatch, algorithm, n_jobs):
    """Ten restarts from the spectral start decompose the kernel once (the spectrum does not
    depend on the restart's stream); each start then runs its own k-means on the embedding,
    and the labels are the same whatever ``n_jobs``."""
    X = np.random.default_rng(3).normal(size=(90, 2)) + np.repeat([[0, 0], [4, 0], [0, 4]], 30, 0)
    calls = []
    embed = kgroups.spectral_embedding
    monkeypatch.setattr(kgroups, "spectral_embedding", lambda *a: calls.append(1) or embed(*a))
    km = es.KGroups(3, algorithm=algorithm, init="spectral", n_init=10, random_state=0,
                    n_jobs=n_jobs).fit(X)
    assert len(calls) == 1
    one = es.KGroups(3, algorithm=algorithm, init="spectral", n_init=10, random_state=0).fit(X)
    np.testing.assert_array_equal(km.labels_, one.labels_)


def test_the_spectral_start_clusters_the_relaxed_indicators():
    """The embedding's rows are W^-1/2 U (eq. 21, 29), the relaxed weighted indicators: for two
    tight groups far apart (a Gaussian kernel constant on each group, zero between them), a
    group's rows are one point whatever the points' weights (in the one direction the centred
    kernel has), where the rows of U vary with the root weights; held (LAPACK) and streamed
    (Lanczos) alike."""
    g = np.random.default_rng(5)
    X = np.r_[g.normal(size=(20, 2)), g.normal(size=(20, 2)) + 3e7] * 1e-6
    w = g.uniform(1.0, 100.0, size=40)
    sm = resolve_semimetric("gaussian", sigma=1.0)
    for D in (sm(X, X), Streamed(X, sm)):
        Y = _starts.spectral_embedding(D, w, 2, g)[:, -1]  # the top one; G has rank 1
        for group in (slice(0, 20), slice(20, 40)):
            np.testing.assert_allclose(Y[group], Y[group][0], rtol=1e-6)
            assert np.ptp(Y[group] * np.sqrt(w[group])) > 0.1 * np.abs(Y[group][0])
