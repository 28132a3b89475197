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
rounding. The same gathers give :math:`\sum_{ij} \sqrt{F_{ij} + G_{\pi(i)\pi(j)}}` (``root``:
the mean distance among the points :math:`(x_i, y_{\pi(i)})` of Bakirov, Rizzo & Székely's
coefficient, from the squared distances).

For two one-dimensional samples with exponent 1 there is no matrix at all
(:class:`SortedEngine`): :math:`S(\pi)` is the expansion of :mod:`.pairs` with the
O(n log n) concordance sum on x's fixed order and y's permuted ranks; the projected
statistic (:class:`ProjectedEngine`) is the sum of such engines over the projections.

Callers outside the operator layer ask :func:`permuted_products` for the engine of two
operators (chosen by :func:`~.choice.choose_engine`), or :func:`gathered_products` for the
engine of matrices they define by blocks of rows (from the operators' centred rows: the
partial and mutual tests), which it holds and never hands out. An engine is called with a
block of permutations (B x n) and returns the B values.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .._config import check_fits, memory_budget
from .._cost import ROWS, flat_chunk, pairing_costs
from ._base import TILE, PairwiseOperator
from .choice import choose_engine, choose_gather
from .concordance import concordant_sum
from .sorted import SortedOperator

__all__ = [
    "GatherEngine",
    "ProjectedEngine",
    "SortedEngine",
    "gathered_products",
    "permuted_products",
]

#: Rows a:b of a symmetric n x n matrix, as a new (b - a) x n array.
RowBlocks = Callable[[int, int], np.ndarray]


