r"""The sum of :math:`|x_i - x_j|\,|y_i - y_j|` over all pairs of two samples on the line,
in O(n log n) time and O(n) memory: the one term of the distance covariance that the
sorted back-end's products do not give (Huo & Székely 2016; Chaudhuri & Hu 2019).

With the points in increasing order of x, :math:`x_p - x_q \ge 0` for q < p, so

.. math::

    \sum_{i,j} |x_i - x_j|\,|y_i - y_j|
    = 2 \sum_{q < p} s_{pq} (x_p - x_q)(y_p - y_q)
    = 2\Big(2 \sum_{q < p,\ y_q < y_p} (x_p - x_q)(y_p - y_q)
          - \sum_{q < p} (x_p - x_q)(y_p - y_q)\Big),

:math:`s_{pq} = \pm 1` the sign of :math:`y_p - y_q`. The last sum is
:math:`n \sum x y - \sum x \sum y`; the first, over the concordant pairs, is a weighted
dominance count. It is computed over the bits of the ranks r of y, from the highest: after
the levels above bit b the points are grouped by r >> (b + 1), in x order within a group;
a point whose bit b is 1 dominates, in y, every point of its group whose bit b is 0, and
the pairs it forms with those before it in x order are summed by exclusive cumulative
sums of (1, x, y, xy) over the group. Then each group is split, stably, by bit b. Every
concordant pair is counted once, at the highest bit where the ranks differ. Ties need no
care: a pair with equal x or equal y contributes 0 whatever its order. The data are
centred first, so an offset costs no precision.
"""

from __future__ import annotations

import numpy as np

__all__ = ["abs_product_sum", "concordant_sum"]


def concordant_sum(xs: np.ndarray, ys: np.ndarray, ranks: np.ndarray) -> float:
    r""":math:`\sum_{q < p,\ r_q < r_p} (x_p - x_q)(y_p - y_q)` for points in increasing order
    of x (``xs``), with y values ``ys`` and ``ranks`` of y, a permutation of 0..n-1 (int).

    Time O(n log n): one pass of O(n) vectorised operations per bit of n. The arrays are
    laid out by column (x, y, xy), so that each level's group sums are one cumulative sum
    along contiguous blocks; the counts are a fourth column of the same sum; the masked
    sums are reductions, not BLAS dot products (which stall on threads under load)."""
    n = xs.shape[0]
    if n < 2:
        return 0.0
    bits = int(n - 1).bit_length()
    W = np.empty((3, n))
    W[0], W[1] = xs, ys
    np.multiply(xs, ys, out=W[2])
    r = np.asarray(ranks, dtype=np.intp)
    position = np.arange(n)
    # the zero-masked (x, y, xy, 1) of a level, padded to whole groups
    buffer = np.zeros((4, 1 << bits))
    W_next, r_next = np.empty_like(W), np.empty_like(r)
    total = 0.0
    for b in range(bits - 1, -1, -1):
        # the groups: ranks with equal r >> (b + 1), aligned blocks in this order
        size = 1 << (b + 1)
        groups = -(-n // size)
        padded = groups * size
        zero = (r & (1 << b)) == 0
        Wz = buffer[:, :padded]
        np.multiply(W, zero, out=Wz[:3, :n])
        Wz[3, :n] = zero
        Wz[:, n:] = 0.0
        S = np.cumsum(Wz.reshape(4, groups, size), axis=2).reshape(4, padded)[:, :n]
        S -= Wz[:, :n]  # exclusive: X, Y, XY and the count over the zeros before, in the group
        # (x_p - x_q)(y_p - y_q) summed over the zeros q before each point p with bit 1
        terms = W[2] * S[3]
        terms -= W[0] * S[1]
        terms -= W[1] * S[0]
        terms += S[2]
        total += float(terms[~zero].sum())
        # split each group stably: its zeros first (2^b of them in every full group)
        count = S[3].astype(np.intp)
        within = position & (size - 1)
        dest = position - within + np.where(zero, count, (1 << b) + within - count)
        W_next[:, dest] = W
        r_next[dest] = r
        W, W_next = W_next, W
        r, r_next = r_next, r
    return total


def abs_product_sum(
    x: np.ndarray, y: np.ndarray, order: np.ndarray | None = None, ranks: np.ndarray | None = None
) -> float:
    r""":math:`\sum_{i,j} |x_i - x_j|\,|y_i - y_j|` of two samples on the line, in O(n log n).

    ``order`` (argsort of x) and ``ranks`` (the ranks of y in that order, a permutation of
    0..n-1) may be given when already known, as in a permutation test where x's order is
    fixed and y's ranks are permuted."""
    n = x.shape[0]
    if n < 2:
        return 0.0
    xc = x - x.mean()
    yc = y - y.mean()
    if order is None:
        order = np.argsort(xc)
    xs, ys = xc[order], yc[order]
    if ranks is None:
        ranks = np.empty(n, dtype=np.intp)
        ranks[np.argsort(ys)] = np.arange(n)
    everything = n * float(xs @ ys) - float(xs.sum()) * float(ys.sum())
    return 2.0 * (2.0 * concordant_sum(xs, ys, ranks) - everything)
