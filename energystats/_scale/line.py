r"""Points on the line: the sums of :math:`|x - y|` from one sort.

Sorted, :math:`x_{(1)} \le \dots \le x_{(n)}`, with gaps :math:`g_t = x_{(t+1)} - x_{(t)}`, a
pair of points straddles gap t when one of them is among the first t and the other is not. So
(França, Rizzo & Vogelstein 2020, eq. 60-62, in the form of gaps), with :math:`R_j(t)` the
(weighted) members of group :math:`C_j` among the first t points and :math:`m_j` its total,

.. math::

    M_{ij} = \sum_{x \in C_i,\, y \in C_j} |x - y|
           = \sum_t g_t \,[R_i(t) (m_j - R_j(t)) + R_j(t) (m_i - R_i(t))]
           = m_j a_i + m_i a_j - 2 A_{ij},

:math:`a_j = \sum_t g_t R_j(t)`, :math:`A_{ij} = \sum_t g_t R_i(t) R_j(t)`: the block sums of a
labeling in O(n k) after an O(n log n) sort, from differences of the values only (an offset of
the data costs no precision). The row sums follow alike: the point of rank t is at distance
:math:`\sum_{u < t} g_u u + \sum_{u \ge t} g_u (n - u)` from the others in total.

The statistics of |x - y| on the line take this path from :data:`LINE_MIN` points on, where it
is faster than the products of the n x n matrix (``benchmarks/bench_line.py``); past the memory
budget it is the only exact path that stays O(n log n).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["LINE_MIN", "WORK", "Line", "block_sums", "sort"]

#: Points from which |x - y| on the line is summed by :func:`block_sums` rather than by products
#: of the matrix (the crossing measured by ``benchmarks/bench_line.py``).
LINE_MIN = 150
#: Bytes of prefix sums a caller of :func:`block_sums` forms at a time (13 g + 9 a labeling and
#: point): more labelings per call gain nothing once a call is longer than numpy's overhead.
WORK = 2**21


class Line(NamedTuple):
    """Points on the line, sorted once (:func:`sort`)."""

    order: np.ndarray  #: indices of the points in ascending order of their values
    gaps: np.ndarray  #: g_t = x_(t+1) - x_(t), t = 1..n-1
    r: np.ndarray  #: row sums sum_q |x_(t) - x_q|, in sorted order
    total: float  #: the sum over all ordered pairs, 2 sum_t g_t t (n - t)


def sort(x: np.ndarray) -> Line:
    """The order, gaps and row sums of the points ``x`` (n,) on the line, O(n log n)."""
    order = np.argsort(x)  # ties in any order: the gaps between them are 0
    gaps = np.diff(x[order])
    n = x.shape[0]
    t = np.arange(1.0, n)
    r = np.zeros(n)
    r[1:] = np.cumsum(gaps * t)  # the points before: each gap u < t, u of them
    r[:-1] += np.cumsum((gaps * (n - t))[::-1])[::-1]  # the points after: n - u of them
    return Line(order, gaps, r, 2.0 * float(np.einsum("t,t,t->", gaps, t, n - t)))


def block_sums(line: Line, labelings: np.ndarray, groups: int, weights=None):
    """The block sums of groups 0..``groups``-1 of each labeling, by the prefix sums of the
    module's docstring.

    Parameters
    ----------
    line : Line
        The sorted points.
    labelings : ndarray of shape (b, n)
        Group codes of the n points under each of b labelings.
    groups : int
        g: the groups whose sums are formed (points of other codes count in none).
    weights : ndarray of shape (n,), optional
        Point weights w: then :math:`M = Z^\\top D Z` for the indicator Z weighted by w.

    Returns
    -------
    C : ndarray of shape (b, g, g)
        :math:`M_{ij}` for i, j < g.
    zr : ndarray of shape (b, g)
        Each group's (weighted) sum of the row sums.
    total : float
        The sum over all ordered pairs.

    Notes
    -----
    Time O(b g^2 n), memory about 13 g n + 9 n bytes per labeling.
    """
    Z = np.take(labelings, line.order, axis=1)[:, None, :] == np.arange(groups)[:, None]
    if weights is None:  # counts: int32 sums are exact, and faster than floats
        R = np.cumsum(Z, axis=2, dtype=np.int32)
    else:
        R = np.cumsum(Z * weights[line.order], axis=2)
    del Z
    m, R = R[:, :, -1].astype(float), R[:, :, :-1].astype(float)
    # sums of products by einsum, not BLAS: the work is memory bound, and BLAS threads only
    # wait on a busy machine; sum_t z_t r_t = m r_n + sum_t R(t) (r_t - r_{t+1})
    zr = m * line.r[-1] + np.einsum("bgn,n->bg", R, line.r[:-1] - line.r[1:])
    a = np.einsum("bgn,n->bg", R, line.gaps)
    A = np.empty((R.shape[0], groups, groups))
    for i, j in zip(*np.triu_indices(groups, 1)):  # the products of two groups' prefix sums
        A[:, i, j] = A[:, j, i] = np.einsum("bn,n->b", R[:, i] * R[:, j], line.gaps)
    for i in range(groups):  # then their squares, in place
        A[:, i, i] = np.einsum("bn,n->b", np.square(R[:, i], out=R[:, i]), line.gaps)
    C = m[:, None, :] * a[:, :, None] + m[:, :, None] * a[:, None, :]  # exactly symmetric
    C -= 2.0 * A
    return C, zr, line.total