class GatherEngine:
    r"""S(pi) for F (fixed) and G (permuted), both symmetric, G with a zero diagonal: the sum of
    the products :math:`F_{ij} G_{\pi(i)\pi(j)}`, or with ``root`` of
    :math:`\sqrt{F_{ij} + G_{\pi(i)\pi(j)}}`, by one of two paths
    (:func:`~.choice.choose_gather`, from the cost model of :mod:`energystats._cost`):

    * ``"flat"`` (small n): a chunk of permutations at once, in three numpy calls: the flat
      indices :math:`p_i n + p_j` of all their products (one broadcast addition), G's
      entries there (one gather from a matrix in cache), and one matrix-vector product with
      F; ``chunk`` permutations a chunk (:func:`~energystats._cost.flat_chunk`, within the
      budget). Each value is a dot product of n^2 terms;
    * ``"rows"``: one permutation at a time, by blocks of :data:`~energystats._cost.ROWS`
      rows: G's rows at p[a:b] (contiguous copies), then their columns at p[a:b] and p[b:]
      only, on and above the diagonal block (half of the matrix; F's pieces are precomputed,
      doubled off the diagonal, contiguous). Each value is a sum of dot products of at most
      64 n terms.
    """

    def __init__(self, F_rows: RowBlocks, G: np.ndarray, root: bool = False, path: str = "rows",
                 chunk: int = 1):
        """``F_rows(a, b)``: rows a:b of F (so that F itself need not exist); G: the array;
        ``path`` and ``chunk`` (permutations per chunk of the flat path) as the caller chose
        them."""
        n = G.shape[0]
        self.n, self.G, self.root, self.path, self.chunk = n, G, root, path, chunk
        self.blocks = [(a, min(a + ROWS, n)) for a in range(0, n, ROWS)]
        squares = 0.0
        if path == "flat":
            self.F = np.empty((n, n))
            for a, b in self.blocks:
                self.F[a:b] = F_rows(a, b)
            squares = float(np.vdot(self.F, self.F))
            self.pieces = []
            held = self.F.nbytes
        else:
            # F's diagonal blocks, and (twice, for products) its part to their right: S = sum
            # over blocks of <F_II, G_II> + 2 <F_I>, G_I>> (the part below is the transpose)
            self.pieces = []
            for a, b in self.blocks:
                rows = F_rows(a, b)
                squares += float(np.vdot(rows, rows))
                right = rows[:, b:] if root else 2.0 * rows[:, b:]
                diagonal = np.ascontiguousarray(rows[:, a:b])
                self.pieces.append((diagonal, np.ascontiguousarray(right)))
            held = sum(d.nbytes + r.nbytes for d, r in self.pieces)
        #: the sums of the squares of F's and G's entries
        self.squares = (squares, float(np.vdot(G, G)))
        #: the bytes it holds: G and F (or F's pieces)
        self.nbytes = G.nbytes + held
        #: seconds per permutation in the cost model (the loop's choice of threads)
        self.seconds = pairing_costs(n)[path]

    @staticmethod
    def bytes_for(n: int) -> int:
        """Memory of F's pieces and one thread's gathered rows, beyond F and G (further threads
        run where the budget holds their rows: :attr:`thread_bytes`; the flat path's chunks are
        sized to what the budget holds beyond this)."""
        return 8 * n * n + GatherEngine.row_bytes(n)

    @staticmethod
    def row_bytes(n: int) -> int:
        """A thread's gathered rows (a block of rows of G and its columns)."""
        return 16 * ROWS * n

    @property
    def thread_bytes(self) -> int:
        """Memory each thread evaluating permutations needs (the resampling module runs as many
        as the budget holds): a chunk's indices and values, or a block's gathered rows."""
        if self.path == "flat":
            return 16 * self.n * self.n * self.chunk
        return self.row_bytes(self.n)

    def one(self, p: np.ndarray) -> float:
        """S for one permutation p (by the engine's path)."""
        if self.path == "flat":
            return float(self(p[None, :])[0])
        # mode="wrap": the indices are a permutation, always in range; numpy then skips its
        # bounds checks, which are most of a gather's cost (1.7x faster, measured)
        if self.root:
            return self._root(p)
        s = 0.0
        for (a, b), (diagonal, right) in zip(self.blocks, self.pieces):
            rows = self.G.take(p[a:b], axis=0, mode="wrap")
            s += float(np.vdot(diagonal, rows.take(p[a:b], axis=1, mode="wrap")))
            if b < self.n:
                s += float(np.vdot(right, rows.take(p[b:], axis=1, mode="wrap")))
        return s

    def _root(self, p: np.ndarray) -> float:
        s = 0.0
        for (a, b), (diagonal, right) in zip(self.blocks, self.pieces):
            rows = self.G.take(p[a:b], axis=0, mode="wrap")
            block = rows.take(p[a:b], axis=1, mode="wrap")
            block += diagonal
            s += float(np.sqrt(block, out=block).sum())
            if b < self.n:
                block = rows.take(p[b:], axis=1, mode="wrap")
                block += right
                s += 2.0 * float(np.sqrt(block, out=block).sum())
        return s

    def _flat(self, perms: np.ndarray) -> np.ndarray:
        """The flat path on a block of permutations, ``chunk`` at a time."""
        n, m = self.n, self.n * self.n
        out = np.empty(perms.shape[0])
        F, G = self.F.reshape(m), self.G.reshape(m)
        step = self.chunk
        scaled = perms * n  # p_i n: the start of G's row p_i
        size = min(step, perms.shape[0])
        index, gathered = np.empty((size, n, n), dtype=np.intp), np.empty((size, m))
        for a in range(0, perms.shape[0], step):
            b = min(a + step, perms.shape[0])
            flat, values = index[: b - a], gathered[: b - a]
            np.add(scaled[a:b, :, None], perms[a:b, None, :], out=flat)
            np.take(G, flat.reshape(b - a, m), mode="wrap", out=values)
            if self.root:
                values += F
                out[a:b] = np.sqrt(values, out=values).sum(axis=1)
            else:
                np.matmul(values, F, out=out[a:b])
        return out

    def __call__(self, perms: np.ndarray) -> np.ndarray:
        if self.path == "flat":
            return self._flat(perms)
        return np.array([self.one(p) for p in perms])


