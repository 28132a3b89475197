"""Input validation shared by the public functions (energystats._validation)."""

import numpy as np
import pytest

from energystats._validation import as_labels


@pytest.mark.parametrize(
    "labels",
    [
        np.array([3, 1, 3, -2, 1]),
        np.array([-128, 127, 0, 127], dtype=np.int8),
        np.array([5, 5, 7], dtype=np.uint8),
        np.array([True, False, True]),
        np.array([10**9, 0, 10**9, 7]),  # a range too wide to count: sorted instead
        np.array(["b", "a", "c", "a"]),
        np.array([1.5, 0.5, 1.5]),
    ],
)
def test_labels_are_coded_as_numpy_unique_codes_them(labels):
    """Integer labels with a small range are counted rather than sorted (ten million labels
    then need their codes only); the codes and levels are those of ``np.unique``, in the
    smallest integer type."""
    codes, levels = as_labels(labels, labels.shape[0])
    want_levels, want_codes = np.unique(labels, return_inverse=True)
    np.testing.assert_array_equal(levels, want_levels)
    assert levels.dtype == want_levels.dtype
    np.testing.assert_array_equal(codes, want_codes)
    assert codes.dtype == np.int8


def test_many_groups_get_wider_codes():
    codes, levels = as_labels(np.arange(300) % 200, 300)
    assert codes.dtype == np.int16 and levels.size == 200
    np.testing.assert_array_equal(codes, np.arange(300) % 200)


def test_as_data_takes_a_float64_array_as_it_is_and_reads_the_rest():
    """A C-ordered float64 ndarray is returned itself (nothing to read); a Fortran-ordered one
    becomes a C-ordered copy; a masked float64 array with a masked entry is still refused."""
    from energystats._validation import as_data

    X = np.arange(6.0).reshape(3, 2)
    assert as_data(X, "X") is X
    F = np.asfortranarray(X)
    assert as_data(F, "X").flags.c_contiguous and (as_data(F, "X") == X).all()
    np.testing.assert_array_equal(as_data(X[:, 0], "X"), X[:, :1])
    with pytest.raises(ValueError, match="`X` contains missing values"):
        as_data(np.ma.masked_array(X, mask=X == 2.0), "X")
    with pytest.raises(ValueError, match="`X` contains NaN"):
        as_data(np.array([[0.0], [np.nan]]), "X")
