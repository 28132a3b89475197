"""The probe cases of silent wrong answers and misleading messages: each answered with the
correct result, or a clear error naming the argument."""

import numpy as np
import pandas as pd
import pytest

import energystats as es


@pytest.fixture(scope="module")
def X():
    return np.random.default_rng(28).normal(size=(40, 2))


def test_object_labels_holding_nan_are_missing_not_groups(X):
    labels = pd.Series([0.0] * 19 + [np.nan] + [1.0] * 20).astype(object)
    for call in (lambda: es.dispersion(X, labels), lambda: es.energy_test(X, labels, rng=0), lambda: es.ksample_statistic(X, labels)):
        with pytest.raises(ValueError, match=r"`labels` contains missing values \(NaN, None or masked\) in 1 of 40 row"):
            call()
    with pytest.raises(ValueError, match=r"`init` contains missing values \(NaN or None\)|`init` contains missing values"):
        es.KGroups(2, init=labels).fit(X)
    omitted = es.dispersion(X, labels, nan_policy="omit")
    assert omitted.sizes.tolist() == [19, 20] and omitted.groups.tolist() == [0, 1] and omitted.n_omitted == 1


def test_integral_float_labels_are_integer_groups(X):
    labels = np.repeat([1.0, 2.0], 20)  # an R numeric vector c(1, 2, ...)
    res = es.dispersion(X, labels)
    assert res.groups.dtype.kind == "i" and res.groups.tolist() == [1, 2]
    assert res.W == es.dispersion(X, labels.astype(int)).W
    assert es.dispersion(X, np.repeat([0.5, 1.5], 20)).groups.tolist() == [0.5, 1.5]  # not integral: kept as floats


@pytest.mark.parametrize("scale", [1e160, 1e-200, 2.0**-1000])
def test_weights_are_scale_free_at_the_ends_of_float64(X, scale):
    """E is a difference of weighted means: the same for any scale of each sample's weights;
    W, S, T (and the group weights, F) are linear in the weights."""
    x, y = X[:20], X[20:] + 1.0
    w = np.random.default_rng(1).uniform(0.5, 2.0, size=20)
    assert es.energy_distance(x, y, x_weights=w * scale, y_weights=w) == pytest.approx(
        es.energy_distance(x, y, x_weights=w, y_weights=w), rel=1e-13
    )
    labels = np.arange(40) % 2
    unit = es.dispersion(X, labels, sample_weight=np.r_[w, w])
    scaled = es.dispersion(X, labels, sample_weight=np.r_[w, w] * scale)
    for field in ("W", "S", "T"):
        assert getattr(scaled, field) == pytest.approx(getattr(unit, field) * scale, rel=1e-12)
    np.testing.assert_allclose(scaled.weights, unit.weights * scale, rtol=1e-12)
    # F counts weights as frequencies: undefined (NaN) when the total weight is at most k
    assert np.isfinite(scaled.F) if scale > 1 else np.isnan(scaled.F)
    split_unit, split_scaled = es.split_1d(X[:, 0], sample_weight=np.r_[w, w]), es.split_1d(X[:, 0], sample_weight=np.r_[w, w] * scale)
    assert split_scaled.threshold == split_unit.threshold and split_scaled.W == pytest.approx(split_unit.W * scale, rel=1e-12)


def test_kgroups_with_the_largest_weights_fits_and_says_what_cannot_be_represented(X):
    unit = es.KGroups(2, random_state=0).fit(X, sample_weight=np.ones(40))
    huge = es.KGroups(2, random_state=0).fit(X, sample_weight=np.full(40, 1e308))
    np.testing.assert_array_equal(huge.labels_, unit.labels_)
    np.testing.assert_array_equal(huge.predict(X), unit.predict(X))
    with pytest.raises(OverflowError, match="W_ is about 2\\^10.*divide the weights by c"):
        huge.W_
    assert es.KGroups(2, random_state=0).fit(X, sample_weight=np.full(40, 1e150)).W_ == pytest.approx(unit.W_ * 1e150, rel=1e-12)


def test_a_kernel_matrix_that_is_not_positive_semidefinite_is_refused(X):
    G = es.kernel_matrix(X)
    broken = G.copy()
    broken[0, 1] = broken[1, 0] = 50.0  # |G_01| > sqrt(G_00 G_11)
    with pytest.raises(ValueError, match=r"`X` is not positive semidefinite: entry \(0, 1\) breaks the Cauchy-Schwarz"):
        es.KGroups(2, metric="precomputed_kernel").fit(broken)
    # Cauchy-Schwarz holds, an eigenvalue is negative: only the factorisation sees it
    A = np.array([[1.0, 0.9, -0.9], [0.9, 1.0, 0.9], [-0.9, 0.9, 1.0]])
    assert np.linalg.eigvalsh(A)[0] < 0
    with pytest.raises(ValueError, match="`X` is not positive semidefinite \\(an eigenvalue below"):
        es.KGroups(2, metric="precomputed_kernel").fit(A)
    with pytest.raises(ValueError, match="its diagonal entry 2 is -1 <= 0"):
        es.KGroups(2, metric="precomputed_kernel").fit(np.diag([1.0, 1.0, -1.0]))
    fit = es.KGroups(2, metric="precomputed_kernel", random_state=0).fit(G)  # a Gram matrix passes (rank 2 of 40)
    assert fit.W_ >= 0


