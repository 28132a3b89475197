r"""Permutation engines: the value of a statistic of two variables' pairwise matrices under
many permutations of the second variable's rows, for the independence tests.

A permutation :math:`\pi` of the rows of y leaves x's centred distance matrix F alone and
permutes y's matrix G, so the distance covariance is a function of

.. math::

    S(\pi) = \sum_{i,j} F_{ij}\, G_{\pi(i)\pi(j)},

with F and G symmetric and G's diagonal zero (a distance matrix: then the centring of G
may be left out, since F's rows sum to 0; or a U-centred matrix). There is no matrix
product to hide :math:`S(\pi)` in: each permutation gathers n^2 entries of G. So the
gathers are made as cheap as numpy allows (:class:`GatherEngine`): G's rows of a block of
64 rows are taken at once (contiguous copies), then their columns, only on and above the
diagonal block (half of the matrix; F's pieces are precomputed, doubled off the diagonal,
contiguous). In float64 throughout: the null values, and so the p-value, are exact to
rounding.

For two one-dimensional samples with exponent 1 there is no matrix at all
(:class:`SortedEngine`): :math:`S(\pi)` is the expansion of :mod:`.pairs` with the
O(n log n) concordance sum on x's fixed order and y's permuted ranks; the projected
statistic (:class:`ProjectedEngine`) is the sum of such engines over the projections.

Callers outside the operator layer ask :func:`permuted_products` for the engine of two
operators, or build a :class:`GatherEngine` on matrices the operators gave them
(:meth:`~._base.PairwiseOperator.u_centred`). An engine is called with a block of
permutations (B x n) and returns the B values.
"""

from __future__ import annotations

import numpy as np

from .._config import check_fits
from ._base import PairwiseOperator
from .concordance import concordant_sum
from .sorted import SortedOperator

__all__ = ["GatherEngine", "MviEngine", "ProjectedEngine", "SortedEngine", "permuted_products"]

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
        """Memory of F's pieces and one thread's gathered rows, beyond F and G (further threads
        run where the budget holds their rows: :attr:`thread_bytes`)."""
        return 8 * n * n + GatherEngine.row_bytes(n)

    @staticmethod
    def row_bytes(n: int) -> int:
        """A thread's gathered rows (a block of rows of G and its columns)."""
        return 16 * _ROWS * n

    @property
    def thread_bytes(self) -> int:
        """Memory each thread evaluating permutations needs (the resampling module runs as many
        as the budget holds)."""
        return self.row_bytes(self.n)

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

class ProjectedEngine:
    """The permutation engine of the projected distance covariance: the sum over the projection
    pairs (u_k, v_k) of the one-dimensional engines of u_k'x and v_k'y (O(K n log n) per
    permutation; Huang & Huo 2017)."""

    def __init__(self, X: np.ndarray, Y: np.ndarray, directions: tuple[np.ndarray, np.ndarray]):
        check_fits(f"the projected permutation engine (n = {X.shape[0]}, {directions[0].shape[0]} projections)", 80 * X.shape[0] * directions[0].shape[0])
        self.engines = [SortedEngine(X @ u, Y @ v) for u, v in zip(*directions)]

    def __call__(self, perms: np.ndarray) -> np.ndarray:
        return sum(engine(perms) for engine in self.engines)


