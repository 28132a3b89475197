"""Distance correlation of every pair of variables (energystats._independence.pairwise)."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import energystats as es  # noqa: E402
from energystats.plotting import plot_dcor_matrix  # noqa: E402


@pytest.fixture
def frame(rng):
    df = pd.DataFrame(rng.normal(size=(120, 4)), columns=["a", "b", "c", "d"])
    df["e"] = np.abs(df["a"]) + 0.3 * rng.normal(size=120)
    return df


def test_each_pair_is_the_two_sample_statistics(frame):
    res = es.pairwise_dcor(frame, rng=0)
    assert len(res.table) == 10 and list(res.table.columns) == [
        "x", "y", "dcor", "bcdcor", "statistic", "pvalue", "pvalue_adjusted", "reject",
    ]
    for row in res.table.itertuples():
        x, y = frame[row.x].to_numpy(), frame[row.y].to_numpy()
        assert row.dcor == pytest.approx(es.dcor(x, y), rel=1e-12)
        assert row.bcdcor == pytest.approx(es.dcor(x, y, estimator="U"), rel=1e-10)
        test = es.dcov_test(x, y, method="gamma")  # n <= 300: the skewness of all rows
        assert (
            row.statistic == pytest.approx(test.statistic, rel=1e-12)
            and row.pvalue == pytest.approx(test.pvalue, rel=1e-10)
        )
        assert res.matrix.loc[row.x, row.y] == res.matrix.loc[row.y, row.x] == row.dcor
    assert (
        res.table.iloc[0][["x", "y"]].tolist() == ["a", "e"]
        and res.table["pvalue"].is_monotonic_increasing
    )
    from statsmodels.stats.multitest import multipletests

    np.testing.assert_allclose(
        res.table["pvalue_adjusted"], multipletests(res.table["pvalue"], method="holm")[1]
    )
    assert (
        "Distance correlation of every pair of variables" in repr(res)
        and "data:  [a, b, c, ... (5 columns)]" in repr(res)
    )


def test_methods_groups_and_corrections(frame):
    t = es.pairwise_dcor(frame, method="t")
    row = t.table.iloc[0]
    direct = es.dcor_ttest(frame[row.x], frame[row.y])
    assert (
        row.statistic == pytest.approx(direct.statistic, rel=1e-10)
        and row.pvalue == pytest.approx(direct.pvalue, rel=1e-9)
    )
    perm = es.pairwise_dcor(frame[["a", "b", "e"]], method="permutation", n_resamples=99, rng=1)
    # deterministic: fixed seed; the smallest p-value of B = 99
    assert perm.table.set_index(["x", "y"]).loc[("a", "e"), "pvalue"] == 0.01
    grouped = es.pairwise_dcor(
        frame, groups={"first": ["a", "b"], "second": ["c", "d"], "third": "e"}, correction="fdr_bh"
    )
    assert grouped.table.shape[0] == 3 and set(grouped.matrix.index) == {"first", "second", "third"}
    row = grouped.table.set_index(["x", "y"]).loc[("first", "third")]
    assert row["dcor"] == pytest.approx(es.dcor(frame[["a", "b"]], frame["e"]), rel=1e-12)


def test_same_result_whatever_the_jobs(frame):
    want = es.pairwise_dcor(frame, method="permutation", n_resamples=19, rng=3).table
    got = es.pairwise_dcor(frame, method="permutation", n_resamples=19, rng=3, n_jobs=2).table
    pd.testing.assert_frame_equal(got, want)


def test_heatmap(frame):
    ax = plot_dcor_matrix(es.pairwise_dcor(frame))
    assert [t.get_text() for t in ax.get_yticklabels()] == list("abcde")
    assert "rejected" in ax.get_title()


@pytest.mark.parametrize(
    "X,kwargs,error,match",
    [
        (
            pd.DataFrame({"a": [1.0, 2, 3, 4], "b": list("wxyz")}), {}, ValueError,
            r"column\(s\) 'b' are not numeric",
        ),
        (
            pd.DataFrame({"a": np.arange(6.0)}), {}, ValueError,
            r"`X` must have at least two variables",
        ),
        (
            pd.DataFrame({"a": np.arange(6.0), "b": np.arange(6.0)}), dict(method="exact"),
            ValueError, r"`method` must be one of",
        ),
        (
            pd.DataFrame({"a": np.arange(6.0), "b": np.arange(6.0)}),
            dict(groups={"g": ["a", "z"]}), ValueError, r"names column\(s\) not in `X`: z",
        ),
        (
            pd.DataFrame({"a": np.arange(6.0), "b": np.arange(6.0)}), dict(groups=["a"]), TypeError,
            r"`groups` must be a non-empty dict",
        ),
    ],
)
def test_bad_input(X, kwargs, error, match):
    with pytest.raises(error, match=match):
        es.pairwise_dcor(X, **kwargs)
