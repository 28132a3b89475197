r"""Permutation nulls of the independence statistics.

A permutation :math:`\pi` of the rows of y leaves x's centred distance matrix F alone and
permutes y's matrix G, so every statistic here is a function of

.. math::

    S(\pi) = \sum_{i,j} F_{ij}\, G_{\pi(i)\pi(j)},

with F and G symmetric and G's diagonal zero (a distance matrix: then the centring of G
may be left out, since F's rows sum to 0; or a U-centred matrix). There is no matrix
product to hide :math:`S(\pi)` in: each permutation gathers n^2 entries of G. So the
gathers are made as cheap as numpy allows: G's rows of a block of 64 rows are taken at
once (contiguous copies), then their columns, only on and above the diagonal block (half
of the matrix; F's pieces are precomputed, doubled off the diagonal, contiguous), and the
permutations are shared among the threads (numpy releases the GIL in ``take`` and
``vdot``). In float64 throughout: the null values, and so the p-value, are exact to
rounding.

For two one-dimensional samples with exponent 1 there is no matrix at all:
:math:`S(\pi)` is the expansion of :mod:`energystats._operator.pairs` with the
O(n log n) concordance sum on x's fixed order and y's permuted ranks.
"""

from __future__ import annotations

import numpy as np

from .._operator.concordance import concordant_sum
from .._operator.sorted import SortedOperator
from .._parallel import THREADS

__all__ = ["GatherEngine", "SortedEngine"]

#: Rows of G gathered at once: 64 rows of a 10,000-point matrix are 5 MiB.
_ROWS = 64


class GatherEngine:
    """S(pi) for dense F (fixed) and G (permuted), both symmetric, G with a zero diagonal."""

    def __init__(self, F_rows, G: np.ndarray):
        """``F_rows(a, b)``: rows a:b of F (so that F itself need not exist); G: the array."""
        n = G.shape[0]
        self.n, self.G = n, G
        self.blocks = [(a, min(a + _ROWS, n)) for a in range(0, n, _ROWS)]
        # F's diagonal blocks, and twice its part to their right: S = sum over blocks of
        # <F_II, G_II> + 2 <F_I>, G_I>> (the part below is the transpose)
        self.pieces = []
        for a, b in self.blocks:
            rows = F_rows(a, b)
            self.pieces.append((np.ascontiguousarray(rows[:, a:b]), np.ascontiguousarray(2.0 * rows[:, b:])))

    @staticmethod
    def nbytes(n: int) -> int:
        """Memory of F's pieces and a thread's gathered rows, beyond F and G."""
        return 8 * n * n + THREADS * 16 * _ROWS * n

    def one(self, p: np.ndarray) -> float:
        # mode="wrap": the indices are a permutation, always in range; numpy then skips its
        # bounds checks, which are most of a gather's cost (1.7x faster, measured)
        s = 0.0
        for (a, b), (diagonal, right) in zip(self.blocks, self.pieces):
            rows = self.G.take(p[a:b], axis=0, mode="wrap")
            s += float(np.vdot(diagonal, rows.take(p[a:b], axis=1, mode="wrap")))
            if b < self.n:
                s += float(np.vdot(right, rows.take(p[b:], axis=1, mode="wrap")))
        return s

    def __call__(self, perms: np.ndarray) -> np.ndarray:
        return np.array([self.one(p) for p in perms])


class SortedEngine:
    r"""n^2 V_n^2(x, y_pi) (and the U sum) of two one-dimensional samples, |x - y|, in
    O(n log n) per permutation: x's order is fixed, y's values and ranks are permuted."""

    def __init__(self, x: np.ndarray, y: np.ndarray):
        n = x.shape[0]
        self.n = n
        xc, yc = x - x.mean(), y - y.mean()
        self.order = np.argsort(xc)
        self.xs = xc[self.order]
        self.y = yc
        self.rank_y = np.empty(n, dtype=np.intp)
        self.rank_y[np.argsort(yc)] = np.arange(n)
        self.rows_x = self._row_sums(xc)
        self.rows_y = self._row_sums(yc)
        self.total = float(self.rows_x.sum()) * float(self.rows_y.sum())

    @staticmethod
    def _row_sums(v: np.ndarray) -> np.ndarray:
        """sum_j |v_i - v_j| for every i, by sorting (França et al. eq. 60)."""
        return SortedOperator(v).row_sums()

    def inner(self, p: np.ndarray) -> tuple[float, float]:
        """(sum_ij a_ij b_pi(i)pi(j), sum_i a_i. b_pi(i).)."""
        ys = self.y[p][self.order]
        ranks = self.rank_y[p][self.order]
        # reductions rather than BLAS dot products: O(n) work that threads share badly
        everything = self.n * float(np.multiply(self.xs, ys).sum()) - float(self.xs.sum()) * float(ys.sum())
        inner = 2.0 * (2.0 * concordant_sum(self.xs, ys, ranks) - everything)
        return inner, float(np.multiply(self.rows_x, self.rows_y[p]).sum())

    def __call__(self, perms: np.ndarray, unbiased: bool = False) -> np.ndarray:
        n = self.n
        out = np.empty(perms.shape[0])
        for i, p in enumerate(perms):
            inner, rows = self.inner(p)
            if unbiased:
                out[i] = inner - 2.0 / (n - 2) * rows + self.total / ((n - 1) * (n - 2))
            else:
                out[i] = inner - 2.0 / n * rows + self.total / n**2
        return out
