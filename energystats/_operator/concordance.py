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

    Time O(n log n): one pass of O(n) vectorised operations per bit of n."""
    n = xs.shape[0]
    if n < 2:
        return 0.0
    W = np.empty((n, 3))
    W[:, 0], W[:, 1] = xs, ys
    np.multiply(xs, ys, out=W[:, 2])
    r = ranks
    total = 0.0
    position = np.arange(n)
    for b in range(int(n - 1).bit_length() - 1, -1, -1):
        size = 1 << (b + 1)  # the groups: ranks with equal r >> (b + 1), aligned blocks in this order
        groups = -(-n // size)
        padded = groups * size
        zero = (r & (1 << b)) == 0
        Wz = np.zeros((padded, 3))
        np.multiply(W, zero[:, None], out=Wz[:n])
        zeros_before = np.zeros(padded)  # the count column, exclusive
        zeros_before[:n] = zero
        sums = np.cumsum(Wz.reshape(groups, size, 3), axis=1).reshape(padded, 3)[:n]
        sums -= Wz[:n]  # exclusive: X, Y, XY over the zeros before each point in its group
        count = np.cumsum(zeros_before.reshape(groups, size), axis=1).reshape(padded)[:n]
        count -= zero
        x, y = W[:, 0], W[:, 1]
        # (x_p - x_q)(y_p - y_q) summed over the zeros q before each point p with bit 1
        terms = W[:, 2] * count
        terms -= x * sums[:, 1]
        terms -= y * sums[:, 0]
        terms += sums[:, 2]
        total += float(terms @ ~zero)
        # split each group stably: its zeros first (2^b of them in every full group)
        within = position & (size - 1)
        start = position - within
        dest = np.where(zero, start + count, start + (1 << b) + (within - count).astype(np.intp))
        dest = dest.astype(np.intp)
        W_next = np.empty_like(W)
        W_next[dest] = W
        r_next = np.empty_like(r)
        r_next[dest] = r
        W, r = W_next, r_next
    return total


def abs_product_sum(x: np.ndarray, y: np.ndarray, order: np.ndarray | None = None, ranks: np.ndarray | None = None) -> float:
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
