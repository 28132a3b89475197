"""energystats._missing: nan_policy's rules on every kind of container (the public
functions' own checks, omit = dropping by hand, are in tests/infrastructure/test_nan_policy.py)."""

import numpy as np
import pandas as pd
import pytest

from energystats._missing import check_nan_policy, drop_missing, expand_labels


def _rows(n=6):
    return np.arange(2.0 * n).reshape(n, 2)


@pytest.mark.parametrize(
    "make",
    [
        lambda X: np.where(np.arange(len(X))[:, None] == 2, np.nan, X),
        lambda X: pd.DataFrame(X).mask(np.arange(X.size).reshape(X.shape) == 4),
        lambda X: np.ma.masked_array(X, mask=np.arange(X.size).reshape(X.shape) == 5),
        lambda X: (
            pd.DataFrame(X).astype("Int64").mask(np.arange(X.size).reshape(X.shape) == 4)
        ),  # pandas NA
        lambda X: np.array(
            [list(r) if i != 2 else [r[0], None] for i, r in enumerate(X.tolist())], dtype=object
        ),
    ],
    ids=["nan", "pandas-nan", "masked", "pandas-NA", "None"],
)
def test_a_missing_cell_drops_its_row_and_nothing_passed_in_changes(make):
    X = make(_rows())
    before = X.copy()
    values, keep = drop_missing("omit", {"X": X, "labels": np.array([0, 0, 0, 1, 1, 1])})
    np.testing.assert_array_equal(keep, [True, True, False, True, True, True])
    np.testing.assert_array_equal(
        np.asarray(values["X"], dtype=float), np.delete(_rows(), 2, axis=0)
    )
    np.testing.assert_array_equal(values["labels"], [0, 0, 1, 1, 1])
    if isinstance(X, pd.DataFrame):
        pd.testing.assert_frame_equal(X, before)
    else:
        np.testing.assert_array_equal(np.ma.getdata(X), np.ma.getdata(before))


def test_missing_labels_of_any_type_drop_the_row():
    X = _rows()
    for labels in (
        pd.Series([0.0, 0.0, np.nan, 1.0, 1.0, 1.0]).astype(object),
        pd.Series(["a", "a", None, "b", "b", "b"]),
        pd.Categorical(["a", "a", np.nan, "b", "b", "b"]),
        np.ma.masked_array([0, 0, 0, 1, 1, 1], mask=[0, 0, 1, 0, 0, 0]),
    ):
        values, keep = drop_missing("omit", {"X": X, "labels": labels})
        assert keep.sum() == 5 and not keep[2]
        assert len(values["labels"]) == 5


def test_pandas_rows_keep_their_columns_and_levels():
    frame = pd.DataFrame({"a": [1.0, np.nan, 3.0], "b": [4.0, 5.0, 6.0]})
    groups = pd.Series(pd.Categorical(["x", "y", "x"], categories=["y", "x"]))
    values, _ = drop_missing("omit", {"X": frame, "labels": groups})
    assert list(values["X"].columns) == ["a", "b"]
    assert list(values["labels"].cat.categories) == ["y", "x"]


def test_a_missing_entry_of_a_precomputed_matrix_drops_its_point():
    D = np.abs(np.subtract.outer(np.arange(5.0), np.arange(5.0)))
    D[1, 3] = np.nan  # the pair (1, 3): dropping point 1 (the first of the tie) removes it
    values, keep = drop_missing("omit", {"D": D}, matrices=["D"])
    np.testing.assert_array_equal(keep, [True, False, True, True, True])
    np.testing.assert_array_equal(values["D"], D[np.ix_([0, 2, 3, 4], [0, 2, 3, 4])])
    D[2, :] = D[:, 2] = np.nan  # point 2 has every distance missing: it goes, its neighbours stay
    D[1, 3] = 1.0
    _, keep = drop_missing("omit", {"D": D}, matrices=["D"])
    np.testing.assert_array_equal(keep, [True, True, False, True, True])


def test_raise_names_the_arguments_and_the_way_on():
    X = _rows()
    X[1, 0] = np.nan
    with pytest.raises(
        ValueError,
        match=r"`X` contains missing values \(NaN, None or masked\) in 1 of 6 row\(s\): "
        r"pass nan_policy='omit'",
    ):
        drop_missing("raise", {"X": X, "labels": None})


def test_nothing_missing_passes_the_objects_unchanged():
    X = _rows()
    values, keep = drop_missing("raise", {"X": X})
    assert keep is None and values["X"] is X
    masked = np.ma.masked_array(X)  # no masked entry: its data
    values, keep = drop_missing("omit", {"X": masked})
    assert keep is None and type(values["X"]) is np.ndarray


def test_infinite_values_are_not_missing():
    X = _rows()
    X[0, 0] = np.inf
    assert drop_missing("omit", {"X": X})[1] is None


def test_rows_must_agree_in_number():
    y = _rows(5)
    y[0, 0] = np.nan
    with pytest.raises(
        ValueError, match="`x` and `y` must have the same number of rows, got 6 and 5"
    ):
        drop_missing("omit", {"x": _rows(), "y": y})
    # nothing missing: the caller's checks
    assert drop_missing("omit", {"x": _rows(), "y": _rows(5)})[1] is None


def test_propagate_reports_without_dropping():
    X = _rows()
    X[0, 0] = np.nan
    values, keep = drop_missing("propagate", {"X": X})
    assert values["X"] is X and not keep[0]


def test_policy_values():
    assert check_nan_policy("omit", propagate=False) == "omit"
    with pytest.raises(
        ValueError, match="`nan_policy` must be 'raise', 'omit' or 'propagate', got 'drop'"
    ):
        check_nan_policy("drop", propagate=True)
    with pytest.raises(
        ValueError,
        match=r"`nan_policy`='propagate' is for statistics returned as a number; energy_test\(\)",
    ):
        check_nan_policy("propagate", propagate=False, where="energy_test()")


def test_expanded_labels_align_with_the_input_rows():
    np.testing.assert_array_equal(
        expand_labels(np.array([3, 4]), np.array([True, False, True])), [3, -1, 4]
    )


def test_the_string_na_is_missing_only_where_it_is_rs_na():
    """In Python data "NA" is a label (pandas agrees); in a call from R (na_strings) it is R's
    character NA, as reticulate hands it over, in arrays, lists, object and string columns and
    categoricals alike."""
    words = ["NA", "EU", "AS"]
    for labels in (np.array(words), words, pd.Series(words), pd.Series(words, dtype="string"),
                   pd.Categorical(words)):
        values, keep = drop_missing("omit", {"labels": labels})
        assert keep is None and len(values["labels"]) == 3
        values, keep = drop_missing("omit", {"labels": labels}, na_strings=True)
        assert keep.tolist() == [False, True, True] and len(values["labels"]) == 2
    with pytest.raises(ValueError, match=r"`labels` contains missing values \(R's NA\) in 1 of 3"):
        drop_missing("raise", {"labels": ["NA", "EU", "AS"]}, r_objects={"labels"}, na_strings=True)
