"""The matrix held in memory."""

from __future__ import annotations

import numpy as np

from ._tiled import TILE, TiledOperator

__all__ = ["DenseOperator"]


class DenseOperator(TiledOperator):
    """The matrix held in memory (optionally restricted to the rows and columns ``index``).

    ``A`` is used as given, never copied or modified: a user's precomputed
    matrix costs no extra memory. With ``index``, products read
    ``A[index][:, index]`` in bands of rows.
    """

    kind = "dense"
    tile_views = True

    def __init__(self, A: np.ndarray, index: np.ndarray | None = None, *, owned: bool = False, nbytes: int | None = None):
        self.A = A
        self.index = index
        self.n = A.shape[0] if index is None else index.shape[0]
        self.nbytes = nbytes if nbytes is not None else (A.nbytes if owned else 0)
        self.band = max(1, min(self.n, TILE * TILE // max(self.n, 1)))  # rows per read of A[index][:, index]
        self.tile = TILE
        self.threads = 1  # tiles are views, nothing to evaluate: one multi-threaded BLAS product at a time

    def held_matrix(self):
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

    def product_bytes(self, m):
        return 8 * self.n * m + (8 * self.band * (self.n + m) if self.index is not None else 0)

    def restrict(self, idx):
        index = idx if self.index is None else self.index[idx]
        return DenseOperator(self.A, index, nbytes=self.nbytes)  # the whole matrix stays held
