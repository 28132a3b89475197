"""The matrix held in memory."""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np
from scipy.linalg import blas

from .._cost import MAC, worth_threads
from .._parallel import one_blas_thread
from ._tiled import TiledOperator

__all__ = ["DenseOperator", "held_group_sums", "held_sums_bytes"]


def held_sums_bytes(n: int, k: int) -> int:
    """Memory :func:`held_group_sums` needs per labeling: its codes, its indicators and their
    triangular product (k - 1 columns each), and its sums."""
    return 2 * n + 16 * n * (k - 1) + 32 * k * k


def held_group_sums(A: np.ndarray, codes: np.ndarray, k: int, rows: np.ndarray) -> np.ndarray:
    r"""Block sums of B labelings (B x n ``codes``) of a held symmetric matrix A with row sums
    ``rows``, B x k x k (:meth:`~._base.PairwiseOperator.group_sums`).

    From the upper triangle U of A, :math:`A = U + U^\top - \mathrm{diag}(A)`: one triangular
    product :math:`Y = U Z` (BLAS ``trmm``, half the multiply-adds of :math:`A Z`) with the
    one-hot indicators Z of groups 0..k-2, then :math:`z_i^\top A z_j = z_i^\top y_j +
    z_j^\top y_i` minus the diagonal's share; the row sums close the last group. The product
    is one BLAS call, on BLAS's threads where the cost model says they are worth waking
    (:func:`energystats._cost.worth_threads`), else on the calling thread (waking them for a
    small product costs more than the product on a busy machine); each column is the same
    product either way."""
    B, n = codes.shape
    K = k - 1
    Z = np.empty((n, K * B), order="F")  # column j B + b: group j under labeling b
    codes_t = codes.T
    for j in range(K):
        np.equal(codes_t, j, out=Z[:, j * B : (j + 1) * B], casting="unsafe")
    # A is symmetric: A.T is A, Fortran-ordered, and its upper triangle is A's
    with nullcontext() if worth_threads(n * n / 2 * K * B * MAC) else one_blas_thread():
        Y = blas.dtrmm(1.0, A.T, Z)
    Zt, Yt = Z.T, Y.T  # C-ordered: one row per group and labeling
    M = np.empty((B, k, k))
    diag = np.diag(A)
    # matrix-vector products by einsum: numpy's BLAS call on these transposed views was
    # ten times slower (measured)
    for i in range(K):
        Zi, Yi = Zt[i * B : (i + 1) * B], Yt[i * B : (i + 1) * B]
        for j in range(i, K):
            Zj, Yj = Zt[j * B : (j + 1) * B], Yt[j * B : (j + 1) * B]
            both = np.einsum("bp,bp->b", Zi, Yj) + np.einsum("bp,bp->b", Zj, Yi)
            if i == j and diag.any():
                both -= np.einsum("bp,p->b", Zi, diag)
            M[:, i, j] = M[:, j, i] = both
    R = np.einsum("cp,p->c", Zt, rows).reshape(K, B).T  # z_i' A 1
    M[:, :K, K] = R - M[:, :K, :K].sum(axis=2)
    M[:, K, :K] = M[:, :K, K]
    M[:, K, K] = (rows.sum() - R.sum(axis=1)) - M[:, :K, K].sum(axis=1)
    return M


class DenseOperator(TiledOperator):
    """The matrix held in memory (optionally restricted to the rows and columns ``index``).

    ``A`` is used as given, never copied or modified: a user's precomputed
    matrix costs no extra memory. With ``index``, products read
    ``A[index][:, index]`` in bands of rows.
    """

    kind = "dense"
    tile_views = True

    def __init__(
        self,
        A: np.ndarray,
        index: np.ndarray | None = None,
        *,
        owned: bool = False,
        nbytes: int | None = None,
        recipe=None,
    ):
        self.A = A
        self.recipe = recipe
        self.index = index
        self.n = A.shape[0] if index is None else index.shape[0]
        self.nbytes = nbytes if nbytes is not None else (A.nbytes if owned else 0)
        self.band = max(1, min(self.n, self.block_rows()))  # rows per read of A[index][:, index]
        # tiles are views, nothing to evaluate: one multi-threaded BLAS product at a time
        self.threads = 1

    def _held_matrix(self):
        return self.A if self.index is None else None

    def _tile(self, a, b, c, e, out=None):
        if self.index is None:
            return self.A[a:b, c:e]
        return self.A[np.ix_(self.index[a:b], self.index[c:e])]

    def _matmat(self, Z):
        if self.index is None:
            return self.A @ Z
        out = np.empty((self.n, Z.shape[1]))
        for a in range(0, self.n, self.band):
            out[a : a + self.band] = self.A[np.ix_(self.index[a : a + self.band], self.index)] @ Z
        return out

    def rows(self, idx):
        if self.index is None:
            return self.A[idx]
        return np.take(self.A[self.index[idx]], self.index, axis=-1)

    def diagonal(self):
        return np.diag(self.A).copy() if self.index is None else self.A[self.index, self.index]

    def row_sums(self):
        if self._row_sums is None and self.index is None:
            self._row_sums = self.A.sum(axis=1)
        return super().row_sums()

    def group_sums(self, codes, k, cross):
        r"""Block sums of B labelings at once (see :meth:`PairwiseOperator.group_sums`) from
        the upper triangle of the held matrix (:func:`held_group_sums`). A restricted matrix
        (``index``) is read in tiles instead."""
        if self.index is not None:
            return super().group_sums(codes, k, cross)
        self.check_beside(
            f"the permutation batch ({self.kind} {self.n} x {self.n} operator, "
            f"{codes.shape[0]} labelings)",
            self.group_sums_bytes(k) * codes.shape[0],
        )
        return held_group_sums(self.A, codes, k, self.row_sums())

    def group_sums_bytes(self, k):
        """Memory :meth:`group_sums` needs per labeling: its codes, its indicators and their
        triangular product (k - 1 columns each), and its sums."""
        if self.index is not None:
            return super().group_sums_bytes(k)
        return held_sums_bytes(self.n, k)

    def product_bytes(self, m):
        return 8 * self.n * m + (8 * self.band * (self.n + m) if self.index is not None else 0)

    def restrict(self, idx):
        index = idx if self.index is None else self.index[idx]
        return DenseOperator(self.A, index, nbytes=self.nbytes)  # the whole matrix stays held