def test_masked_values_are_never_used(X):
    masked = np.ma.masked_array(X.copy(), mask=np.zeros_like(X, dtype=bool))
    masked[3, 0] = np.ma.masked
    masked.data[3, 0] = 1e6
    for call in (es.pairwise_semimetric, es.kernel_matrix):
        with pytest.raises(ValueError, match=r"`X` contains missing values \(masked\) in 1 of 40 row"):
            call(masked)
    assert es.pairwise_semimetric(np.ma.masked_array(X)).shape == (40, 40)  # no masked entry: the data


def test_exact_auto_falls_back_to_monte_carlo_past_the_enumeration_cap(X, monkeypatch):
    """More resamples than relabelings, but more relabelings than the cap (10**6, here 10):
    "auto" draws at random; only exact=True is refused."""
    monkeypatch.setattr("energystats._resampling.MAX_EXACT", 10)
    labels = np.arange(6) % 2  # C(6, 3) = 20 relabelings
    res = es.energy_test(X[:6], labels, n_resamples=50, rng=0)
    assert not res.exact and res.n_resamples == 50
    with pytest.raises(ValueError, match="`exact`=True needs more than 10 relabelings"):
        es.energy_test(X[:6], labels, exact=True)


def test_random_state_of_any_kind_scikit_learn_accepts(X):
    for make in (lambda r: es.KGroups(2, random_state=r).fit(X).W_, lambda r: es.PowerKMeans(2, random_state=r).fit(X).inertia_,
                 lambda r: es.cluster_test(X, n_clusters=2, n_resamples=9, rng=r).pvalue):
        assert make(np.random.RandomState(0)) == make(np.random.RandomState(0))
        assert make(np.random.default_rng(3)) == make(3)


def test_predict_on_a_precomputed_matrix_takes_distances_to_every_row_passed_to_fit(X):
    D = es.pairwise_semimetric(X[:20])
    Dm = D.copy()
    Dm[3, :] = Dm[:, 3] = np.nan
    fitted = es.KGroups(2, metric="precomputed", nan_policy="omit", random_state=0).fit(Dm)
    keep = np.arange(20) != 3
    ref = es.KGroups(2, metric="precomputed", random_state=0).fit(D[np.ix_(keep, keep)])
    np.testing.assert_array_equal(fitted.predict(D), ref.predict(D[:, keep]))  # point 3's distances are known here
    assert fitted.predict(Dm)[3] == -1
    with pytest.raises(ValueError, match="`X` must hold distances to the 20 rows passed to fit, got 19 columns"):
        fitted.predict(D[:, keep])


def test_labels_of_every_kind_keep_their_groups(X):
    labels = ["a"] * 5 + [np.nan] + ["b"] * 6  # numpy would read the NaN as the string "nan"
    with pytest.raises(ValueError, match="`labels` contains missing values"):
        es.dispersion(X[:12], labels)
    res = es.dispersion(X[:12], labels, nan_policy="omit")
    assert res.groups.tolist() == ["a", "b"] and res.n_omitted == 1
    big = np.array([2**63 + 5] * 6 + [2**63 + 6] * 6, dtype=np.uint64)  # past int64
    assert es.dispersion(X[:12], big).groups.tolist() == [2**63 + 5, 2**63 + 6]


def test_gram_matrices_at_the_rounding_level_of_their_uncentred_kernel_pass():
    """A centred kernel of rank 1 from data offset by 1e3 has eigenvalues of -2e-8 of its
    diagonal (rounding of the 1e6-sized uncentred kernel); a Gaussian kernel with a large sigma
    and one of entries near 1e200 are Gram matrices too."""
    g = np.random.default_rng(1)
    x = g.normal(size=(200, 1)) + 1e3
    H = np.eye(200) - 1.0 / 200
    G = H @ (x @ x.T) @ H
    G = (G + G.T) / 2
    for matrix in (G, es.kernel_matrix(g.normal(size=(200, 3)), metric="gaussian", sigma=1000.0), es.kernel_matrix(g.normal(size=(50, 2))) * 1e200):
        assert es.KGroups(2, metric="precomputed_kernel", random_state=0).fit(matrix).labels_.shape == (matrix.shape[0],)
