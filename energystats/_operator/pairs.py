r"""Inner products of the centred matrices of several pairwise operators on the same points:
the sums every distance-covariance statistic is made of.

For the matrices :math:`a^{(k)}` of m operators (distances of x, of y, of z, ...), with row
sums :math:`a^{(k)}_{i\cdot}` and total :math:`a^{(k)}_{\cdot\cdot}`:

* the double-centred matrix (Székely, Rizzo & Bakirov 2007, eq. 2.7)
  :math:`A_{ij} = a_{ij} - a_{i\cdot}/n - a_{\cdot j}/n + a_{\cdot\cdot}/n^2`, and
  :math:`V_{kl} = \sum_{i,j} A^{(k)}_{ij} A^{(l)}_{ij}` (so that :math:`V_{kl} / n^2` is the
  V-statistic :math:`\mathcal V_n^2`, eq. 2.8);
* the U-centred matrix (Székely & Rizzo 2014, eq. 3.1)
  :math:`\tilde A_{ij} = a_{ij} - a_{i\cdot}/(n-2) - a_{\cdot j}/(n-2) +
  a_{\cdot\cdot}/((n-1)(n-2))` for :math:`i \ne j`, 0 on the diagonal, and
  :math:`U_{kl} = \sum_{i \ne j} \tilde A^{(k)}_{ij} \tilde A^{(l)}_{ij}` (so that
  :math:`U_{kl} / (n(n-3))` is the inner product of the Hilbert space of U-centred
  matrices, the unbiased estimator of :math:`\mathcal V^2`, eq. 3.2).

Operators with tiles are centred tile by tile in a second pass over the tiles, after a
first pass for the row sums (no n x n array); two one-dimensional |x - y| operators use
the O(n log n) sum of :mod:`.concordance` and the expansion
:math:`\sum_{ij} A_{ij} B_{ij} = \sum_{ij} a_{ij} b_{ij} - \frac2n \sum_i a_{i\cdot}
b_{i\cdot} + \frac{a_{\cdot\cdot} b_{\cdot\cdot}}{n^2}` (and its U analogue with n - 2 and
(n - 1)(n - 2); Huo & Székely 2016).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from .._config import check_fits, memory_budget
from .._parallel import THREADS, n_workers, round_robin, run_tasks, run_threads, threads_within
from ._base import PairwiseOperator
from ._tiled import TILE, upper_tiles
from .concordance import abs_product_sum

__all__ = ["CentredGram", "centred_gram", "line_gram"]


@dataclass(frozen=True)
class CentredGram:
    """The sums of products of the centred matrices of m operators (see the module).

    Attributes
    ----------
    n : int
    V : ndarray of shape (m, m)
        :math:`\\sum_{i,j} A^{(k)}_{ij} A^{(l)}_{ij}`, double-centred.
    U : ndarray of shape (m, m)
        :math:`\\sum_{i \\ne j} \\tilde A^{(k)}_{ij} \\tilde A^{(l)}_{ij}`, U-centred (NaN for
        n < 4).
    """

    n: int
    V: np.ndarray
    U: np.ndarray
    #: bounds on the rounding error of V and U (0 where they come from centred tiles, which
    #: carry no cancellation; on the O(n log n) path, a multiple of eps times the expanded
    #: terms): an entry within its bound is zero to working precision
    V_error: np.ndarray | float = 0.0
    U_error: np.ndarray | float = 0.0
    #: sum_ij a_ij^2 of each operator's own matrix (raw, uncentred), shape (m,)
    squares: np.ndarray | None = None


def _centring(rows: np.ndarray, n: int) -> tuple[np.ndarray, float, np.ndarray, float]:
    """Row terms and constants of the double and the U centring, from the row sums."""
    total = float(rows.sum())
    if n < 4:
        return rows / n, total / n**2, np.full(n, np.nan), np.nan
    return rows / n, total / n**2, rows / (n - 2), total / ((n - 1) * (n - 2))


def _tile_sums(
    tiles: list, ops: list, centrings: list, want_u: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """V and (with ``want_u``) U sums, and the raw sums of squares, of the given tiles on or
    above the diagonal (those above count twice)."""
    m = len(ops)
    V, U, squares = np.zeros((m, m)), np.zeros((m, m)), np.zeros(m)
    for a, b, c, e in tiles:
        weight = 1.0 if a == c else 2.0
        double, unbiased = [], []
        for k, (op, (rv, kv, ru, ku)) in enumerate(zip(ops, centrings)):
            T = np.array(op._tile(a, b, c, e), dtype=float)  # a copy: held tiles are views
            squares[k] += weight * float(np.vdot(T, T))
            D = T - rv[a:b, None] if want_u else T
            D -= rv[None, c:e] if want_u else rv[a:b, None] + rv[None, c:e]
            D += kv
            double.append(D)
            if want_u:
                T -= ru[a:b, None]
                T -= ru[None, c:e]
                T += ku
                if a == c:
                    np.fill_diagonal(T, 0.0)
                unbiased.append(T)
        for k in range(m):
            for l in range(k, m):
                V[k, l] += weight * float(np.vdot(double[k], double[l]))
                if want_u:
                    U[k, l] += weight * float(np.vdot(unbiased[k], unbiased[l]))
    return V, U, squares


def _gram_task(
    ops: list, centrings: list, want_u: bool, shard: list
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A joblib task: the sums of one shard of tiles."""
    return _tile_sums(shard, ops, centrings, want_u)


