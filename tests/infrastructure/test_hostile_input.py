"""The probe cases of silent wrong answers and misleading messages: each answered with the
correct result, or a clear error naming the argument."""

import datetime
import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import energystats as es


@pytest.fixture(scope="module")
def X():
    return np.random.default_rng(28).normal(size=(40, 2))


def test_object_labels_holding_nan_are_missing_not_groups(X):
    labels = pd.Series([0.0] * 19 + [np.nan] + [1.0] * 20).astype(object)
    for call in (
        lambda: es.dispersion(X, labels), lambda: es.energy_test(X, labels, rng=0),
        lambda: es.ksample_statistic(X, labels),
    ):
        with pytest.raises(
            ValueError,
            match=r"`labels` contains missing values \(NaN, None or masked\) in 1 of 40 row",
        ):
            call()
    with pytest.raises(
        ValueError,
        match=r"`init` contains missing values \(NaN or None\)|`init` contains missing values",
    ):
        es.KGroups(2, init=labels).fit(X)
    omitted = es.dispersion(X, labels, nan_policy="omit")
    assert (
        omitted.sizes.tolist() == [19, 20]
        and omitted.groups.tolist() == [0, 1]
        and omitted.n_omitted == 1
    )


def test_integral_float_labels_are_integer_groups(X):
    labels = np.repeat([1.0, 2.0], 20)  # an R numeric vector c(1, 2, ...)
    res = es.dispersion(X, labels)
    assert res.groups.dtype.kind == "i" and res.groups.tolist() == [1, 2]
    assert res.W == es.dispersion(X, labels.astype(int)).W
    # not integral: kept as floats
    assert es.dispersion(X, np.repeat([0.5, 1.5], 20)).groups.tolist() == [0.5, 1.5]


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
    split_unit, split_scaled = (
        es.split_1d(X[:, 0], sample_weight=np.r_[w, w]),
        es.split_1d(X[:, 0], sample_weight=np.r_[w, w] * scale),
    )
    assert (
        split_scaled.threshold == split_unit.threshold
        and split_scaled.W == pytest.approx(split_unit.W * scale, rel=1e-12)
    )


def test_kgroups_with_the_largest_weights_fits_and_says_what_cannot_be_represented(X):
    unit = es.KGroups(2, random_state=0).fit(X, sample_weight=np.ones(40))
    huge = es.KGroups(2, random_state=0).fit(X, sample_weight=np.full(40, 1e308))
    np.testing.assert_array_equal(huge.labels_, unit.labels_)
    np.testing.assert_array_equal(huge.predict(X), unit.predict(X))
    with pytest.raises(OverflowError, match="W_ is about 2\\^10.*divide the weights by c"):
        huge.W_
    assert (
        es.KGroups(2, random_state=0).fit(X, sample_weight=np.full(40, 1e150)).W_
        == pytest.approx(unit.W_ * 1e150, rel=1e-12)
    )


def test_a_kernel_matrix_that_is_not_positive_semidefinite_is_refused(X):
    G = es.kernel_matrix(X)
    broken = G.copy()
    broken[0, 1] = broken[1, 0] = 50.0  # |G_01| > sqrt(G_00 G_11)
    with pytest.raises(
        ValueError,
        match=r"`X` is not positive semidefinite: entry \(0, 1\) breaks the Cauchy-Schwarz",
    ):
        es.KGroups(2, metric="precomputed_kernel").fit(broken)
    # Cauchy-Schwarz holds, an eigenvalue is negative: only the factorisation sees it
    A = np.array([[1.0, 0.9, -0.9], [0.9, 1.0, 0.9], [-0.9, 0.9, 1.0]])
    assert np.linalg.eigvalsh(A)[0] < 0
    with pytest.raises(ValueError, match="`X` is not positive semidefinite \\(an eigenvalue below"):
        es.KGroups(2, metric="precomputed_kernel").fit(A)
    with pytest.raises(ValueError, match="its diagonal entry 2 is -1 <= 0"):
        es.KGroups(2, metric="precomputed_kernel").fit(np.diag([1.0, 1.0, -1.0]))
    # a Gram matrix passes (rank 2 of 40)
    fit = es.KGroups(2, metric="precomputed_kernel", random_state=0).fit(G)
    assert fit.W_ >= 0


def test_masked_values_are_never_used(X):
    masked = np.ma.masked_array(X.copy(), mask=np.zeros_like(X, dtype=bool))
    masked[3, 0] = np.ma.masked
    masked.data[3, 0] = 1e6
    for call in (es.pairwise_semimetric, es.kernel_matrix):
        message = r"`X` contains missing values \(NaN, None or masked\) in 1 of 40 row"
        with pytest.raises(ValueError, match=message):
            call(masked)
    # no masked entry: the data
    assert es.pairwise_semimetric(np.ma.masked_array(X)).shape == (40, 40)


def test_exact_auto_falls_back_to_monte_carlo_past_the_enumeration_cap(X, monkeypatch):
    """More resamples than relabelings, but more relabelings than the cap (10**6, here 10):
    "auto" draws at random; only exact=True is refused."""
    monkeypatch.setattr("energystats._homogeneity.permutation.MAX_EXACT", 10)
    labels = np.arange(6) % 2  # C(6, 3) = 20 relabelings
    res = es.energy_test(X[:6], labels, n_resamples=50, rng=0)
    assert not res.exact and res.n_resamples == 50
    with pytest.raises(ValueError, match="`exact`=True needs more than 10 relabelings"):
        es.energy_test(X[:6], labels, exact=True)


def test_random_state_of_any_kind_scikit_learn_accepts(X):
    for make in (
        lambda r: es.KGroups(2, random_state=r).fit(X).W_,
        lambda r: es.PowerKMeans(2, random_state=r).fit(X).inertia_,
        lambda r: es.cluster_test(X, n_clusters=2, n_resamples=9, rng=r).pvalue,
    ):
        assert make(np.random.RandomState(0)) == make(np.random.RandomState(0))
        assert make(np.random.default_rng(3)) == make(3)


def test_predict_on_a_precomputed_matrix_takes_distances_to_every_row_passed_to_fit(X):
    D = es.pairwise_semimetric(X[:20])
    Dm = D.copy()
    Dm[3, :] = Dm[:, 3] = np.nan
    fitted = es.KGroups(2, metric="precomputed", nan_policy="omit", random_state=0).fit(Dm)
    keep = np.arange(20) != 3
    ref = es.KGroups(2, metric="precomputed", random_state=0).fit(D[np.ix_(keep, keep)])
    # point 3's distances are known here
    np.testing.assert_array_equal(fitted.predict(D), ref.predict(D[:, keep]))
    assert fitted.predict(Dm)[3] == -1
    with pytest.raises(
        ValueError, match="`X` must hold distances to the 20 rows passed to fit, got 19 columns"
    ):
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
    for matrix in (
        G, es.kernel_matrix(g.normal(size=(200, 3)), metric="gaussian", sigma=1000.0),
        es.kernel_matrix(g.normal(size=(50, 2))) * 1e200,
    ):
        assert (
            es.KGroups(2, metric="precomputed_kernel", random_state=0).fit(matrix).labels_.shape
            == (matrix.shape[0],)
        )


# ---------------------------------------------------------------------------------------------
# The table of hostile calls: each row (id, call, error, match) is a call on the fresh data of
# `hostile` that must raise `error` with a message matching `match` (naming the argument).
# A new public function is probed by adding its rows here.
# ---------------------------------------------------------------------------------------------


def _hostile_data() -> dict:
    """The data every hostile call uses, built afresh (to check that no call modifies it)."""
    g = np.random.default_rng(35)
    x = g.normal(size=30)
    X = g.normal(size=(30, 2))
    D = np.abs(x[:, None] - x[None, :])
    with_nan = x.copy()
    with_nan[4] = np.nan
    non_square = D[:, :20].copy()
    non_square[0, 3] = np.nan
    return {"x": x, "y": x**2 + g.normal(size=30), "X": X, "labels": np.arange(30) % 3, "D": D,
            "x_nan": with_nan, "non_square": non_square}


def _plotting():
    import matplotlib

    matplotlib.use("Agg")
    from energystats import plotting

    return plotting


def _brute_dcov(x, y) -> float:
    """V_n(x, y) from the double-centred distance matrices (Székely, Rizzo & Bakirov 2007,
    eq. 2.7-2.8), on float64 data."""
    x, y = (np.asarray(v, dtype=float).reshape(len(v), -1) for v in (x, y))
    a, b = (np.sqrt(((v[:, None, :] - v[None, :, :]) ** 2).sum(-1)) for v in (x, y))
    A, B = (m - m.mean(0) - m.mean(1)[:, None] + m.mean() for m in (a, b))
    return float(np.sqrt((A * B).mean()))


def _brute_dcor(x, y) -> float:
    return _brute_dcov(x, y) / np.sqrt(_brute_dcov(x, x) * _brute_dcov(y, y))


