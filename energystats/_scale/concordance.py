r"""Distance covariance sums of two samples on the line in O(n log n) (Huo & Székely 2016).

For |x - y| on the line the centred sums of the distance covariance expand into three terms,
each cheap after a sort: the row sums :math:`a_{i\cdot} = \sum_j |x_i - x_j|` (prefix sums of
the sorted values) and the cross sum :math:`\sum_{i,j} |x_i - x_j|\,|y_i - y_j|`. With the points
in increasing order of x,

.. math::

    \sum_{i,j} |x_i - x_j|\,|y_i - y_j|
    = 2\Big(2 \sum_{q < p,\ y_q < y_p} (x_p - x_q)(y_p - y_q)
          - \sum_{q < p} (x_p - x_q)(y_p - y_q)\Big);

the last sum is :math:`n \sum x y - \sum x \sum y` and the first, over concordant pairs, a
weighted dominance count, computed over the bits of the ranks r of y from the highest: after
the levels above bit b the points are grouped by r >> (b + 1), in x order within a group; a
point whose bit b is 1 dominates in y every point of its group whose bit b is 0, and the pairs
it forms with those before it are summed by exclusive cumulative sums of (1, x, y, xy). Each
group is then split stably by bit b. Ties need no care: a pair with equal x or equal y adds 0.
"""

from __future__ import annotations

import numpy as np

__all__ = ["abs_product_sum", "abs_product_sums", "line_gram", "line_row_sums"]


def concordant_sums(xs: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """The sum over concordant pairs of the module's docstring for each row of Y: points in
    increasing order of x (``xs``, n) and, per row, their y values (B x n); one pass of
    vectorised operations over all rows per bit of n."""
    B, n = Y.shape
    if n < 2:
        return np.zeros(B)
    r = np.empty((B, n), dtype=np.intp)  # the ranks of each row's y
    np.put_along_axis(r, np.argsort(Y, axis=1, kind="stable"), np.arange(n)[None, :], axis=1)
    bits = int(n - 1).bit_length()
    W = np.stack([np.broadcast_to(xs, (B, n)), Y, xs * Y, np.ones((B, n))], axis=1)
    position, rows = np.arange(n), np.arange(B)[:, None]
    total = np.zeros(B)
    for b in range(bits - 1, -1, -1):
        size = 1 << (b + 1)  # the groups: equal r >> (b + 1), aligned blocks in this order
        padded = -(-n // size) * size
        zero = (r & (1 << b)) == 0
        Wz = np.zeros((B, 4, padded))
        np.multiply(W, zero[:, None, :], out=Wz[:, :, :n])
        S = np.cumsum(Wz.reshape(B, 4, -1, size), axis=3).reshape(B, 4, padded)[:, :, :n]
        S -= Wz[:, :, :n]  # exclusive sums of x, y, xy and the count over the zeros before
        terms = W[:, 2] * S[:, 3] - W[:, 0] * S[:, 1] - W[:, 1] * S[:, 0] + S[:, 2]
        total += np.where(zero, 0.0, terms).sum(axis=1)
        count = S[:, 3].astype(np.intp)  # split each group stably, its zeros first
        within = position & (size - 1)
        dest = position - within + np.where(zero, count, (1 << b) + within - count)
        W_next, r_next = np.empty_like(W), np.empty_like(r)
        W_next[rows[:, :, None], np.arange(4)[None, :, None], dest[:, None, :]] = W
        r_next[rows, dest] = r
        W, r = W_next, r_next
    return total


def abs_product_sums(x: np.ndarray, Y: np.ndarray) -> np.ndarray:
    r""":math:`\sum_{i,j} |x_i - x_j|\,|y_i - y_j|` of x (n) with each row y of Y (B x n), all
    on the line, O(B n log n)."""
    n = x.shape[0]
    if n < 2:
        return np.zeros(Y.shape[0])
    order = np.argsort(x, kind="stable")
    xs = x[order] - x.mean()  # an offset costs no precision
    Ys = Y[:, order] - Y.mean(axis=1, keepdims=True)
    everything = n * (Ys @ xs) - xs.sum() * Ys.sum(axis=1)
    return 2.0 * (2.0 * concordant_sums(xs, Ys) - everything)


def abs_product_sum(x: np.ndarray, y: np.ndarray) -> float:
    r""":math:`\sum_{i,j} |x_i - x_j|\,|y_i - y_j|` of two samples on the line, O(n log n)."""
    return float(abs_product_sums(x, y[None, :])[0])


def line_row_sums(x: np.ndarray) -> np.ndarray:
    r""":math:`a_{i\cdot} = \sum_j |x_i - x_j|` for every i, from one sort: for the point of rank
    t (0-based) among sorted values s, :math:`(2t - n) s_t + \sum_u s_u - 2 \sum_{u < t} s_u`."""
    n = x.shape[0]
    order = np.argsort(x, kind="stable")
    s = x[order] - x.mean()
    below = np.cumsum(s) - s
    rows = np.empty(n)
    rows[order] = (2.0 * np.arange(n) - n) * s + s.sum() - 2.0 * below
    return rows


def line_gram(xs: list[np.ndarray], unbiased: bool) -> np.ndarray:
    r"""The sums of :func:`gram` for samples on the line with |x - y|, in O(n log n) (Huo &
    Székely 2016): :math:`\sum_{ij} A_{ij} B_{ij} = \sum_{ij} a_{ij} b_{ij} - \frac{2}{n}
    \sum_i a_{i\cdot} b_{i\cdot} + \frac{a_{\cdot\cdot} b_{\cdot\cdot}}{n^2}`, and for the
    U-centred matrices n - 2 and (n - 1)(n - 2) in place of n and n^2."""
    n, m = xs[0].shape[0], len(xs)
    rows = [line_row_sums(x) for x in xs]
    inner = np.array([[abs_product_sum(xs[k], xs[l]) for l in range(m)] for k in range(m)])
    cross = np.array([[rows[k] @ rows[l] for l in range(m)] for k in range(m)])
    totals = np.array([r.sum() for r in rows])
    c, t = (n - 2.0, (n - 1.0) * (n - 2.0)) if unbiased else (float(n), float(n * n))
    return inner - 2.0 / c * cross + np.outer(totals, totals) / t