def _flat_chunk(n: int, free: int) -> int:
    """Permutations per chunk of the flat path within ``free`` bytes (0: none fits)."""
    return min(flat_chunk(n), max(0, free) // (16 * n * n))


def _gather(F_rows: RowBlocks, G: np.ndarray, root: bool, held: int) -> GatherEngine:
    """The engine of F and G on the path :func:`~.choice.choose_gather` names, the flat path's
    chunks within the budget beside ``held`` bytes (the rows path when not one fits)."""
    n = G.shape[0]
    path, chunk = choose_gather(n), 1
    if path == "flat":
        need = held + 8 * n * n + 16 * n * n * flat_chunk(n)
        chunk = _flat_chunk(n, memory_budget(need) - held - 8 * n * n)
        path = "flat" if chunk >= 1 else "rows"
    return GatherEngine(F_rows, G, root, path, max(chunk, 1))


def gathered_products(
    F_rows: RowBlocks,
    G_rows: RowBlocks,
    n: int,
    *,
    root: bool = False,
    reserve: int = 0,
    what: str = "the permutation test's matrices",
) -> GatherEngine:
    r"""The engine of :math:`S(\pi) = \sum_{ij} F_{ij} G_{\pi(i)\pi(j)}` (with ``root``,
    :math:`\sum_{ij} \sqrt{F_{ij} + G_{\pi(i)\pi(j)}}`) for two symmetric n x n matrices known
    by blocks of rows, ``rows(a, b)`` the (b - a) x n rows a:b (new arrays), for permutations
    :math:`\pi` of G's rows (G with a zero diagonal for products).

    The memory of G (assembled) and F's pieces (:class:`GatherEngine`) is checked against the
    budget beside ``reserve`` bytes of the caller's before either is formed (``what`` names the
    matrices in the error); the engine holds them (``nbytes``) and never hands them out. Its
    ``squares``, the sums of the squares of F's and G's entries, bound the terms its values
    add."""
    check_fits(f"{what} (n = {n})", reserve + 8 * n * n + GatherEngine.bytes_for(n))
    G = np.empty((n, n))
    step = max(ROWS, TILE * TILE // max(n, 1))
    for a in range(0, n, step):
        G[a : a + step] = G_rows(a, min(a + step, n))
    return _gather(F_rows, G, root, reserve + G.nbytes)


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
        #: seconds per permutation in the cost model (the loop's choice of threads)
        self.seconds = pairing_costs(n, on_line=True)["sorted"]

    @staticmethod
    def _row_sums(v: np.ndarray) -> np.ndarray:
        """sum_j |v_i - v_j| for every i, by sorting (França et al. eq. 60)."""
        return SortedOperator(v).row_sums()

    def inner(self, p: np.ndarray) -> tuple[float, float]:
        """(sum_ij a_ij b_pi(i)pi(j), sum_i a_i. b_pi(i).)."""
        ys = self.y[p][self.order]
        ranks = self.rank_y[p][self.order]
        # reductions rather than BLAS dot products: O(n) work that threads share badly
        everything = (
            self.n * float(np.multiply(self.xs, ys).sum()) - float(self.xs.sum()) * float(ys.sum())
        )
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

    def __init__(self, op_x: PairwiseOperator, op_y: PairwiseOperator):
        n, K = op_x.n, op_x.directions.shape[0]
        check_fits(f"the projected permutation engine (n = {n}, {K} projections)", 80 * n * K)
        pairs = ((op_x.projections(direction=k), op_y.projections(direction=k)) for k in range(K))
        self.engines = [SortedEngine(x, y) for x, y in pairs]
        self.seconds = K * pairing_costs(n, on_line=True)["sorted"]

    def __call__(self, perms: np.ndarray) -> np.ndarray:
        return sum(engine(perms) for engine in self.engines)


def _gather_engine(op_x: PairwiseOperator, op_y: PairwiseOperator) -> GatherEngine:
    """S(pi) with F x's double-centred matrix (its centred rows) and G y's matrix, gathered
    (which must fit the memory budget beside x's centred pieces)."""
    n = op_x.n
    check_fits(f"the permutation test's matrices (n = {n})", 8 * n * n + GatherEngine.bytes_for(n))
    G = op_y._dense("y's distance matrix")
    return _gather(op_x.centred_rows, G, False, op_x.nbytes + op_y.nbytes + 8 * n * n)


#: The engine of each name :func:`~.choice.choose_engine` gives, all with one signature (as
#: scipy's ``null_calculators``).
_ENGINES = {
    "projected": ProjectedEngine,
    "sorted": lambda op_x, op_y: SortedEngine(op_x.line.x, op_y.line.x),
    "gather": _gather_engine,
}


def permuted_products(op_x: PairwiseOperator, op_y: PairwiseOperator):
    r"""The permutation engine of two operators on the same n points: a callable taking a block
    of permutations of y's rows (B x n) and returning
    :math:`S(\pi) = \sum_{ij} A_{ij} b_{\pi(i)\pi(j)} = n^2 \mathcal V_n^2(x, y_\pi)` (Székely,
    Rizzo & Bakirov 2007, eq. 2.8), A x's double-centred matrix; for two projection operators
    (their directions paired), the sum over the projections of the one-dimensional values. The
    engine is :func:`~.choice.choose_engine`'s; memory is checked against the budget before any
    matrix is formed."""
    return _ENGINES[choose_engine(op_x, op_y)](op_x, op_y)