HOSTILE_CALLS = [
    # nan_policy="propagate" gives NaN only to a valid call
    (
        "dcov-exponent-propagate",
        lambda d: es.dcov(d["x_nan"], d["y"], exponent=-1, nan_policy="propagate"), ValueError,
        r"`exponent` must lie in \(0, 2\], got -1",
    ),
    (
        "dcov-metric-propagate",
        lambda d: es.dcov(d["x_nan"], d["y"], metric="bogus", nan_policy="propagate"), ValueError,
        "`metric` must be one of",
    ),
    (
        "energy_distance-dimensions-propagate",
        lambda d: es.energy_distance(d["x_nan"], d["X"], nan_policy="propagate"), ValueError,
        "`x` and `y` must have the same number of features, got 1 and 2",
    ),
    (
        "normal_statistic-2d-propagate",
        lambda d: es.normal_statistic(np.c_[d["x_nan"], d["x"]], nan_policy="propagate"),
        ValueError, "`x` must be univariate",
    ),
    (
        "poisson_statistic-negative-propagate",
        lambda d: es.poisson_statistic([-1, np.nan, 2, 3], nan_policy="propagate"), ValueError,
        "`x` must hold non-negative integers",
    ),
    (
        "mvnorm_statistic-n<d-propagate",
        lambda d: es.mvnorm_statistic(np.c_[d["x_nan"], d["X"]][:4], nan_policy="propagate"),
        ValueError, "`X` needs more samples than features",
    ),
    (
        "pdcor-n2-propagate",
        lambda d: es.pdcor(
            [1.0, 2.0, np.nan], [2.0, 3.0, 1.0], [3.0, 5.0, 1.0], nan_policy="propagate"
        ),
        ValueError,
        "`x` must hold at least 4 sample",
    ),
    (
        "ksample_statistic-labels-propagate",
        lambda d: es.ksample_statistic(
            np.c_[d["x_nan"], d["x"]], d["labels"][:29], nan_policy="propagate"
        ),
        ValueError,
        "must have the same number of rows|`labels` must have one entry per sample",
    ),
    (
        "ksample_statistic-statistic-propagate",
        lambda d: es.ksample_statistic(
            np.c_[d["x_nan"], d["x"]], d["labels"], statistic="Q", nan_policy="propagate"
        ),
        ValueError,
        "`statistic`",
    ),
    (
        "pdcor-n2", lambda d: es.pdcor([1.0, 2.0], [2.0, 3.0], [3.0, 5.0]), ValueError,
        "`x` must hold at least 4 sample",
    ),
    (
        "poisson_statistic-negative", lambda d: es.poisson_statistic([-1, 2, 3]), ValueError,
        "`x` must hold non-negative integers",
    ),
    (
        "mvnorm_statistic-n<d", lambda d: es.mvnorm_statistic(d["X"][:3] @ np.ones((2, 5))),
        ValueError, "`X` needs more samples than features",
    ),
    # distances not of negative type: V_n^2 < 0, no distance covariance
    *[
        (
            f"{name}-not-negative-type",
            call,
            ValueError,
            r"`x` and `y` give V_n\^2 = -\d.* < 0 beyond rounding: their distances are not of "
            r"negative type",
        )
        for name, call in [
            (
                "dcov",
                lambda d: es.dcov(
                    d["D"] ** 3, np.abs(d["y"][:, None] - d["y"]), metric="precomputed"
                ),
            ),
            ("dcor", lambda d: es.dcor(d["D"] ** 3, d["y"], metric=("precomputed", "euclidean"))),
            (
                "dcor-exponent",
                lambda d: es.dcor(d["D"] ** 2.5, d["y"], metric=("precomputed", "euclidean")),
            ),
            (
                "dcov_test",
                lambda d: es.dcov_test(
                    d["D"] ** 3, d["y"], metric=("precomputed", "euclidean"), n_resamples=9, rng=0
                ),
            ),
        ]
    ],
    *[
        (
            f"{name}-precomputed-exponent",
            call,
            ValueError,
            r"`exponent`=0.5 with metric='precomputed' for `x`: a precomputed matrix is used as it "
            r"is; pass the distances raised",
        )
        for name, call in [
            (
                "dcor",
                lambda d: es.dcor(
                    d["D"], np.abs(d["y"][:, None] - d["y"]), metric="precomputed", exponent=0.5
                ),
            ),
            (
                "dcov",
                lambda d: es.dcov(
                    d["D"], d["y"], metric=("precomputed", "euclidean"), exponent=0.5
                ),
            ),
            (
                "dcor_test",
                lambda d: es.dcor_test(
                    d["D"], d["y"], metric=("precomputed", "euclidean"), exponent=0.5
                ),
            ),
            (
                "pdcor",
                lambda d: es.pdcor(
                    d["D"], d["y"], d["x"], metric=("precomputed", "euclidean", "euclidean"),
                    exponent=0.5,
                ),
            ),
        ]
    ],
    # goodness of fit: parameters that are no distribution, data that are no sample
    (
        "energy_gof_statistic-negative-scale",
        lambda d: es.energy_gof_statistic(stats.norm(0, -1), d["x"]), ValueError,
        r"`dist` has loc=0 and scale=-1: loc must be finite and scale > 0",
    ),
    (
        "energy_gof_statistic-nan-loc",
        lambda d: es.energy_gof_statistic(stats.norm(np.nan, 1), d["x"]), ValueError,
        r"`dist` has loc=nan and scale=1: loc must be finite",
    ),
    (
        "energy_gof_statistic-empty", lambda d: es.energy_gof_statistic(stats.norm(), []),
        ValueError, r"`x` must hold at least one value along `axis`, got none",
    ),
    (
        "energy_gof-known-string",
        lambda d: es.energy_gof(d["x"], stats.norm, known_params={"loc": "0"}), TypeError,
        r"`known_params\['loc'\]` must be a real number, got str '0'",
    ),
    (
        "energy_gof-known-scale-0",
        lambda d: es.energy_gof(d["x"], stats.norm, known_params={"scale": 0}), ValueError,
        r"^`known_params` gave scale=0: known parameters of norm must be finite, with scale > 0",
    ),
    (
        "energy_gof-frozen-nan", lambda d: es.energy_gof(d["x"], stats.norm(np.nan, 1)), ValueError,
        r"`dist` gave norm parameters loc=nan, scale=1",
    ),
    # the level and the correction of the pairwise families
    *[
        (
            f"{name}-alpha-{alpha!r}",
            (lambda call, alpha: lambda d: call(d, alpha=alpha))(call, alpha), error, match,
        )
        for name, call in [
            (
                "pairwise_energy_tests",
                lambda d, **kw: es.pairwise_energy_tests(
                    d["X"], d["labels"], n_resamples=9, rng=0, **kw
                ),
            ),
            ("pairwise_dcor", lambda d, **kw: es.pairwise_dcor(d["X"], **kw)),
        ]
        for alpha, error, match in [
            (np.nan, ValueError, r"`alpha` must lie in \(0, 1\), got nan"),
            (1.5, ValueError, r"`alpha` must lie in \(0, 1\), got 1.5"),
            (2, ValueError, r"`alpha` must lie in \(0, 1\), got 2"),
            (0, ValueError, r"`alpha` must lie in \(0, 1\), got 0"),
            (-1, ValueError, r"`alpha` must lie in \(0, 1\), got -1"),
            ("x", TypeError, r"`alpha` must be a real number in \(0, 1\), got str 'x'"),
            (True, TypeError, r"`alpha` must be a real number"),
        ]
    ],
    *[
        (
            f"{name}-correction-{correction!r}",
            (lambda call, correction: lambda d: call(d, correction=correction))(call, correction),
            error, match,
        )
        for name, call in [
            (
                "pairwise_energy_tests",
                lambda d, **kw: es.pairwise_energy_tests(
                    d["X"], d["labels"], n_resamples=9, rng=0, **kw
                ),
            ),
            ("pairwise_dcor", lambda d, **kw: es.pairwise_dcor(d["X"], **kw)),
        ]
        for correction, error, match in [
            (
                None,
                TypeError,
                r"`correction` must be the name of a statsmodels multipletests method \(e.g. "
                r"'holm'\), got None",
            ),
            (
                "bogus",
                ValueError,
                r"`correction` must be a method of statsmodels' multipletests \('holm', "
                r"'bonferroni', 'fdr_bh', ...\), got 'bogus'",
            ),
        ]
    ],
    # rng is checked on every path, also where nothing is drawn
    *[
        (
            f"{name}-rng-junk", call, TypeError,
            r"`rng` must be None, a non-negative integer, a numpy Generator",
        )
        for name, call in [
            ("dcov", lambda d: es.dcov(d["x"], d["y"], rng="junk")),
            ("dcor", lambda d: es.dcor(d["x"], d["y"], rng="junk")),
            ("dcov_stats", lambda d: es.dcov_stats(d["x"], d["y"], rng="junk")),
            ("normal_test-limit", lambda d: es.normal_test(d["x"], method="limit", rng="junk")),
            ("energy_distance", lambda d: es.energy_distance(d["x"], d["y"], rng="junk")),
            ("dispersion", lambda d: es.dispersion(d["X"], d["labels"], rng="junk")),
        ]
    ],
    (
        "dcov-rng-negative", lambda d: es.dcov(d["x"], d["y"], rng=-3), ValueError,
        r"`rng` must be a non-negative integer seed, got -3",
    ),
    # n_jobs: joblib would start that many workers, or refuse its dispatch queue without a name
    *[
        (
            f"{name}-n_jobs-huge", call, ValueError,
            r"`n_jobs` must lie between -1024 and 1024 \(-1: all workers\), got 1000000",
        )
        for name, call in [
            ("dcov", lambda d: es.dcov(d["x"], d["y"], n_jobs=10**6)),
            (
                "energy_test",
                lambda d: es.energy_test(d["X"], d["labels"], n_resamples=9, n_jobs=10**6),
            ),
            ("dispersion", lambda d: es.dispersion(d["X"], d["labels"], n_jobs=10**6)),
        ]
    ],
    # centring at the ends of float64: exact where the result is representable, else OverflowError
    (
        "u_product-overflow",
        lambda d: es.u_product(es.u_center(d["D"]) * 1e200, es.u_center(d["D"]) * 1e200),
        OverflowError, r"U_product\(`U`, `V`\) is about 2\^1\d\d\d, beyond float64",
    ),
    (
        "u_product-underflow",
        lambda d: es.u_product(es.u_center(d["D"]) * 1e-200, es.u_center(d["D"]) * 1e-200),
        ValueError, r"U_product\(`U`, `V`\) is about 2\^-1\d\d\d, below float64's smallest number",
    ),
    # an all-zero kernel is a Gram matrix of coincident points: nothing to cluster
    (
        "KGroups-zero-kernel",
        lambda d: es.KGroups(2, metric="precomputed_kernel").fit(np.zeros((6, 6))), ValueError,
        r"`X` is zero everywhere: a Gram matrix, but of points that all coincide",
    ),
    (
        "energy_test-F-no-dispersion",
        lambda d: es.energy_test(np.ones((6, 2)), [0, 0, 0, 1, 1, 1], statistic="F", n_resamples=9),
        ValueError, r"`statistic`='F' is undefined when every group is constant \(W = 0\)",
    ),
    # plots
    (
        "plot_clusters-columns",
        lambda d: _plotting().plot_clusters(d["X"], d["labels"], columns=(0, 5)), ValueError,
        r"`columns` must be two column indices of `X` \(it has 2 columns\), got \(0, 5\)",
    ),
    (
        "plot_null_distribution-not-a-test",
        lambda d: _plotting().plot_null_distribution(es.dispersion(d["X"], d["labels"])),
        TypeError,
        r"`result` \(DispersionResult\) is a decomposition, not a test: energy_test gives the "
        r"permutation null of S",
    ),
    (
        "plot_gof-other-data",
        lambda d: _plotting().plot_gof(d["y"], es.normal_test(d["x"], method="limit")),
        ValueError,
        r"`x` has mean -?\d\.\d+(e-\d+)?, `result` estimated -?\d\.\d+(e-\d+)?: pass the data the "
        r"test was run on",
    ),
    (
        "pairwise_dcor-duplicate-columns",
        lambda d: es.pairwise_dcor(pd.DataFrame(np.c_[d["X"], d["x"]], columns=["a", "a", "b"])),
        ValueError,
        r"`X` has duplicate column names \('a'\): the variables are named by their columns",
    ),
    # a precomputed matrix that is not square cannot lose points
    *[
        (
            f"{name}-non-square-omit",
            call,
            ValueError,
            r"`(x|X)` must be a square distance matrix for a precomputed metric, got shape \(30, "
            r"20\)",
        )
        for name, call in [
            (
                "dcov",
                lambda d: es.dcov(
                    d["non_square"], d["non_square"], metric="precomputed", nan_policy="omit"
                ),
            ),
            (
                "dcor",
                lambda d: es.dcor(
                    d["non_square"], d["y"], metric=("precomputed", "euclidean"), nan_policy="omit"
                ),
            ),
            (
                "pdcor",
                lambda d: es.pdcor(
                    d["non_square"], d["y"], d["x"],
                    metric=("precomputed", "euclidean", "euclidean"), nan_policy="omit",
                ),
            ),
            (
                "dispersion",
                lambda d: es.dispersion(
                    d["non_square"], d["labels"], metric="precomputed", nan_policy="omit"
                ),
            ),
            (
                "energy_test",
                lambda d: es.energy_test(
                    d["non_square"], d["labels"], metric="precomputed", nan_policy="omit"
                ),
            ),
            (
                "energy_hclust",
                lambda d: es.energy_hclust(
                    d["non_square"], metric="precomputed", nan_policy="omit"
                ),
            ),
            (
                "KGroups",
                lambda d: es.KGroups(2, metric="precomputed", nan_policy="omit").fit(
                    d["non_square"]
                ),
            ),
        ]
    ],
    # datetimes have no unit-free distance
    *[
        (
            f"{name}-datetimes", call, TypeError,
            "`x` holds dates, times or durations, whose distances depend on their unit",
        )
        for name, call in [
            (
                "dcov",
                lambda d: es.dcov(
                    np.datetime64("2020-01-01") + np.arange(30).astype("timedelta64[D]"), d["y"]
                ),
            ),
            (
                "dcor-series",
                lambda d: es.dcor(pd.Series(pd.date_range("2020", periods=30)), d["y"]),
            ),
            (
                "dcor-timedelta",
                lambda d: es.dcor(pd.to_timedelta(np.arange(30), unit="h").to_series(), d["y"]),
            ),
            (
                "normal_statistic",
                lambda d: es.normal_statistic(
                    pd.Series(pd.date_range("2020", periods=30, tz="UTC"))
                ),
            ),
        ]
    ],
    # a statistic beyond float64 is an error, not inf or 0
    (
        "dcov_test-overflow", lambda d: es.dcov_test(d["x"] * 1e300, d["y"] * 1e300, n_resamples=9),
        OverflowError, r"the statistic n V_n\^2 is about 2\^199\d, beyond float64",
    ),
    (
        "dcov_test-underflow",
        lambda d: es.dcov_test(d["x"] * 1e-300, d["y"] * 1e-300, method="gamma"), ValueError,
        r"the statistic n V_n\^2 is about 2\^-199\d, below float64's smallest number",
    ),
    # cluster_test's labels are checked before any fit
    (
        "cluster_test-labels-length", lambda d: es.cluster_test(d["X"], 2, labels=d["labels"][:29]),
        ValueError, r"`labels` must have one entry per sample \(30\), got 29",
    ),
    (
        "cluster_test-labels-2d",
        lambda d: es.cluster_test(d["X"], 2, labels=np.c_[d["labels"], d["labels"]]), ValueError,
        r"`labels` must be one-dimensional, got shape \(30, 2\)",
    ),
    # a grouping column left in the data, passed as the column itself (issue 42, item 8)
    *[
        (
            f"{name}-labels-left-in-X",
            call,
            ValueError,
            r"^`labels` holds the groups of the column 'g' of `X`: left in the data, that column "
            r"separates the groups by construction, whatever the other columns say\. Pass the "
            r"column's name, `labels`='g', which takes it out of `X` \(as R's formula `\. ~ g` "
            r"does\), or drop it from `X`\.$",
        )
        for name, call in [
            ("energy_test", lambda d: es.energy_test(_frame(d), _frame(d)["g"], n_resamples=9)),
            ("dispersion", lambda d: es.dispersion(_frame(d), _frame(d)["g"])),
            ("ksample_statistic", lambda d: es.ksample_statistic(_frame(d), _frame(d)["g"])),
            (
                "pairwise_energy_tests",
                lambda d: es.pairwise_energy_tests(_frame(d), _frame(d)["g"], n_resamples=9),
            ),
            ("cluster_test", lambda d: es.cluster_test(_frame(d), 3, labels=_frame(d)["g"])),
            (
                "energy_test-recoded",
                lambda d: es.energy_test(
                    _frame(d), _frame(d)["g"].map({0: "a", 1: "b", 2: "c"}).astype("category")
                ),
            ),
            (
                "dispersion-omit",
                lambda d: es.dispersion(
                    _frame(d).assign(a=d["x_nan"]), _frame(d)["g"], nan_policy="omit"
                ),
            ),
        ]
    ],
    *[
        (
            f"{name}-{arg}-left-in-x",
            call,
            ValueError,
            rf"^`{arg}` is the column 'b' of `x`: left in `x`, it makes `x` and `{arg}` dependent "
            r"by construction, whatever the other columns say\. Pass the column's name, "
            rf"`{arg}`='b', which takes it out of `x`, or drop it from `x`\.$",
        )
        for name, arg, call in [
            ("dcov", "y", lambda d: es.dcov(_frame(d), _frame(d)["b"])),
            ("dcor", "y", lambda d: es.dcor(_frame(d), _frame(d)["b"])),
            ("dcov_stats", "y", lambda d: es.dcov_stats(_frame(d), _frame(d)["b"])),
            ("dcov_test", "y", lambda d: es.dcov_test(_frame(d), _frame(d)["b"], n_resamples=9)),
            ("dcor_test", "y", lambda d: es.dcor_test(_frame(d), _frame(d)["b"], n_resamples=9)),
            ("dcor_ttest", "y", lambda d: es.dcor_ttest(_frame(d), _frame(d)["b"])),
            ("mvi", "y", lambda d: es.mvi(_frame(d), _frame(d)["b"])),
            ("mvi_test", "y", lambda d: es.mvi_test(_frame(d), _frame(d)["b"], n_resamples=9)),
            ("pdcor", "y", lambda d: es.pdcor(_frame(d), _frame(d)["b"], d["x"] ** 2)),
            ("pdcov_test", "z", lambda d: es.pdcov_test(_frame(d), d["x"] ** 2, _frame(d)["b"])),
        ]
    ],
    # a column name that is not one column
    (
        "energy_test-name-twice",
        lambda d: es.energy_test(_frame(d).rename(columns={"a": "g"}), "g"), ValueError,
        r"^`labels`='g' names 2 columns of `X`: rename them so that the name says which",
    ),
    # R's times and Python's: no distance without a unit (issue 42, item 6)
    *[
        (f"{name}-times", call, TypeError, match)
        for name, call, match in [
            (
                "energy_test-datetime-column",
                lambda d: es.energy_test(
                    _frame(d).assign(when=pd.date_range("2024", periods=30)), "g"
                ),
                r"^`X` has a column 'when' of dates, times or durations, whose distances depend on "
                r"their unit: drop it \(X\.drop\(columns=\[\"when\"\]\), in R "
                r"X\[setdiff\(names\(X\), c\(\"when\"\)\)\]\), or convert to numbers",
            ),
            (
                "energy_test-date-objects",
                lambda d: es.energy_test(
                    _frame(d).assign(day=[datetime.date(2024, 3, 1 + i) for i in range(30)]), "g"
                ),
                r"^`X` has a column 'day' of dates, times or durations",
            ),
            (
                "dispersion-timedelta-column",
                lambda d: es.dispersion(
                    _frame(d).assign(lag=pd.to_timedelta(np.arange(30), unit="h")), "g"
                ),
                r"^`X` has a column 'lag' of dates, times or durations",
            ),
            (
                "dcor-date-list",
                lambda d: es.dcor([datetime.date(2024, 3, 1 + i) for i in range(30)], d["y"]),
                r"^`x` holds dates, times or durations, whose distances depend on their unit: "
                r"convert",
            ),
            (
                "mvnorm_statistic-two-columns",
                lambda d: es.mvnorm_statistic(
                    pd.DataFrame(
                        {
                            "t": pd.date_range("2024", periods=30),
                            "u": pd.date_range("2023", periods=30), "x": d["x"],
                        }
                    )
                ),
                r"^`X` has columns 't', 'u' of dates, times or durations, .*: drop them",
            ),
        ]
    ],
]


