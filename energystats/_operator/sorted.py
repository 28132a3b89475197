r"""|x - y| on the line, by prefix sums of the sorted data (França et al. eq. 60-62)."""

from __future__ import annotations

import numpy as np

from .._config import memory_budget
from ._base import PairwiseOperator, is_scalar

__all__ = ["SortedOperator"]

#: Largest bytes of the temporaries of one block of labelings in
#: :meth:`SortedOperator.group_sums` (10 bytes per labeling and point, 9 more per group for
#: cross sums), at most an eighth of the memory budget: the block stays in the caches.
_GROUP_BLOCK_BYTES = 2**25


class SortedOperator(PairwiseOperator):
    r"""D with :math:`\rho(x, y) = |x - y|` on the line, by prefix sums after one sort.

    For a column z, with :math:`B_i, B^P_i` the sums of :math:`z_j` and
    :math:`z_j x_j` over the points sorted before :math:`x_i` and
    :math:`S, S^P` their totals (França et al. eq. 60: |x - y| is x - y or
    y - x by the order of x and y),

    .. math::

        (D z)_i = x_i (2 B_i - S) + S^P - 2 B^P_i .

    Ties need no order (their distances are 0). The data are centred first,
    so an offset costs no precision. Time O(n m) per product after an
    O(n log n) sort; memory O(n m).
    """

    kind = "sorted"
    batch_cap = 64 * 2**20

    def __init__(self, x: np.ndarray):
        self.x = x
        self.n = x.shape[0]
        self.order = np.argsort(x)  # unstable is fine: ties contribute zero
        xs = x[self.order]
        self.xs = xs - xs.mean()
        self._ranks = np.arange(1.0, self.n + 1.0)  # t = 1..n, for eq. (62)

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
            r = 2.0 * self._ranks
            r -= 2.0 + self.n
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

    def group_sums(self, codes, k, cross):
        r"""As :meth:`PairwiseOperator.group_sums`, by eq. (62) on the sorted data, O(n k) per
        labeling without a product and without a loop over labelings.

        For a group C of m members, ranked :math:`r = 1..m` in sorted order,
        :math:`\sum_{x, y \in C} |x - y| = 2 \sum_{x \in C} x\,(2 r_x - 1 - m)`: with the
        group's indicator E in sorted order (one row per labeling) and its running count
        R = cumsum(E), that is :math:`2 (2 (E R) x_s - (1 + m) E x_s)`, two matrix-vector
        products per group for a whole block of labelings. Cross sums come from the
        unions of groups (ranks in a union: :math:`R_i + R_j`). Labelings are taken in
        blocks of about 32 MiB of temporaries."""
        B, n = codes.shape
        M = np.zeros((B, k, k))
        per_point = 10 + (9 * k if cross else 0)  # codes, indicator, counts; those kept for unions
        step = max(1, min(_GROUP_BLOCK_BYTES, memory_budget() // 8) // (n * per_point))
        for a in range(0, B, step):
            self._block_group_sums(np.take(codes[a : a + step], self.order, axis=1), k, cross, M[a : a + step])
        return M

    def _block_group_sums(self, ordered: np.ndarray, k: int, cross: bool, M: np.ndarray) -> None:
        """:meth:`group_sums` of a block of labelings whose codes are in sorted order, into M."""
        xs = self.xs
        counts, members, sums = [], [], []
        for j in range(k):
            E = ordered == j
            R = np.cumsum(E, axis=1, dtype=np.float64)
            m = R[:, -1].copy()
            if cross:
                counts.append(R.copy())
                members.append(E)
            R *= E
            S1 = R @ xs
            np.copyto(R, E)  # the indicator as floats, in R's memory
            S0 = R @ xs
            if cross:
                sums.append(S0)
            M[:, j, j] = 2.0 * (2.0 * S1 - (1.0 + m) * S0)
        if cross:
            for i in range(k):
                for j in range(i + 1, k):
                    E = members[i] | members[j]
                    R = counts[i] + counts[j]
                    m = R[:, -1].copy()
                    R *= E
                    both = 2.0 * (2.0 * (R @ xs) - (1.0 + m) * (sums[i] + sums[j]))
                    M[:, i, j] = M[:, j, i] = 0.5 * (both - M[:, i, i] - M[:, j, j])

    def group_sums_bytes(self, k):
        return self.n * 2 + 64 * k * k

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
