"""Points on the line (energystats._scale.line): the sums of |x - y| from one sort, against
the matrix they sum."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from energystats._scale import line


def indicator(codes, g, w=None):
    Z = (codes[:, None] == np.arange(g)).astype(float)
    return Z if w is None else Z * w[:, None]


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(1, 40), k=st.integers(1, 4), weighted=st.booleans())
def test_block_sums_are_those_of_the_matrix(data, n, k, weighted):
    """Ties, repeated points and any order: C = Z'DZ for the first g groups, zr = Z'r of the
    sorted points' row sums, total = 1'D1, every labeling of a block alike."""
    x = data.draw(arrays(np.float64, n, elements=st.floats(-50, 50).map(lambda v: round(v, 1))))
    labelings = data.draw(arrays(np.int8, (3, n), elements=st.integers(0, k - 1)))
    w = data.draw(arrays(np.float64, n, elements=st.floats(0.1, 3.0))) if weighted else None
    D = np.abs(x[:, None] - x[None, :])
    g = max(1, k - 1)
    sorted_x = line.sort(x)
    C, zr, total = line.block_sums(sorted_x, labelings, g, w)
    assert C.shape == (3, g, g) and zr.shape == (3, g)
    scale = max(1.0, D.sum())
    for b in range(3):
        Z = indicator(labelings[b], g, w)
        np.testing.assert_allclose(C[b], Z.T @ D @ Z, rtol=1e-12, atol=1e-12 * scale)
        np.testing.assert_allclose(zr[b], Z.T @ D.sum(axis=1), rtol=1e-12, atol=1e-12 * scale)
    np.testing.assert_array_equal(C, C.transpose(0, 2, 1))  # exactly symmetric
    assert total == pytest.approx(D.sum(), rel=1e-12, abs=1e-12)


def test_sort_gives_the_order_gaps_and_row_sums(rng):
    x = np.round(rng.normal(size=50), 1)  # ties
    s = line.sort(x)
    assert (np.diff(x[s.order]) >= 0).all()
    np.testing.assert_array_equal(s.gaps, np.diff(np.sort(x)))
    D = np.abs(x[:, None] - x[None, :])
    np.testing.assert_allclose(s.r, D.sum(axis=1)[s.order], rtol=1e-13)
    assert s.total == pytest.approx(D.sum(), rel=1e-13)
    one = line.sort(np.array([3.0]))
    assert one.total == 0.0 and one.r.tolist() == [0.0]


def test_an_offset_costs_no_precision(rng):
    """The sums use the differences of the sorted values only: data at 1e8 give the sums of
    the data at 0 up to the rounding of the shifted input (1e8 * 2**-52 ~ 1.5e-8 per value),
    where prefix sums of the values themselves would lose 8 more digits."""
    x = rng.normal(size=300)
    codes = rng.integers(0, 3, size=(2, 300))
    near, far = (line.block_sums(line.sort(v), codes, 3) for v in (x, x + 1e8))
    shifted = line.block_sums(line.sort((x + 1e8) - 1e8), codes, 3)
    for a, b in zip(far, shifted):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    np.testing.assert_allclose(far[0], near[0], rtol=1e-6)