def _frame(d) -> pd.DataFrame:
    """Two columns of data and a grouping column ``g`` (three groups), made afresh."""
    return pd.DataFrame({"a": d["X"][:, 0], "b": d["X"][:, 1] + d["labels"], "g": d["labels"]})


@pytest.mark.parametrize(
    "call, error, match", [case[1:] for case in HOSTILE_CALLS],
    ids=[case[0] for case in HOSTILE_CALLS],
)
def test_a_hostile_call_is_refused_naming_the_argument(call, error, match):
    data = _hostile_data()
    with pytest.raises(error, match=match):
        call(data)
    fresh = _hostile_data()
    for name, value in data.items():
        np.testing.assert_array_equal(value, fresh[name], err_msg=f"{name} was modified")


def test_numbers_held_as_objects_are_numbers_and_none_is_missing():
    x, y = [1, None, 3, 4, 7, 2], [2, 5, 1, 0, 3, 9]
    keep = [0, 2, 3, 4, 5]
    cx, cy = np.array(x, dtype=float)[keep], np.array(y, dtype=float)[keep]
    # the issue's brute-force value
    assert _brute_dcov(cx, cy) == pytest.approx(1.0881176406988349, rel=1e-15)
    for xs in (
        x, np.array(x, dtype=object), pd.Series(x, dtype=object),
        pd.DataFrame({"a": pd.Series(x, dtype=object)}),
        pd.Series([1, pd.NA, 3, 4, 7, 2], dtype=object),
        pd.Series([1, None, 3, 4, 7, 2], dtype="Int64"),
        pd.Series([1, None, 3, 4, 7, 2], dtype="Float64"),
    ):
        assert es.dcov(xs, y, nan_policy="omit") == pytest.approx(_brute_dcov(cx, cy), rel=1e-13)
        assert es.dcor(xs, y, nan_policy="omit") == pytest.approx(_brute_dcor(cx, cy), rel=1e-13)
        assert (
            es.dcor_test(xs, y, nan_policy="omit", n_resamples=99, rng=0).statistic
            == pytest.approx(es.dcor_test(cx, cy, n_resamples=99, rng=0).statistic, rel=1e-13)
        )
    with pytest.raises(ValueError, match=r"`x` contains missing values"):
        es.dcov(np.array(x, dtype=object), y)
    # strings (and pandas' string dtype, the default for strings in pandas 3) stay categories
    words = ["a", "b", "a", "c", "b", "a"]
    for xs in (
        words, np.array(words), pd.Series(words, dtype="string"), pd.Series(words, dtype=object),
        pd.Categorical(words),
    ):
        assert es.dcor(xs, y) == pytest.approx(
            es.dcor(words, y, metric=("discrete", "euclidean")), rel=1e-15
        )


