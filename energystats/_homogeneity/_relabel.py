"""The relabelings of the k-sample permutation test: how many there are, all of them, or a
random stream of them in blocks (as int8 codes, or packed as bits for the operators that
want them so)."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np

from .._operator import PackedLabelings

__all__ = ["all_relabelings", "count_relabelings", "packed_batches", "random_batches"]


def count_relabelings(sizes: np.ndarray, cap: int | None = None) -> int:
    """Multinomial coefficient N! / prod n_j!: the number of distinct relabelings; with
    ``cap``, a count above it is returned as cap + 1, found from log-gamma functions without
    the exact integer (millions of digits for large samples)."""
    if cap is not None:
        log_count = math.lgamma(int(sizes.sum()) + 1) - sum(math.lgamma(int(m) + 1) for m in sizes)
        if log_count > math.log(cap) + 1.0:  # far above the rounding of the log-gammas
            return cap + 1
    count, remaining = 1, int(sizes.sum())
    for m in sizes[:-1]:
        count *= math.comb(remaining, int(m))
        remaining -= int(m)
    return count if cap is None else min(count, cap + 1)


def all_relabelings(sizes: np.ndarray) -> np.ndarray:
    """Every assignment of the labels 0..k-1 with the given sizes (count x n)."""
    n = int(sizes.sum())
    out = np.full((1, n), -1, dtype=np.intp)
    for j, m in enumerate(sizes[:-1]):
        rows = []
        for row in out:
            free = np.flatnonzero(row < 0)
            for chosen in combinations(free, int(m)):
                new = row.copy()
                new[list(chosen)] = j
                rows.append(new)
        out = np.array(rows)
    out[out < 0] = len(sizes) - 1
    return out


def random_batches(codes: np.ndarray, n_resamples: int, step: int, gen: np.random.Generator):
    """The observed labeling, then ``n_resamples`` random relabelings, in blocks of ``step``.

    The relabelings are the same whatever ``step`` is: ``Generator.permuted``
    shuffles the rows of a block one after another from the same stream.
    """
    codes = codes.astype(np.int8 if codes.max() < 127 else np.int16)  # same permutations, less memory
    todo, first = n_resamples + 1, True
    while todo > 0:
        size = min(step, todo)
        block = np.tile(codes, (size, 1))
        gen.permuted(block[first:], axis=1, out=block[first:])  # in place: one copy per labeling
        yield block
        todo -= size
        first = False


def packed_batches(codes: np.ndarray, sizes: np.ndarray, n_resamples: int, step: int, gen: np.random.Generator):
    """The labelings of :func:`random_batches` (the same relabelings), each block packed as
    bits one relabeling at a time: memory the block's bits and one labeling, not step x n."""
    codes = codes.astype(np.int8 if codes.max() < 127 else np.int16)
    row = np.empty_like(codes)
    todo, first = n_resamples + 1, True
    while todo > 0:
        size = min(step, todo)
        block = PackedLabelings.empty(codes.shape[0], size, sizes.shape[0])
        for b in range(size):
            row[:] = codes
            if not (first and b == 0):
                gen.permuted(row, out=row)
            block.put(b, row, sizes)
        yield block
        todo -= size
        first = False
