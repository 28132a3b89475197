r"""|x - y| on the line, by prefix sums of the sorted data (França et al. eq. 60-62)."""

from __future__ import annotations

import numpy as np

from .._config import check_fits
from ._base import Line, PairwiseOperator, is_scalar
from ._prefix import (
    as_packed,
    block_sums_on_line,
    group_sums_on_line,
    labeling_bytes,
    sweep_bytes,
    total_on_line,
)
from .choice import choose_line_sums
from .dense import held_group_sums, held_sums_bytes

__all__ = ["SortedOperator"]


class SortedOperator(PairwiseOperator):
    r"""D with :math:`\rho(x, y) = |x - y|` on the line, by prefix sums after one sort.

    For a column z, with :math:`B_i, B^P_i` the sums of :math:`z_j` and
    :math:`z_j x_j` over the points sorted before :math:`x_i` and
    :math:`S, S^P` their totals (França et al. eq. 60: |x - y| is x - y or
    y - x by the order of x and y),

    .. math::

        (D z)_i = x_i (2 B_i - S) + S^P - 2 B^P_i .

    Ties need no order (their distances are 0). The data are centred first,
    so an offset costs no precision. Block sums of labelings (:meth:`group_sums`,
    :meth:`block_sums`) come from the gaps between sorted values and the labels' prefix
    counts (:mod:`._prefix`), in blocks of positions: no n x k product. Time O(n m) per
    product after an O(n log n) sort; memory 16 n bytes (the order and the sorted values),
    and O(n m) per product. Below a few hundred points the block sums of many labelings are
    cheaper from the matrix |x_i - x_j| formed for the call (:func:`~.choice.choose_line_sums`),
    with the labelings as codes rather than bits.
    """

    kind = "sorted"
    tiled = True  # its tiles are |x_i - x_j| of two slices
    batch_cap = 64 * 2**20

    def __init__(self, x: np.ndarray, *, recipe=None):
        self.x = x
        self.recipe = recipe
        self.n = x.shape[0]
        check_fits(
            f"the sorted data ({self.n} points on the line: their order and sorted values)",
            16 * self.n,
        )
        self.order = np.argsort(x)  # ties in any order: their distances are 0
        self.xs = x[self.order]
        self.xs -= self.xs.mean()
        self.line = Line(x, self.order, self.xs)
        self.nbytes = 16 * self.n + sweep_bytes()
        self._total = None
        #: the path of :meth:`group_sums`: prefix sums ("sorted") or the matrix ("dense")
        self.sums = choose_line_sums(self.n)

    @property
    def packed_labelings(self) -> bool:
        """Labelings packed as bits for the prefix sums; as codes for the matrix's products."""
        return self.sums == "sorted"

    def _positions(self, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
        """The points at sorted positions a..b-1 and the sorted values there and at b."""
        return self.order[a:b], self.xs[a : b + 1]

    def _matmat(self, Z):
        Zs = Z[self.order]
        ZP = Zs * self.xs[:, None]
        B = np.cumsum(Zs, axis=0)
        BP = np.cumsum(ZP, axis=0)
        S, SP = B[-1].copy(), BP[-1].copy()
        B -= Zs  # exclusive: the points sorted strictly before
        BP -= ZP
        B *= 2.0
        B -= S
        B *= self.xs[:, None]
        BP *= -2.0
        BP += SP
        B += BP
        out = np.empty_like(B)
        out[self.order] = B
        return out

    def rows(self, idx):
        if is_scalar(idx):
            return np.abs(self.x[idx] - self.x)
        return np.abs(self.x[idx][:, None] - self.x[None, :])

    def _tile(self, a, b, c, e, out=None):
        return np.abs(np.subtract(self.x[a:b, None], self.x[None, c:e], out=out), out=out)

    def product_bytes(self, m):
        return 8 * self.n * m * 5

    def row_sums(self):
        """sum_j |x_i - x_j| in O(n) with three n-vectors: for the point of rank t (1-based)
        in sorted order, x_(t) (2 (t - 1) - n) + sum_s x_(s) - 2 sum_{s < t} x_(s) (the
        product formula above with z = 1)."""
        if self._row_sums is None:
            what = f"the row sums ({self.kind} {self.n} x {self.n} operator)"
            self.check_beside(what, 24 * self.n)
            r = np.arange(-self.n, self.n, 2, dtype=np.float64)  # 2 (t - 1) - n
            r *= self.xs
            before = np.cumsum(self.xs)
            total = before[-1]
            before -= self.xs
            before *= -2.0
            before += total
            r += before
            del before
            self._row_sums = np.empty(self.n)
            self._row_sums[self.order] = r
        return self._row_sums

    def total(self) -> float:
        """The sum over all ordered pairs, from the gaps between sorted values (O(n), in blocks)."""
        if self._total is None:
            self._total = total_on_line(self.n, self._positions)
        return self._total

    def group_sums(self, codes, k, cross):
        r"""As :meth:`PairwiseOperator.group_sums`, from the gaps between sorted values and the
        labels' prefix counts (:mod:`._prefix`), O(n k) per labeling without a product.
        ``codes`` may be :class:`PackedLabelings`; off-diagonal sums are always computed."""
        if self.sums == "dense":
            n = self.n
            self.check_beside(f"the permutation batch (the {n} x {n} matrix of points on the line, "
                              f"{codes.shape[0]} labelings)",
                              8 * n * n + self.group_sums_bytes(k) * codes.shape[0])
            return held_group_sums(self._tile(0, n, 0, n), codes, k, self.row_sums())
        labelings = as_packed(codes, k)
        self.check_beside(
            f"the permutation batch ({self.kind} {self.n} x {self.n} operator, {labelings.count} "
            "labelings)",
            self.group_sums_bytes(k) * labelings.count,
        )
        M, self._total = group_sums_on_line(self.n, labelings, self._positions)
        return M

    def group_sums_bytes(self, k):
        """A labeling's bits, moments, block sums and share of a sweep's work arrays (its
        codes, indicators and products on the matrix's path, :func:`~.dense.held_sums_bytes`)."""
        return held_sums_bytes(self.n, k) if self.sums == "dense" else labeling_bytes(self.n, k)

    def block_sums(self, codes, k, weights=None):
        """Z' D Z for the weighted indicator of ``codes``, by weighted prefix sums in blocks of
        sorted positions (no n x k array)."""
        return block_sums_on_line(self.n, codes, weights, k, self._positions)

    def restrict(self, idx):
        return SortedOperator(self.x[idx])


def sorted_pair_sums(xs: np.ndarray) -> np.ndarray:
    r""":math:`\sum_{i, j} |x_i - x_j|` of each row of ``xs`` (rows sorted ascending), O(n) a row.

    The row sums of :class:`SortedOperator` added up: :math:`2 \sum_t (2t - n - 1)\,x_{(t)}`,
    t = 1..n, on each row centred first (the weights sum to zero, so an offset costs no
    precision). For a stack of independent samples (a bootstrap's), not the pairs of one:
    no pair is formed. Row by row with numpy's reductions (not a BLAS product, whose
    blocking depends on the stack), so equal rows give equal sums in any stack.
    """
    n = xs.shape[-1]
    weights = 2.0 * np.arange(1, n + 1) - (n + 1.0)
    centred = xs - xs.mean(axis=-1, keepdims=True)
    centred *= weights
    return 2.0 * centred.sum(axis=-1)