@pytest.mark.parametrize("dtype", ["Int64", "Float64", "string", "boolean", "category"])
def test_pandas_extension_dtypes_in_the_independence_family(dtype):
    g = np.random.default_rng(3)
    n = 24
    values = {
        "Int64": g.integers(0, 9, n), "Float64": g.normal(size=n),
        "string": g.choice(list("abc"), n), "boolean": g.integers(0, 2, n).astype(bool),
        "category": g.choice(list("abc"), n),
    }[dtype]
    frame = pd.DataFrame({"u": pd.Series(values, dtype=dtype), "v": pd.Series(values, dtype=dtype)})
    y, z = (
        g.normal(size=n)
        + (pd.factorize(values)[0] if dtype in ("string", "category") else values.astype(float)),
        g.normal(size=n),
    )
    reference = (
        values.astype(float) if dtype not in ("string", "category") else values.astype(object)
    )
    assert es.dcov(frame["u"], y) == pytest.approx(es.dcov(reference, y), rel=1e-14)
    assert es.dcor(frame, y) == pytest.approx(
        es.dcor(pd.DataFrame({"u": reference, "v": reference}), y), rel=1e-14
    )
    assert es.dcor_test(frame["u"], y, n_resamples=19, rng=0).statistic == pytest.approx(
        es.dcor_test(reference, y, n_resamples=19, rng=0).statistic, rel=1e-14
    )
    assert es.dcor_ttest(frame["u"], y).statistic == pytest.approx(
        es.dcor_ttest(reference, y).statistic, rel=1e-14
    )
    assert es.pdcor(frame["u"], y, z) == pytest.approx(es.pdcor(reference, y, z), rel=1e-14)
    assert es.mvi(frame["u"], y) == pytest.approx(es.mvi(reference, y), rel=1e-14)
    with_na = frame["u"].astype(object).where(np.arange(n) != 5, None).astype(dtype)
    assert es.dcov(with_na, y, nan_policy="omit") == pytest.approx(
        es.dcov(reference[np.arange(n) != 5], y[np.arange(n) != 5]), rel=1e-14
    )


def test_pairwise_dcor_reads_numbers_held_as_objects():
    g = np.random.default_rng(17)
    X = pd.DataFrame(g.normal(size=(25, 3)), columns=list("abc"))
    held = X.astype({"a": object, "c": "Float64"})
    held.loc[3, "a"] = None
    held.loc[7, "c"] = pd.NA
    got = es.pairwise_dcor(held, nan_policy="omit").table
    want = es.pairwise_dcor(X.drop(index=[3, 7])).table
    np.testing.assert_allclose(got["dcor"], want["dcor"], rtol=1e-14)


def test_duplicate_column_names_are_columns():
    g = np.random.default_rng(4)
    a = g.normal(size=(20, 2))
    y = g.normal(size=20) + a[:, 0]
    assert es.dcor(pd.DataFrame(a, columns=["a", "a"]), y) == pytest.approx(
        es.dcor(a, y), rel=1e-15
    )
    words = pd.DataFrame({"k": list("ab") * 10, "l": list("aabb") * 5}).rename(columns={"l": "k"})
    assert es.dcor(words, y) == pytest.approx(
        es.dcor(pd.DataFrame({"k": list("ab") * 10, "l": list("aabb") * 5}), y), rel=1e-15
    )


R_NA = -2147483648  # R's NA_integer_ as reticulate hands it over


def test_rs_integer_na_through_reticulate_is_missing():
    """reticulate gives an R integer vector as a list of ints, an integer matrix or data-frame
    column as int32, R's NA as -2147483648 (its character NA, the string "NA", is R's NA only
    in a call from R: tests/infrastructure/test_r_na.py)."""
    x, y = [3, 1, R_NA, 4, 5, 9, 2, 7], np.array([1.0, 3, 2, 5, 4, 8, 1, 6])
    keep = np.arange(8) != 2
    complete = np.array(x, dtype=float)[keep]
    for xs in (
        x, np.array(x, dtype=np.int32), pd.Series(x, dtype=np.int32),
        np.array(x, dtype=np.int32)[:, None],
    ):
        with pytest.raises(ValueError, match=r"`x` contains missing values .* in 1 of 8 row"):
            es.dcov(xs, y)
        assert es.dcov(xs, y, nan_policy="omit") == pytest.approx(
            _brute_dcov(complete, y[keep]), rel=1e-13
        )
        assert es.normal_statistic(xs, nan_policy="omit") == es.normal_statistic(complete)
        assert es.energy_distance(xs, y, nan_policy="omit") == pytest.approx(
            es.energy_distance(complete, y), rel=1e-14
        )
        assert es.split_1d(xs, nan_policy="omit").labels[2] == -1
    # an R integer matrix
    M = np.c_[np.array(x, dtype=np.int32), np.array([2, 7, 1, 8, 2, 8, 1, 9], dtype=np.int32)]
    assert es.mvnorm_statistic(M, nan_policy="omit") == es.mvnorm_statistic(M[keep].astype(float))
    # int64: a number
    assert es.dcov(np.array(x, dtype=np.int64), y) == pytest.approx(
        _brute_dcov(np.array(x, dtype=float), y), rel=1e-12
    )
    labels = [1, 1, R_NA, 1, 2, 2, 2, 2]
    res = es.dispersion(y, labels, nan_policy="omit")
    assert res.groups.tolist() == [1, 2] and res.n_omitted == 1


@pytest.mark.r
def test_precomputed_distances_are_taken_as_they_are_and_refuse_an_exponent():
    """R's dcov(Dx, Dy, index = a) of dist objects raises the distances to a: energystats
    takes a precomputed matrix as it is (as the homogeneity family does), so it is
    dcov(Dx ** a, Dy ** a, metric="precomputed"), and exponent != 1 is refused."""
    from energystats._rbridge import r_call, r_dist, to_numpy

    g = np.random.default_rng(6)
    x, y = g.normal(size=(30, 2)), g.normal(size=30)
    y = y + x[:, 0] ** 2
    Dx, Dy = es.pairwise_semimetric(x), es.pairwise_semimetric(y)
    for a in (0.5, 1.5):
        assert es.dcor(Dx**a, Dy**a, metric="precomputed") == pytest.approx(
            to_numpy(r_call("dcor", r_dist(Dx), r_dist(Dy), index=a))[0], rel=1e-12
        )
        assert es.dcov(Dx**a, Dy**a, metric="precomputed") == pytest.approx(
            to_numpy(r_call("dcov", r_dist(Dx), r_dist(Dy), index=a))[0], rel=1e-12
        )
        assert (
            es.dcor(Dx**a, y, metric=("precomputed", "euclidean"), exponent=(1.0, a))
            == pytest.approx(es.dcor(x, y, exponent=a), rel=1e-12)
        )


@pytest.mark.parametrize("k", [-1000, -700, -540, -200, -1, 0, 1, 200, 510, 700, 1000])
def test_scale_invariant_statistics_are_the_same_at_every_magnitude(k):
    """The normality and goodness-of-fit statistics standardise the data: x * 2^k gives the
    statistic of x (to 1e-12) for k across float64's range, where squares of the data would
    overflow (k >= 512) or underflow (k <= -538) (the issue: normal_statistic(x * 1e200) was
    4.67, NaN from 1e-162 down)."""
    g = np.random.default_rng(11)
    x, X = g.normal(size=40), g.normal(size=(40, 3))
    c = 2.0**k
    assert es.normal_statistic(x * c) == pytest.approx(es.normal_statistic(x), rel=1e-12)
    assert es.mvnorm_statistic(X * c) == pytest.approx(es.mvnorm_statistic(X), rel=1e-12)
    unit, scaled = (
        es.normal_test(x, n_resamples=49, rng=1),
        es.normal_test(x * c, n_resamples=49, rng=1),
    )
    assert (
        scaled.statistic == pytest.approx(unit.statistic, rel=1e-12)
        and scaled.pvalue == unit.pvalue
    )
    assert (
        scaled.sd == pytest.approx(unit.sd * c, rel=1e-12)
        and scaled.mean == pytest.approx(unit.mean * c, rel=1e-12)
    )
    assert (
        es.mvnorm_test(X * c, n_resamples=19, rng=1).pvalue
        == es.mvnorm_test(X, n_resamples=19, rng=1).pvalue
    )
    for family, data, known in (
        (stats.norm, x, None), (stats.expon, np.abs(x), {"loc": 0}),
        (stats.gamma, np.abs(x) + 0.1, {"loc": 0}),
    ):
        unit, scaled = (
            es.energy_gof(data * f, family, known_params=known, n_resamples=19, rng=2)
            for f in (1.0, c)
        )
        assert (
            scaled.statistic == pytest.approx(unit.statistic, rel=1e-12)
            and scaled.pvalue == unit.pvalue
        )
        assert scaled.params["scale"] == pytest.approx(unit.params["scale"] * c, rel=1e-12)
    assert es.energy_gof_statistic(stats.norm(0, c), x * c) == pytest.approx(
        es.energy_gof_statistic(stats.norm(), x), rel=1e-12
    )


