"""Block sums on the line from one sort (energystats._operator._prefix): the labelings packed
as bits and the gap-form sweeps, against brute force."""

import numpy as np
import pytest
from conftest import brute_rho

from energystats._operator import indicator
from energystats._operator._prefix import (
    PackedLabelings,
    block_sums_on_line,
    group_sums_on_line,
    total_on_line,
)
from energystats._operator.dense import DenseOperator


def sorted_positions(x):
    order = np.argsort(x, kind="stable")
    xs = x[order]
    return lambda a, b: (order[a:b], xs[a : b + 1])


@pytest.mark.parametrize("k", [2, 3, 5])
def test_labelings_put_one_at_a_time_equal_the_packed_array(rng, k):
    codes = rng.integers(0, k, size=(13, 40))
    whole = PackedLabelings.from_codes(codes, k)
    one = PackedLabelings.empty(40, 13, k)
    for b in range(13):
        one.put(b, codes[b].astype(np.int8), np.bincount(codes[b], minlength=k))
    np.testing.assert_array_equal(one.bits, whole.bits)
    np.testing.assert_array_equal(one.sizes, whole.sizes)
    assert whole.bits.shape == (40, 8)  # planes of 2 bytes, padded to 8


@pytest.mark.parametrize("k", [2, 3, 4, 6])
def test_group_sums_on_line_are_every_labelings_block_sums(rng, k):
    """Labelings of different sizes (the implicit group is the one largest in all of them),
    ties in the data, more labelings than one chunk of a block."""
    n = 57
    x = np.round(rng.normal(size=n), 1)
    codes = rng.integers(0, k, size=(150, n))
    codes[:, : 3 * k] = np.arange(3 * k) % k  # no group empty
    M, total = group_sums_on_line(n, PackedLabelings.from_codes(codes, k), sorted_positions(x))
    D = DenseOperator(brute_rho(x, x))
    for b in (0, 1, 77, 149):
        np.testing.assert_allclose(
            M[b], D.quadratic(indicator(codes[b], k)), rtol=1e-12, atol=1e-12
        )
    assert total == pytest.approx(brute_rho(x, x).sum(), rel=1e-13)
    assert total_on_line(n, sorted_positions(x)) == pytest.approx(total, rel=1e-13)


def test_weighted_block_sums_on_line_equal_brute_force(rng):
    x = np.round(rng.normal(size=33), 1)
    codes = rng.integers(0, 3, size=33)
    w = rng.uniform(0.0, 2.0, size=33)
    want = DenseOperator(brute_rho(x, x)).quadratic(indicator(codes, 3, w))
    got = block_sums_on_line(33, codes, w, 3, sorted_positions(x))
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_array_equal(got, got.T)
