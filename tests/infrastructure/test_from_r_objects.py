"""R data as it arrives through rpy2: factors, NA of every type, data frames (marked r)."""

import numpy as np
import pandas as pd
import pytest

import energystats as es
from energystats._rbridge import from_r

pytestmark = pytest.mark.r


@pytest.fixture(scope="module")
def r():
    from energystats._rbridge import _load

    ro, _ = _load()
    return ro.r


def test_factors_become_categoricals_with_rs_levels_and_na_missing(r):
    labels = from_r(r('factor(c("b", "a", NA, "b"), levels = c("b", "a"))'))
    assert isinstance(labels, pd.Categorical)
    assert list(labels.categories) == ["b", "a"] and not labels.ordered
    assert labels.isna().tolist() == [False, False, True, False]
    assert from_r(r('factor(c("lo", "hi"), levels = c("lo", "hi"), ordered = TRUE)')).ordered


def test_integer_logical_and_character_na_are_missing(r):
    np.testing.assert_array_equal(from_r(r("c(1L, NA, 3L)")), [1.0, np.nan, 3.0])
    np.testing.assert_array_equal(from_r(r("c(1L, 2L)")), [1, 2])
    np.testing.assert_array_equal(from_r(r("c(TRUE, NA)")), [1.0, np.nan])
    assert from_r(r('c("x", NA)')).tolist() == ["x", None]
    np.testing.assert_array_equal(
        from_r(r("matrix(c(1, 2, 3, 4, 5, 6), 3)")), [[1, 4], [2, 5], [3, 6]]
    )


def test_airquality_as_it_arrives_with_nan_policy_omit(r):
    frame = from_r(r("airquality"))
    assert list(frame.columns) == ["Ozone", "Solar.R", "Wind", "Temp", "Month", "Day"]
    assert int(frame.isna().any(axis=1).sum()) == 42  # R: sum(!complete.cases(airquality))
    data = r("airquality[, 1:4]")
    complete = frame.iloc[:, :4].dropna().to_numpy()
    months = r("airquality$Month")
    res = es.energy_test(data, months, n_resamples=99, rng=0, nan_policy="omit")
    ref = es.energy_test(
        complete, frame["Month"][frame.iloc[:, :4].notna().all(axis=1)].to_numpy(), n_resamples=99,
        rng=0,
    )
    assert (res.statistic, res.pvalue, res.n_omitted) == (ref.statistic, ref.pvalue, 42)
    with pytest.raises(ValueError, match=r"`X` contains missing values \(R's NA\) in 42 of 153"):
        es.energy_test(data, months)


def test_a_factor_groups_as_its_levels(r):
    iris = r("iris")
    res = es.dispersion(r("as.matrix(iris[, 1:4])"), r("iris$Species"))
    assert res.groups.tolist() == ["setosa", "versicolor", "virginica"]
    assert (
        res.W
        == es.dispersion(np.asarray(r("as.matrix(iris[, 1:4])")), from_r(iris.rx2("Species"))).W
    )


def test_data_frames_keep_every_column_matrices_their_shape_and_times_stay_times(r):
    frame = from_r(r("data.frame(a = 1:3, a = 4:6, check.names = FALSE)"))
    assert list(frame.columns) == ["a", "a"] and frame.iloc[:, 0].tolist() == [1, 2, 3]
    strings = from_r(r('matrix(c("u", NA, "v", "NA", "w", "x"), 2)'))
    assert strings.shape == (2, 3) and strings[:, 1].tolist() == ["v", "NA"]
    assert strings[1, 0] is None
    dates = from_r(r('as.Date(c("2024-03-01", NA))'))
    assert dates.dtype.kind == "M" and str(dates[0])[:10] == "2024-03-01" and np.isnat(dates[1])
    instants = from_r(r('as.POSIXlt(c("2024-03-01 10:30:00", NA), tz = "UTC")'))
    assert str(instants[0]) == "2024-03-01T10:30:00.000000" and np.isnat(instants[1])
    lags = from_r(r('as.difftime(c(1.5, NA), units = "hours")'))
    assert lags[0] == np.timedelta64(90, "m") and np.isnat(lags[1])
    columns = from_r(r('data.frame(d = as.Date("2024-03-01"), t = as.difftime(2, units = "days"))'))
    assert [c.kind for c in columns.dtypes] == ["M", "m"]