def test_the_issues_magnitudes():
    x = np.random.default_rng(12).normal(size=50)
    for c in (1e200, 1e-200, 1e300, 1e-300, 1.7e308 / 4):
        assert es.normal_statistic(x * c) == pytest.approx(es.normal_statistic(x), rel=1e-12)
        assert es.energy_gof(x * c, stats.norm, n_resamples=19, rng=0).statistic == pytest.approx(
            es.energy_gof(x, stats.norm, n_resamples=19, rng=0).statistic, rel=1e-12)
    X = np.random.default_rng(13).normal(size=(30, 2))
    assert es.mvnorm_statistic(X / np.abs(X).max() * 1.7e308) == pytest.approx(
        es.mvnorm_statistic(X), rel=1e-12
    )
    assert (
        es.mvnorm_test(X / np.abs(X).max() * 1.7e308, n_resamples=19, rng=0).pvalue
        == es.mvnorm_test(X, n_resamples=19, rng=0).pvalue
    )


def test_a_random_state_passed_where_nothing_is_drawn_is_not_advanced():
    g = np.random.default_rng(14)
    x, y = g.normal(size=20), g.normal(size=20)
    state = np.random.RandomState(0)
    before = state.get_state()[1].copy()
    es.dcov(x, y, rng=state)
    es.normal_test(x, method="limit", rng=state)
    np.testing.assert_array_equal(state.get_state()[1], before)


@pytest.mark.parametrize("k", [-1000, -500, 0, 500, 1020])
def test_centring_is_exact_at_every_magnitude(k):
    """d_center, u_center and u_product of D * 2^k are those of D times 2^k (2^2k), where the
    sums would overflow or underflow (the issue: d_center(D * 1e307) inf/NaN)."""
    x = np.random.default_rng(15).normal(size=(12, 2))
    D, E = es.pairwise_semimetric(x), es.pairwise_semimetric(x[:, :1] ** 2)
    c = 2.0**k
    np.testing.assert_array_equal(es.d_center(D * c), es.d_center(D) * c)
    np.testing.assert_array_equal(es.u_center(D * c), es.u_center(D) * c)
    U, V = es.u_center(D), es.u_center(E)
    assert es.u_product(U * c, V / c) == pytest.approx(es.u_product(U, V), rel=1e-13)
    assert np.isfinite(es.d_center(D / D.max() * 1.7e308)).all()


def test_dispersion_F_when_nothing_is_dispersed():
    """F = (S / (k - 1)) / (W / (N - k)): inf when every group is constant but the groups
    differ (W = 0 < S); NaN, as documented, when every point is the same (S = W = 0)."""
    labels = [0, 0, 0, 1, 1, 1]
    apart = es.dispersion(np.r_[np.zeros((3, 2)), np.ones((3, 2))], labels)
    assert apart.W == 0 and apart.S > 0 and apart.F == np.inf
    same = es.dispersion(np.ones((6, 2)), labels)
    assert same.W == same.S == 0 and np.isnan(same.F)


def test_plots_of_every_test_result():
    plotting = _plotting()
    g = np.random.default_rng(16)
    x = g.normal(size=30)
    y = x + g.normal(size=30)
    ttest = es.dcor_ttest(x, y)
    ax = plotting.plot_null_distribution(ttest)
    assert (
        ax.get_ylabel() == "density"
        and f"Student t, {ttest.df:g} df" in ax.get_legend().get_texts()[0].get_text()
    )
    poisson = es.poisson_test(g.poisson(2.0, 40), n_resamples=19, rng=0)
    titles = [a.get_title() for a in plotting.plot_null_distribution(poisson)]
    assert titles == [f"{name} test" for name in poisson.statistic_names]
    frame = pd.DataFrame({"height": x, "weight": y})
    ax = plotting.plot_clusters(frame, np.arange(30) % 2, columns=(1, 0))
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("weight", "height")


def test_propagate_gives_nan_to_a_valid_call():
    d = _hostile_data()
    X_nan = np.c_[d["x_nan"], d["y"]]
    for call in (
        lambda: es.dcov(d["x_nan"], d["y"], nan_policy="propagate"),
        lambda: es.dcor(d["x_nan"], d["y"], nan_policy="propagate"),
        lambda: es.pdcor(d["x_nan"], d["y"], d["x"], nan_policy="propagate"),
        lambda: es.energy_distance(d["x_nan"], d["y"], nan_policy="propagate"),
        lambda: es.normal_statistic(d["x_nan"], nan_policy="propagate"),
        lambda: es.mvnorm_statistic(X_nan, nan_policy="propagate"),
        lambda: es.poisson_statistic([1, np.nan, 2, 3], nan_policy="propagate"),
        lambda: es.ksample_statistic(X_nan, d["labels"], nan_policy="propagate"),
        lambda: es.mvi(d["x_nan"], d["y"], nan_policy="propagate"),
    ):
        assert np.isnan(call())
    assert np.isnan(
        es.ksample_statistic(
            X_nan, d["labels"], permutations=np.tile(np.arange(30), (3, 1)), nan_policy="propagate"
        )
    ).all()


# ---------------------------------------------------------------------------------------------
# cluster_test's labels= of every kind (issue 42, items 7 and 12): labels are compared as
# values, never cast to integers (float codes were truncated: agreement 0.0 where it is 0.82;
# strings raised "invalid literal for int()").
# ---------------------------------------------------------------------------------------------

LABEL_KINDS = [
    ("integer codes", lambda s: s.cat.codes.to_numpy()),
    ("R numeric codes", lambda s: s.cat.codes.to_numpy() + 1.0),
    ("float codes", lambda s: s.cat.codes.to_numpy() * 0.5 + 0.25),
    ("strings", lambda s: s.astype(str).to_numpy()),
    ("a list of strings", lambda s: s.astype(str).tolist()),
    ("a categorical Series", lambda s: s),
    ("a column name", lambda s: "Species"),
]


@pytest.mark.parametrize("make", [k[1] for k in LABEL_KINDS], ids=[k[0] for k in LABEL_KINDS])
def test_cluster_test_takes_labels_of_every_kind(make):
    """The test's clusters renamed after the user's labels by the best one-to-one matching
    (brute force over the 3! matchings), agreement the share of points it matches."""
    from energystats.datasets import load_iris

    iris = load_iris()
    given = make(iris["Species"])
    X = iris if isinstance(given, str) else iris.drop(columns="Species")
    res = es.cluster_test(X, 3, labels=given, n_resamples=9, rng=0)
    values = np.asarray(iris["Species"] if isinstance(given, str) else given, dtype=object)
    levels = sorted(set(values.tolist()))
    found = res.model.labels_
    matchings = [np.array(p, dtype=object)[found] for p in itertools.permutations(levels)]
    best = max(matchings, key=lambda renamed: np.mean(renamed == values))
    np.testing.assert_array_equal(res.labels.astype(object), best)
    assert res.agreement == np.mean(best == values) == 0.82
    plain = es.cluster_test(iris.drop(columns="Species"), 3, n_resamples=9, rng=0)
    assert res.pvalue == plain.pvalue


def test_cluster_test_names_its_clusters_without_a_partner():
    """Four clusters against three labels: the spare cluster is numbered after the largest
    label when labels are numbers, else named "cluster <i>" (i the test's own number)."""
    from energystats.datasets import load_iris

    iris = load_iris()
    X, species = iris.drop(columns="Species"), iris["Species"]
    named = es.cluster_test(X, 4, labels=species, n_resamples=1, rng=0)
    spare = sorted(set(named.labels.tolist()) - set(species))
    assert len(spare) == 1 and spare[0].startswith("cluster ")
    assert named.labels.dtype == object
    assert named.agreement == np.mean(named.labels == species.to_numpy())
    numbered = es.cluster_test(X, 4, labels=species.cat.codes * 0.5 + 0.25, n_resamples=1, rng=0)
    assert sorted(set(numbered.labels.tolist())) == [0.25, 0.75, 1.25, 2.25]
    assert numbered.agreement == named.agreement
    renamed = species.astype(str).replace("virginica", spare[0])
    clash = es.cluster_test(X, 4, labels=renamed, n_resamples=1, rng=0)
    assert spare[0] + "'" in set(clash.labels.tolist())


# ---------------------------------------------------------------------------------------------
# Precomputed distances that are not of negative type (issue 42, item 9): every function that
# takes a precomputed matrix computes what R's energy computes and warns, naming the argument.
# ---------------------------------------------------------------------------------------------

#: The shortest paths of the complete bipartite graph K_{2,3} (sides a1 a2 | b1 b2 b3): not of
#: negative type. Its two sides as groups: E = 2 - 1 - 4/3 = -1/3 < 0.
K23 = np.array([[0, 2, 1, 1, 1], [2, 0, 1, 1, 1], [1, 1, 0, 2, 2], [1, 1, 2, 0, 2],
                [1, 1, 2, 2, 0]], float)
K23_SIDES = np.array([0, 0, 1, 1, 1])
NOT_NEGATIVE_TYPE = r"`(X|x)` holds distances that are not of negative type: energy statistics"


def _k23_copies(copies: int = 4):
    """K_{2,3} with each vertex repeated (distance 0 between copies): still not of negative type."""
    return np.kron(K23, np.ones((copies, copies))), np.repeat(K23_SIDES, copies)


NOT_NEGATIVE_TYPE_CALLS = [
    ("dispersion", lambda D, g: es.dispersion(D, g, metric="precomputed")),
    ("energy_test", lambda D, g: es.energy_test(D, g, metric="precomputed", n_resamples=9, rng=0)),
    ("ksample_statistic", lambda D, g: es.ksample_statistic(D, g, metric="precomputed")),
    ("pairwise_energy_tests",
     lambda D, g: es.pairwise_energy_tests(D, g, metric="precomputed", n_resamples=9, rng=0)),
    ("KGroups", lambda D, g: es.KGroups(2, metric="precomputed", random_state=0).fit(D)),
    ("energy_hclust", lambda D, g: es.energy_hclust(D, metric="precomputed")),
    ("dcor", lambda D, g: es.dcor(D, np.arange(20.0), metric=("precomputed", "euclidean"))),
]


