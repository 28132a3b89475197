"""nan_policy on every public function that takes data: "omit" equals dropping the rows
by hand (the same statistic and p-value for the same seed), "raise" names the argument,
"propagate" gives NaN for statistics returned as numbers and is refused otherwise."""

import dataclasses

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import energystats as es

N = 24
_gen = np.random.default_rng(20261123)
X = _gen.normal(size=(N, 2))
X[N // 2 :, 0] += 3.0
Y = X[:, 0] ** 2 + _gen.normal(size=N)
Z = X[:, 1] + _gen.normal(size=N)
LABELS = np.repeat([0, 1, 2], N // 3)
COUNTS = _gen.poisson(4.0, size=N).astype(float)
WEIGHTS = _gen.uniform(0.5, 2.0, size=N)

#: Rows given a missing value: one in the data, one in a second argument (label or paired
#: sample) where the function has one.
FIRST, SECOND = 3, 17


def _with_missing(values: np.ndarray, row: int):
    out = np.array(values, dtype=float)
    if out.ndim == 1:
        out[row] = np.nan
    else:
        out[row, -1] = np.nan
    return out


def _labels_with_missing(labels: np.ndarray, row: int) -> pd.Series:
    out = pd.Series(labels).astype(object)
    out[row] = None
    return out


# name -> (function, the row arguments, options, kind): kind "number" returns a float.
CASES = {
    "dcov": (es.dcov, ("x", "y"), {}, "number"),
    "dcor": (es.dcor, ("x", "y"), {"estimator": "U"}, "number"),
    "dcov_stats": (es.dcov_stats, ("x", "y"), {}, "result"),
    "dcov_test": (es.dcov_test, ("x", "y"), {"n_resamples": 99, "rng": 0}, "result"),
    "dcor_test gamma": (es.dcor_test, ("x", "y"), {"method": "gamma"}, "result"),
    "dcor_ttest": (es.dcor_ttest, ("x", "y"), {}, "result"),
    "pdcov": (es.pdcov, ("x", "y", "z"), {}, "number"),
    "pdcor": (es.pdcor, ("x", "y", "z"), {}, "number"),
    "pdcov_test": (es.pdcov_test, ("x", "y", "z"), {"n_resamples": 49, "rng": 0}, "result"),
    "pdcor_test": (es.pdcor_test, ("x", "y", "z"), {"n_resamples": 49, "rng": 0}, "result"),
    "mutual_independence_test": (
        es.mutual_independence_test, ("X",), {"n_resamples": 49, "rng": 0}, "result",
    ),
    "mvi": (es.mvi, ("x12", "y12"), {}, "number"),
    "mvi_test": (es.mvi_test, ("x12", "y12"), {"n_resamples": 19, "rng": 0}, "result"),
    "normal_statistic": (es.normal_statistic, ("y",), {}, "number"),
    "normal_test": (es.normal_test, ("y",), {"n_resamples": 49, "rng": 0}, "result"),
    "normal_test limit": (es.normal_test, ("y",), {"method": "limit"}, "result"),
    "poisson_statistic": (es.poisson_statistic, ("counts",), {}, "number"),
    "poisson_test": (es.poisson_test, ("counts",), {"n_resamples": 49, "rng": 0}, "result"),
    "energy_gof": (
        es.energy_gof, ("y",), {"dist": stats.norm, "n_resamples": 19, "rng": 0}, "result",
    ),
    "mvnorm_statistic": (es.mvnorm_statistic, ("X",), {}, "number"),
    "mvnorm_test": (es.mvnorm_test, ("X",), {"n_resamples": 49, "rng": 0}, "result"),
    "ksample_statistic": (es.ksample_statistic, ("X", "labels"), {}, "number"),
    "energy_distance": (es.energy_distance, ("y", "y2"), {}, "number"),
    "energy_distance weighted": (es.energy_distance, ("y", "y2"), {"x_weights": "w"}, "number"),
    "dispersion": (es.dispersion, ("X", "labels"), {"sample_weight": "w"}, "result"),
    "energy_test": (es.energy_test, ("X", "labels"), {"n_resamples": 99, "rng": 0}, "result"),
    "pairwise_energy_tests": (
        es.pairwise_energy_tests, ("X", "labels"), {"n_resamples": 49, "rng": 0}, "result",
    ),
    "split_1d": (es.split_1d, ("y",), {"sample_weight": "w"}, "result"),
    "energy_hclust": (es.energy_hclust, ("X",), {}, "result"),
    "cluster_test": (
        es.cluster_test, ("X",), {"n_clusters": 2, "n_resamples": 19, "rng": 0}, "result",
    ),
    "significant_clusters": (
        es.significant_clusters, ("X",), {"n_resamples": 19, "rng": 0}, "result",
    ),
    "choose_k": (
        es.choose_k, ("X",), {"k_max": 3, "n_resamples": 99, "n_references": 2, "rng": 0}, "result",
    ),
    "thinned_cluster_comparison": (
        es.thinned_cluster_comparison,
        ("X",),
        {"n_clusters": 2, "cov": np.eye(2), "n_resamples": 49, "rng": 0},
        "result",
    ),
}


def _arguments(names, missing: bool):
    """The positional row arguments and the kept rows (paired arguments lose the same rows)."""
    full = {
        "x": X, "y": Y, "z": Z, "X": X, "counts": COUNTS, "labels": LABELS,
        "x12": X[:12], "y12": Y[:12], "y2": Y[:15],
    }
    values = [full[name] for name in names]
    if not missing:
        return values
    values[0] = _with_missing(values[0], FIRST)
    if len(names) > 1 and names[1] == "labels":
        values[1] = _labels_with_missing(values[1], SECOND)
    elif len(names) > 1 and names[1] != "y2":  # paired samples: the second loses another row
        values[1] = _with_missing(values[1], SECOND % len(values[1]))
    return values


def _dropped(names) -> tuple[np.ndarray, ...]:
    """The rows of the same arguments after dropping the missing ones by hand."""
    values = _arguments(names, missing=False)
    n = len(values[0])
    keep = np.ones(n, dtype=bool)
    keep[FIRST] = False
    if len(names) > 1 and names[1] != "y2":
        keep[SECOND % n] = False
    out = [
        np.asarray(v)[keep] if i == 0 or names[1] != "y2" else np.asarray(v)
        for i, v in enumerate(values)
    ]
    return tuple(out), keep


def _options(options: dict, keep: np.ndarray | None, n: int) -> dict:
    out = dict(options)
    for key, value in options.items():
        if isinstance(value, str) and value == "w":
            weights = WEIGHTS[:n]
            out[key] = weights if keep is None else weights[keep]
    return out


def _assert_same(a, b, path="result"):
    """Equal numbers (to rounding of the same sums), arrays, frames and nested results."""
    if isinstance(a, float) or isinstance(a, np.floating):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=0, err_msg=path)
    elif isinstance(a, np.ndarray):
        np.testing.assert_allclose(
            a, b, rtol=1e-12, atol=0, err_msg=path
        ) if a.dtype.kind == "f" else np.testing.assert_array_equal(a, b, err_msg=path)
    elif isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b, rtol=1e-12)
    elif dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            if f.name not in ("n_omitted", "labels", "model"):
                _assert_same(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
    else:
        assert a == b, path


@pytest.mark.parametrize("name", list(CASES))
def test_omit_equals_dropping_the_rows_by_hand(name):
    function, names, options, kind = CASES[name]
    (clean, keep) = _dropped(names)
    n = len(_arguments(names, missing=False)[0])
    by_hand = function(*clean, **_options(options, keep, n))
    omitted = function(
        *_arguments(names, missing=True), **_options(options, None, n), nan_policy="omit"
    )
    dropped = int((~keep).sum())
    if kind == "table":
        pd.testing.assert_frame_equal(omitted, by_hand)
        return
    _assert_same(omitted, by_hand)
    if kind == "result":
        assert omitted.n_omitted == dropped
        assert by_hand.n_omitted == 0
        labels = getattr(omitted, "labels", None)
        # per-row output aligned with the input
        if isinstance(labels, np.ndarray) and labels.shape == (n,):
            assert (labels[~keep] == -1).all()
            np.testing.assert_array_equal(labels[keep], by_hand.labels)


@pytest.mark.parametrize("name", list(CASES))
def test_raise_names_the_argument_and_propagate_is_nan_or_refused(name):
    function, names, options, kind = CASES[name]
    n = len(_arguments(names, missing=False)[0])
    arguments = _arguments(names, missing=True)
    first = "X" if names[0] in ("X",) else "x"
    with pytest.raises(
        ValueError,
        match=rf"`{first}`.* missing values \(NaN, None or masked\) in .* pass nan_policy='omit'",
    ):
        function(*arguments, **_options(options, None, n))
    if kind == "number":
        assert np.isnan(function(*arguments, **_options(options, None, n), nan_policy="propagate"))
    else:
        with pytest.raises(
            ValueError, match="`nan_policy`='propagate' is for statistics returned as a number"
        ):
            function(*arguments, **_options(options, None, n), nan_policy="propagate")


def test_nan_policy_values_are_checked():
    with pytest.raises(
        ValueError, match="`nan_policy` must be 'raise', 'omit' or 'propagate', got 'drop'"
    ):
        es.dcov(X, Y, nan_policy="drop")


def test_separate_samples_each_lose_their_own_rows():
    x, y = X[:10], X[10:]
    xm, ym = _with_missing(x, 2), _with_missing(y, 5)
    assert es.energy_distance(xm, ym, nan_policy="omit") == es.energy_distance(
        np.delete(x, 2, 0), np.delete(y, 5, 0)
    )
    res = es.energy_test_samples(xm, ym, n_resamples=49, rng=0, nan_policy="omit")
    ref = es.energy_test_samples(np.delete(x, 2, 0), np.delete(y, 5, 0), n_resamples=49, rng=0)
    assert (res.statistic, res.pvalue, res.n_omitted) == (ref.statistic, ref.pvalue, 2)


def test_a_precomputed_matrix_loses_the_row_and_column_of_a_point_with_a_missing_entry():
    D = es.pairwise_semimetric(X)
    Dm = D.copy()
    Dm[FIRST, :] = Dm[:, FIRST] = np.nan
    keep = np.arange(N) != FIRST
    res = es.dispersion(Dm, LABELS, metric="precomputed", nan_policy="omit")
    ref = es.dispersion(D[np.ix_(keep, keep)], LABELS[keep], metric="precomputed")
    assert (res.W, res.S, res.n_omitted) == (ref.W, ref.S, 1)
    y = Y.copy()
    y[SECOND] = np.nan
    keep[SECOND] = False
    assert es.dcor(Dm, y, metric=("precomputed", "euclidean"), nan_policy="omit") == es.dcor(
        D[np.ix_(keep, keep)], Y[keep], metric=("precomputed", "euclidean")
    )


def test_masked_arrays_and_pandas_missing_values_follow_the_policy():
    masked = np.ma.masked_array(X, mask=np.zeros_like(X, dtype=bool))
    masked[FIRST, 0] = np.ma.masked
    masked.data[FIRST, 0] = 1e6  # a masked value is never used
    keep = np.arange(N) != FIRST
    assert es.energy_distance(masked[:12], masked[12:], nan_policy="omit") == es.energy_distance(
        X[:12][keep[:12]], X[12:]
    )
    with pytest.raises(ValueError, match="`x` contains missing values"):
        es.energy_distance(masked[:12], masked[12:])
    frame = pd.DataFrame(X, columns=["a", "b"]).astype({"a": "Float64"})
    frame.loc[FIRST, "a"] = pd.NA
    assert es.mvnorm_statistic(frame, nan_policy="omit") == es.mvnorm_statistic(X[keep])


def test_estimators_leave_rows_with_missing_values_out_and_label_them_minus_one():
    Xm = _with_missing(X, FIRST)
    keep = np.arange(N) != FIRST
    for make in (
        lambda **kw: es.KGroups(2, random_state=0, **kw),
        lambda **kw: es.PowerKMeans(2, random_state=0, **kw),
    ):
        fitted = make(nan_policy="omit").fit(Xm)
        ref = make().fit(X[keep])
        assert fitted.labels_[FIRST] == -1 and fitted.n_omitted_ == 1
        np.testing.assert_array_equal(fitted.labels_[keep], ref.labels_)
        np.testing.assert_array_equal(fitted.predict(Xm)[keep], ref.predict(X[keep]))
        assert fitted.predict(Xm)[FIRST] == -1
        np.testing.assert_array_equal(make(nan_policy="omit").fit_predict(Xm), fitted.labels_)
        with pytest.raises(ValueError, match="`X` contains missing values"):
            make().fit(Xm)
        with pytest.raises(ValueError, match="`nan_policy`='propagate'"):
            make(nan_policy="propagate").fit(Xm)


def test_kgroups_init_labels_lose_the_rows_dropped():
    Xm = _with_missing(X, FIRST)
    keep = np.arange(N) != FIRST
    start = np.arange(N) % 2
    fitted = es.KGroups(2, init=start, nan_policy="omit").fit(Xm)
    ref = es.KGroups(2, init=start[keep]).fit(X[keep])
    np.testing.assert_array_equal(fitted.labels_[keep], ref.labels_)
    assert fitted.labels_[FIRST] == -1 and fitted.n_omitted_ == 1


def test_rs_integer_na_from_reticulate_is_named_in_the_message():
    """reticulate hands R's NA_integer_ over as the int32 -2147483648: pandas shows no NaN, so
    the message names R's NA and how it arrived (issue 42, item 17)."""
    frame = pd.DataFrame({"a": X[:, 0], "count": np.arange(N, dtype=np.int32)})
    frame.loc[FIRST, "count"] = np.iinfo(np.int32).min
    message = (r"^`X` contains missing values \(R's NA, which reticulate hands over as the "
               r"integer -2147483648\) in 1 of 24 row\(s\): pass nan_policy='omit'")
    with pytest.raises(ValueError, match=message):
        es.energy_test(frame, LABELS)
    res = es.energy_test(frame, LABELS, nan_policy="omit", n_resamples=19, rng=0)
    assert res.n_omitted == 1
    with pytest.raises(ValueError, match=r"^`labels` contains missing values \(NaN, None or "):
        es.energy_test(X, _labels_with_missing(LABELS, SECOND))


def test_pairwise_dcor_drops_incomplete_rows_of_the_columns_it_uses():
    frame = pd.DataFrame({"a": X[:, 0], "b": Y, "c": Z, "unused": X[:, 1]})
    frame.loc[FIRST, "a"] = np.nan
    frame.loc[SECOND, "unused"] = np.nan
    res = es.pairwise_dcor(frame, groups={"a": ["a"], "bc": ["b", "c"]}, nan_policy="omit")
    keep = np.arange(N) != FIRST
    ref = es.pairwise_dcor(frame[keep], groups={"a": ["a"], "bc": ["b", "c"]})
    pd.testing.assert_frame_equal(res.table, ref.table)
    assert res.n_omitted == 1