def _symmetrise(M: np.ndarray) -> np.ndarray:
    return np.triu(M) + np.triu(M, 1).T


def line_gram(ops: list[PairwiseOperator]) -> CentredGram:
    """The sums for one-dimensional |x - y| operators (their :attr:`~._base.PairwiseOperator.line`)
    in O(n log n): the expansion of the module docstring, with sum_ij |x_i - x_j|^2 =
    2 n sum x^2 - 2 (sum x)^2 on the diagonal."""
    n, m = ops[0].n, len(ops)
    rows = [op.row_sums() for op in ops]
    lines = [op.line for op in ops]
    totals = [float(r.sum()) for r in rows]
    inner = np.empty((m, m))
    ranks = []
    for line in lines:  # each operator's ranks, from the order it sorted once
        r = np.empty(n, dtype=np.intp)
        r[line.order] = np.arange(n)
        ranks.append(r)
    for k in range(m):
        x = lines[k].xs  # sorted and centred
        inner[k, k] = 2.0 * n * float(x @ x) - 2.0 * float(x.sum()) ** 2
        for l in range(k + 1, m):
            order = lines[k].order
            value = abs_product_sum(lines[k].x, lines[l].x, order=order, ranks=ranks[l][order])
            inner[k, l] = inner[l, k] = value
    cross = np.array([[float(rows[k] @ rows[l]) for l in range(m)] for k in range(m)])
    tot = np.outer(totals, totals)
    V = inner - 2.0 / n * cross + tot / n**2
    U = (
        inner - 2.0 / (n - 2) * cross + tot / ((n - 1) * (n - 2))
        if n >= 4
        else np.full((m, m), np.nan)
    )
    eps = 16 * n * np.finfo(float).eps  # sums of n^2 terms, in O(n) steps each
    V_error = eps * (np.abs(inner) + 2.0 / n * np.abs(cross) + tot / n**2)
    U_error = eps * (
        np.abs(inner) + 2.0 / max(n - 2, 1) * np.abs(cross) + tot / max((n - 1) * (n - 2), 1)
    )
    return CentredGram(n, V, U, V_error, U_error, np.diag(inner).copy())


def centred_gram(ops: list[PairwiseOperator], n_jobs=None, unbiased: bool = True) -> CentredGram:
    """The V and U sums of every pair of the operators ``ops`` (same n), in one pass over
    the tiles after their row sums; O(n log n) when every operator is one-dimensional |x - y|.
    ``unbiased=False`` leaves out the U sums (NaN) on the tiles, for the callers that need V only.

    Time O(n^2 (d + m^2)) for tiled operators, memory O(n + m tile^2) per thread; with
    ``n_jobs`` (more than one joblib worker) the tiles run as joblib tasks."""
    n = ops[0].n
    if all(op.on_line for op in ops):
        return line_gram(ops)
    if not all(op.tiled for op in ops):
        raise ValueError(
            "centred products need operators that give tiles (or one-dimensional data)"
        )
    m = len(ops)
    # the operators, row sums and centring terms
    held = sum(op.nbytes for op in ops) + 8 * 4 * m * n
    # tiles whose copies (three per operator and thread) take at most half of what is left
    per_entry = 2 * 8 * 3 * m * THREADS  # three copies of each operator's tile per thread, twice
    budget = memory_budget(held + per_entry * min(n, TILE) ** 2)
    side = min(TILE, n, max(1, math.isqrt(max(budget - held, 0) // per_entry)))
    # fewer threads where the budget is small
    threads = threads_within(8 * 3 * m * side * side, held)
    check_fits(
        f"the centred products of {m} {n} x {n} operators", held + 8 * 3 * m * side * side * threads
    )
    centrings = [_centring(op.row_sums(), n) for op in ops]
    tiles = upper_tiles(n, side)
    if n_workers(n_jobs) > 1:
        shards = [
            tiles[a : a + max(1, len(tiles) // 16)]
            for a in range(0, len(tiles), max(1, len(tiles) // 16))
        ]
        parts = run_tasks(
            _gram_task,
            [{"shard": s} for s in shards],
            n_jobs,
            shared={"ops": ops, "centrings": centrings, "want_u": unbiased},
        )
    else:
        parts = run_threads(
            functools.partial(_tile_sums, ops=ops, centrings=centrings, want_u=unbiased),
            round_robin(tiles, threads),
        )
    V = _symmetrise(sum(p[0] for p in parts))
    U = _symmetrise(sum(p[1] for p in parts))
    if n < 4 or not unbiased:
        U[...] = np.nan
    return CentredGram(n, V, U, squares=sum(p[2] for p in parts))