@pytest.mark.parametrize("call", [c[1] for c in NOT_NEGATIVE_TYPE_CALLS],
                         ids=[c[0] for c in NOT_NEGATIVE_TYPE_CALLS])
def test_distances_not_of_negative_type_warn(call):
    D, sides = _k23_copies()
    with pytest.warns(UserWarning, match=NOT_NEGATIVE_TYPE):
        call(D, sides)


def test_distances_not_of_negative_type_give_rs_numbers_with_a_warning():
    """R 4.2.2, energy 1.7-11: disco(as.dist(K23), factor(c(0, 0, 1, 1, 1)), R = 0) gives
    between -0.2, within 3, total 2.8, statistic -0.2; edist(as.dist(K23), c(2, 3)) -0.4."""
    with pytest.warns(UserWarning, match=NOT_NEGATIVE_TYPE):
        res = es.dispersion(K23, K23_SIDES, metric="precomputed")
    np.testing.assert_allclose([res.S, res.W, res.T, res.F], [-0.2, 3.0, 2.8, -0.2], rtol=1e-13)
    assert res.pairwise[0, 1] == pytest.approx(-0.4, rel=1e-13)
    assert not es.is_negative_type(K23)


def test_past_the_checked_points_a_subset_is_checked():
    """The maximum metric of 1,500 points in five dimensions (R's dist(x, "maximum")): checked
    on 1,000 evenly spaced points, the rest too costly (an O(m^3) factorisation)."""
    from scipy.spatial.distance import pdist, squareform

    from energystats._semimetric import NEGATIVE_TYPE_POINTS

    X = np.random.default_rng(5).normal(size=(1500, 5))
    D = squareform(pdist(X, "chebyshev"))
    assert NEGATIVE_TYPE_POINTS == 1000
    subset = r"`X` holds distances that are not of negative type \(found on 1000 of its 1500 points"
    with pytest.warns(UserWarning, match=subset):
        es.dispersion(D, np.arange(1500) % 2, metric="precomputed")


def test_distances_of_negative_type_do_not_warn():
    """Euclidean distances to powers in (0, 2] (the square included: negative type, though not
    strict), city-block distances, the discrete metric and the maximum metric on the plane
    (city-block turned by 45 degrees) are of negative type: no warning, as is_negative_type says."""
    import warnings

    from scipy.spatial.distance import pdist, squareform

    g = np.random.default_rng(6)
    X, plane = g.normal(size=(60, 4)), g.normal(size=(60, 2))
    matrices = [squareform(pdist(X)) ** a for a in (0.3, 1.0, 1.5, 2.0)]
    matrices += [squareform(pdist(X, "cityblock")), squareform(pdist(plane, "chebyshev")),
                 1.0 - np.eye(60), K23[:2, :2]]
    labels = np.arange(60) % 2
    for D in matrices:
        assert es.is_negative_type(D)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            es.dispersion(D, labels[: D.shape[0]], metric="precomputed")


@pytest.mark.r
def test_rs_dist_of_method_maximum_warns_and_gives_rs_disco():
    """An R dist of method "maximum" in five dimensions, straight from rpy2: R's disco takes it
    without a word; energystats gives R's numbers and warns."""
    from energystats._rbridge import _load, r_call, r_factor, r_field, r_matrix, to_numpy

    ro = _load()[0]
    X = np.random.default_rng(7).normal(size=(40, 5))
    labels = np.arange(40) % 2
    d = ro.r["dist"](r_matrix(X), method="maximum")
    disco = r_call("disco", d, r_factor(labels), R=0)
    with pytest.warns(UserWarning, match=NOT_NEGATIVE_TYPE):
        res = es.dispersion(d, labels)
    fields = ((res.S, "between"), (res.W, "within"), (res.T, "total"), (res.F, "statistic"))
    for ours, field in fields:
        assert ours == pytest.approx(to_numpy(r_field(disco, field))[0], rel=1e-12)


# ---------------------------------------------------------------------------------------------
# As many groups as points (issue 42, item 13): dispersion's k x k arrays are counted in the
# memory budget (it took 1.55 GB above its baseline at k = n = 6,000 under the default 1 GiB).
# ---------------------------------------------------------------------------------------------

DISPERSION_PEAK = """
import json, resource
import numpy as np
import energystats as es

def peak():  # MiB (Linux reports KiB)
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

X = np.random.default_rng(0).normal(size=(2000, 2))
labels = np.arange(2000)  # as many groups as points
es.dispersion(X[:50], labels[:50] % 3)
base = peak()
try:
    with es.config_context(working_memory=64):
        es.dispersion(X, labels)
    refused = ""
except es.WorkingMemoryError as exc:
    refused = str(exc)
refusal = peak() - base
with es.config_context(working_memory=144):
    res = es.dispersion(X, labels)
print(json.dumps({"refused": refused, "refusal": refusal, "peak": peak() - base, "S": res.S,
                  "W": res.W, "T": res.T}))
"""


def test_dispersion_of_as_many_groups_as_points_stays_within_the_budget():
    """k = n = 2,000 in a fresh process: each k x k array is 30.5 MiB. Under a 64 MiB budget
    the call is refused before allocating anything; under 144 MiB it runs and its peak memory
    above the process's baseline (ru_maxrss) stays within the budget (it was 178 MiB: five
    and a half k x k arrays). Every group is one point: W = 0 and S = T."""
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", DISPERSION_PEAK], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-600:]
    out = json.loads(done.stdout)
    assert out["refused"].startswith("the block sums of 2000 groups") and out["refusal"] < 8
    assert out["peak"] <= 144
    assert out["W"] == 0 and out["S"] == pytest.approx(out["T"], rel=1e-14)
    from scipy.spatial.distance import pdist

    X = np.random.default_rng(0).normal(size=(2000, 2))
    assert out["T"] == pytest.approx(pdist(X).sum() / 2000, rel=1e-12)  # sum over i < j, over n


# ---------------------------------------------------------------------------------------------
# dcor_ttest at the ends of float64 (issue 42, item 15): its statistic is scale free; the
# U-statistics beside it may not be representable (x * 1e300 raised OverflowError).
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scale", [2.0**-1000, 1e-300, 1e-160, 2.0**500, 1e160, 1e300, 2.0**1000])
def test_scale_free_tests_of_independence_at_every_magnitude(scale):
    """T (the t-test) and dCor (the permutation test) of x * c and y equal those of x and y
    (to 1e-12: x * c rounds unless c is a power of two), with the same p-value; the
    U- or V-statistics beside them are None when beyond float64, else scaled."""
    g = np.random.default_rng(18)
    x, y = g.normal(size=40), g.normal(size=40)
    y = y + x
    unit, scaled = es.dcor_ttest(x, y), es.dcor_ttest(x * scale, y)
    assert scaled.statistic == pytest.approx(unit.statistic, rel=1e-12)
    assert scaled.pvalue == pytest.approx(unit.pvalue, rel=1e-10)
    assert scaled.estimate == pytest.approx(unit.estimate, rel=1e-12)
    def representable(dvar2):  # dVar^2(x * c) = c^2 dVar^2(x)
        return -1074 < np.log2(dvar2) + 2 * np.log2(scale) < 1024

    assert (scaled.estimates is not None) == representable(unit.estimates.dvar2_x)
    if scaled.estimates is not None:
        dvar2 = unit.estimates.dvar2_x * scale * scale
        assert scaled.estimates.dvar2_x == pytest.approx(dvar2, rel=1e-12, abs=2.0**-1074 * 4)
    unit, scaled = (es.dcor_test(x * c, y, n_resamples=99, rng=0) for c in (1.0, scale))
    assert scaled.statistic == pytest.approx(unit.statistic, rel=1e-12)
    assert scaled.pvalue == unit.pvalue
    assert (scaled.estimates is not None) == representable(unit.estimates.dvar2_x)
    covariance = es.dcov_test(x * scale, y, n_resamples=99, rng=0)  # n V_n^2 scales with c
    plain = es.dcov_test(x, y, n_resamples=99, rng=0)
    assert covariance.statistic == pytest.approx(plain.statistic * scale, rel=1e-12)


# ---------------------------------------------------------------------------------------------
# Data as it comes (issue 42, items 4, 8, 18): each row (id, call, expected) is a call on the
# data of `hostile` whose answer must equal `expected(data)`. A Python "NA" is a label (North
# America), never R's NA; categoricals keep their level order; a table with a column name
# twice keeps both columns.
# ---------------------------------------------------------------------------------------------

#: Three regions of ten rows each, North America's code first.
REGIONS = np.repeat(["NA", "EU", "AS"], 10)
LEVELS = ["lo", "mid", "hi"]
DOSES = pd.Categorical(np.repeat(["hi", "lo", "mid"], [8, 10, 12]), categories=LEVELS,
                       ordered=True)

def _groups(res) -> tuple:
    return res.groups.tolist(), res.sizes.tolist(), res.n_omitted


def _levels(values, categories) -> list:
    return es.dispersion(np.arange(30.0), pd.Categorical(values, categories=categories),
                         nan_policy="omit").groups.tolist()