class MviEngine:
    r"""n I_n^2 under permutations of y's rows: of the four means of Bakirov, Rizzo & Székely
    (2006) only :math:`z_d` (n^2 gathers) and :math:`\bar z` (n lookups in Q) change."""

    def __init__(self, a: np.ndarray, b: np.ndarray):
        n = a.shape[0]
        self.n, self.a2, self.b2 = n, a * a, b * b
        # Q[k, m] = sum_i sum_j |(x_k - x_i, y_m - y_j)|, the n^4 sums once, in blocks of i
        self.Q = np.zeros((n, n))
        step = max(1, 2**21 // (n * n))
        for k in range(n):
            for i in range(0, n, step):
                block = np.sqrt(self.a2[k, i : i + step, None, None] + self.b2[None, :, :])
                self.Q[k] += block.sum(axis=(0, 2))
        self.xbar, self.ybar = a.sum() / n**2, b.sum() / n**2
        self.z = self.Q.sum() / n**4
        self.rows = np.arange(n)

    def scale(self) -> float:
        """The scale s of :func:`~energystats._resampling.pvalue`'s tie tolerance: the three
        means of n I^2 = n (2 zbar - zd - z) / (xbar + ybar - z) are non-negative, so its terms
        sum in absolute value to n (2 zbar + zd + z) / |xbar + ybar - z| (at the identity: a
        permutation changes zbar and zd little); zd sums n^2 roots in runs of 64 n: times
        8 sqrt(n)."""
        n = self.n
        zd = float(np.sqrt(self.a2 + self.b2).sum()) / n**2
        zbar = float(np.trace(self.Q)) / n**3
        return 8.0 * np.sqrt(n) * n * (2.0 * zbar + zd + self.z) / abs(self.xbar + self.ybar - self.z)

    def value(self, p: np.ndarray) -> float:
        n = self.n
        zd = 0.0
        for r in range(0, n, 64):
            gathered = self.b2.take(p[r : r + 64], axis=0, mode="wrap").take(p, axis=1, mode="wrap")  # in range
            gathered += self.a2[r : r + 64]
            zd += float(np.sqrt(gathered, out=gathered).sum())
        zd /= n**2
        zbar = float(self.Q[self.rows, p].sum()) / n**3
        return n * (2.0 * zbar - zd - self.z) / (self.xbar + self.ybar - self.z)

    def __call__(self, perms: np.ndarray) -> np.ndarray:
        return np.array([self.value(p) for p in perms])


def _dcov_engine(op_x: PairwiseOperator, op_y: PairwiseOperator):
    """S(pi) with F x's double-centred matrix and G y's matrix: O(K n log n) per permutation for
    two projection operators, O(n log n) for two operators on the line, else gathers of y's
    matrix (which must fit the memory budget beside x's centred pieces)."""
    if op_x.approximation == "projection" and op_y.approximation == "projection":
        return ProjectedEngine(op_x.X, op_y.X, (op_x.directions, op_y.directions))
    if op_x.on_line and op_y.on_line:
        return SortedEngine(op_x.x, op_y.x)
    n = op_x.n
    check_fits(f"the permutation test's matrices (n = {n})", 8 * n * n + GatherEngine.nbytes(n))
    rows = op_x.row_sums()
    mean = rows / n
    grand = float(rows.sum()) / n**2

    def centred_rows(a: int, b: int) -> np.ndarray:  # rows a:b of x's double-centred matrix
        R = np.array(op_x.rows(slice(a, b)), dtype=float)
        R -= mean[a:b, None]
        R -= mean[None, :]
        R += grand
        return R

    return GatherEngine(centred_rows, op_y.dense("y's distance matrix"))


def _mvi_engine(op_x: PairwiseOperator, op_y: PairwiseOperator) -> MviEngine:
    """The engine of n I_n^2 (Bakirov, Rizzo & Székely 2006) on the two distance matrices."""
    return MviEngine(op_x.dense("x's distance matrix"), op_y.dense("y's distance matrix"))


#: The engine of each statistic, all with one signature (as scipy's ``null_calculators``).
_ENGINES = {"dcov": _dcov_engine, "mvi": _mvi_engine}


def permuted_products(op_x: PairwiseOperator, op_y: PairwiseOperator, statistic: str = "dcov"):
    r"""The permutation engine of two operators on the same n points: a callable taking a block
    of permutations of y's rows (B x n) and returning the statistic under each.

    ``statistic="dcov"``: :math:`S(\pi) = \sum_{ij} A_{ij} b_{\pi(i)\pi(j)} = n^2
    \mathcal V_n^2(x, y_\pi)` (Székely, Rizzo & Bakirov 2007, eq. 2.8), A x's double-centred
    matrix; for two projection operators (their directions paired), the sum over the
    projections of the one-dimensional values. ``statistic="mvi"``: :math:`n \mathcal I_n^2`
    of Bakirov, Rizzo & Székely (2006), O(n^4) once and O(n^2) per permutation. Memory is
    checked against the budget before any matrix is formed."""
    return _ENGINES[statistic](op_x, op_y)