AS_IT_COMES = [
    *[(f"NA-is-a-label-{kind}", (lambda make: lambda d: _groups(es.dispersion(
        d["x"], make(REGIONS), nan_policy="omit")))(make),
       lambda d: (["AS", "EU", "NA"], [10, 10, 10], 0))
      for kind, make in [("array", np.asarray), ("list", list), ("Series", pd.Series),
                         ("object", lambda r: r.astype(object)),
                         ("string-Series", lambda r: pd.Series(r, dtype="string"))]],
    ("NA-is-a-declared-category", lambda d: _levels(REGIONS, ["NA", "EU", "AS"]),
     lambda d: ["NA", "EU", "AS"]),
    ("NA-is-a-label-energy_test", lambda d: (lambda res: (res.groups.tolist(), res.n_omitted))(
        es.energy_test(d["x"], REGIONS, nan_policy="omit", n_resamples=9, rng=0)),
     lambda d: (["AS", "EU", "NA"], 0)),
    ("NA-is-a-category-of-dcor", lambda d: es.dcor(list(REGIONS), d["y"], nan_policy="omit"),
     lambda d: es.dcor(np.where(REGIONS == "NA", "N.Am.", REGIONS), d["y"])),
    ("NA-is-a-label-raise", lambda d: es.dispersion(d["x"], REGIONS).sizes.tolist(),
     lambda d: [10, 10, 10]),
    # level order of categoricals, as R's disco reports a factor's groups
    ("ordered-groups", lambda d: es.dispersion(d["x"], DOSES).groups.tolist(), lambda d: LEVELS),
    ("ordered-sizes", lambda d: es.dispersion(d["x"], DOSES).sizes.tolist(), lambda d: [10, 12, 8]),
    ("ordered-pairwise", lambda d: es.dispersion(d["x"], DOSES).pairwise,
     lambda d: es.dispersion(d["x"], DOSES.codes).pairwise),
    ("ordered-energy_test", lambda d: es.energy_test(d["x"], pd.Series(DOSES), n_resamples=9,
                                                     rng=0).groups.tolist(), lambda d: LEVELS),
    ("ordered-pairwise_energy_tests",
     lambda d: es.pairwise_energy_tests(d["x"], DOSES, n_resamples=9, rng=0)
     .table[["group_a", "group_b"]].to_numpy().tolist(),
     lambda d: [["lo", "mid"], ["lo", "hi"], ["mid", "hi"]]),
    ("unordered-categories-order", lambda d: _levels(np.repeat(["b", "c", "a"], 10), list("cab")),
     lambda d: ["c", "a", "b"]),
    ("unused-level-left-out", lambda d: _levels(np.repeat(["b", "a", "b"], 10), list("bza")),
     lambda d: ["b", "a"]),
    ("ordered-printed-sizes", lambda d: repr(es.energy_test(d["x"], DOSES, n_resamples=9, rng=0))
     .splitlines()[-1], lambda d: "sizes: lo: 10, mid: 12, hi: 8"),
    ("ordered-printed-table", lambda d: repr(es.dispersion(d["x"], DOSES)).splitlines()[-4].split(),
     lambda d: LEVELS),
    # both columns of a repeated name are data
    ("repeated-names-are-columns", lambda d: es.energy_test(pd.DataFrame(
        d["X"], columns=["a", "a"]), d["labels"], n_resamples=9, rng=0).statistic,
     lambda d: es.energy_test(d["X"], d["labels"], n_resamples=9, rng=0).statistic),
]


@pytest.mark.parametrize("call, expected", [case[1:] for case in AS_IT_COMES],
                         ids=[case[0] for case in AS_IT_COMES])
def test_data_as_it_comes_give_the_right_answer(call, expected):
    data = _hostile_data()
    got, want = call(data), expected(data)
    if isinstance(want, np.ndarray):
        np.testing.assert_array_equal(got, want)
    else:
        assert got == want


#: (id, call, the call on the data as they should be): values alone say that a column of the
#: data is the labels (a variable): a warning with the fix, and the data used as given.
LEFT_IN_WARNED = [
    ("energy_test-array", lambda d: es.energy_test(np.c_[d["X"], d["labels"]], d["labels"],
                                                   n_resamples=9, rng=0).statistic,
     r"^`labels` holds the groups of column 2 of `X` \(counting from 0\): left in the data, .* "
     r"Drop it from `X` \(np\.delete\(X, 2, axis=1\)\) and pass `labels` beside it "
     r"\(energy_test\(\)\)\. If the groups do separate that column \(an outcome they determine\)"),
    ("dispersion-recoded-strings", lambda d: es.dispersion(
        np.c_[d["labels"] + 1.0, d["X"]], np.array(["a", "b", "c"])[d["labels"]]).W,
     r"^`labels` holds the groups of column 0 of `X`"),
    ("dcor-array", lambda d: es.dcor(d["X"], d["X"][:, 1]),
     r"^`y` is column 1 of `x` \(counting from 0\): left in `x`, .* If `y` is meant to be a "
     r"column of `x`, ignore this warning\.$"),
    ("dcov-unnamed-Series", lambda d: es.dcov(pd.DataFrame(d["X"], columns=["a", "b"]),
                                              pd.Series(d["X"][:, 0])),
     r"^`y` is the column 'a' of `x`"),
]


@pytest.mark.parametrize("call, match", [case[1:] for case in LEFT_IN_WARNED],
                         ids=[case[0] for case in LEFT_IN_WARNED])
def test_a_column_left_in_by_value_warns_and_is_used(call, match):
    import warnings

    with pytest.warns(UserWarning, match=match) as record:
        got = call(_hostile_data())
    assert record[0].filename == __file__  # the caller's line
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert got == call(_hostile_data())  # computed as given


def test_the_whole_of_x_as_y_is_the_distance_variance():
    import warnings

    d = _hostile_data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        assert es.dcov(d["X"], d["X"]) == es.dcov(d["X"], d["X"][:, ::-1]) > 0
        assert es.dcor(pd.DataFrame(d["X"], columns=["a", "b"]), d["X"]) == pytest.approx(1.0)
        es.energy_test(d["X"], d["labels"], n_resamples=9, rng=0)  # groups apart from every column


# ---------------------------------------------------------------------------------------------
# The fourth probe (issue 48): pandas rows paired by their index, data of other libraries, the
# kernels' sigma at the ends of float64, messages. Each row of ISSUE_48 (id, call, expected) is
# a call whose answer must equal `expected` (both functions of `_frame48()`); each row of
# ISSUE_48_REFUSED (id, call, error, match) an error naming the argument and the fix.
# ---------------------------------------------------------------------------------------------


def _frame48() -> pd.DataFrame:
    """a, b, y = a^2 + noise, g (three groups), w (weights), made afresh."""
    g = np.random.default_rng(48)
    a, b = g.normal(size=40), g.normal(size=40)
    return pd.DataFrame({"a": a, "b": b, "y": a**2 + 0.1 * g.normal(size=40),
                         "g": np.arange(40) % 3, "w": g.uniform(0.5, 2.0, size=40)})


def _shuffled(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sample(frac=1.0, random_state=3)


class _PolarsLike:
    """What the probe met in polars' DataFrame: columns by name, no ``dtype``, ``to_pandas``
    that needs pyarrow."""

    def __init__(self, frame: pd.DataFrame):
        self._frame, self.columns = frame, list(frame.columns)

    def __getitem__(self, name):
        return self._frame[name].to_numpy()

    def to_pandas(self):
        raise ModuleNotFoundError("No module named 'pyarrow'")


class _DataArrayLike:
    """What the probe met in xarray's DataArray: ``to_numpy()`` without ``dtype``, and
    ``to_pandas``."""

    def __init__(self, values: np.ndarray):
        self.values = values

    def to_numpy(self):
        return self.values

    def to_pandas(self):
        return pd.Series(self.values) if self.values.ndim == 1 else pd.DataFrame(self.values)


def _pvalue(res) -> float:
    return res.pvalue


ISSUE_48 = [
    # pandas rows are paired by their index labels, as pandas aligns them
    ("dcor-sorted-Series", lambda f: es.dcor(f.sort_values("b")["a"], f["y"]),
     lambda f: pytest.approx(es.dcor(f["a"], f["y"]), rel=1e-12)),
    ("dcor_test-sorted-Series", lambda f: _pvalue(es.dcor_test(
        f.sort_values("b")["a"], f["y"], n_resamples=199, rng=0)),
     lambda f: _pvalue(es.dcor_test(f.sort_values("b")["a"], f.sort_values("b")["y"],
                                    n_resamples=199, rng=0))),
    ("dcov-frame-and-shuffled-Series", lambda f: es.dcov(f[["a", "b"]], _shuffled(f)["y"]),
     lambda f: pytest.approx(es.dcov(f[["a", "b"]].to_numpy(), f["y"].to_numpy()), rel=1e-12)),
    ("pdcor-three-orders", lambda f: es.pdcor(f.sort_values("b")["a"], _shuffled(f)["y"],
                                              f.sort_values("y")["b"]),
     lambda f: pytest.approx(es.pdcor(f["a"], f["y"], f["b"]), rel=1e-10)),
    ("dispersion-weights-reversed", lambda f: es.dispersion(f[["a"]], f["g"],
                                                            sample_weight=f["w"][::-1]).W,
     lambda f: pytest.approx(es.dispersion(f[["a"]], f["g"], sample_weight=f["w"]).W, rel=1e-12)),
    ("energy_test-labels-shuffled", lambda f: es.energy_test(
        f[["a", "y"]], _shuffled(f)["g"], n_resamples=99, rng=0).statistic,
     lambda f: pytest.approx(es.energy_test(f[["a", "y"]], f["g"], n_resamples=99,
                                            rng=0).statistic, rel=1e-12)),
    ("KGroups-weights-reversed", lambda f: es.KGroups(2, random_state=0).fit(
        f[["a", "y"]], sample_weight=f["w"][::-1]).labels_.tolist(),
     lambda f: es.KGroups(2, random_state=0).fit(
         f[["a", "y"]], sample_weight=f["w"].to_numpy()).labels_.tolist()),
    ("omit-after-aligning", lambda f: es.dcor(
        f["a"].where(f.index != 5).sort_values(), f["y"], nan_policy="omit"),
     lambda f: pytest.approx(es.dcor(f["a"].drop(5), f["y"].drop(5)), rel=1e-12)),
    ("precomputed-frame-rows-and-columns", lambda f: es.energy_test(
        (lambda D: D.iloc[::-1, ::-1])(pd.DataFrame(es.pairwise_semimetric(f[["a", "y"]]))),
        f["g"], metric="precomputed", n_resamples=99, rng=0).statistic,
     lambda f: pytest.approx(es.energy_test(f[["a", "y"]], f["g"], n_resamples=99,
                                            rng=0).statistic, rel=1e-12)),
    # no index on one side, or the default index on both: by position, as before
    ("array-and-Series-by-position", lambda f: es.dcor(f["a"].to_numpy(), _shuffled(f)["y"]),
     lambda f: es.dcor(f["a"].to_numpy(), _shuffled(f)["y"].to_numpy())),
    ("default-indexes-by-position", lambda f: es.dcor(pd.Series(f["a"].to_numpy()[::-1]),
                                                      pd.Series(f["y"].to_numpy())),
     lambda f: es.dcor(f["a"].to_numpy()[::-1], f["y"].to_numpy())),
    # data of other libraries
    ("polars-like-frame", lambda f: es.energy_test(_PolarsLike(f[["a", "y", "g"]]), "g",
                                                   n_resamples=99, rng=0).statistic,
     lambda f: es.energy_test(f[["a", "y"]], f["g"], n_resamples=99, rng=0).statistic),
    ("xarray-like-arrays", lambda f: es.dcor(_DataArrayLike(f[["a", "b"]].to_numpy()),
                                             _DataArrayLike(f["y"].to_numpy())),
     lambda f: es.dcor(f[["a", "b"]].to_numpy(), f["y"].to_numpy())),
    ("polars-like-KGroups", lambda f: es.KGroups(2, random_state=0).fit(
        _PolarsLike(f[["a", "y"]])).labels_.tolist(),
     lambda f: es.KGroups(2, random_state=0).fit(f[["a", "y"]]).labels_.tolist()),
    ("dict-of-columns", lambda f: es.dcor({"a": f["a"].tolist(), "b": f["b"].tolist()}, f["y"]),
     lambda f: es.dcor(f[["a", "b"]], f["y"])),
    # a MultiIndex column named by its tuple
    ("MultiIndex-column", lambda f: es.energy_test(
        pd.DataFrame({("m", "a"): f["a"], ("m", "y"): f["y"], ("lab", "g"): f["g"]}),
        ("lab", "g"), n_resamples=99, rng=0).statistic,
     lambda f: es.energy_test(f[["a", "y"]].to_numpy(), f["g"].to_numpy(), n_resamples=99,
                              rng=0).statistic),
    # sigma at the ends of float64: a tiny sigma puts every pair of distinct points at 2
    *[(f"{metric}-sigma-1e-300", (lambda m: lambda f: es.dispersion(
        f[["a"]], f["g"], metric=m, sigma=1e-300).W)(metric),
       lambda f: pytest.approx(2 * es.dispersion(f[["a"]], f["g"], metric="discrete").W,
                               rel=1e-12))
      for metric in ("gaussian", "exponential")],
    # far beyond the data, but within 2^128 of them: the kernel is d^2 / sigma^2 to rounding
    ("gaussian-sigma-far-but-representable", lambda f: es.dcor(
        f["a"] * 1e-30, f["y"] * 1e-30, metric="gaussian", sigma=1.0),
     lambda f: pytest.approx(es.dcor(f["a"], f["y"], exponent=2.0), rel=1e-9)),
]


@pytest.mark.parametrize("call, expected", [case[1:] for case in ISSUE_48],
                         ids=[case[0] for case in ISSUE_48])
def test_the_fourth_probe_gets_the_right_answer(call, expected):
    frame = _frame48()
    got = call(frame)
    assert got == expected(_frame48())
    pd.testing.assert_frame_equal(frame, _frame48())  # nothing the call took was modified


ISSUE_48_REFUSED = [
    ("labels-index-disjoint", lambda f: es.dispersion(f[["a"]], f["g"].set_axis(f.index + 100)),
     ValueError, r"^`labels` and `X` are pandas objects, whose rows are paired by their index "
     r"labels as pandas aligns them, but their indexes differ \(40 of the 40 row labels of `X` "
     r"are not among the 40 of `labels`\): pass `labels\.to_numpy\(\)` to pair the rows by "
     r"position, or select the rows both have with \.loc \(rows = "
     r"X\.index\.intersection\(labels\.index\)\)\.$"),
    ("z-index-overlapping", lambda f: es.pdcor(f["a"], f["y"], f["b"].set_axis(f.index + 10)),
     ValueError, r"^`z` and `x` are pandas objects.* differ \(10 of the 40 row labels of `x`"),
    ("labels-of-every-row-for-a-subset", lambda f: es.energy_test(f.loc[f["a"] > 0, ["a", "y"]],
                                                                  f["g"]), ValueError,
     r"^`labels` and `X` are pandas objects.* differ \(0 of the \d+ row labels of `X` are not "
     r"among the 40 of `labels`\): .* select the rows both have with \.loc"),
    ("weights-index-repeated", lambda f: es.dispersion(
        f[["a"]], f["g"], sample_weight=f["w"].set_axis(np.arange(40) // 2)), ValueError,
     r"^`sample_weight` and `X` are pandas objects.* their indexes repeat a label: pass "
     r"`sample_weight\.to_numpy\(\)`"),
    ("KGroups-weights-index-disjoint", lambda f: es.KGroups(2).fit(
        f[["a"]], sample_weight=f["w"].set_axis(f.index + 40)), ValueError,
     r"^`sample_weight` and `X` are pandas objects.* differ"),
    ("dict-of-unequal-columns", lambda f: es.dcor({"a": [1.0, 2.0, 3.0], "b": [1.0]}, f["y"]),
     ValueError, r"^`x` is a dict, read as a table of named columns, but its values are no "
     r"columns of one length"),
    ("scipy-sparse", lambda f: es.dcor(__import__("scipy.sparse").sparse.csr_matrix(
        f[["a", "b"]].to_numpy()), f["y"]), TypeError,
     r"^`x` is a scipy sparse matrix: .* pass x\.toarray\(\)\.$"),
    ("scipy-sparse-KGroups", lambda f: es.KGroups(2).fit(
        __import__("scipy.sparse").sparse.coo_matrix(f[["a", "b"]].to_numpy())), TypeError,
     r"^`X` is a scipy sparse matrix"),
    ("scipy-sparse-dok-a-dict", lambda f: es.energy_test(
        __import__("scipy.sparse").sparse.dok_matrix(f[["a", "b"]].to_numpy()), f["g"]),
     TypeError, r"^`X` is a scipy sparse matrix"),
    ("ragged-list", lambda f: es.dcor([[1.0, 2.0], [3.0], [4.0, 5.0], [6.0, 7.0]],
                                      [1.0, 2.0, 3.0, 4.0]), ValueError,
     r"^`x` is a ragged list: its rows hold different numbers of values\. Pass a table"),
    ("ragged-list-KGroups", lambda f: es.KGroups(2).fit([[1.0, 2.0], 3.0, [4.0, 5.0]]),
     ValueError, r"^`X` is a ragged list"),
    ("gaussian-sigma-1e300", lambda f: es.dispersion(f[["a"]], f["g"], metric="gaussian",
                                                     sigma=1e300), ValueError,
     r"^`sigma`=1e\+300 is more than 2\^128 times the largest \|value\| of the data .* Choose "
     r"sigma on the scale of the distances"),
    ("exponential-sigma-1e300-dcor", lambda f: es.dcor(f["a"], f["y"], metric="exponential",
                                                       sigma=1e300), ValueError,
     r"^`sigma`=1e\+300 is more than 2\^128 times"),
    ("samples-as-one-list", lambda f: es.energy_test_samples([f["a"], f["b"], f["y"]]),
     ValueError, r"^`samples` must be at least two arrays, got 1: .* unpack a list of them, "
     r"energy_test_samples\(\*samples\)\.$"),
    ("omit-leaves-no-row", lambda f: es.energy_test(f[["a"]], f["g"] * np.nan,
                                                    nan_policy="omit"), ValueError,
     r"^`labels` contains missing values \(NaN, None or masked\) in 40 of 40 row\(s\): "
     r"nan_policy='omit' leaves no row\.$"),
    ("R's-index", lambda f: es.dcor(f["a"], f["y"], index=0.5), TypeError,
     r"^dcor\(\) takes `exponent`, not `index`: the exponent of the Euclidean distances, R's "
     r"`index`\.$"),
    ("gof-known-scale-0-shape-family", lambda f: es.energy_gof(
        f["w"], stats.gamma, known_params={"scale": 0}), ValueError,
     r"^`known_params` gave scale=0: known parameters of gamma must be finite, with scale > 0"),
    ("gof-known-shape-off-support", lambda f: es.energy_gof(
        f["w"], stats.weibull_min, known_params={"c": -2, "loc": 0}), ValueError,
     r"^weibull_min cannot be fitted to `x` with `known_params`=\{'c': -2, 'loc': 0\} .*: known "
     r"parameters must leave the data inside the family's support"),
]


@pytest.mark.parametrize("call, error, match", [case[1:] for case in ISSUE_48_REFUSED],
                         ids=[case[0] for case in ISSUE_48_REFUSED])
def test_the_fourth_probe_is_refused_naming_the_argument_and_the_fix(call, error, match):
    with pytest.raises(error, match=match):
        call(_frame48())


@pytest.mark.parametrize("library", ["xarray", "polars"])
def test_the_probes_libraries_themselves(library):
    """The real xarray DataArray and polars DataFrame (when installed) give the numpy answer."""
    module = pytest.importorskip(library)
    f = _frame48()
    if library == "xarray":
        got = es.dcor(module.DataArray(f[["a", "b"]].to_numpy()), module.DataArray(f["y"]))
        assert got == es.dcor(f[["a", "b"]].to_numpy(), f["y"].to_numpy())
    else:
        got = es.energy_test(module.DataFrame(f[["a", "y", "g"]].to_dict("list")), "g",
                             n_resamples=99, rng=0)
        assert got.statistic == es.energy_test(f[["a", "y"]], f["g"], n_resamples=99,
                                               rng=0).statistic
        assert got.data_name == "[a, y] by g"


def test_kgroups_score_is_minus_its_objective_and_serves_model_selection():
    from sklearn.model_selection import GridSearchCV, cross_val_score

    f = _frame48()
    X = f[["a", "y"]].to_numpy()
    fit = es.KGroups(2, random_state=0).fit(X)
    assert fit.score(X) == pytest.approx(-fit.W_, rel=1e-12)
    new = X[::3]
    labels = fit.predict(new)
    assert fit.score(new) == pytest.approx(-es.dispersion(new, labels).W, rel=1e-12)
    one = X[:12]  # every row in one group: W is that group's total dispersion T
    assert (fit.predict(one) == 0).all()
    assert fit.score(one) == pytest.approx(-es.dispersion(one, np.arange(12) < 6).T, rel=1e-12)
    scores = cross_val_score(es.KGroups(2, random_state=0), X, cv=3)
    assert scores.shape == (3,) and (scores < 0).all()
    search = GridSearchCV(es.KGroups(2, random_state=0), {"n_clusters": [2, 3]}, cv=3).fit(X)
    assert search.best_params_["n_clusters"] in (2, 3)
